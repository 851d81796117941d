"""The ``brahmic-pua`` console script's entry point, outside the ``brahmic_pua`` package.

Why a module of its own: the command line's Ctrl-C handling (one line, ``Error: interrupted``,
exit 130) is installed by :mod:`brahmic_pua.cli.main`, and importing anything inside the
package first runs the package's ``__init__``, which loads the library (about 0.2 s): a Ctrl-C
in that window would end in a KeyboardInterrupt traceback. This module imports nothing of
brahmic_pua until :func:`main` runs, and turns a Ctrl-C during that import (one that lands in
a compiled module's initialization too, which Python reports as an ImportError) into the same one
line and exit status as a Ctrl-C anywhere else (a Ctrl-C before Python has started at all
ends the process by SIGINT, silently, as for any program).
"""

from __future__ import annotations

import sys

#: 128 + SIGINT, as a shell reports a Ctrl-C (and as brahmic_pua.cli.main exits on one).
INTERRUPTED = 130


def main() -> None:
    """Load the command line, then run it."""
    try:
        from brahmic_pua.cli.main import main as run
    except (KeyboardInterrupt, ImportError) as error:
        # A Ctrl-C inside a compiled module's initialization (sentencepiece's, pyarrow's)
        # reaches us as that module's "ImportError: initialization failed", caused by it.
        if not interrupted(error):
            raise
        sys.stderr.write("Error: interrupted\n")
        raise SystemExit(INTERRUPTED) from None
    run()


def interrupted(error: BaseException) -> bool:
    """Whether ``error`` is a Ctrl-C, or an error a Ctrl-C caused."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


if __name__ == "__main__":
    main()
