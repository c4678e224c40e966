"""Did anyone say it? The paraphrase-tolerant measure of ``eval_writepath``.

The "never said" measure (``evaluation.writepath.unsaid_grams``: word 4-grams of a rewrite
that no message holds) suits the offline extractor, which quotes what was said; a model
paraphrases, and every paraphrase trips it. This one asks only what a paraphrase must
keep: every **name**, **number** and **date** a memory states occurs in its source
messages, or anywhere the scenario's conversation said it (a reference resolved with an
earlier session: "the car" -> "the Honda Jazz"), or, for a date, is a resolved date
consistent with when its messages were sent (near one of them, and a message points at
it by a day, month, weekday or a relative word such as "tomorrow").

:func:`ungrounded` returns a memory's terms that pass none of these.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

MONTHS = [m.lower() for m in calendar.month_name[1:]]
WEEKDAYS = [d.lower() for d in calendar.day_name]
_NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_RELATIVE = frozenset(
    [
        "today",
        "tonight",
        "tomorrow",
        "yesterday",
        "week",
        "weekend",
        "month",
        "year",
        "ago",
        "next",
        "last",
        "this",
        "coming",
        "morning",
        "afternoon",
        "evening",
        "night",
        "days",
        "weeks",
        "months",
        "fortnight",
    ]
)
# Words a sentence may start with that name nothing (checked case-insensitively).
_OPENERS = frozenset(
    [
        "the",
        "a",
        "an",
        "he",
        "she",
        "they",
        "his",
        "her",
        "their",
        "its",
        "it",
        "this",
        "that",
        "these",
        "those",
        "there",
        "then",
        "on",
        "in",
        "at",
        "for",
        "from",
        "since",
        "until",
        "after",
        "before",
        "during",
        "as",
        "by",
        "with",
        "when",
        "while",
        "if",
        "her",
        "his",
        "both",
        "each",
        "every",
        "all",
        "some",
        "most",
        "no",
        "not",
        "currently",
        "previously",
        "recently",
        "now",
        "also",
        "and",
        "but",
        "or",
    ]
)

# Capitalised words that name nobody: titles before a name, the roles of a transcript.
_NOT_NAMES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "user", "assistant"})

_ISO = re.compile(r"\b(\d{4})-(\d{2})(?:-(\d{2}))?\b")
_MONTH_YEAR = re.compile(rf"\b({'|'.join(MONTHS)})\s+(\d{{4}})\b", re.IGNORECASE)
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")
_CLOCK = re.compile(r"\b(\d{1,2})[:.][0-5]\d\b")
_TOKEN = re.compile(r"[A-Za-z][\w'’-]*")


@dataclass(frozen=True)
class Said:
    """One message as the measure sees it: its text (with the speaker's name) and time."""

    text: str
    when: datetime | None = None


def _fold(text: str) -> str:
    return text.casefold().replace("’", "'")


def _said_numbers(texts: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for text in texts:
        folded = _fold(text)
        found |= {n.replace(",", "") for n in _DIGITS.findall(folded)}
        for token in re.findall(r"[a-z]+", folded):
            if token in _NUMBER_WORDS:
                found.add(str(_NUMBER_WORDS.index(token)))
        # "3rd", "21st": the digits already counted; "twenty-one"
        for tens, unit in re.findall(r"\b(twenty|thirty|forty|fifty)[- ]([a-z]+)", folded):
            if unit in _NUMBER_WORDS[1:10]:
                base = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}[tens]
                found.add(str(base + _NUMBER_WORDS.index(unit)))
    return found


def _points_at(day: date, said: Sequence[Said], *, month_only: bool = False) -> bool:
    """A resolved date is consistent when a message points at it: its month's name or
    its day of the month said within a year of it, or a relative word ("tomorrow",
    "next week", "this weekend") or its weekday said within six weeks of it. A month
    alone (``2026-09``, ``September 2026``) needs its month's name."""
    for message in said:
        if message.when is None:
            continue
        distance = abs((day - message.when.date()).days)
        if distance > 400:
            continue
        folded = _fold(message.text)
        words = set(re.findall(r"[a-z]+", folded))
        if MONTHS[day.month - 1] in words or MONTHS[day.month - 1][:3] in words:
            return True
        if month_only:
            # "last month", "in three months": a month reached by counting from the message
            if distance <= 200 and words & {"month", "months"}:
                return True
            continue
        if distance <= 45 and (WEEKDAYS[day.weekday()] in words or words & _RELATIVE):
            return True
        if re.search(rf"\b0?{day.day}(?:st|nd|rd|th)?\b", folded):
            return True
    return False


# "as of 2026-12-03", "said on 2026-12-03": the date a statement was made, not a claim
# about when something happened ("bought on 2026-12-04" is still judged)
_SAYING = re.compile(
    r"(?:as of|as at|by|(?:said|announced|reported|mentioned|noted|told) (?:on|in))\s+$",
    re.IGNORECASE,
)


def _anchored_to_saying(
    body: str, shown: str, day: date, said: Sequence[Said], *, month_only: bool
) -> bool:
    """A date the body marks as when it was said ("as of ...") that is the day (or the
    month) one of the conversation's messages was sent, on the speaker's own clock."""
    index = body.find(shown)
    if index < 0 or not _SAYING.search(body[max(0, index - 24) : index]):
        return False
    for message in said:
        if message.when is None:
            continue
        sent = message.when.date()
        if (sent.year, sent.month) == (day.year, day.month) and (month_only or sent == day):
            return True
    return False


def _date_terms(body: str) -> tuple[list[tuple[str, date, bool]], str]:
    """The dates a body states (ISO, or a month with its year), and the body without
    them (so their digits are not judged again as numbers)."""
    dates: list[tuple[str, date, bool]] = []

    def iso(match: re.Match) -> str:
        year, month, day = int(match[1]), int(match[2]), match[3]
        try:
            dates.append((match[0], date(year, month, int(day or 1)), day is None))
        except ValueError:
            return match[0]  # no calendar date: left to be judged as numbers
        return " "

    def month_year(match: re.Match) -> str:
        month = MONTHS.index(match[1].casefold()) + 1
        dates.append((match[0], date(int(match[2]), month, 1), True))
        return " "

    rest = _ISO.sub(iso, body)
    rest = _MONTH_YEAR.sub(month_year, rest)
    return dates, rest


def _names(text: str) -> list[str]:
    """Capitalised words: names of people, places, brands. A sentence's first word is
    one only when it is no common opener ("The", "Currently")."""
    out = []
    for sentence in re.split(r"(?<=[.!?;:])\s+|\n+|\(", text):
        for index, match in enumerate(_TOKEN.finditer(sentence)):
            token = match[0].rstrip("'’-")
            if not token[:1].isupper() or token == "I":
                continue
            bare = _fold(token).removesuffix("'s")
            if bare in MONTHS or bare in WEEKDAYS or bare in _NOT_NAMES:
                continue
            if index == 0 and bare in _OPENERS:
                continue
            out.append(token.removesuffix("'s").removesuffix("’s"))
    return out


def ungrounded(body: str, *, sources: Sequence[Said], conversation: Sequence[Said]) -> list[str]:
    """The names, numbers and dates of ``body`` that neither its ``sources`` nor the
    rest of the ``conversation`` said, and that are no resolved date consistent with
    their times. An empty list: every specific is grounded."""
    said = [*sources, *conversation]
    text = _fold(" ".join(s.text for s in said))
    numbers = _said_numbers(s.text for s in said)
    missing: list[str] = []
    dates, rest = _date_terms(body)
    for shown, day, month_only in dates:
        if _fold(shown) in text:
            continue
        if _anchored_to_saying(body, shown, day, said, month_only=month_only):
            continue
        if not _points_at(day, said, month_only=month_only):
            missing.append(shown)
    # a clock time's minutes ("7:00", "6:30 pm") are judged with their hour
    rest = _CLOCK.sub(lambda match: match[1], rest)
    for number in _DIGITS.findall(rest):
        value = number.replace(",", "")
        if value in numbers:
            continue
        if len(value) == 4 and value.isdigit() and 1900 <= int(value) <= 2100:
            # a year alone: the year of a message, or the one before or after it
            years = {s.when.year + d for s in said if s.when is not None for d in (-1, 0, 1)}
            if int(value) in years:
                continue
        missing.append(number)
    for name in _names(rest):
        if not re.search(rf"(?<!\w){re.escape(_fold(name))}", text):
            missing.append(name)
    return list(dict.fromkeys(missing))


def said_of(message: dict) -> Said:
    """A scenario message as the measure reads it: its speaker's name with its text."""
    when = None
    if message.get("timestamp"):
        try:
            when = datetime.fromisoformat(str(message["timestamp"]).replace("Z", "+00:00"))
        except ValueError:
            when = None
    text = " ".join(filter(None, [message.get("name"), message.get("content", "")]))
    return Said(text=text, when=when)
