"""The one grammar of true and false, for spm's options and brahmic_pua's, in the library and on
every command's line (the CLI's flags read their values here too)."""

from __future__ import annotations

from typing import Any

TRUE_WORDS = ("1", "true", "t", "yes", "y", "on")
FALSE_WORDS = ("0", "false", "f", "no", "n", "off")


def read_bool(name: str, value: Any) -> bool:
    """The one boolean reader, for spm's options and brahmic_pua's, in the library and the CLI:
    a bool, or one of true/false, 1/0, yes/no, on/off, t/f, y/n in any case. Anything else is
    a one-line error naming the option: a typo such as "ture" must not silently mean false
    (or, through ``bool("false")``, true)."""
    try:
        return bool_word(value)
    except ValueError:
        raise ValueError(
            f"{name}={value!r} is not true or false (write true/false, 1/0 or yes/no)"
        ) from None


def bool_word(value: Any) -> bool:
    """``value`` as true or false; ValueError (with the word) for anything else."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(word)


__all__ = ["FALSE_WORDS", "TRUE_WORDS", "bool_word", "read_bool"]
