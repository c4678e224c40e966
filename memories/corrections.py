"""The offline extractor's Reconcile rules for corrections, without a model.

A new statement corrects an existing memory when both state the same **attribute** of
the same **subject** and the values differ ("Biscuit is three" → "Biscuit is actually
four"), or when the new one carries a correction marker ("actually", "not X anymore",
"changed my mind", "now", "moved to", "instead of", "no longer") and names the same
subject and attribute. Attributes recognised: age, employer, manager, favourite
(per thing: colour, food, ...), city, the date or time of a named event (trip, flight,
appointment, ...), price and count (per noun).

The subject is what the attribute belongs to: a distinguishing name both statements
share that is not itself a value (``Biscuit``, ``Zalando``), a relation of the speaker
("my sister"), an event noun ("the trip"), or the speaker themself for their own
employer, manager, city and age. Two statements about different subjects never merge
("I live in Berlin" and "my brother lives in Munich").

The rewrite states the current truth: each old sentence that stated the old value gets
the new value in its place (so its other specifics stay), an old sentence that
contradicts and cannot be edited is dropped, and the cleaned new statement follows
unless the edited old text already says all it says. History keeps the old version.

These are the no-key default's rules; with a model configured, the model decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
}  # fmt: skip
_NUM = r"(?:\d{1,3}|" + "|".join(_WORD_NUMBERS) + r")"
_NAME = r"[A-Z][\w&'.-]*(?:\s+(?:of\s+|de\s+|van\s+)?[A-Z][\w&'.-]*)*"
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = (
    rf"(?:\d{{4}}-\d{{2}}-\d{{2}}"
    rf"|{_MONTH}\.?\s+{_DAY}(?:\s*[-–—]\s*(?:{_MONTH}\.?\s+)?{_DAY})?(?:,?\s+\d{{4}})?"
    rf"|{_DAY}(?:\s*[-–—]\s*{_DAY})?\s+(?:of\s+)?{_MONTH}(?:\s+\d{{4}})?"
    r"|(?:next\s+|this\s+|last\s+)?(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday))"
)
_TIME = r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}"
_PRICE = r"[$€£₹]\s?\d[\d,]*(?:\.\d+)?k?|\d[\d,]*(?:\.\d+)?\s?(?:dollars|euros|pounds|usd|eur|gbp|rupees)"

_EVENT_NOUNS_TEXT = (
    "trip flight appointment meeting wedding party concert interview dinner class "
    "surgery exam vacation holiday visit checkup check-up lease move deadline launch "
    "reservation booking recital game match show conference ceremony birthday"
)
EVENT_NOUNS = _EVENT_NOUNS_TEXT.split()
_EVENT = r"(?:" + "|".join(re.escape(n) for n in EVENT_NOUNS) + r")"
_RELATIONS_TEXT = (
    "sister brother mom mum mother dad father son daughter wife husband partner "
    "girlfriend boyfriend friend cousin aunt uncle grandma grandmother grandpa "
    "grandfather niece nephew roommate neighbour neighbor boss manager colleague "
    "coworker dog cat puppy kitten car apartment flat house landlord dentist doctor "
    "therapist kid kids child children team"
)
RELATIONS = _RELATIONS_TEXT.split()
_RELATION = r"(?:" + "|".join(RELATIONS) + r")"

# Markers that a statement corrects or updates an earlier one.
MARKER = re.compile(
    r"\b(?:actually|correction|not\s+\w+(?:\s+\w+)?\s+any\s?more|no longer|changed my mind|"
    r"instead of|moved to|now|switched|update|turns out|anymore|any more|rescheduled|"
    r"pushed (?:back|to)|postponed|new (?:job|manager|boss|address|number|price)|"
    r"down to|up to|dropped|raised|went (?:up|down)|increased|decreased|turned|got moved|"
    r"changed|left|quit)\b",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"^(?:(?:quick|small|tiny|one|a|just a)\s+)?(?:correction|update|fix|note|change)\s*[:,!.-]\s*"
    r"|^(?:oh|oops|ah|um|uh|well|so|also|and|but|btw|by the way|sorry|wait|hey|ok|okay)\b[,:!.]?\s*"
    r"|^actually\s*[,:]?\s*",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    r"[,;]?\s*(?:and\s+|but\s+)?(?:not|no longer)\s+(?P<old>(?:the\s+|a\s+|an\s+)?[\w$€£₹:.,'–-]+"
    r"(?:\s+[\w$€£₹:.'–-]+){0,3}?)(?:\s+any\s?more)?(?=\s*(?:[.,;!)]|$|\s+as\b|\s+anymore))"
    r"|\s*\(\s*not\s+(?P<old2>[^)]+)\)"
    r"|[,;]?\s*instead of\s+(?P<old3>[^.,;!]+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Claim:
    attribute: str  # "age", "employer", "favourite colour", "date:trip", "count:cats", ...
    value: str  # as written
    span: tuple[int, int]  # where the value is in the text

    @property
    def norm(self) -> str:
        return normalise(self.value)


def normalise(value: str) -> str:
    v = value.casefold().strip(" .,;:!'\"")
    v = re.sub(r"^(?:the|a|an|my)\s+", "", v)
    v = v.replace("–", "-").replace("—", "-")
    v = re.sub(r"\s+", " ", v)
    return str(_WORD_NUMBERS.get(v, v))


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    flags = re.IGNORECASE
    return [
        ("age", re.compile(rf"\b(?P<v>{_NUM})[- ]years?[- ]old\b", flags)),
        (
            "age",
            re.compile(
                rf"\b(?:is|am|i'm|turned|turns|turning|aged?)\s+(?:now\s+|actually\s+|just\s+|only\s+)?(?P<v>{_NUM})(?=\s*(?:$|[.,;!?)]|(?:and|but|now|last|this|yesterday|today|in|on|since|already|years?)\b))",
                flags,
            ),
        ),
        (
            "manager",
            re.compile(
                rf"\b(?:report(?:s|ing)?\s+to|(?:manager|boss|supervisor|team lead)\s+is(?:\s+now)?(?:\s+actually)?|new (?:manager|boss)(?:\s+is)?,?)\s+(?P<v>{_NAME})"
            ),
        ),
        (
            "employer",
            re.compile(
                rf"\b(?:work(?:s|ing|ed)?|job)\s+(?:now\s+)?(?:as\s+an?\s+[\w -]{{1,30}}?\s+)?(?:at|for)\s+(?P<v>{_NAME})"
            ),
        ),
        (
            "employer",
            re.compile(
                rf"\b(?:joined|switched to|started at|moved to|employer is|employed by|hired (?:at|by))\s+(?P<v>{_NAME})(?=.*\b(?:job|work|company|role|team|engineer|developer|manager|designer|analyst|position|employer|hired|offer|no longer at|left|quit))"
            ),
        ),
        (
            "city",
            re.compile(
                rf"\b(?:live|lives|living|lived|based|settled)\s+(?:now\s+)?in\s+(?P<v>{_NAME})"
            ),
        ),
        (
            "city",
            re.compile(
                rf"\b(?:moved|moving|relocated|relocating)\s+(?:back\s+)?to\s+(?P<v>{_NAME})(?!.*\b(?:job|work|company|role|team)\b)"
            ),
        ),
        ("city", re.compile(rf"\b(?:home|hometown|city)\s+is\s+(?:now\s+)?(?P<v>{_NAME})")),
        (
            "favourite",
            re.compile(
                r"\bfavou?rite\s+(?P<k>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|was|are)\s+(?:now\s+|actually\s+|still\s+)*(?P<v>[\w'’-]+(?:\s+[\w'’-]+){0,5}?)(?=\s*(?:[.,;!]|$|\s+now|\s+instead|\s+not|\s+these days|\s+again|\s+though|\s+and\b|\s+but\b|\s+by\b))",
                flags,
            ),
        ),
        ("price", re.compile(rf"(?P<v>{_PRICE})", flags)),
        ("time", re.compile(rf"\b(?:at|to|for|from|until)\s+(?P<v>{_TIME})", flags)),
        ("date", re.compile(rf"(?P<v>{_DATE})")),
        (
            "count",
            re.compile(
                rf"\b(?P<v>{_NUM})\s+(?:(?:more|new|other|little|big|small|young|old|rescue|adopted)\s+)?(?P<k>[a-z]{{3,}})\b",
                flags,
            ),
        ),
    ]


PATTERNS = _patterns()
_NOT_COUNTED_TEXT = """year day week month hour minute time and but the for with who which that of
    old more less am pm percent"""
_NOT_COUNTED = frozenset(_NOT_COUNTED_TEXT.split())
_USER_ATTRIBUTES = {"employer", "manager", "city", "age"}


def claims(text: str) -> list[Claim]:
    """Every attribute the text states a value for, with the value's place."""
    found: list[Claim] = []
    taken: list[tuple[int, int]] = []
    event = re.search(rf"\b{_EVENT}s?\b", text, re.IGNORECASE)
    for attribute, pattern in PATTERNS:
        for m in pattern.finditer(text):
            span = m.span("v")
            if any(a < span[1] and span[0] < b for a, b in taken):
                continue
            value = m.group("v").rstrip(".,'’")
            span = (span[0], span[0] + len(value))
            name = attribute
            if attribute == "favourite":
                name = f"favourite {m.group('k').casefold()}"
            elif attribute == "count":
                noun = m.group("k").casefold().split()[-1]
                noun = noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun
                if noun in _NOT_COUNTED:
                    continue
                name = f"count:{noun}"
            elif attribute in ("date", "time"):
                if event is None:
                    continue
                name = f"{attribute}:{event.group(0).casefold().rstrip('s')}"
            elif attribute in ("city", "employer") and re.fullmatch(_MONTH, value.split()[0]):
                continue
            taken.append(span)
            found.append(Claim(attribute=name, value=value, span=span))
    return found


def subjects(text: str, *, values: set[str], names: set[str]) -> set[str]:
    """What the statement is about: names, relations ("my sister"), event nouns."""
    found = set()
    for m in re.finditer(rf"\b{_NAME}", text):
        for word in m.group(0).split():
            key = word.casefold().strip("'.’s")
            if (
                len(key) > 2
                and key not in names
                and normalise(word) not in values
                and not any(key in v.split() for v in values)
                and key not in _NOT_SUBJECTS
                and not re.fullmatch(_MONTH, word)
            ):
                found.add(key)
    for m in re.finditer(rf"\b(?:my|our)\s+(?:\w+\s+)?(?P<r>{_RELATION})\b", text, re.IGNORECASE):
        found.add("my " + m.group("r").casefold())
    for m in re.finditer(rf"\b{_EVENT}\b", text, re.IGNORECASE):
        found.add(m.group(0).casefold())
    return found


_NOT_SUBJECTS_TEXT = """i i'm i've i'd actually quick correction update oh also and but so now not the my
    just hey hi well okay ok sorry wait our we it he she they this that yes no turns
    changed moved monday tuesday wednesday thursday friday saturday sunday btw"""
_NOT_SUBJECTS = frozenset(_NOT_SUBJECTS_TEXT.split())


def _owner(text: str, names: set[str]) -> str:
    """Whose attribute a first-person statement gives: ``me`` or a relation/name."""
    head = clean_statement(text)[:60]
    m = re.match(rf"(?:\w+:\s+)?(?:my|our)\s+(?:\w+\s+)?(?P<r>{_RELATION})\b", head, re.IGNORECASE)
    if m and m.group("r").casefold() not in ("manager", "boss"):
        return "my " + m.group("r").casefold()
    m = re.match(
        rf"(?:\w+:\s+)?(?P<n>{_NAME})\s+(?:is|was|has|works|lives|moved|turned|just)\b", head
    )
    if m and m.group("n").split()[0].casefold() not in _NOT_SUBJECTS | names:
        return m.group("n").casefold()
    return "me"


def clean_statement(text: str) -> str:
    """The statement without the fillers and correction markers at its start."""
    prefix = ""
    m = re.match(r"([^:\n]{1,64}:\s+)(?=\S)", text)
    if m and not re.match(r"(?i)(quick |small )?(correction|update|note|fix)", m.group(1)):
        prefix, text = m.group(1), text[m.end() :]
    for _ in range(4):
        stripped = _FILLER.sub("", text, count=1)
        if stripped == text:
            break
        text = stripped
    text = re.sub(r"(?i)^(?:i(?:'ve| have)? changed my mind(?: again)?\s*[:,-]?\s*)", "", text)
    if text[:1].islower():
        text = text[:1].upper() + text[1:]
    return prefix + text


def negated_values(text: str) -> list[str]:
    found = []
    for m in _NEGATED.finditer(text):
        value = m.group("old") or m.group("old2") or m.group("old3")
        if value:
            found.append(value.strip())
    return found


def without_negations(text: str) -> str:
    """'Biscuit is actually four, not three.' -> 'Biscuit is four.'"""
    out = _NEGATED.sub("", text)
    out = re.sub(r"\b(?:actually|now)\s+", "", out, flags=re.IGNORECASE)
    out = re.sub(r"\s+([.,;!])", r"\1", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    if not out.endswith((".", "!", "?")):
        out += "."
    return out


_MARKERS_IN_OLD = re.compile(
    r"^(?:(?:quick\s+)?correction\s*:\s*|actually,?\s+|changed my mind(?: again)?\s*[:,]\s*)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Correction:
    attribute: str
    old_values: tuple[str, ...]  # every value the old text gave the attribute
    new_value: str
    score: float


def correction(new: str, old: str, *, names: set[str] = frozenset()) -> Correction | None:
    """Whether ``new`` corrects ``old`` (see the module docstring), and how."""
    new_claims, old_claims = claims(new), claims(old)
    if not new_claims or not old_claims:
        return None
    marked = bool(MARKER.search(new))
    negated = {normalise(v) for v in negated_values(new)}
    new_values = {c.norm for c in new_claims} | negated
    old_values = {c.norm for c in old_claims}
    shared = subjects(new, values=new_values | old_values, names=names) & subjects(
        old, values=new_values | old_values, names=names
    )
    owner = _owner(new, names)
    same_owner = owner == _owner(old, names)
    shared_names = {s for s in shared if s not in EVENT_NOUNS and not s.startswith("my ")}
    best: Correction | None = None
    for n in new_claims:
        if n.norm in negated:
            continue
        for o in old_claims:
            if n.attribute != o.attribute:
                continue
            if n.norm == o.norm:
                continue  # the same value again: a restatement, not a correction
            # Named subjects in common, or one owner ("me", "my sister") and the
            # attribute is theirs or the shared thing is an event/relation noun.
            about_same = bool(shared_names) or (
                same_owner
                and (
                    bool(shared)
                    or (
                        owner == "me"
                        and (
                            n.attribute in _USER_ATTRIBUTES
                            or n.attribute.startswith(("favourite", "count:"))
                        )
                    )
                )
            )
            if not about_same:
                continue
            if n.attribute.startswith(("count:", "price", "time", "date")) and not (
                shared or marked
            ):
                continue
            if n.attribute == "age" and not (shared or marked):
                continue
            score = 1.0 + (0.5 if marked else 0) + 0.2 * len(shared)
            if o.norm in negated:
                score += 1.0
            if best is None or score > best.score:
                olds = tuple(
                    dict.fromkeys(
                        c.value
                        for c in old_claims
                        if c.attribute == n.attribute and c.norm != n.norm
                    )
                )
                best = Correction(n.attribute, olds, n.value, score)
    return best


def corrected_body(
    old: str,
    new: str,
    fix: Correction,
    *,
    sentences: Callable[[str], list[str]],
    words: Callable[[str], set[str]],
) -> str:
    """The old body with the new value in place of the old, then the new statement.

    Old sentences that held the old value but cannot be edited are dropped; the cleaned
    new statement is appended unless the edited old text already says everything in it.
    """
    statement = without_negations(clean_statement(new))
    prefix = re.match(r"[^:\n]{1,64}:\s+", statement)
    kept: list[str] = []
    edited = False
    pattern = re.compile(
        r"(?<!\w)(?:" + "|".join(re.escape(v) for v in fix.old_values) + r")(?!\w)", re.IGNORECASE
    )
    for sentence in sentences(" ".join(old.split())):
        if not pattern.search(sentence):
            kept.append(sentence)
            continue
        if any(normalise(fix.new_value) in normalise(k) for k in kept if pattern.search(k)):
            continue  # an earlier sentence already carries the new value
        replaced = pattern.sub(fix.new_value, sentence)
        replaced = _MARKERS_IN_OLD.sub("", replaced)
        replaced = replaced[:1].upper() + replaced[1:]
        if replaced not in kept:
            kept.append(replaced)
        edited = True
    body_words = words(" ".join(kept))
    statement_words = words(statement[prefix.end() :] if prefix else statement)
    if not edited or not statement_words <= body_words:
        kept.append(statement)
    return " ".join(kept)


_SPEAKER_PREFIX = re.compile(r"([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,3}): ")
_NOT_SPEAKERS_TEXT = """quick small correction update big news note fyi ps edit btw heads important
    actually also oh ok okay so well reminder"""
_NOT_SPEAKERS = frozenset(_NOT_SPEAKERS_TEXT.split())


def speaker_of(text: str) -> str | None:
    """The ``Name: `` a named speaker's memory starts with, if any ("Update:" is not one)."""
    m = _SPEAKER_PREFIX.match(text)
    if m is None or m.group(1).split()[0].casefold() in _NOT_SPEAKERS:
        return None
    return m.group(1)


def question_cues(text: str, *, who: str | None = None) -> list[str]:
    """Questions the attributes a statement gives answer ("how old is Biscuit")."""
    found = claims(text)
    if not found:
        return []
    values = {c.norm for c in found}
    names = []
    for m in re.finditer(_NAME, text):
        words = [w.strip(".,'’") for w in m.group(0).split()]
        while words and (words[0].casefold() in _NOT_SUBJECTS or re.fullmatch(_MONTH, words[0])):
            words.pop(0)
        while words and words[-1].casefold() in _NOT_SUBJECTS:
            words.pop()
        phrase = " ".join(words).removesuffix("'s").removesuffix("’s")
        if phrase and normalise(phrase) not in values and phrase != who:
            names.append(phrase)
    owner = _owner(text, set())
    if who:
        me, do, be, my = who, "does", "is", f"{who}'s"
    elif owner == "me":
        me, do, be, my = "I", "do", "am", "my"
    else:
        me, do, be, my = owner, "does", "is", f"{owner}'s"
    name = names[0] if names else None
    cues: list[str] = []
    for claim in found:
        attribute = claim.attribute
        if attribute == "age":
            mine = re.match(r"(?:[^:\n]{1,64}:\s+)?(?:i'm|i am|i turned|i'll be)\b", text, re.I)
            cues.append(f"how old is {name}" if name and not mine else f"how old {be} {me}")
        elif attribute == "employer":
            cues.append(f"where {do} {me} work")
        elif attribute == "manager":
            cues.append(f"who is {my} manager")
        elif attribute == "city":
            cues.append(f"where {do} {me} live")
        elif attribute.startswith("favourite "):
            cues.append(f"what is {my} {attribute}")
        elif attribute == "price":
            cues.append(f"how much does {name} cost" if name else "how much does it cost")
        elif attribute.startswith("count:"):
            noun = attribute.split(":", 1)[1]
            cues.append(f"how many {noun}s {do} {me} have")
        elif attribute.startswith(("date:", "time:")):
            event = attribute.split(":", 1)[1]
            what = f"the {name} {event}" if name else f"{my} {event}"
            cues.append(
                f"when is {what}" if attribute.startswith("date") else f"what time is {what}"
            )
    return list(dict.fromkeys(" ".join(c.split()) for c in cues))[:2]
