"""The offline extractor: all four stages, deterministically, without a model.

It keeps the whole write path working on a fresh machine and always says it is the
offline one (``name == "offline"``; jobs and commits carry that name). It is a set of
plain rules, good enough to make a transcript searchable, not a substitute for a model:

* **Extract**: each message from a user (or any named speaker; unnamed assistant,
  system and tool messages are skipped) is split into sentences; a list under a
  ``...:`` line stays one memory (a roster stays a roster), a sentence that opens with
  a pronoun ("He is a beagle.") stays with the one before it, and greetings, questions,
  reactions ("That's great, Mel!") and fragments are dropped. One message's statements
  stay one memory up to ``MAX_GROUP_WORDS`` words (a chat turn keeps its context); a
  roster, a correction, something upcoming and a stated liking are memories of their
  own (their own tier, their own rewrite). Relative dates ("yesterday", "last week",
  "3 days ago", "last Friday") are rewritten as absolute dates from the message's
  timestamp. A named speaker's memories read ``Name: ...`` and are tagged with the
  name in lower case (who said it).
* **Tier**: ``preferences`` for "I like/love/prefer/hate/enjoy..." and "favourite";
  ``events`` for something still ahead when it was said (a forward relative date,
  "tomorrow", "next week"; a date after the message's day; "today" with "will",
  "going to", ...), which fades once past; ``facts`` otherwise, a dated happening in
  the past included: "I adopted a puppy on 2022-04-05" stays true, and ageing it as an
  event would bury it within months.
* **Cue**: the statement's head (its first clause), the question the message before
  asked followed by it, for a self-introduction the name questions, the attribute
  questions of ``memories.corrections`` ("how old is Biscuit"), each sentence that
  states something (3+ content words) as said, and the whole statement when it has
  several sentences (the semantic arm sees only cues, and a question usually asks
  after one sentence, often not the first); "what do I like" for a preference, "what
  did X do on <date>" for a dated one. At most ``MAX_CUES``.
* **Relate**: memories sharing a distinguishing term that is not a speaker's name
  (``same-entity``), or only a date (``same-date``); neighbouring memories from one
  message (``same-context``); the first memory of a message ``follows`` the last one of
  the message before (a reply and what it answers are one hop apart for the graph arm).
* **Reconcile**: a correction first (``memories.corrections``): a new value for the same
  attribute (age, employer, manager, favourite, city, an event's date or time, price,
  count) of the same subject, or a correction marker ("actually", "not X anymore",
  "changed my mind", "moved to", ...), rewrites that memory to the current truth: the
  old value is replaced where it stood, so its other specifics stay. Otherwise a
  candidate of the same tier and speaker whose words overlap the new memory's by
  Jaccard >= ``SAME_SUBJECT`` and that shares its distinguishing terms is the same
  subject: its body keeps every old sentence the new one does not restate (all of the
  old sentence's words reappear in a new one) and the new sentences follow, so the
  latest statement comes last. A model can tell a contradiction; these rules cannot,
  so they keep rather than drop.
"""

from __future__ import annotations

import calendar
import re
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import replace
from datetime import date, datetime, timedelta

from gitloom.times import as_utc
from memories.corrections import (
    MARKER,
    Correction,
    claims,
    corrected_body,
    correction,
    question_cues,
    speaker_of,
)
from memories.llm import Usage
from memories.pipeline_types import (
    Candidate,
    Decision,
    Draft,
    DraftLink,
    Message,
    Rewrite,
)

NAME = "offline"
SAME_SUBJECT = 0.5  # Jaccard of content words at which two memories are one subject
CONFIDENCE = 0.6  # rules are less sure than a model
MAX_LINKS_PER_MEMORY = 6
MAX_UNIT_CHARS = 600

_STOPWORDS_TEXT = """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during
    each few for from further get got had has have having he her here hers herself him
    himself his how i if in into is it its itself just let like me more most my myself no
    nor not now of off on once only or other our ours ourselves out over own really same
    she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up us very was we were what when where
    which while who whom why will with would you your yours yourself yourselves i'm i've
    i'd i'll it's that's don't didn't can't won't isn't wasn't aren't we're they're you're
    he's she's there's what's let's yeah yes oh ok okay well much many lot lots thing
    things something anything one ever even still yet though via per going gonna want
    wanted make made take took know knew think thought feel felt see saw say said tell
    told come came go went back way time times day days"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

_REACTION_TEXT = """amazing great awesome cool nice glad happy wonderful fantastic incredible
    proud sweet exciting excited beautiful fun lovely totally agree sounds looks seems
    definitely absolutely true right sure thanks thank appreciate means mean kind words
    super really so good bad sorry hear hope wow love loved hard tough stuff glad"""
_REACTION = frozenset(_REACTION_TEXT.split())

_GREETING = re.compile(
    r"^(hi|hey|hello|hiya|thanks|thank you|thx|ok|okay|sure|great|cool|wow|yes|no|yeah|yep|"
    r"nope|bye|goodbye|good (morning|night|evening|afternoon)|lol|haha|awesome|nice|"
    r"congrats|congratulations|sounds good|of course|long time no)\b",
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r"\b(i|we|i'm|we're)\s+(really\s+|absolutely\s+|just\s+|totally\s+|kind of\s+|"
    r"do\s+|don't\s+|do not\s+|still\s+|also\s+)?"
    r"(like|love|loved|prefer|hate|enjoy|dislike|adore|detest|fond of|into)\b"
    r"|\bfavou?rites?\b|\bcan'?t stand\b",
    re.IGNORECASE,
)
_MONTHS = (
    "|".join(calendar.month_name[1:])
    + "|"
    + "|".join(m for m in calendar.month_abbr[1:] if m != "May")
)
_EXPLICIT_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    rf"|\b(?:{_MONTHS})\s+\d{{4}}\b",
)
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)])\s+")
_PRONOUN_START = re.compile(r"^(it|he|she|they|that|this|these|those|its|his|her|their)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"”’')\]]*\s+")
_ABBREVIATIONS_TEXT = (
    "mr mrs ms dr prof st vs etc e.g i.e jr sr inc ltd co mt no approx dept est fig"
)
_ABBREVIATIONS = frozenset(_ABBREVIATIONS_TEXT.split())
_TOKEN = re.compile(r"[₹$€£]?\d[\d,./:-]*\d|[₹$€£]?\d|[\w’'&-]+", re.UNICODE)
_SPEAKER = re.compile(r"([^:\n]{1,64}): ")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Capitalised but not distinguishing on their own ("on Friday", "in May").
_CALENDAR_WORDS = frozenset(
    [d.lower() for d in calendar.day_name] + [m.lower() for m in calendar.month_name[1:]]
)
_PREPOSITIONS_TEXT = "since until till from by before after on of in during around"
_PREPOSITIONS = frozenset(_PREPOSITIONS_TEXT.split())


class OfflineExtractor:
    """Deterministic Extract+Cue and Relate+Reconcile; see the module docstring."""

    name = NAME

    def __init__(self) -> None:
        # Speakers' names are in nearly every memory of a conversation, so they link
        # nothing; extract() records them for relate().
        self._speakers: set[str] = set()

    def extract(self, *, messages: Sequence[Message], now: datetime) -> tuple[list[Draft], Usage]:
        drafts: list[Draft] = []
        by_body: dict[str, int] = {}
        self._speakers = {m.name.casefold() for m in messages if m.name}
        asked = ""  # the question(s) the message before asked, if any
        for message in messages:
            question, asked = asked, _questions(message.content)
            if not _speaks_facts(message):
                continue
            when = as_utc(message.timestamp or now)
            units = split_units(message.content, names=self._speakers)
            for unit in group_units([trim_filler(u) for u in units], day=when.date()):
                text, dated = resolve_relative_dates(unit, when.date())
                body = f"{message.name}: {text}" if message.name else text
                seen = by_body.get(body.casefold())
                if seen is not None:  # the same statement twice: one memory, both sources
                    old = drafts[seen]
                    if message.id not in old.sources:
                        drafts[seen] = _with_source(old, message.id, when)
                    continue
                ahead = (dated or bool(_EXPLICIT_DATE.search(unit))) and upcoming(unit, when.date())
                tier = tier_of(text, upcoming=ahead)
                distinguishing = terms(text, exclude=self._speakers)
                by_body[body.casefold()] = len(drafts)
                drafts.append(
                    Draft(
                        key=f"n{len(drafts) + 1}",
                        tier=tier,
                        topic=_topic(distinguishing, text),
                        title=" ".join(_TOKEN.findall(text)[:8]),
                        body=body,
                        tags=tuple(_tags(distinguishing, text, who=message.name)),
                        cues=tuple(
                            cues_for(
                                text=text,
                                tier=tier,
                                who=message.name,
                                terms=distinguishing,
                                asked=question,
                            )
                        ),
                        sources=(message.id,),
                        confidence=CONFIDENCE,
                        when=when,
                    )
                )
        return drafts, Usage()

    def relate(
        self,
        *,
        drafts: Sequence[Draft],
        candidates: Sequence[Candidate],
        candidates_for: Mapping[str, Sequence[str]],
    ) -> tuple[Decision, Usage]:
        candidates_by_key = {c.key: c for c in candidates}
        rewrites = self._reconcile(drafts, candidates_by_key, candidates_for)
        links = self._relate(drafts, candidates)
        return Decision(links=tuple(links), rewrites=tuple(rewrites)), Usage()

    # -- relate ----------------------------------------------------------------------

    def _relate(self, drafts: Sequence[Draft], candidates: Sequence[Candidate]) -> list[DraftLink]:
        term_sets = {d.key: _term_keys(d.body, self._speakers) for d in drafts}
        term_sets.update({c.key: _term_keys(c.memory.text, self._speakers) for c in candidates})
        texts = {d.key: d.body for d in drafts} | {c.key: c.memory.text for c in candidates}
        passing = {key: _in_passing(texts[key], term_sets[key]) for key in texts}
        # A term in most of a big job's memories is the conversation's subject, not a
        # distinguishing one (a speaker named only in third person, say).
        counts = Counter(t for d in drafts for t in term_sets[d.key])
        common = {t for t, n in counts.items() if len(drafts) >= 4 and n > len(drafts) / 2}
        links: list[DraftLink] = []
        degree: Counter[str] = Counter()
        others = [d.key for d in drafts] + [c.key for c in candidates]
        for i, draft in enumerate(drafts):
            for other in others[i + 1 :]:
                if degree[draft.key] >= MAX_LINKS_PER_MEMORY:
                    break
                if degree[other] >= MAX_LINKS_PER_MEMORY:
                    continue
                shared = (term_sets[draft.key] & term_sets[other]) - common
                # a place both mention only in passing ("... in Berlin") is no shared entity
                shared -= passing[draft.key] & passing[other]
                if not shared:
                    continue
                kind = "same-date" if all(_ISO_DATE.fullmatch(t) for t in shared) else "same-entity"
                links.append(DraftLink(source=draft.key, target=other, type=kind))
                degree[draft.key] += 1
                degree[other] += 1
        linked = {(link.source, link.target) for link in links}
        # Neighbours from one message share its context; a reply follows what it
        # answers: the first memory of a message is linked to the last one of the
        # message before (one hop for the graph arm, as the turns of a conversation are).
        _link_neighbours(drafts, links, linked, degree, same_message=True)
        _link_neighbours(drafts, links, linked, degree, same_message=False)
        return links

    # -- reconcile -------------------------------------------------------------------

    def _reconcile(
        self,
        drafts: Sequence[Draft],
        candidates_by_key: Mapping[str, Candidate],
        candidates_for: Mapping[str, Sequence[str]],
    ) -> list[Rewrite]:
        folded_into: dict[str, list[tuple[Draft, Correction | None]]] = {}
        for draft in drafts:
            best, best_score, best_fix = None, 0.0, None
            for key in candidates_for.get(draft.key, ()):
                candidate = candidates_by_key[key]
                # A correction (a new value for the same attribute of the same subject)
                # outranks a restatement of the same words.
                fix = self._correction(draft.body, candidate.memory.text)
                score = (
                    10 + fix.score
                    if fix is not None
                    else same_subject_score(
                        draft, candidate.memory.text, candidate.memory.header.tier
                    )
                )
                if score > best_score:
                    best, best_score, best_fix = key, score, fix
            if best is not None:
                folded_into.setdefault(best, []).append((draft, best_fix))
        rewrites = []
        for key, parts in folded_into.items():
            body = candidates_by_key[key].memory.text
            for draft, fix in parts:
                body = (
                    merge_bodies(body, [draft.body])
                    if fix is None
                    else corrected_body(
                        body, draft.body, fix, sentences=split_sentences, words=content_words
                    )
                )
            rewrites.append(Rewrite(target=key, drafts=tuple(d.key for d, _ in parts), body=body))
        return rewrites

    def _correction(self, new: str, old: str) -> Correction | None:
        if speaker_of(new) != speaker_of(old):
            return None  # one person's statement never corrects another's
        return correction(new, old, names=self._speakers)


# --- extract ------------------------------------------------------------------------


def _speaks_facts(message: Message) -> bool:
    role = (message.role or "").lower()
    if role in ("system", "tool", "function", "developer"):
        return False
    return role == "user" or bool(message.name)


def split_units(content: str, *, names: Set[str] = frozenset()) -> list[str]:
    """A message's statements worth keeping, in order (see the module docstring).

    ``names`` (casefolded speakers) do not count as information: "Glad, Caroline!" is
    still a reaction.
    """
    units: list[str] = []
    lines = [line.rstrip() for line in content.replace("\r\n", "\n").split("\n")]
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line:
            continue
        sentences = split_sentences(_BULLET.sub("", line))
        if line.endswith(":") and i < len(lines) and _BULLET.match(lines[i]):
            items = []
            while i < len(lines) and _BULLET.match(lines[i]):
                items.append(_BULLET.sub("", lines[i]).strip())
                i += 1
            # A roster stays a roster: the heading and every item in one memory.
            heading = sentences.pop()
            roster = heading + "\n" + "\n".join(f"- {item}" for item in items if item)
        else:
            roster = None
        for sentence in sentences:
            if (
                _PRONOUN_START.match(sentence)
                and units
                and len(units[-1]) < MAX_UNIT_CHARS
                and _worth_keeping(units[-1], names)
            ):
                units[-1] = f"{units[-1]} {sentence}"
                continue
            units.append(sentence)
        if roster is not None:
            units.append(roster)
    return [
        introduction(unit) or unit
        for unit in units
        if introduction(unit) or _worth_keeping(unit, names)
    ]


def split_sentences(text: str) -> list[str]:
    pieces = [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]
    sentences: list[str] = []
    for piece in pieces:
        last = sentences[-1].rsplit(None, 1)[-1].rstrip(".").lower() if sentences else ""
        if sentences and (last in _ABBREVIATIONS or len(last) == 1):
            sentences[-1] = f"{sentences[-1]} {piece}"  # "Dr. Smith", "J. R. R. Tolkien"
        else:
            sentences.append(piece)
    return sentences


def _worth_keeping(unit: str, names: Set[str] = frozenset()) -> bool:
    if unit.rstrip().endswith("?") and "\n" not in unit:
        return False
    tokens = _TOKEN.findall(unit)
    if len(tokens) < 3:
        return False
    if _GREETING.match(unit) and len(tokens) < 6:
        return False
    # A reaction ("That's great, Mel!", "Totally agree") states nothing to remember:
    # keep a unit only if it has a number or two words that are not filler or praise.
    if any(c.isdigit() for c in unit):
        return True
    informative = [
        t
        for t in tokens
        if (w := t.lower()) not in STOPWORDS
        and w not in _REACTION
        and w not in names
        and len(w) > 2
    ]
    return len(informative) >= 2


_INTRODUCTION = re.compile(
    r"^(?:(?:hi|hey|hello|hiya)\b[!,.]*\s*)?(?:i'm|i am|my name is|my name's|call me|this is)\s+"
    r"(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)\s*[.!,]?$",
    re.IGNORECASE,
)


def introduction(unit: str) -> str | None:
    """A self-introduction ("Hi! I'm Priya.") as the fact it states: "My name is Priya."."""
    m = _INTRODUCTION.match(" ".join(unit.split()))
    if m is None or not m.group("name")[0].isupper():
        return None
    if m.group("name").split()[0].casefold() in STOPWORDS | _REACTION | _FILLER_WORDS:
        return None  # "I'm happy", "I'm so glad"
    return f"My name is {m.group('name')}."


_FILLER_WORDS_TEXT = """also and but so plus anyway anyways btw oh ah well um uh okay ok
    actually honestly basically quick correction update note fyi oops sorry wait
    heads hey hi hello yeah yes lol haha big news small tiny one more thing then
    changed scratch turns never"""
_FILLER_WORDS = frozenset(_FILLER_WORDS_TEXT.split())


def correction_marker(text: str) -> bool:
    return bool(MARKER.search(text))


_LEADING_FILLER = re.compile(
    r"^(?:(?:quick|small|tiny|one|a|big|just a)\s+)?(?:correction|update|note|fix|news)\s*[:!,.-]\s*"
    r"|^(?:also|and|but|so|plus|anyway|anyways|btw|by the way|oh|ah|well|um|uh|okay|ok|"
    r"actually|honestly|basically|oops|sorry|fyi|heads up)\b\s*[,:!.-]?\s*",
    re.IGNORECASE,
)


def trim_filler(unit: str) -> str:
    """A unit without the fillers at its start ("Also, ", "And ", "Quick correction: "),
    starting with a capital letter."""
    text = unit
    for _ in range(4):
        trimmed = _LEADING_FILLER.sub("", text, count=1)
        if trimmed == text or len(_TOKEN.findall(trimmed)) < 3:
            break
        text = trimmed
    return text[:1].upper() + text[1:] if text else unit


MAX_GROUP_WORDS = 40


def group_units(units: Sequence[str], *, day: date | None = None) -> list[str]:
    """One message's statements, neighbours joined while short: a chat turn usually says
    one thing in a few sentences, and a memory of the turn keeps its context. What
    :func:`_stands_alone` (on the message's ``day``) and anything past
    ``MAX_GROUP_WORDS`` words start a memory of their own."""
    groups: list[str] = []
    for unit in units:
        if (
            groups
            and not _stands_alone(unit, day)
            and not _stands_alone(groups[-1], day)
            and len(groups[-1].split()) + len(unit.split()) <= MAX_GROUP_WORDS
            and not introduction(groups[-1])
            and not introduction(unit)
        ):
            groups[-1] = f"{groups[-1]} {unit}"
        else:
            groups.append(unit)
    return groups


def _stands_alone(unit: str, day: date | None = None) -> bool:
    """A roster, a correction, something upcoming and a stated liking are memories of
    their own: each has its own tier or its own rewrite, never its neighbours'. A
    happening already past (on ``day``) is a fact like the statements around it."""
    dated = bool(_RELATIVE.search(unit) or _EXPLICIT_DATE.search(unit))
    return (
        "\n" in unit
        or (correction_marker(unit) and claims(unit))
        or (dated and (day is None or upcoming(unit, day)))
        or bool(_PREFERENCE.search(unit))
    )


def _questions(content: str) -> str:
    """The question sentences of a message, for the cue of the answer that follows."""
    asked = [s for s in split_sentences(" ".join(content.split())) if s.endswith("?")]
    return " ".join(asked)[:200]


def tier_of(text: str, *, upcoming: bool = False) -> str:
    """``preferences`` for a stated liking, ``events`` for something upcoming (it fades
    once past), ``facts`` otherwise: a dated happening in the past stays true."""
    if _PREFERENCE.search(text):
        return "preferences"
    if upcoming:
        return "events"
    return "facts"


_FUTURE = re.compile(
    r"\b(?:will|won't|shall|going to|gonna|plan(?:s|ned|ning)? to|planning|scheduled|"
    r"booked|upcoming|about to|looking forward|can't wait)\b|\w'll\b",
    re.IGNORECASE,
)
_FORWARD = re.compile(
    r"\b(?:tomorrow|tonight|next (?:week|weekend|month|year|"
    + "|".join(d.lower() for d in calendar.day_name)
    + r")|in (?:\d+|a|an|one|two|three|four|five|six|a few|a couple of) (?:day|week|month|year)s?)\b",
    re.IGNORECASE,
)
_BACKWARD = re.compile(
    r"\b(?:yesterday|last (?:night|week|weekend|month|year|"
    + "|".join(d.lower() for d in calendar.day_name)
    + r")|ago)\b",
    re.IGNORECASE,
)


def upcoming(unit: str, day: date) -> bool:
    """Whether a dated statement (before its relative dates are resolved) is about
    something still ahead on ``day``: a forward relative date ("tomorrow", "next
    week"), a date after ``day``, or, for "today" and "this week", a future phrase
    ("will", "going to", "scheduled"). A happening already past is not."""
    if _FORWARD.search(unit):
        return True
    if _BACKWARD.search(unit):
        return False
    return upcoming_date(unit, day)


def upcoming_date(text: str, day: date) -> bool:
    """An explicit date in ``text`` after ``day`` (a day without a year: later in the
    year), else whether ``text`` has a future phrase ("will", "going to", ...)."""
    for match in _EXPLICIT_DATE.finditer(text):
        found = _explicit_day(match.group(0), day)
        if found is not None:
            return found > day
    return bool(_FUTURE.search(text))


def _explicit_day(phrase: str, day: date) -> date | None:
    if _ISO_DATE.fullmatch(phrase):
        return date.fromisoformat(phrase)
    words = re.findall(r"[A-Za-z]+|\d+", phrase)
    month = next(
        (
            i
            for w in words
            for i, name in enumerate(calendar.month_name)
            if i and name[:3] == w[:3].title()
        ),
        None,
    )
    numbers = [int(w) for w in words if w.isdigit()]
    if month is None or not numbers:
        return None
    if numbers[0] > 31:  # "May 2023": the month, counted as past once it has begun
        return date(numbers[0], month, 1) if (numbers[0], month) > (day.year, day.month) else day
    try:
        return date(day.year, month, numbers[0])
    except ValueError:
        return None


def _with_source(draft: Draft, message_id: str, when: datetime) -> Draft:
    return replace(draft, sources=(*draft.sources, message_id), when=max(draft.when, when))


# --- relative dates -----------------------------------------------------------------

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "a couple of": 2,
}  # fmt: skip
_WEEKDAYS = [d.lower() for d in calendar.day_name]
_VAGUE = ("a few", "few", "several")


def _iso(day: date) -> str:
    return day.isoformat()


def _month(day: date, delta: int) -> str:
    index = day.year * 12 + day.month - 1 + delta
    return f"{calendar.month_name[index % 12 + 1]} {index // 12}"


def _relative(phrase: str, day: date) -> tuple[str, str] | None:
    """(preposition, absolute phrase) for one relative-date phrase, lowercased."""
    p = " ".join(phrase.split())
    fixed = {
        "the day before yesterday": ("on", _iso(day - timedelta(days=2))),
        "yesterday": ("on", _iso(day - timedelta(days=1))),
        "today": ("on", _iso(day)),
        "tomorrow": ("on", _iso(day + timedelta(days=1))),
        "the day after tomorrow": ("on", _iso(day + timedelta(days=2))),
        "last night": ("on", f"the night of {_iso(day - timedelta(days=1))}"),
        "tonight": ("on", f"the evening of {_iso(day)}"),
        "last week": ("in", f"the week before {_iso(day)}"),
        "this week": ("in", f"the week of {_iso(day)}"),
        "next week": ("in", f"the week after {_iso(day)}"),
        "last month": ("in", _month(day, -1)),
        "this month": ("in", _month(day, 0)),
        "next month": ("in", _month(day, 1)),
        "last year": ("in", str(day.year - 1)),
        "this year": ("in", str(day.year)),
        "next year": ("in", str(day.year + 1)),
    }
    if p in fixed:
        return fixed[p]
    if p in ("last weekend", "this weekend", "next weekend"):
        # Weekends are named by their Saturday; "this weekend" on a Sunday is yesterday's.
        this = (
            day - timedelta(days=1)
            if day.weekday() == 6
            else day + timedelta(days=5 - day.weekday())
        )
        shift = {"last weekend": -7, "this weekend": 0, "next weekend": 7}[p]
        return "on", f"the weekend of {_iso(this + timedelta(days=shift))}"
    m = re.fullmatch(r"(yesterday|this) (morning|afternoon|evening)", p)
    if m:
        base = day - timedelta(days=1) if m.group(1) == "yesterday" else day
        return "on", f"the {m.group(2)} of {_iso(base)}"
    m = re.fullmatch(r"(last|next) (\w+day)", p)
    if m and m.group(2) in _WEEKDAYS:
        target = _WEEKDAYS.index(m.group(2))
        if m.group(1) == "last":
            found = day - timedelta(days=(day.weekday() - target) % 7 or 7)
        else:
            found = day + timedelta(days=(target - day.weekday()) % 7 or 7)
        return "on", f"{calendar.day_name[target]} {_iso(found)}"
    m = re.fullmatch(r"(.+?) (day|week|month|year)s? ago", p)
    if m:
        amount, unit = m.group(1), m.group(2)
        if amount in _VAGUE:
            return "", f"{amount} {unit}s before {_iso(day)}"
        n = int(amount) if amount.isdigit() else _NUMBERS.get(amount)
        if n is None:
            return None
        if unit == "day":
            return "on", _iso(day - timedelta(days=n))
        if unit == "week":
            return "in", f"the week of {_iso(day - timedelta(weeks=n))}"
        if unit == "month":
            return "in", _month(day, -n)
        return "in", str(day.year - n)
    return None


_AMOUNT = r"(?:\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|several|a couple of|couple of)"
_RELATIVE = re.compile(
    r"\b(?:the day before yesterday|the day after tomorrow|yesterday (?:morning|afternoon|evening)"
    r"|this (?:morning|afternoon|evening)|yesterday|today|tomorrow|last night|tonight"
    r"|(?:last|this|next) (?:week|weekend|month|year)"
    rf"|(?:last|next) (?:{'|'.join(_WEEKDAYS)})"
    rf"|{_AMOUNT} (?:day|week|month|year)s? ago)\b",
    re.IGNORECASE,
)


def resolve_relative_dates(text: str, day: date) -> tuple[str, bool]:
    """``text`` with relative dates made absolute against ``day``; and whether any were."""
    found = False

    def absolute(match: re.Match[str]) -> str:
        nonlocal found
        resolved = _relative(match.group(0).lower(), day)
        if resolved is None:
            return match.group(0)
        found = True
        preposition, phrase = resolved
        before = text[: match.start()].rstrip().rsplit(None, 1)
        if not preposition or (before and before[-1].lower() in _PREPOSITIONS):
            return phrase
        return f"{preposition} {phrase}"

    return _RELATIVE.sub(absolute, text), found


# --- terms and cues -----------------------------------------------------------------


def content_words(text: str) -> set[str]:
    return {
        t.lower().strip("'’-")
        for t in _TOKEN.findall(text)
        if t.lower() not in STOPWORDS and (len(t) > 2 or any(c.isdigit() for c in t))
    }


def terms(text: str, *, exclude: Set[str] = frozenset()) -> list[str]:
    """Distinguishing terms: runs of capitalised words, numbers, dates, model names.

    A run breaks at punctuation and at dates, so "Melanie: Lake Tahoe" is two terms.
    """
    found: list[str] = []
    run: list[str] = []

    def close_run() -> None:
        if run:
            phrase = " ".join(run)
            if phrase.casefold() not in exclude:
                found.append(phrase)
            run.clear()

    for sentence in split_sentences(text.replace("\n", ". ")):
        end = 0
        for match in _TOKEN.finditer(sentence):
            token = match.group(0)
            if sentence[end : match.start()].strip():
                close_run()  # punctuation between the words
            end = match.end()
            if _ISO_DATE.fullmatch(token):
                close_run()
                found.append(token)  # a date is a term of its own, never part of a name
                continue
            distinctive = any(c.isdigit() for c in token) or (
                token[0].isupper()
                and token.lower() not in STOPWORDS
                and token.lower() not in _FILLER_WORDS
                and token.lower() not in _CALENDAR_WORDS
                and token != "I"
            )
            if distinctive:
                run.append(token)
            else:
                close_run()
        close_run()
    return list(dict.fromkeys(found))


def _term_keys(text: str, speakers: Set[str]) -> set[str]:
    keys = set()
    for term in terms(text, exclude=speakers):
        key = term.casefold()
        if key.isdigit() and len(key) < 3:
            continue  # "2 dogs" and "2 tickets" are not one entity
        keys.add(key)
    return keys


_PASSING = re.compile(r"\b(?:in|at|to|from|near|around|across|through|via|into|outside)\s+$", re.I)


def _in_passing(text: str, keys: Set[str]) -> set[str]:
    """The terms of ``text`` that are only ever mentioned after a place preposition."""
    found = set()
    folded = text.casefold()
    for key in keys:
        if _ISO_DATE.fullmatch(key):
            continue
        starts = [m.start() for m in re.finditer(re.escape(key), folded)]
        if starts and all(_PASSING.search(folded[max(0, i - 12) : i]) for i in starts):
            found.add(key)
    return found


def _topic(distinguishing: list[str], text: str) -> str:
    for term in distinguishing:
        if good_label(term):
            return term
    words = sorted((w for w in content_words(text) if good_label(w)), key=lambda w: (-len(w), w))
    return words[0] if words else "general"


def good_label(term: str) -> bool:
    """A tag or topic: has letters, is not a time, a stopword or a filler word."""
    key = term.casefold()
    return (
        any(c.isalpha() for c in key)
        and not _ISO_DATE.search(key)
        and not re.fullmatch(r"[\d:.,/-]+(?:am|pm)?", key)
        and key not in STOPWORDS
        and key not in _FILLER_WORDS
        and key not in _CALENDAR_WORDS
        and not re.match(rf"(?:{_MONTHS})\b", term)
        and len(key) > 1
    )


def _tags(distinguishing: list[str], text: str, *, who: str | None = None) -> list[str]:
    tags = [t.lower() for t in distinguishing if good_label(t)][:3]
    if not tags:
        tags = sorted(
            (w for w in content_words(text) if good_label(w)), key=lambda w: (-len(w), w)
        )[:2]
    if introduction(text):
        tags = ["name", *tags]
    if who and good_label(who):
        tags.append(who.casefold())  # who said it: a question naming them favours it
    return list(dict.fromkeys(t[:60] for t in tags))


_CLAUSE_END = re.compile(r"[,;:–—()]|\s(?:and|but|because|so|which|who|while|when)\s")
MAX_HEAD_TOKENS = 14
_PHRASE_BREAK = _PREPOSITIONS | {"at", "with", "for", "to", "called", "named", "which", "who"}


def _head_phrase(sentence: str) -> str:
    """The sentence as a cue: whole when short, else cut at a clause boundary, never
    after an article, preposition or other stopword."""
    tokens = _TOKEN.findall(sentence)
    if len(tokens) <= MAX_HEAD_TOKENS:
        return " ".join(tokens)
    cut = None
    for m in _CLAUSE_END.finditer(sentence):
        n = len(_TOKEN.findall(sentence[: m.start()]))
        if 4 <= n <= MAX_HEAD_TOKENS:
            cut = n
    if cut is None:
        # no clause boundary early enough: end before a preposition (a phrase boundary)
        cut = max(
            (i for i in range(4, MAX_HEAD_TOKENS + 1) if tokens[i].casefold() in _PHRASE_BREAK),
            default=MAX_HEAD_TOKENS,
        )
    tokens = tokens[:cut]
    while len(tokens) > 3 and (
        tokens[-1].casefold() in STOPWORDS or tokens[-1].casefold() in _PREPOSITIONS
    ):
        tokens.pop()
    return " ".join(tokens)


def cues_for(
    *, text: str, tier: str, who: str | None, terms: list[str], asked: str = ""
) -> list[str]:
    """Up to ``MAX_CUES`` keys: the head phrase, the question it answers, name and
    attribute questions, the sentences as said (see the module docstring)."""
    subject = who or "I"
    does = "do" if subject == "I" else "does"
    did = "did"
    keys = [t for t in terms if t.casefold() != subject.casefold()]
    if not keys:
        keys = sorted(content_words(text), key=lambda w: (-len(w), w))[:2]
    dates = [t for t in keys if _ISO_DATE.fullmatch(t)]
    names = [t for t in keys if t not in dates]
    head = _head_phrase(split_sentences(text.split("\n", 1)[0])[0])
    names = [t for t in names if good_label(t)]
    cues = [f"{subject} {head}" if who else head]
    if asked:
        # What the message before asked, with the answer's start: the asker's words are
        # often how the fact is asked for later.
        cues.append(f"{asked} {subject}: {head}" if who else f"{asked} {head}")
    if introduction(text):
        cues += ["what is my name", "who am I"] if not who else [f"what is {who}'s name"]
    cues += question_cues(text, who=who)
    cues += _sentence_cues(text, who=who, head=head)
    if tier == "preferences":
        cues.append(f"what {does} {subject} like")
        cues += [f"how {does} {subject} feel about {t}" for t in names[:2]]
    elif dates:
        cues += [f"what {did} {subject} do on {d}" for d in dates[:1]]
    return [c[:300] for c in dict.fromkeys(" ".join(c.split()) for c in cues)][:MAX_CUES]


MAX_CUES = 8
_CUE_CHARS = 300


def _sentence_cues(text: str, *, who: str | None, head: str) -> list[str]:
    """Each sentence of the memory that states something (3+ content words), as said,
    and the whole statement when it has several: the semantic arm sees only cues, and
    a question usually asks after one sentence, often not the first."""
    prefix = f"{who}: " if who else ""
    every = split_sentences(" ".join(text.split()))
    sentences = [
        s for s in every if len(content_words(s)) >= 3 and " ".join(_TOKEN.findall(s)) != head
    ]
    cues = [f"{prefix}{s}" for s in sentences if len(prefix) + len(s) <= _CUE_CHARS]
    whole = f"{prefix}{' '.join(text.split())}"
    if len(every) > 1 and len(whole) <= _CUE_CHARS:
        cues.insert(0, whole)
    return cues


# --- reconcile ----------------------------------------------------------------------


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def same_subject_score(draft: Draft, text: str, tier: str) -> float:
    """Jaccard of content words when ``text`` is the same subject as ``draft``, else 0."""
    if tier != draft.tier:
        return 0.0
    mine, theirs = _SPEAKER.match(draft.body), _SPEAKER.match(text)
    if mine and theirs and mine.group(1) != theirs.group(1):
        return 0.0  # one person's statement never rewrites another's
    score = jaccard(content_words(draft.body), content_words(text))
    if score < SAME_SUBJECT:
        return 0.0
    mine, theirs = set(map(str.casefold, terms(draft.body))), set(map(str.casefold, terms(text)))
    if mine and theirs and not mine & theirs:
        return 0.0
    return score


def merge_bodies(old: str, news: Sequence[str]) -> str:
    """Old sentences the new ones do not restate, then the new sentences (latest last)."""
    new_sentences = list(dict.fromkeys(s for body in news for s in _statements(body)))
    new_words = [content_words(s) for s in new_sentences]
    kept = [
        s
        for s in _statements(old)
        if s not in new_sentences and not any(content_words(s) <= words for words in new_words)
    ]
    parts = kept + new_sentences
    return ("\n" if any("\n" in part for part in parts) else " ").join(parts)


def _statements(body: str) -> list[str]:
    # Lists stay whole: a roster's lines restate nothing on their own.
    if "\n- " in body:
        return [body.strip()]
    return split_sentences(" ".join(body.split()))


def _link_neighbours(drafts, links: list, linked: set, degree: dict, *, same_message: bool) -> None:
    """Link consecutive drafts from the same message (``same-context``, earlier to
    later) or from consecutive messages (``follows``, later to earlier), while both
    ends have links to spare; ``linked`` and ``degree`` are updated in place."""
    for before, after in zip(drafts, drafts[1:], strict=False):
        if (
            (before.sources == after.sources) == same_message
            and (before.key, after.key) not in linked
            and degree[before.key] < MAX_LINKS_PER_MEMORY
            and degree[after.key] < MAX_LINKS_PER_MEMORY
        ):
            if same_message:
                links.append(DraftLink(source=before.key, target=after.key, type="same-context"))
            else:
                links.append(DraftLink(source=after.key, target=before.key, type="follows"))
            degree[before.key] += 1
            degree[after.key] += 1
            linked.add((before.key, after.key))
