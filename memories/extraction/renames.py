"""A rewrite follows its fact: the path a rewritten memory lives at.

A memory's path names its fact (``facts/bristol/i-live-in-bristol-….md``). When a
rewrite changes what the memory is about, the file moves to a path that names the new
fact, in the same commit (``memories.conversation_jobs`` records the move in the commit's
``Gitloom-Moved`` trailer, which history and blame follow). Both extractors go through
:func:`rewritten_path`: a model's rewrite may carry a new title and topic; a rewrite
without them (the offline extractor's) moves only when the old name states a value the
new text no longer holds, with a title and topic derived from the new text here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from memories.extraction.stopwords import STOPWORDS
from namespaces.memory_format import new_memory_path, slugify

_WORD = re.compile(r"\w+", re.UNICODE)
_HASHED_STEM = re.compile(r"(?P<slug>.+)-[0-9a-f]{8}")
_SPILL = re.compile(r"(?P<topic>.+)-\d+")
_TITLE_WORDS = 8  # as many words as a new memory's derived title has
# A capitalised word that starts a sentence is no name ("We moved to Bath.").
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]*")


def words(text: str) -> set[str]:
    """The content words of ``text`` (case-folded, stopwords out), for comparing versions."""
    return {w.casefold() for w in _WORD.findall(text.replace("-", " "))} - STOPWORDS


def specifics(text: str) -> set[str]:
    """The words of ``text`` that name a value: capitalised (a place, a brand, a person)
    or holding a digit (a date, a price, a count); case-folded."""
    return {
        w.casefold()
        for w in _WORD.findall(text.replace("-", " "))
        if w[0].isupper() or any(c.isdigit() for c in w)
    } - STOPWORDS


def derived_title(text: str) -> str:
    """A title for a text that has none: its first sentence's first words, unbracketed."""
    first = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    first = re.sub(r"\s*\([^)]*\)?", "", first).strip(" .!?;:,")
    return " ".join(first.split()[:_TITLE_WORDS])


def _substituted(slug: str, stale: set[str], before: str, after: str) -> str:
    """The old slug with its one stale value replaced by the one new value of the same
    kind the new text states ("i-paid-900-for-a-brompton" -> "i-paid-850-for-a-brompton",
    "i-live-in-bristol" -> "i-live-in-bath"); "" when that is not one-for-one."""
    if len(stale) != 1:
        return ""
    (old,) = stale
    numeric = any(c.isdigit() for c in old)
    new = [
        w
        for w in sorted(specifics(after) - words(before))
        if any(c.isdigit() for c in w) == numeric
    ]
    if len(new) != 1:
        return ""
    parts = slug.split("-")
    return "-".join(new[0] if part == old else part for part in parts)


def _derived_topic(before: str, after: str) -> str:
    """The first name the new text states that the old did not ("Bath" for a move from
    Bristol), else its first new content word; "" when nothing is new."""
    old = words(before)
    for match in _NAME.finditer(after):
        if match.group(0).casefold() not in old and match.group(0).casefold() not in STOPWORDS:
            return match.group(0)
    for word in _WORD.findall(after):
        if word.casefold() not in old and word.casefold() not in STOPWORDS and word.isalpha():
            return word
    return ""


def rewritten_path(
    *,
    path: str,
    tier: str,
    before: str,
    after: str,
    title: str = "",
    topic: str = "",
    topic_sizes: Callable[[str], int] | Mapping[str, int],
) -> str:
    """Where the memory at ``path`` lives once its text is ``after`` (was ``before``).

    ``path`` itself unless its name no longer fits: a ``title``/``topic`` given that
    differs from the name, or a name (topic folder or file slug) holding a value (a
    name or number, :func:`specifics`) that the rewrite took out of the text, in which
    case the missing parts are derived from ``after``. The new name's hash is the new text's, as a new memory's would be."""
    _, folder, name = path.split("/", 2) if path.count("/") == 2 else ("", "", "")
    if not name:
        return path  # not a pipeline-shaped path (an imported oddity): leave it be
    stem = name.removesuffix(".md")
    hashed = _HASHED_STEM.fullmatch(stem)
    slug = hashed.group("slug") if hashed else stem
    spill = _SPILL.fullmatch(folder)
    base_topic = spill.group("topic") if spill and not folder.isdigit() else folder
    # Only a value taken out of the text makes a name stale: "lives" -> "lived" does not.
    gone = specifics(before) - words(after)
    topic_stale = bool(words(base_topic) & gone)
    slug_stale = bool(words(slug) & gone)
    new_title = title
    if not new_title and slug_stale:
        stale = {w for w in slug.split("-") if w in gone}
        new_title = _substituted(slug, stale, before, after) or derived_title(after)
    new_topic = topic
    if not new_topic and topic_stale:
        stale = {w for w in base_topic.split("-") if w in gone}
        new_topic = _substituted(base_topic, stale, before, after) or _derived_topic(before, after)
    title_slug = slugify(new_title) if new_title else slug
    topic_slug = slugify(new_topic, max_len=40, fallback="general") if new_topic else base_topic
    if title_slug == slug and topic_slug == base_topic:
        return path
    return new_memory_path(
        tier=tier,
        topic_hint=topic_slug,
        title=title_slug,
        body=after,
        topic_sizes=topic_sizes,
    )
