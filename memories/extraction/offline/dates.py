"""Dates a statement names, resolved against the day it was said.

spaCy finds the phrase (a ``DATE`` entity: "on Friday", "in two weeks", "next Sunday,
March 15th", "the last week of May"); ``dateparser`` resolves it from the message's
timestamp, looking forward or back by the tense of the verb it belongs to. Our own rules
cover only what dateparser does not: weekends, "the first/last week of <month>", and
the precision of a month or a week ("last month" is April, not one day in it).

The resolution is written beside the phrase, never into it: "on Friday (2026-03-13)".
A bare year, a duration ("six years") or a phrase dateparser cannot read is left as said.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import lru_cache

from spacy.tokens import Span, Token

from memories.extraction.offline.words import DAY_PREPOSITIONS, MOVE_VERBS, PARTS_OF_DAY, word_set

_WEEKDAYS = [d.lower() for d in calendar.day_name]
WEEKDAYS = frozenset(_WEEKDAYS)  # "monday" ... "sunday", for the statements' own checks
_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m and m != "May"})
_MONTHS["sept"] = 9  # as typed in Britain ("3 Sept")
_ANCHOR = re.compile(
    r"\b(?:ago|yesterday|today|tonight|tomorrow|last|next|this|coming|past|in\s+(?:a|an|one|"
    r"two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|\d+)\s+\w+|"
    + "|".join(_WEEKDAYS)
    + r")\b",
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    r"\b(?P<m1>" + "|".join(_MONTHS) + r")\.?\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?\b"
    r"|\b(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>" + "|".join(_MONTHS) + r")\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
_WEEK_OF_MONTH = re.compile(
    r"\b(?P<which>first|last|second|third|fourth)\s+week\s+of\s+(?P<month>"
    + "|".join(_MONTHS)
    + r")\b",
    re.IGNORECASE,
)
_WEEKEND = re.compile(r"\b(?P<which>last|this|next|coming)\s+weekend\b", re.IGNORECASE)
_FROM_TODAY = re.compile(r"^(.+?)\s+from\s+(?:today|now)$", re.IGNORECASE)
# "the 19th" alone: a day of this month or the next (the last, for the past)
_BARE_DAY = re.compile(r"^(?:on\s+)?the\s+(?P<day>\d{1,2})(?:st|nd|rd|th)$", re.IGNORECASE)
_MONTH_WORD = re.compile(r"\b(?P<which>last|this|next)\s+(?P<unit>month|year)\b", re.IGNORECASE)
_BARE_MONTH = re.compile(
    r"^(?:in\s+|(?:early|mid|late)\s+)?(?P<month>" + "|".join(_MONTHS) + r")$", re.I
)
_NOT_BARE = frozenset(("next", "this", "last", "coming", "every", "each"))
_CLOCK = re.compile(r"^\d{1,2}(?:[:.]\d{2})?(?:am|pm)?$", re.IGNORECASE)
_BARE_WEEKDAY = re.compile(
    r"^(?:on\s+)?(?:" + "|".join(_WEEKDAYS) + r")s?(?:\s+(?:morning|afternoon|evening|night))?$",
    re.IGNORECASE,
)
_YEAR_WORD = re.compile(r"\b(last|this|next)\s+year\b", re.IGNORECASE)
_WEEK = re.compile(r"\b(?P<which>last|this|next)\s+week\b", re.IGNORECASE)
# "friday next week", "next week on tuesday", "the wednesday of last week": one day
_DAY_OF_WEEK = re.compile(
    r"^(?:(?:on\s+)?(?:the\s+)?(?P<day>"
    + "|".join(_WEEKDAYS)
    + r")\s+(?:of\s+)?(?P<which>last|this|next)\s+week"
    r"|(?P<which2>last|this|next)\s+week\s+(?:on\s+)?(?P<day2>" + "|".join(_WEEKDAYS) + r"))$"
)
_END_OF = re.compile(
    r"\bend\s+of\s+(?:(?P<which>the|this|next|last)\s+(?P<unit>week|month|year)|(?P<month>"
    + "|".join(_MONTHS)
    + r"))\b",
    re.IGNORECASE,
)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_IN_MONTHS = re.compile(
    r"^in\s+(?P<n>a|an|one|two|three|four|five|six|\d{1,2})\s+(?P<unit>months?|years?)"
    r"(?:\s+time)?$"
)
_MONTHS_AGO = re.compile(
    r"^(?:(?:about|around|roughly|nearly|almost|over|like)\s+)?"
    r"(?P<n>a|an|one|two|three|four|five|six|\d{1,2})\s+(?P<unit>months?|years?)\s+ago$"
)
_WEEK_ON = re.compile(
    r"^(?P<n>a|one|two|\d)\s+weeks?\s+(?:from|on|after)\s+(?:(?P<which>this|next|coming)\s+)?"
    r"(?P<day>" + "|".join(_WEEKDAYS) + r")$"
)
_COMING = re.compile(r"\b(?:this\s+)?(?:coming|upcoming)\s+(?=\w)", re.IGNORECASE)


_BACKWARD = re.compile(
    r"\b(?:ago|yesterday|past|since|last\s+(?:night|week|weekend|month|year|"
    + "|".join(_WEEKDAYS)
    + r")(?!\s+of))\b"
)
_FORWARD = re.compile(r"\b(?:next|tomorrow|coming|upcoming)\b|^in\s")


@dataclass(frozen=True)
class Resolved:
    """A date phrase of a statement: the token it ends at, and what it resolves to."""

    end: int  # index of the phrase's last token in the Doc
    note: str  # "2026-03-13", "2026-10-03 – 2026-10-04", "2026-04"
    first: date  # the first day it names


def resolve_dates(span: Span, day: date, *, schedule: bool = False) -> list[Resolved]:
    """The date phrases of ``span`` that resolve, in order. In a ``schedule`` (a roster,
    a rota) a bare weekday is every such weekday, not the next one."""
    found = []
    # "Monday 10:00 Thermodynamics; Tuesday 08:15 Linear Algebra; Friday 14:00 Lab":
    # three weekdays said bare, or two each with its hour, are a timetable, every
    # week's, not this week's days ("dentist on Tuesday and haircut on Friday" are not)
    doc = span.doc
    weekdays = [
        t
        for t in span
        if t.lower_ in _WEEKDAYS
        and t.ent_type_ in ("DATE", "TIME")
        and (t.i == 0 or doc[t.i - 1].lower_ not in _NOT_BARE)
    ]
    timed = [t for t in weekdays if t.i + 1 < len(doc) and _CLOCK.match(doc[t.i + 1].text)]
    # "Monday to Thursday", "Mon-Fri": the days of every week something spans, no one day
    week_span = {
        i
        for t in weekdays
        if t.i + 2 < len(doc)
        and doc[t.i + 1].lower_ in ("to", "-", "–", "till", "through", "until", "thru")
        and doc[t.i + 2].lower_ in _WEEKDAYS
        and not _WEEK.search(t.sent.text)  # "Monday to Wednesday next week": those days
        for i in (t.i, t.i + 2)
    }
    days = {t.lower_ for t in weekdays}
    timetable = len(days) >= 3 or (len(days) >= 2 and len(timed) == len(weekdays))
    schedule = schedule or timetable
    ents = list(span.ents)
    skip: set[int] = set()
    for k, ent in enumerate(ents):
        if k in skip:
            continue
        if (week := _week_then_day(ents, k, day)) is not None:
            # "next week on thursday", tagged as two phrases: one day, that week's
            skip.add(k + 1)
            found.append(Resolved(end=ents[k + 1].end - 1, note=week.isoformat(), first=week))
            continue
        if (
            ent.label_ == "ORDINAL" and _ordinal_day(ent) or _BARE_DAY.match(ent.text)
        ) and _habitual(ent):
            continue  # "the rent goes out on the 1st": every month's 1st, no one day
        if ent.label_ == "ORDINAL" and _ordinal_day(ent) and (month := _of_month(ent)):
            # "on the 5th of May": tagged a rank, then a month (the tagger splits the
            # phrase at "May"), said as one day; never the 5th of this month
            whole = doc[ent.start : month.i + 1]
            skip.update(j for j in range(k + 1, len(ents)) if ents[j].start <= month.i)
            past = _past(ent)
            if past is None or (not past and _annual(whole)):
                continue
            found_day = _nearest_day(_MONTHS[month.lower_], int(ent.text[:-2]), day, past)
            if found_day is not None:
                found.append(Resolved(end=month.i, note=found_day[1], first=found_day[0]))
            continue
        if ent.label_ == "ORDINAL" and _ordinal_day(ent):
            # "on the 4th": tagged a rank, said as a day
            said_before = doc[ent.start - 2]
            moved = any(t.lemma_.lower() in MOVE_VERBS for t in ent.sent)
            if moved and said_before.lower_ == "from":
                continue  # "moved from the 3rd to the 9th": the old day, gone or not? No date
            # "moved to the 9th", "off till the 22nd": the day something lasts or moves to
            # lies ahead
            past = False if said_before.lower_ in ("to", "until", "till") else _past(ent)
            found_day = None if past is None else _day_of_month(int(ent.text[:-2]), day, past)
            if found and _range_end(doc, ent, found[-1]):
                # "from the 3rd to the 10th": the first of that day's month after it
                found_day = _day_of_month(int(ent.text[:-2]), found[-1].first, past=False)
            if found_day is not None:
                found.append(Resolved(end=ent.end - 1, note=found_day[1], first=found_day[0]))
            continue
        if ent.label_ not in ("DATE", "TIME"):
            continue
        phrase = " ".join(ent.text.split())
        if schedule and _BARE_WEEKDAY.match(phrase):
            continue
        if _BARE_WEEKDAY.match(phrase) and _habitual(ent) and not _futurate(ent):
            continue  # "the bins go out wednesday": every Wednesday, or this one? No date
        if timetable and ent[0].lower_ in _WEEKDAYS:
            continue  # "Wednesday 11:30" of a timetable: every Wednesday's
        if any(t.i in week_span for t in ent):
            continue  # "My shift pattern is Monday to Thursday": every week's
        before = span.doc[ent.start - 1] if ent.start > 0 else None
        if before is not None and before.lower_ in ("every", "each"):
            continue  # "every Tuesday evening": a habit, not one day
        if _weekly(ent):
            continue  # "Monday and Wednesday it's Priya", "on Tuesdays": a rota, no one day
        if _BARE_MONTH.match(phrase) and _generic(ent):
            continue  # "Oslo in February is brutal", "it always rains in April": any year's
        # "moved it to Friday": the day something is moved or lasts to lies ahead; so
        # does the day that is moved ("they've moved thursday to 5:15")
        ahead = (before is not None and before.lower_ in ("to", "until", "till")) or (
            ent.root.dep_ in ("dobj", "npadvmod", "nsubjpass")
            and ent.root.head.lemma_.lower() in MOVE_VERBS
        )
        # forward or back; None when the words do not say ("Got my visa in October":
        # got, or get?), and then the phrase stays as said
        past = False if ahead else _past(ent)
        if past is None:
            continue
        numbered = _numbered_weekday(span.doc, ent)
        if numbered is not None:
            # "Friday the 11th": the 11th names the day; the weekday only checks it
            end, number = numbered
            found_day = _day_numbered(_WEEKDAYS.index(ent[0].lower_), number, day, past)
            if found_day is not None:
                found.append(Resolved(end=end, note=found_day.isoformat(), first=found_day))
            continue
        if _committed(ent) and not _ANCHORED.search(phrase):
            if before is None or before.lower_ != "for":
                continue  # "I signed up for a race in October": booked then, or held then?
            past = False  # "booked a table for Saturday": what is booked lies ahead
        if _names_a_kind(ent):
            continue  # "the Thursday pottery class": which class, not a day
        if before is not None and before.lower_ in _AS_USUAL:
            continue  # "same Wednesday spin class", "my usual Friday": every week's
        if not past and _annual(ent):
            continue  # "Mum's birthday is November 2nd": every year's, no one year's
        if _titled(ent):
            continue  # "my place, Tomorrow and Tomorrow and Tomorrow": a title, not a day
        if (
            before is not None
            and _BARE_MONTH.match(phrase)
            and before.text.isdigit()
            and 1 <= int(before.text) <= 31
            # ("I have 3 May bookings": a count of the month's things)
            and not (ent.end < len(doc) and doc[ent.end].pos_ in ("NOUN", "PROPN"))
        ):
            # "next checkup 20 May": the tagger tagged the month alone, the day its number
            phrase = f"{before.text} {phrase}"
        elif (
            before is not None and before.lower_ == "in" and re.match(r"(?:a|an|\w+|\d+)\s", phrase)
        ):
            phrase = f"in {phrase}"  # "in two weeks": the entity leaves out its preposition
        doc = span.doc
        from_today = (
            ent.end + 1 < len(doc)
            and doc[ent.end].lower_ == "from"
            and doc[ent.end + 1].lower_ in ("today", "now")
        )
        if from_today:
            phrase, past = f"{phrase} from today", False  # split by the tagger
        elif (counted := _weeks_before(doc, ent)) is not None:
            phrase, past = f"{counted} {phrase}", False  # "a week" "from" "this saturday"
        resolved = _day_beyond(span.doc, ent, phrase, day) or resolve_phrase(phrase, day, past=past)
        if (bare := _BARE_DAY.match(phrase)) and found and _range_end(doc, ent, found[-1]):
            # "Flying out 3 July, back the 17th": the first such day after the going
            resolved = _day_of_month(int(bare["day"]), found[-1].first, past=False)
        if _after_next(doc, ent):
            # "the Tuesday after next": the one after the next; of anything but a
            # weekday the words say too little, and no date is written
            weekday = not past and ent[-1].lower_ in _WEEKDAYS and resolved is not None
            resolved = (resolved[0] + timedelta(days=7),) if weekday else None
            if resolved is not None:
                resolved = (resolved[0], resolved[0].isoformat())
        if resolved is not None:
            first, note = resolved
            end = ent.end + 1 if from_today else ent.end - 1
            if end + 1 < len(span.doc) and span.doc[end + 1].text in ("'s", "’s"):
                end += 1  # "Saturday's (2026-06-20) potluck"
            found.append(Resolved(end=end, note=note, first=first))
    return found


def _after_next(doc, ent: Span) -> bool:
    """The phrase goes on "after next" or "after that" ("the Tuesday after next")."""
    return (
        ent.end + 1 < len(doc)
        and doc[ent.end].lower_ == "after"
        and (doc[ent.end + 1].lower_ in ("next", "that", "this"))
    )


def _week_then_day(ents: list[Span], k: int, day: date) -> date | None:
    """ "next week" then "on thursday", or "thursday" then "next week", tagged apart:
    the day of that week, else None."""
    if k + 1 >= len(ents):
        return None
    one, then = ents[k], ents[k + 1]
    between = one.doc[one.end : then.start]
    if _WEEK.fullmatch(one.text.strip()) and then.text.lower() in _WEEKDAYS:
        week, weekday = one.text, then.text
        if any(t.lower_ not in ("on", ",") for t in between):
            return None
    elif one.text.lower() in _WEEKDAYS and _WEEK.fullmatch(then.text.strip()):
        week, weekday = then.text, one.text
        if any(t.lower_ != "of" for t in between):
            return None
    else:
        return None
    resolved = resolve_phrase(f"{weekday} {week}", day, past=False)
    return resolved[0] if resolved is not None else None


_ANCHORED = re.compile(r"\b(?:ago|yesterday|tomorrow|last|next|this|coming|past)\b", re.I)
# verbs that commit to something later: their past tense says nothing of when it is
_COMMIT_VERBS = frozenset(
    [
        "sign",
        "book",
        "register",
        "enter",
        "enrol",
        "enroll",
        "schedule",
        "plan",
        "arrange",
        "reserve",
        "order",
        "agree",
        # "picked a date in June": the day chosen, not the day of choosing
        "pick",
        "choose",
        "set",
        "confirm",
    ]
)
_ORDINAL_DAY = re.compile(r"^(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?$", re.I)


_HABITUALLY = frozenset(
    ("always", "usually", "never", "normally", "generally", "typically", "often", "rarely")
)
_FIRST_PERSON = frozenset(("i", "me", "my", "we", "our", "us"))


def _generic(ent: Span) -> bool:
    """A month said of what is so every year: a place in that month said of no one
    ("Oslo in February is brutal", "no sun in July in Lima"), or a habit ("it always
    rains in April", "we usually go in August")."""
    sent = ent.sent
    if any(t.lower_ in _HABITUALLY for t in sent):
        return True
    if any(t.lower_ in _FIRST_PERSON or t.lower_ == "due" for t in sent):
        return False  # ("due in october": when one thing is due, not every October)
    head = ent.root.head.head if ent.root.head.dep_ == "prep" else ent.root.head
    if head.lemma_ == "be":  # "Toronto in January is ...", the month hung on "is"
        head = next((c for c in head.children if c.dep_ == "nsubj"), head)
    verbs = [t for t in sent if t.pos_ in ("VERB", "AUX")]
    present = all(v.tag_ in ("VBZ", "VBP") for v in verbs)
    place = head.pos_ == "PROPN" and head.ent_type_ in ("GPE", "LOC", "ORG", "FAC")
    return present and (place or not verbs)


def _weekly(ent: Span) -> bool:
    """A weekday said as a plural ("on Tuesdays") or coordinated with another weekday
    ("Monday and Wednesday it's Priya"): a schedule, which names no one day."""
    for word in ent:
        lower = word.lower_
        if lower.rstrip("s") in _WEEKDAYS and lower.endswith("s") and lower not in _WEEKDAYS:
            return True
        after = ent.doc[word.i + 1].lower_ if word.i + 1 < len(ent.doc) else ""
        if lower in _WEEKDAYS and after.endswith("s") and after[:-1] in PARTS_OF_DAY:
            return True  # "my spin class thursday nights": every Thursday night
        if lower in _WEEKDAYS and (
            (word.dep_ == "conj" and word.head.lower_ in _WEEKDAYS)
            or any(c.dep_ == "conj" and c.lower_ in _WEEKDAYS for c in word.children)
        ):
            return True
    return False


def _weeks_before(doc, ent: Span) -> str | None:
    """ "a week from" / "two weeks on" before a weekday the tagger split off: the words
    that count on from it."""
    words = [t.lower_ for t in doc[max(0, ent.start - 4) : ent.start]]
    said = " ".join(words)
    m = re.search(r"(?:^|\s)((?:a|one|two|\d)\s+weeks?\s+(?:from|on|after))$", said)
    if m is None or ent[0].lower_ not in ("this", "coming", *_WEEKDAYS):
        return None
    if re.search(r"\bfor\s+" + re.escape(m.group(1)) + "$", said):
        return None  # "off to Crete for a week on Saturday": a week long, from Saturday
    return m.group(1)


def _numbered_weekday(doc, ent: Span) -> tuple[int, int] | None:
    """ "Friday the 11th", as one entity or a weekday then "the 11th": the index of the
    number's token and the number."""
    if ent[0].lower_ not in _WEEKDAYS:
        return None
    rest = " ".join(t.text for t in ent[1:] if t.text != ",")
    end = ent.end - 1
    if not rest:
        after = [t for t in doc[ent.end : ent.end + 3] if t.text != ","]
        if len(after) >= 2 and after[0].lower_ == "the" and _ORDINAL_DAY.match(after[1].text):
            rest, end = f"the {after[1].text}", after[1].i
    m = _ORDINAL_DAY.match(rest) if rest else None
    if m is None:
        return None
    return end, int(m.group(1))


def _day_numbered(weekday: int, number: int, day: date, past: bool) -> date | None:
    """The day numbered ``number`` that falls on ``weekday`` in this month or the next
    (the last, for the past); none when neither fits: in doubt, no date."""
    candidates = []
    for step in (-1, 0, 1):
        index = day.year * 12 + day.month - 1 + step
        try:
            candidate = date(index // 12, index % 12 + 1, number)
        except ValueError:
            continue
        if candidate.weekday() == weekday:
            candidates.append(candidate)
    if past:
        before = [c for c in candidates if c <= day]
        return before[-1] if before else None
    after = [c for c in candidates if c >= day]
    return after[0] if after else None


def _committed(ent: Span) -> bool:
    """The nearest verb before the phrase commits to something later ("signed up for",
    "booked"): a past tense that dates the booking, not the thing booked."""
    sent = ent.sent
    for token in reversed(sent.doc[sent.start : ent.start]):
        if token.pos_ in ("VERB", "AUX") and token.tag_ != "TO":
            return token.lemma_.lower() in _COMMIT_VERBS and token.tag_ in ("VBD", "VBN")
    return False


_BEYOND = re.compile(r"\bday\s+(after|before)\s+(tomorrow|yesterday)$", re.IGNORECASE)


def _day_beyond(doc, ent: Span, phrase: str, day: date) -> tuple[date, str] | None:
    """ "(the) day after tomorrow", "the day before yesterday" (the entity may hold only
    "tomorrow"): two days on or back."""
    words = " ".join(t.lower_ for t in doc[max(0, ent.start - 2) : ent.start])
    said = f"{words} {phrase}" if phrase.casefold() in ("tomorrow", "yesterday") else phrase
    m = _BEYOND.search(said)
    if m is None or (m.group(1).lower() == "after") != (m.group(2).lower() == "tomorrow"):
        return None  # "the day after yesterday" is today
    first = day + timedelta(days=2 if m.group(1).lower() == "after" else -2)
    return first, first.isoformat()


_RELATIVE_DAYS = frozenset(("today", "tonight", "tomorrow", "yesterday"))


def _titled(ent: Span) -> bool:
    """ "Today", "Tomorrow" capitalised after a word or a comma, inside a sentence: a
    name or a title (a book, a song), since no one capitalises the day there."""
    doc = ent.doc
    word = ent[0]
    return (
        len(ent) == 1
        and word.lower_ in _RELATIVE_DAYS
        and word.text[:1].isupper()
        and ent.start > 0
        and (doc[ent.start - 1].is_alpha or doc[ent.start - 1].text == ",")
        and not word.is_sent_start
    )


def _names_a_kind(ent: Span) -> bool:
    """A bare weekday between an article and its noun ("the Thursday class", "my Monday
    meeting", "the Thursday one"): the noun's kind, said of every such day."""
    doc = ent.doc
    return (
        len(ent) == 1
        and ent[0].lower_ in _WEEKDAYS
        and ent.start > 0
        and doc[ent.start - 1].lower_ in ("the", "my", "our", "a")
        and ent.end < len(doc)
        # ("the Thursday one": the class said before, on every Thursday)
        and (doc[ent.end].pos_ in ("NOUN", "PROPN") or doc[ent.end].lower_ in ("one", "ones"))
        and ent[0].dep_ in ("compound", "nmod", "amod")
    )


_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
# "6-9 april", "april 6-9": the days from one to the other, not the last of them
_DAY_RANGE = re.compile(
    rf"^(?:(?P<a>\d{{1,2}})(?:st|nd|rd|th)?\s*(?:[-–]|to|till|until)\s*(?P<b>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?"
    rf"(?P<m>{_MONTH_NAMES})|(?P<n>{_MONTH_NAMES})\s+(?P<c>\d{{1,2}})(?:st|nd|rd|th)?\s*(?:[-–]|to|till|until)\s*"
    rf"(?P<d>\d{{1,2}})(?:st|nd|rd|th)?)$"
)


def _day_range(m: re.Match[str], day: date, past: bool) -> tuple[date, str] | None:
    month = _MONTHS[m.group("m") or m.group("n")]
    first, last = int(m.group("a") or m.group("c")), int(m.group("b") or m.group("d"))
    year = day.year
    try:
        start = date(year, month, first)
        if not past and start < day:
            year += 1
        elif past and start > day:
            year -= 1
        start, end = date(year, month, first), date(year, month, last)
    except ValueError:
        return None
    if end <= start:
        return None
    return start, f"{start.isoformat()} – {end.isoformat()}"


def resolve_phrase(phrase: str, day: date, *, past: bool) -> tuple[date, str] | None:
    lowered = phrase.casefold()
    if (m := _DAY_RANGE.match(" ".join(lowered.split()))) is not None:
        return _day_range(m, day, past)
    if lowered in ("today", "now", "tonight", "this morning", "this evening", "this afternoon"):
        return None  # the day it was said; the memory's own date says so
    if (m := _FROM_TODAY.match(phrase)) is not None:
        # "two weeks from today": in two weeks
        phrase, past = f"in {m.group(1)}", False
        lowered = phrase.casefold()
    if (m := _END_OF.search(phrase)) is not None:
        return _end_of(m, day, past)
    phrase = _COMING.sub("", phrase)  # "this coming Sunday": the next one
    if phrase.casefold() == "weekend" != lowered:
        phrase = "this weekend"  # "this coming weekend": the next one too
    if phrase.casefold() != lowered:
        past, lowered = False, phrase.casefold()
    if (m := _WEEK_OF_MONTH.search(phrase)) is not None:
        return _week_of_month(
            m.group("which").lower(), _MONTHS[m.group("month").lower()], day, past
        )
    if (m := _MONTH_DAY.search(phrase)) is not None:
        if _YEAR.search(phrase):
            return None  # already absolute
        month = _MONTHS[(m.group("m1") or m.group("m2")).lower()]
        number = int(m.group("d1") or m.group("d2"))
        if (y := _YEAR_WORD.search(phrase)) is not None:
            # "14 March next year": the year it names, not the nearest
            year = day.year + {"last": -1, "this": 0, "next": 1}[y.group(1).lower()]
            try:
                first = date(year, month, number)
            except ValueError:
                return None
            return first, first.isoformat()
        return _nearest_day(month, number, day, past)
    if (m := _BARE_DAY.match(phrase)) is not None:
        return _day_of_month(int(m.group("day")), day, past)
    if (m := _WEEKEND.search(phrase)) is not None:
        return _weekend(m.group("which").lower(), day, past)
    if (m := _MONTH_WORD.search(phrase)) is not None:
        step = {"last": -1, "this": 0, "next": 1}[m.group("which").lower()]
        if m.group("unit").lower() == "year":
            return date(day.year + step, 1, 1), str(day.year + step)
        index = day.year * 12 + day.month - 1 + step
        first = date(index // 12, index % 12 + 1, 1)
        return first, f"{first:%Y-%m}"
    if (m := _BARE_MONTH.match(lowered)) is not None:
        month = _MONTHS[m.group("month")]
        year = day.year
        if month == day.month:
            return None  # "in May", said in May: the memory's own date says as much
        if past and month > day.month:
            year -= 1
        elif not past and month < day.month:
            year += 1
        return date(year, month, 1), f"{year:04d}-{month:02d}"
    if (m := _IN_MONTHS.match(lowered)) is not None:
        # "in 3 months": about a month, not a day of it ("in two years": a year)
        count = _COUNTS.get(m.group("n")) or int(m.group("n"))
        if m.group("unit").startswith("year"):
            return date(day.year + count, 1, 1), str(day.year + count)
        index = day.year * 12 + day.month - 1 + count
        first = date(index // 12, index % 12 + 1, 1)
        return first, f"{first:%Y-%m}"
    if (m := _MONTHS_AGO.match(lowered)) is not None:
        # "3 years ago": about a year, not the day three years back ("2 months ago": a month)
        count = _COUNTS.get(m.group("n")) or int(m.group("n"))
        if m.group("unit").startswith("year"):
            return date(day.year - count, 1, 1), str(day.year - count)
        index = day.year * 12 + day.month - 1 - count
        first = date(index // 12, index % 12 + 1, 1)
        return first, f"{first:%Y-%m}"
    if (m := _WEEK_ON.match(lowered)) is not None:
        # "a week from this Saturday", "a week on Friday": that day's next, a week on
        if m.group("which") == "next":
            return None  # "a week from next Friday": which Friday is next? In doubt, none
        ahead = (_WEEKDAYS.index(m.group("day")) - day.weekday()) % 7 or 7
        first = day + timedelta(days=ahead + 7 * (_COUNTS.get(m.group("n")) or int(m.group("n"))))
        return first, first.isoformat()
    if (m := _DAY_OF_WEEK.match(lowered)) is not None:
        step = {"last": -7, "this": 0, "next": 7}[m.group("which") or m.group("which2")]
        weekday = _WEEKDAYS.index(m.group("day") or m.group("day2"))
        first = day - timedelta(days=day.weekday()) + timedelta(days=step + weekday)
        return first, first.isoformat()
    if (m := _WEEK.search(phrase)) is not None:
        step = {"last": -7, "this": 0, "next": 7}[m.group("which").lower()]
        monday = day - timedelta(days=day.weekday()) + timedelta(days=step)
        return monday, f"{monday.isoformat()} – {(monday + timedelta(days=6)).isoformat()}"
    if not _ANCHOR.search(phrase) or _YEAR.search(phrase):
        return None
    found = _dateparser(lowered, day.isoformat(), past)
    if found is None or found == day:
        return None  # "at this hour", "this afternoon": the day said, which the memory's date is
    return found, found.isoformat()


def _past(ent: Span) -> bool | None:
    """Whether the phrase points back: "ago", "last", or a verb in the past tense; None
    when its verb could point either way."""
    text = ent.text.casefold()
    if _BACKWARD.search(text):
        return True
    if ent.start > 0 and ent.doc[ent.start - 1].lower_ == "since":
        return True  # "been learning the cello since january": the January gone
    if _FORWARD.search(text):
        return False
    before = [t.lower_ for t in ent.doc[max(ent.sent.start, ent.start - 2) : ent.start]]
    if before[-1:] == ["in"] and before[0] in ("years", "months", "weeks"):
        return False  # "been married 15 years in August": the years are complete then, ahead
    # The nearest verb before the phrase, in the order of the words: the parser of a
    # small model attaches a trailing date to the wrong clause too often to follow it.
    sent = ent.sent
    verb: Token | None = None
    for token in reversed(sent.doc[sent.start : ent.start]):
        if token.pos_ in ("VERB", "AUX") and token.tag_ != "TO":
            verb = token
            break
    if verb is None:
        after = [t for t in sent.doc[ent.end : sent.end] if t.pos_ in ("VERB", "AUX")]
        verb = after[0] if after else None
        if verb is not None and any(
            t.pos_ == "CCONJ" or t.text in (",", ";", "-", "–") for t in sent.doc[ent.end : verb.i]
        ):
            # "Quit smoking in January and I've been running since": the verb after
            # belongs to another clause and says nothing of this phrase's direction;
            # but a thing and its day, said without a verb, is a note of what is ahead
            # ("dentist this thursday at 4, then ...")
            thing = any(
                t.pos_ in ("NOUN", "PROPN") and t.ent_type_ not in ("DATE", "TIME")
                for t in sent.doc[sent.start : ent.start]
            )
            return False if thing and _BARE_WEEKDAY.match(text.removeprefix("this ")) else None
    if verb is None:
        return False
    if verb.tag_ == "VBG" and verb.dep_ in ("xcomp", "dobj") and verb.head.pos_ == "VERB":
        # "I stopped drinking in January": the tense is the verb the doing hangs on
        verb = verb.head
        if verb.lemma_.lower() in ("love", "like", "enjoy", "hate", "prefer", "adore"):
            return None  # "I love going to Spain in June": any June of a liking
    if verb.lower_ in ("will", "'ll", "gonna", "going", "shall"):
        return False
    if (
        verb.lower_ == "got"
        and verb.i == sent.start
        and not _has_subject(verb)
        and _BARE_WEEKDAY.match(" ".join(ent.text.split()))
    ):
        # "Got physio thursday at 4:30": have got, ahead, or got, done? ("Got my visa
        # in October" can only be done: no one has a month as an appointment)
        return None
    if verb.tag_ == "VBD":
        return True
    if (
        verb.tag_ == "VBN"
        and verb.head.i < verb.i
        and verb.head.lemma_ in ("get", "have")
        and verb.head.tag_ in ("VBG", "VBZ", "VBP", "VB")
    ):
        return False  # "getting my Mazda serviced on Friday": "getting" tells when
    if verb.tag_ == "VBN":
        helpers = [t for t in sent.doc[max(sent.start, verb.i - 3) : verb.i] if t.pos_ == "AUX"]
        if verb.lower_ == "got" and any(h.lemma_ == "have" for h in helpers):
            return False  # "I've got an interview on Friday": have
        if any(h.tag_ == "VBG" for h in helpers) and not any(h.tag_ == "VBD" for h in helpers):
            return False  # "My cousin is getting married in June": what is going on, ahead
        before = sent.doc[ent.start - 1] if ent.start > sent.start else None
        if not helpers:
            # "Started at Monzo in March", "sold the car in May": done; but "for" a day
            # is what something is set for ("tickets sorted for June")
            return before is None or before.lower_ != "for"
        if all(h.lemma_ == "be" and h.tag_ in ("VBZ", "VBP") for h in helpers):
            # "The party is planned for Saturday": set for a day ahead; "The shop is
            # closed on Sunday": this Sunday or every one? Never one gone
            return False if before is not None and before.lower_ == "for" else None
        return any(h.tag_ in ("VBD", "VBZ", "VBP") for h in helpers)
    if verb.tag_ == "VB" and verb.i == sent.start and not _has_subject(verb):
        # a sentence opening on a bare verb: a request ("Call me on Friday") or casual
        # typing's past ("Got my visa in October"); the words do not say which
        return None
    return False


def _has_subject(verb: Token) -> bool:
    return any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in verb.children)


@lru_cache(maxsize=1024)
def _dateparser(phrase: str, day: str, past: bool) -> date | None:
    from dateparser import parse  # noqa: PLC0415 - ~0.2 s import, paid by the extracting process

    phrase = re.sub(r"^(?:on|by|for|until|till|from|since|at)\s+", "", phrase)
    base = datetime.combine(date.fromisoformat(day), time(12))
    found = parse(
        phrase,
        languages=["en"],
        settings={
            "RELATIVE_BASE": base,
            "PREFER_DATES_FROM": "past" if past else "future",
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )
    return found.date() if found is not None else None


def _nearest_day(month: int, number: int, day: date, past: bool) -> tuple[date, str] | None:
    """A day and month without a year: its last occurrence for the past, its next one
    (today included) otherwise ("my dad's birthday is August 9th", said in December,
    is next August's; "got pushed to June 20th" in May is this June's)."""
    candidates = []
    for year in (day.year - 1, day.year, day.year + 1):
        try:
            candidates.append(date(year, month, number))
        except ValueError:
            continue
    if past:
        found = [c for c in candidates if c <= day][-1:]
    else:
        found = [c for c in candidates if c >= day][:1]
    if not found:
        return None
    return found[0], found[0].isoformat()


def _habitual(ent: Span) -> bool:
    """The phrase hangs on a verb in the simple present that is no "be" ("the rent goes
    out on the 1st", "I get paid on the 25th"): what happens on that day every time."""
    verb = ent.root.head
    while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
        verb = verb.head
    if verb.pos_ not in ("VERB", "AUX"):
        return False
    helpers = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if verb.lemma_ == "be" or any(
        h.lemma_ in ("be", "will", "have") or h.tag_ == "MD" for h in helpers
    ):
        return False
    return verb.tag_ in ("VBZ", "VBP") or any(h.tag_ in ("VBZ", "VBP") for h in helpers)


# verbs whose simple present tells a one-off plan ("I start Monday", "my flight leaves
# Friday"); with any other, a bare weekday may be every week's ("Ella swims Tuesday")
_FUTURATE = word_set(
    "start begin leave fly arrive land depart return finish end open close kick have get"
)


def _futurate(ent: Span) -> bool:
    verb = ent.root.head
    while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
        verb = verb.head
    return verb.lemma_.lower() in _FUTURATE


_AS_USUAL = frozenset(("same", "usual", "regular", "normal", "weekly"))
_ANNUAL = frozenset(("birthday", "bday", "anniversary", "nameday"))


def _annual(ent: Span) -> bool:
    """A birthday's or an anniversary's day and month, said as what it is ("our
    anniversary is 3 May"): every year's; "next year", or "Dad's 60th birthday party
    on 14 March", still dates it."""
    return (
        _MONTH_DAY.search(ent.text) is not None
        and not _YEAR.search(ent.text)
        and not _YEAR_WORD.search(ent.sent.text)
        and any(
            t.lemma_.lower() in _ANNUAL
            and t.dep_ in ("nsubj", "nsubjpass")
            and t.head.lemma_ == "be"
            and not any(c.ent_type_ == "ORDINAL" or c.like_num for c in t.children)
            for t in ent.sent
        )
    )


def _ordinal_day(ent: Span) -> bool:
    """ "on the 4th", "by the 1st": a rank after "the" and a preposition of time, with
    no noun after it ("on the 4th floor" names a floor)."""
    doc = ent.doc
    if len(ent) != 1 or not re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)", ent.text, re.IGNORECASE):
        return False
    if ent.start < 2 or doc[ent.start - 1].lower_ != "the":
        return False
    if doc[ent.start - 2].lower_ not in DAY_PREPOSITIONS | {"for"}:
        return False
    after = doc[ent.end] if ent.end < len(doc) else None
    return after is None or after.pos_ not in ("NOUN", "PROPN", "ADJ")


def _of_month(ent: Span) -> Token | None:
    """The month named by "of <month>" right after a day's rank ("the 5th of May")."""
    doc = ent.doc
    if (
        ent.end + 1 < len(doc)
        and doc[ent.end].lower_ == "of"
        and doc[ent.end + 1].lower_ in _MONTHS
    ):
        return doc[ent.end + 1]
    return None


def _range_end(doc, ent: Span, start: Resolved) -> bool:
    """ "to the 10th" right after "from the 3rd" was resolved: the range's end; or
    "back the 17th" after a day of going in the same sentence ("Flying out 3 July,
    back the 17th": July's 17th)."""
    said_before = doc[ent.start - 2 if doc[ent.start - 1].lower_ == "the" else ent.start - 1]
    returning = said_before.lower_ in ("back", "home", "returning") and (
        start.end < ent.start and doc[start.end].sent == ent.sent
    )
    return returning or (
        said_before.lower_ in ("to", "till", "until")
        and 0 <= said_before.i - start.end <= 1
        and any(doc[i].lower_ == "from" for i in range(max(0, start.end - 3), start.end))
    )


def _day_of_month(number: int, day: date, past: bool) -> tuple[date, str] | None:
    """ "On the 19th" said on the 10th is this month's 19th; said on the 25th, next
    month's (the day itself is today: no date). In the past, this month's or the last."""
    if number == day.day:
        return None
    step = (-1 if number > day.day else 0) if past else (1 if number < day.day else 0)
    index = day.year * 12 + day.month - 1 + step
    try:
        found = date(index // 12, index % 12 + 1, number)
    except ValueError:
        return None  # "the 31st" of a month without one: in doubt, no date
    return found, found.isoformat()


def _weekend(which: str, day: date, past: bool = False) -> tuple[date, str]:
    saturday = day + timedelta(days=(5 - day.weekday()) % 7)
    # "I watched it this weekend", said on a weekday: the weekend just gone
    if which == "last" or which == "this" and past and day.weekday() < 5:
        saturday -= timedelta(days=7)
    elif which == "next" and day.weekday() < 5:
        saturday += timedelta(days=7)
    return saturday, f"{saturday.isoformat()} – {(saturday + timedelta(days=1)).isoformat()}"


def _year_of(month: int, day: date, past: bool) -> int:
    """The year of a month named without one: this year's, or the one before or after
    by the tense."""
    if past and month > day.month:
        return day.year - 1
    if not past and month < day.month:
        return day.year + 1
    return day.year


def _week_of_month(which: str, month: int, day: date, past: bool) -> tuple[date, str]:
    year = _year_of(month, day, past)
    days = calendar.monthrange(year, month)[1]
    if which == "last":
        first = date(year, month, days - 6)
    else:
        index = ["first", "second", "third", "fourth"].index(which)
        first = date(year, month, 1 + 7 * index)
    return first, f"{first.isoformat()} – {(first + timedelta(days=6)).isoformat()}"


def _end_of(m: re.Match, day: date, past: bool) -> tuple[date, str]:
    """ "by the end of the month" (said in May): 2026-05-31; the last day of the week,
    month or year named, or of the month named ("the end of June")."""
    if m.group("month"):
        month = _MONTHS[m.group("month").lower()]
        year = _year_of(month, day, past)
        last = date(year, month, calendar.monthrange(year, month)[1])
        return last, last.isoformat()
    step = {"the": 0, "this": 0, "next": 1, "last": -1}[m.group("which").lower()]
    unit = m.group("unit").lower()
    if unit == "week":
        last = day + timedelta(days=6 - day.weekday() + 7 * step)
    elif unit == "year":
        last = date(day.year + step, 12, 31)
    else:
        index = day.year * 12 + day.month - 1 + step
        year, month = index // 12, index % 12 + 1
        last = date(year, month, calendar.monthrange(year, month)[1])
    return last, last.isoformat()
