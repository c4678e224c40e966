"""A name put right after a typo: "Aoife* sorry, autocorrect" after "My daughter Alfie
starts camogie on Saturday" is the same statement with the name spelt as meant.

Only a short message with a typo word ("autocorrect", "typo", "spelt", "I meant", or a
``*`` on the name) respells, and only a name the dictionary does not know that looks
like the new one (same first letter, or most letters alike): "sorry, Dave's not coming"
respells no "Dan".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from memories.extraction.offline.language import dictionary_word

# "I meant" only right before the name at the end: "I meant to call Sarah" respells nothing
_NAME = r"[A-Za-zÀ-ÖØ-öø-ÿ'’-]+"  # a name's letters, accents, apostrophes and hyphens
_TYPO = re.compile(
    r"\b(?:auto-?correct(?:ed)?|typo|spelt|spelled)\b|\*"
    rf"|\bi meant\s+\*?{_NAME}\*?\W*$",
    re.IGNORECASE,
)
# a whole word: not the letter of "flat 4D" or "#08-121"
_WORD = re.compile(rf"(?<![\w#])\*?({_NAME})\*?(?![\d])")
_NOT = re.compile(rf"\bnot\s+({_NAME})", re.IGNORECASE)
_NAME_NOT_NAME = re.compile(rf"\b(?P<name>[A-Z]{_NAME}),? not (?P<wrong>[A-Z]{_NAME})\b")
_MAX_WORDS = 12  # "Tomas* sorry, autocorrect hates polish names lol"


@dataclass(frozen=True)
class Respelling:
    name: str  # as meant
    wrong: str | None  # as mistyped, when the message says it ("not Alfie")
    rest: str = ""  # what the message goes on to say after the sentence that respells


def respelling(content: str) -> Respelling | None:
    """The name a short typo message, or a typo message's first sentence, puts right,
    if it is one ("sorry autocorrect, its Aidan with an a. and hes pumped": the rest is
    said as any message is)."""
    text = " ".join(content.split())
    said_instead = _NAME_NOT_NAME.search(text)
    if said_instead is not None and looks_alike(said_instead["name"], said_instead["wrong"]):
        # "her name is Aoibhe not Aoife, my phone keeps changing it. she's 4": a name put
        # right, no typo word needed (not "Priya, not Anika, is coming": another person);
        # what follows is said as any message is
        rest = text[said_instead.end() :].lstrip(" ,.;:-–—")
        return Respelling(name=said_instead["name"], wrong=said_instead["wrong"], rest=rest)
    fix = _respelling(text)
    if fix is not None:
        return fix
    first, _, rest = text.partition(". ")
    fix = _respelling(first) if rest else None
    return Respelling(name=fix.name, wrong=fix.wrong, rest=rest) if fix is not None else None


def _respelling(text: str) -> Respelling | None:
    if len(text.split()) > _MAX_WORDS or not _TYPO.search(text):
        return None
    wrong_match = _NOT.search(text)
    wrong = wrong_match.group(1) if wrong_match else None
    names = [
        m.group(1)
        for m in _WORD.finditer(text)
        if m.group(1)[:1].isupper()
        and len(m.group(1)) > 1
        and m.group(1) != wrong
        and m.group(1).lower() not in ("i", "sorry", "typo", "autocorrect", "meant", "not")
        # a capital inside the sentence makes a name of a word the tables know too
        # ("its Jackson"); one opening it may be any word
        and (m.start() > 0 or not dictionary_word(m.group(1).lower()))
    ]
    if len(names) != 1:
        return None
    return Respelling(name=names[0], wrong=wrong)


def mistyped(text: str, fix: Respelling) -> str | None:
    """The word of ``text`` that ``fix`` puts right: a capitalised word the dictionary
    does not know, not the new name, that looks like it."""
    if fix.wrong is not None:
        return fix.wrong if re.search(rf"\b{re.escape(fix.wrong)}\b", text) else None
    for m in reversed(list(re.finditer(rf"\b[A-Z]{_NAME}\b", text))):
        word = m.group(0)
        if word == fix.name:
            continue
        alike = SequenceMatcher(None, word.lower(), fix.name.lower()).ratio()
        if dictionary_word(word.lower()) and alike < 0.7:
            continue  # "Saturday", "Sorry": a word, unless it is nearly the name ("Sian")
        if looks_alike(word, fix.name):
            return word
    return None


def looks_alike(name: str, other: str) -> bool:
    """Two spellings of one name ("Aoibhe", "Aoife"), not two names ("Priya", "Anika")."""
    alike = SequenceMatcher(None, name.lower(), other.lower()).ratio()
    return name != other and (alike >= 0.6 or name[0].lower() == other[0].lower() and alike >= 0.4)


def respelt(text: str, wrong: str, name: str) -> str:
    return re.sub(rf"\b{re.escape(wrong)}\b", name, text)
