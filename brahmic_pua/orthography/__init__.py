"""The paper's formal model of Brahmic orthography (§3) as Python types."""

from brahmic_pua.orthography.charclass import DEPENDENTS, STARTERS, CharClass
from brahmic_pua.orthography.classify import (
    classify,
    indic_category,
    script_of_char,
    unicode_script,
)
from brahmic_pua.orthography.relation import RULES, Rule, Transition, can_follow, transitions
from brahmic_pua.orthography.tokens import combine, fix_token, is_valid_token
from brahmic_pua.orthography.unicode_tables import SCRIPT_NAMES, UNICODE_VERSION

__all__ = [
    "DEPENDENTS",
    "RULES",
    "SCRIPT_NAMES",
    "STARTERS",
    "UNICODE_VERSION",
    "CharClass",
    "Rule",
    "Transition",
    "can_follow",
    "classify",
    "combine",
    "fix_token",
    "indic_category",
    "is_valid_token",
    "script_of_char",
    "transitions",
    "unicode_script",
]
