"""Names a query mentions, for matching against memories' tags (``retrieve.sql``).

A name is a capitalised word of two letters or more that is not the query's first word
(which is capitalised anyway) and not in capitals throughout (an acronym such as "LGBTQ" is a topic word,
which the lexical arm already weighs), with a possessive "'s" dropped; a run of them
("New York") also counts as a whole, lower-cased:
``query_names("Did Melanie visit New York?") == ["melanie", "new", "new york", "york"]``.
:func:`name_tags` gives the forms a tag naming them takes, for ``retrieve.sql``.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_POSSESSIVE = re.compile(r"['’]s$")
_NOT_ALNUM = re.compile(r"[\W_]+")


def _normal(text: str) -> str:
    return _NOT_ALNUM.sub(" ", text.lower()).strip()


def query_names(text: str) -> list[str]:
    """The names in ``text`` and the runs of consecutive names, normalised, sorted."""
    names: set[str] = set()
    run: list[str] = []
    run_end = 0
    for index, match in enumerate(_WORD.finditer(text)):
        word = _POSSESSIVE.sub("", match.group())
        # "I" is no name; neither is an acronym, nor the first word of a sentence-like query
        if index > 0 and len(word) > 1 and word[0].isupper() and not word.isupper():
            if run and text[run_end : match.start()] != " ":  # "Jon, Gina": two runs
                names.add(_normal(" ".join(run)))
                run = []
            run.append(word)
            run_end = match.end()
            names.add(_normal(word))
        elif run:
            names.add(_normal(" ".join(run)))
            run = []
    if run:
        names.add(_normal(" ".join(run)))
    return sorted(name for name in names if name)


def name_tags(text: str) -> list[str]:
    """The tags that name what ``text`` names: each name of :func:`query_names` in lower
    case and capitalised, with its spaces also as "-" and "_" ("new york", "new-york",
    "New-York", ...), for one array overlap with a memory's tags."""
    forms: set[str] = set()
    for name in query_names(text):
        for cased in (name, name.title()):
            forms.update({cased, cased.replace(" ", "-"), cased.replace(" ", "_")})
    return sorted(forms)
