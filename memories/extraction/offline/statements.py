"""A message's statements worth keeping, one fact each, in the speaker's words.

Read from the parse of each sentence (``memories.extraction.offline.language``):

* a **question**, a request ("Can you suggest ...", "Give me ..."), a greeting, a
  reaction or a passing feeling ("I'm so nervous", "That's what sold me") states no
  fact; a **joke** or hyperbole ("..., ha.", "lol", "basically X at this point") and a
  **hypothetical** ("If I won the lottery I'd ...") are not the user's facts either;
  a **hedge** ("I might buy ...") is kept only with its hedge and only when it names
  something (kind ``hedge``);
* coordinated **clauses** with their own subject ("I'm a pharmacist at Walgreens and I
  rent a flat in Tucson") become separate statements, and so do coordinated objects
  that each carry their own value ("Got a Kindle for $149 and headphones for $299": the
  second keeps the verb they share); a clause or sentence whose subject is a pronoun
  ("she's flying to Seoul") stays with the one it refers back to;
* a **list**, roster or schedule (a line ending in ``:`` with items under it, or a
  sentence with a ``:`` heading and several items) stays one statement.

Each statement keeps its words as said; a resolved date is written beside its phrase
("on Friday (2026-03-13)") by ``memories.extraction.offline.dates``.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date

from spacy.tokens import Doc, Span, Token

from memories.extraction.offline.dates import WEEKDAYS, Resolved, resolve_dates
from memories.extraction.offline.language import (
    CLOCK,
    aim_preposition,
    counted_family,
    dictionary_word,
    dose_said,
    fan_named,
    home_place,
    hyphenated,
    known_verb,
    name_typed_lower,
    new_amount,
    parse,
    pay_said,
    study_said,
    switched_kind,
    without_opener,
    work_said_bare,
)
from memories.extraction.offline.rules import rule_for, trace
from memories.extraction.offline.words import (
    BUILT_PLACES,
    CORRECTION,
    COURTESIES,
    DAY_PREPOSITIONS,
    DIETS,
    ENDING_PARTICLES,
    ENDING_VERBS,
    FEELINGS,
    FEMALE_KIN,
    GOAL_VERBS,
    INTERJECTIONS,
    LAUGHTER,
    LIKING_OPENERS,
    MALE_KIN,
    MESSAGE_NOUNS,
    MOVE_VERBS,
    PARTS_OF_DAY,
    RELATIONS,
    SPANS_OF_TIME,
    STATES,
    STATUS_CHANGES,
    VAGUE_NOUNS,
    content_words,
    good_label,
    interjection,
    past_form,
    word_set,
)

MAX_STATEMENT_CHARS = 1200
_SPEAKERS: ContextVar[frozenset[str]] = ContextVar("speakers", default=frozenset())
# the message names three weekdays or more, bare: a week's timetable, however typed
_WEEKLY: ContextVar[bool] = ContextVar("weekly", default=False)
_ANSWERING: ContextVar[bool] = ContextVar("answering", default=False)
# details said without a verb before any statement of the message ("£1,199, which ..."):
# they belong to the short answer the message opens with, if it has one
_ORPHANS: ContextVar[list[list[Token]] | None] = ContextVar("orphans", default=None)
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,3}[.)])\s+")
_THIRD_PERSON = word_set("he she it they this that these those there")
_FIRST_PERSON = word_set("i we")
_SUBJECT_PRONOUNS = _THIRD_PERSON | _FIRST_PERSON | {"you"}
_FINITE_TAGS = frozenset(("VBZ", "VBP", "VBD", "MD"))
_CONTRACTIONS = word_set("'m 's 're 've 'd 'll ’m ’s ’re ’ve ’d ’ll")
_SKIP_AFTER_BREAK = frozenset(("cc", "punct", "advmod", "intj", "prep", "mark", "npadvmod"))
_QUESTION_AUX = word_set(
    "is are was were do does did can could would will should shall have has am"
)
_CONTRACTED_AUX = word_set("'s ’s 're ’re 'd ’d 'll ’ll")
_QUESTION_SUBJECTS = word_set("i you u we they it he she there this that these those my your")
_QUESTION_WORDS = word_set("how what where when why which who whom whose")
_LEADING_CONJUNCTIONS = word_set("so and but plus then also anyway")
# said before a clause, never part of it ("wait actually it's £1,530", "nah clubs aren't
# my thing"); not "no", "right", "morning": those can be the clause's own first word
_FILLERS = word_set(
    "wait ugh ok okay oh ooh ah aw hmm um uh yeah yep yup nah lol haha btw fyi wow oops"
)
# laughter typed after a word ends what was said ("I hate coriander lol"): tone, not
# words of the fact, and the small parser reads the sentence better without it
_LAUGH_AFTER_WORD = re.compile(
    r"(?<=[\w)])\s+(?:lol+|haha+|hehe+|lmao|lmfao|rofl)\b[.!]*(?P<more>\s+(?=\S))?", re.I
)
# so does an aside of the typist's typed at a clause's end ("I'm 34 btw", "we're in
# Leeds fyi, near the station"): it says how it is told, and the parser reads it as a
# noun of the clause ("how many btw do I have")
_ASIDE_AT_END = re.compile(
    r"(?<=[\w)])\s+(?:btw|fyi|tbh|tbf|ngl|imo|imho)\b(?=\s*(?:[.!?,;]|$))", re.I
)


def _without_tone(text: str) -> str:
    """The words said, without laughter or an aside typed after them."""
    text = _LAUGH_AFTER_WORD.sub(lambda m: ". " if m.group("more") else ".", text)
    return _ASIDE_AT_END.sub("", text)


_WOULD = re.compile(r"\b(?:would|could|'d)\b", re.IGNORECASE)
# "remind me that my mum's birthday is ...": a request to remember, wrapped round a fact
# "Actually scratch that, the appointment is on the 19th": the words that take back
# what was said are no part of the new statement (the parser hangs it off "scratch");
# "actually" and "wait" stay, they say it replaces something
_RETRACTION = re.compile(
    r"(?P<lead>^|[.!?]\s+)(?P<keep>\W*(?:(?:oh|ok|okay|um|uh|no)\W+)?(?:actually|wait)?\W*)"
    r"(?:scratch that|my bad|typo|correction|i meant|i mean)\s*[,:;.!–—-]+\s*",
    re.IGNORECASE,
)
# "reminder for me: dentist next tuesday": a heading for what follows, no fact
_NOTE_HEADING = re.compile(
    r"^\W*(?:a\s+|quick\s+)*(?:reminder|note)(?:\s+(?:for me|to self|to myself))?"
    r"(?:\s+basically)?\s*[:,–—-]\s*",
    re.IGNORECASE,
)
# "March 12 - wait no, March 21", "at 6:40, sorry, 7:40": a value taken back in the
# sentence that says it; the words of the taking back and the value it replaces go
_TAKEN_BACK = re.compile(
    r"(?P<mark>\s*[-–—,]\s*(?:(?:oh|um|uh|wait|no|sorry|oops|i mean|i meant|actually|sry)"
    r"(?:\s*,?\s*)){1,3}[,:]?\s+)(?P<new>[^,.;!?–—-]{1,30}?)(?=\s*(?:[,.;!?–—-]|$))",
    re.IGNORECASE,
)
_REMEMBER = re.compile(
    r"(?P<lead>^|[.!?]\s+)(?:(?:oh|and|also|btw|ok|okay)[\s,]+)*"
    r"(?:(?:please|pls|can you|could you|would you|just)\s+)*"
    # "I need to remember my passport expires ...": a note to self, the fact after it
    r"(?:(?:i|we)\s+(?:need|have|want|must|should)\s+to\s+(?=remember\b))?"
    # "I'd like you to remember ...", "I want you to note ...": asked of the assistant
    r"(?:i(?:'d|’d|\s+would)\s+like\s+you\s+to\s+|i\s+(?:want|need)\s+you\s+to\s+)?"
    r"(?:remind me|remember|note(?: down)?|make a note|keep in mind|don't forget|do not forget)"
    # "remind me — passport expires in August": a dash says what follows is the note
    r"(?:\s*[—–]\s*|\s+-\s+|\s+(?:that\s+)?(?=(?:my|our|i|i'm|we|we're|the)\b))",
    re.IGNORECASE,
)
_VALUE_LABELS = frozenset(("MONEY", "QUANTITY", "PERCENT", "CARDINAL"))


@dataclass
class Statement:
    """One statement of a message: its words as said, and with dates resolved."""

    plain: str  # as said (cleaned of leading fillers)
    text: str  # with resolved dates beside their phrases
    kind: str = "fact"  # fact | roster | hedge
    dates: list[Resolved] = field(default_factory=list)
    # as asked after: the words with the person a subject pronoun means in its place
    # ("Jonas works nights" for "He (Jonas) works nights"); "" when the same as plain
    asked_as: str = ""
    asked_of: str = ""  # that person, as named
    # "she teaches maths" after "my neighbour Priya is from Leicester": its own fact if
    # the extractor can say who "she" is, else said with the statement before (see
    # ``rejoined``)
    leans: bool = False
    joiner: str = ""  # a clause of that statement's sentence: the words between, as typed


def statements(
    content: str,
    *,
    day: date,
    speakers: frozenset[str] = frozenset(),
    answers: bool = False,
    asked: bool = False,
    offered: bool = False,
) -> list[Statement]:
    """The statements of one message said on ``day`` (see the module docstring);
    ``speakers`` (lower case) are the conversation's names, which state no fact.
    ``answers``: the message answers a question put to its speaker ("How long have
    you been married?"), so a short answer with a number or a name ("5 years
    already!") is kept as said when nothing else is; the question is its cue.
    ``asked``: a question was put that makes no cue; a short answer must then name
    something (a name or a number that is no date). ``offered``: the question was
    the assistant's offer ("Should I update your bio?"), which "Ja please." accepts
    without saying anything of the speaker."""
    token = _SPEAKERS.set(frozenset(speakers))
    weekly = _WEEKLY.set(_week_of_days(content))
    answering = _ANSWERING.set(answers)
    orphans = _ORPHANS.set([])
    try:
        found = _statements(content, day)
        if (answers or asked) and not (offered and _accepts(content)):
            # "Dexcom G7. I've had type 1 since I was 9": the first words answer the
            # question asked, whatever the message goes on to say
            short = _short_answer(content, day, fragment=bool(found), named=not answers)
            if not short and not found and answers:
                # "bramble and pip" to "What are the dogs called?": a reply that names
                # something answers the question, though no rule reads it as a statement
                short = _plain_answer(content, day)
            if short and not any(_overlaps(short[0], statement) for statement in found):
                # "A Bernina 335 from John Lewis. £1,199, which ...": the details after
                # the answer, said without a verb, are the answer's
                for clause in _ORPHANS.get() or []:
                    if _accepts(_text(clause)):
                        continue  # "Back on the 21st. checklist yes pls": the offer's yes
                    if _text(clause).rstrip(".!").casefold() not in short[0].plain.casefold():
                        _append(short[0], clause, day, same_sentence=False)
                if found and _OWNED.match(found[0].plain):
                    # "cockatiel. his name is Wasabi": what is the answer's is said with it
                    _join(short[0], found.pop(0))
                found = short + found
            elif not short and found and answers:
                # "Marcus, we've been together 6 years." to "What's your partner's
                # name?": the name before the comma answers, the rest is a fact of its own
                said = " ".join(content.split())
                at = said.casefold().find(found[0].plain.rstrip(".!").casefold())
                lead = said[:at].strip(" ,;:–—-") if at > 0 else ""
                if (
                    lead
                    and len(lead.split()) <= 4
                    and "," in said[:at]
                    and any(
                        (t.pos_ == "PROPN" or t.like_num) and t.lower_ not in INTERJECTIONS
                        for t in parse(said)
                        if t.idx < at
                    )
                ):
                    found = [Statement(plain=f"{lead}.", text=f"{lead}.", kind="fact"), *found]
        return found
    finally:
        _SPEAKERS.reset(token)
        _WEEKLY.reset(weekly)
        _ANSWERING.reset(answering)
        _ORPHANS.reset(orphans)


_COURTESY = word_set("please pls plz thanks thank cheers ta")


def _accepts(content: str) -> bool:
    """ "Ja please.", "Sim, please!", "yes pls thanks": a few words with a courtesy,
    accepting what was offered."""
    words = re.findall(r"[\w'’]+", content)
    return len(words) <= 4 and any(w.casefold() in _COURTESY for w in words)


def _only_interjections(sent: Span) -> bool:
    words = [t.text for t in sent if not t.is_punct]
    return bool(words) and all(interjection(w) for w in words)


def _overlaps(one: Statement, other: Statement) -> bool:
    a, b = one.plain.casefold().rstrip(".!"), other.plain.casefold().rstrip(".!")
    return a in b or b in a


# "no idea", "not sure tbh", "can't remember": a reply that says the speaker cannot answer
_UNSURE = word_set("idea clue sure know remember dunno idk unsure depends")


def _plain_answer(content: str, day: date) -> list[Statement]:
    """The first sentence of a short reply to a question about the speaker, kept when it
    names a thing, a name or a figure ("bramble and pip", "yep a weber kettle", "10%"),
    says no feeling ("pretty good, busy at work") and no "don't know"."""
    said = _without_tone(_asides(content)[0])
    doc = parse(" ".join(said.split()))
    first = next((s for s in doc.sents if not _only_interjections(s)), None)
    if first is None or _is_question(first) or _joke(first) or rule_for(first, "hypothetical"):
        return []
    words = [t for t in first if not t.is_punct]
    if not words or len(words) > 12 or any(t.lower_ in _UNSURE for t in words):
        return []
    if any(t.lower_ in FEELINGS or t.lemma_.lower() in COURTESIES for t in words):
        return []
    named = [
        t
        for t in words
        if not interjection(t.text)
        and (
            t.like_num
            or t.pos_ in ("NOUN", "PROPN", "ADJ", "X")
            and good_label(t.text)
            and t.lemma_.lower() not in VAGUE_NOUNS
        )
    ]
    if not named:
        return []
    trace("plain-answer", "keep", first.text)
    return [_statement(list(first), day, kind="fact")]


def _short_answer(
    content: str, day: date, *, fragment: bool = False, named: bool = False
) -> list[Statement]:
    """The message's first sentence as the answer to the question before it, when it
    names something specific; with ``fragment``, only when it has no verb ("Dexcom G7.",
    "End of April.") and the message is no list."""
    if fragment and any(_BULLET.match(line) for line in content.splitlines()):
        return []
    # "$2,150 which hurt a bit lol but the guy threw in a bottle cage": laughter ends
    # a sentence, as it does for the statements
    said = _without_tone(_asides(content)[0])
    doc = parse(" ".join(said.split()))
    # "yesss. a Brompton in racing green": the answer follows the yes
    first = next((s for s in doc.sents if not _only_interjections(s)), None)
    if first is None or _is_question(first) or _joke(first) or rule_for(first, "hypothetical"):
        return []
    opening = _first_word(first)
    if opening is not None and opening.tag_ == "VB" and opening.pos_ == "VERB":
        return []  # "ask me again in six months": a request, not an answer
    words = [t for t in first if not t.is_punct]
    # "since covid, so like 6 years" to "Have you been playing long?": how long, counted
    how_long = (
        bool(words)
        and words[0].lower_ in ("since", "about", "around", "like", "nearly", "almost", "over")
        and any(t.like_num and t.ent_type_ in ("DATE", "TIME") for t in words)
    )
    if (
        named
        and not how_long
        and not any(
            _specific(t)
            and (t.pos_ == "PROPN" or t.like_num)
            # "yeah onto the 7am tomorrow" to "Did they rebook you?": a time of day names
            # one; a day alone ("yeah tomorrow") is no answer of its own
            and (t.ent_type_ != "DATE" and (t.ent_type_ != "TIME" or _clock(t)))
            for t in words
        )
    ):
        return []  # "Not at all, I'm the nervous one": no name, no figure
    # a noun and its modifiers that are no courtesy answer "What voice part do you
    # sing?" ("Baritone.") or "What do you do?" ("paediatric nurse.")
    head = words[-1] if words else None
    # "Just penicillin.", "Mostly Python.": the limiting word leaves the answer a noun
    core = words[1:] if words and words[0].lower_ in _LIMITING else words
    noun = (
        head is not None
        and 1 <= len(core) <= 3
        # (the small tagger reads "Just shellfish." as a verb; no table knows it as one)
        and (head.pos_ == "NOUN" or head.tag_ == "VB" and not known_verb(head.lower_))
        and good_label(head.text)
        and head.lemma_.lower() not in COURTESIES
        and all(
            (t.pos_ in ("ADJ", "NOUN", "PROPN") or t is head) and t.lower_ not in FEELINGS
            for t in core
        )
    )
    # "since lockdown", "since uni": how long, said from when it began
    spanned = (
        2 <= len(words) <= 6
        and words[0].lower_ in ("since", "until", "till")
        and any(t.pos_ in ("NOUN", "PROPN", "NUM") for t in words[1:])
    )
    inside = {t.i for t in first}
    if fragment and (
        any(
            t.pos_ in ("VERB", "AUX")
            and t.tag_ not in ("VBN", "VBG")
            # "$2,150 which hurt a bit": the value is the answer, the rest a comment on it
            and not _in_relative_clause(t, inside)
            for t in words
        )
        or re.search(r":(?:\s|$)", first.text)
        or not noun
        and not spanned
        and not any(_specific(t) or t.ent_type_ == "DATE" for t in words)
    ):
        return []
    # one word is enough for a name that answers "which bank are you with?" ("Monzo.");
    # a noun phrase answers "What kind of work keeps you up?" ("air traffic controller")
    # whether or not the message goes on to say more
    named = noun or any(_specific(t) and t.pos_ == "PROPN" for t in words)
    # "About six years." answers "How long ...?": a counted span of time is a value
    counted = any(t.like_num and t.ent_type_ in ("DATE", "TIME") for t in words)
    if len(words) < (1 if named else 2) or not any(
        _specific(t) or fragment or noun or counted or spanned for t in words
    ):
        return []
    return [_statement(list(first), day, kind="fact")]


def _statements(content: str, day: date) -> list[Statement]:
    found: list[Statement] = []
    lines = [line.rstrip() for line in content.replace("\r\n", "\n").split("\n")]
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line:
            continue
        if line.endswith(":") and i < len(lines) and _BULLET.match(lines[i]):
            items = []
            while i < len(lines) and _BULLET.match(lines[i]):
                items.append(_BULLET.sub("", lines[i]).strip())
                i += 1
            *before, heading = _sentence_texts(line)
            for text in before:
                found.extend(_from_text(text, day, found))
            roster = heading + "\n" + "\n".join(f"- {item}" for item in items if item)
            found.append(_roster(roster, day, bullets=True))
            continue
        if _weekday_line(line) and i < len(lines) and _weekday_line(lines[i]):
            # "monday ella has swimming 4:30\ntuesday she's at gran's": a week typed a day
            # per line, every week's (one list, and no one day's date)
            items = [_BULLET.sub("", line).strip()]
            while i < len(lines) and _weekday_line(lines[i]):
                items.append(_BULLET.sub("", lines[i]).strip())
                i += 1
            found.append(_listed(items, day))
            continue
        if _BULLET.match(line) and i < len(lines) and _BULLET.match(lines[i]):
            # items without a heading ("- monstera: every 10 days\n- orchid: ..."): a list
            items = [_BULLET.sub("", line).strip()]
            while i < len(lines) and _BULLET.match(lines[i]):
                items.append(_BULLET.sub("", lines[i]).strip())
                i += 1
            separate = [_from_text(item, day, []) for item in items if item]
            stated = sum(1 for said in separate if said)
            if 2 * stated >= len(separate):
                # "- i teach year 6 at St Anselm's\n- allergic to shellfish": among my
                # statements, a predicate without its subject is one more about me
                separate = [
                    said or _bare_predicate(item, day)
                    for said, item in zip(separate, [x for x in items if x], strict=True)
                ]
            if not any(_LABEL.match(item) for item in items) and all(
                len(said) == 1 and said[0].kind != "roster" for said in separate
            ):
                # "- new phone is a Pixel 9a\n- joined the PureGym on Leith Walk": each
                # bullet a statement of its own, not the items of one list
                found.extend(said[0] for said in separate)
            else:
                found.append(_listed(items, day))
            continue
        if _LABEL.match(line) and i < len(lines) and _LABEL.match(lines[i].strip()):
            # "monday push: bench 4x8 at 70kg\nwednesday pull: deadlift 3x5 at 120kg":
            # labelled lines without bullets, a list all the same
            items = [line]
            while i < len(lines) and _LABEL.match(lines[i].strip()):
                items.append(lines[i].strip())
                i += 1
            found.append(_listed(items, day))
            continue
        if _list_line(line) and i < len(lines) and _list_line(lines[i].strip()):
            # "amlodipine 5mg - 8am with breakfast\nmetformin 500 - after lunch": lines
            # of a name and its figures, no verb, typed one under the other: a list
            items = [line]
            while i < len(lines) and _list_line(lines[i].strip()):
                items.append(lines[i].strip())
                i += 1
            found.append(_listed(items, day))
            continue
        items = [item.strip() for item in _SLASHES.split(line)]
        if len(items) >= 3 and all(items):
            # "monday push: bench 4x8 at 70kg / wednesday pull: ... / friday legs: ...":
            # a list typed on one line
            found.append(_listed(items, day))
            continue
        prose = _RETRACTION.sub(r"\g<lead>\g<keep>", _NOTE_HEADING.sub("", _BULLET.sub("", line)))
        prose, asides = _asides(_REMEMBER.sub(r"\g<lead>", _without_taken_back(prose)))
        prose = _without_tone(prose)
        sentences = _sentence_texts(prose) if prose.count(":") >= 2 else []
        labelled = sum(1 for text in sentences if _LABEL.match(text))
        if labelled >= 2 and 2 * labelled >= len(sentences):
            # "Leo: swimming on Mondays at 4:30. Ada: violin on Tuesdays at 5.": a
            # schedule typed as sentences, one label each
            found.append(_listed(sentences, day))
            for aside in asides:
                found[-1].plain, found[-1].text = (
                    f"{x} {aside}" for x in (found[-1].plain, found[-1].text)
                )
            continue
        last = not any(rest.strip() for rest in lines[i:])
        found.extend(_from_text(prose, day, found, announces=last) if prose.strip() else [])
        for aside in asides:  # "[shared a photo: ...]": what the message attached
            if found:
                found[-1].plain = f"{found[-1].plain} {aside}"
                found[-1].text = f"{found[-1].text} {aside}"
            else:
                found.append(Statement(plain=aside, text=aside))
    return [s for s in found if s.plain]


def _weekday_line(line: str) -> bool:
    """A line that opens on a bare weekday ("Tues - Ella swimming", "- friday: gran's"),
    not on "next Friday" or a sentence with a subject before it."""
    words = _BULLET.sub("", line).strip().split(maxsplit=2)
    if words and words[0].casefold() == "on":
        words = words[1:]
    return bool(words) and _weekday_word(words[0])


def _weekday_word(word: str) -> bool:
    """ "Monday", "mondays:", "Tues", "thurs" (a weekday however shortened)."""
    key = word.casefold().rstrip(":,.-")
    return key.removesuffix("s") in _WEEKDAY_FORMS or key in _WEEKDAY_FORMS


_WEEKDAY_FORMS = WEEKDAYS | {d[:3] for d in WEEKDAYS} | {"tues", "thur", "thurs", "weds"}


def _list_line(line: str) -> bool:
    """A line that is an item, not a sentence: short, no question, no subject, a figure
    or a separator (" - ", ": ") between a name and what goes with it."""
    words = line.split()
    if not 2 <= len(words) <= 12 or line.endswith("?"):
        return False
    if not (re.search(r"\d", line) or re.search(r"\s[-–—]\s|:\s", line)):
        return False
    # (the small tagger reads a drug's name as a verb: a subject, not a verb, says sentence)
    return not any(t.dep_ in ("nsubj", "nsubjpass", "expl") for t in parse(line))


_LIMITING = word_set("just only mainly mostly usually")
_LABEL = re.compile(r"[\w'’&]+(?: [\w'’&]+){0,2}:\s")  # "Leo: ", "Both of them: "
_SLASHES = re.compile(r"\s+/\s+")  # spaced: not "5/6" or "and/or"
_ASIDE = re.compile(r"\[[^\[\]\n]{3,300}\]")


def _without_taken_back(prose: str) -> str:
    """The prose with a value taken back in its sentence left out: "My anniversary is
    March 12 - wait no, March 21" reads "My anniversary is March 21". Only a value (a
    number or a name) for a value of as many words, said just before the taking back."""

    out, at = [], 0
    for m in _TAKEN_BACK.finditer(prose):
        new = m.group("new").strip()
        words = new.split()
        head = prose[at : m.start()]
        old = re.search(rf"(?:\S+\s+){{{len(words) - 1}}}\S+\s*$", head) if words else None
        if (
            old is None
            or len(words) > 4
            or not _a_value(new)
            or not _a_value(old.group(0))
            or old.start() == 0
        ):
            continue
        trace("taken-back", "drop", f"{old.group(0).strip()}{m.group('mark')}")
        out.append(head[: old.start()] + new)
        at = m.end()
    return "".join([*out, prose[at:]]) if out else prose


def _a_value(text: str) -> bool:
    """A number, a time, or a capitalised name, led by nothing but "the", "on" or "at":
    what a taking back replaces ("no later than 7" is no value taken back)."""
    words = text.split()
    lead = next((n for n, w in enumerate(words) if w.lower() not in ("the", "on", "at")), None)
    if lead is None:
        return False
    first = words[lead]
    return any(c.isdigit() for c in first) or first[:1].isupper()


def _asides(line: str) -> tuple[str, list[str]]:
    """A line without its bracketed asides (an attachment's description, as a chat app
    writes it), and the asides as they were written."""
    asides = [m.group(0) for m in _ASIDE.finditer(line)]
    return _ASIDE.sub(" ", line).strip(), asides


def _sentence_texts(line: str) -> list[str]:
    return [s.text.strip() for s in parse(line).sents if s.text.strip()]


def _bare_predicate(text: str, day: date) -> list[Statement]:
    """An adjective and the preposition of what it is about, said without a subject
    ("allergic to shellfish (the EpiPen kind)", "fluent in Welsh"): a statement about
    the speaker when said among theirs."""
    doc = parse(text)
    words = [t for t in doc if not t.is_punct]
    if (
        len(words) < 3
        or words[0].tag_ != "JJ"
        or words[0].lower_ in FEELINGS
        or words[1].lower_ not in _PREDICATE_PREPS
        or not words[2].is_alpha
        or any(_finite(t) for t in doc)
    ):
        return []
    return [_statement(list(doc), day, kind="fact")]


_PREDICATE_PREPS = word_set("to of in with about from on at for")


def _listed(items: list[str], day: date) -> Statement:
    """Items said as a list, however typed, as one roster of bullets."""
    return _roster("\n".join(f"- {item}" for item in items if item), day, bullets=True)


def _roster(text: str, day: date, *, bullets: bool = False) -> Statement:
    doc = parse(text)
    dates = resolve_dates(doc[:], day, schedule=bullets)
    return Statement(plain=text, text=_render(list(doc), dates), kind="roster", dates=dates)


# A labelled item: a few words, a spaced dash, then who or what (short); no clause
# with a subject of its own on either side ("I went to the gym - it was great").
_LABELLED = re.compile(
    r"(?!.*\b(?:i|we|he|she|it|they|you)\b(?:'\w+)?\s)"
    r"[^\s:–\-][^:–\-]{0,40}?\s[\-–]\s[^\s–\-][^–\-]{0,50}",
    re.IGNORECASE,
)
_ITEM_BREAK = re.compile(r"(?<=[.;!])\s+|\n+")


def _labelled_items_end(text: str) -> int:
    """Where a run of two or more labelled items that opens ``text`` ends (after a
    heading ending in a colon), or 0: "bins - Kofi, every thursday night. bathroom -
    Ines, weekly." (items broken by stops), "Friday - Tom, Saturday - me" (by commas)."""
    heading = re.match(r"[^:\n]{1,80}:\s*", text)
    start = heading.end() if heading else 0
    end, count = start, 0
    pieces = _ITEM_BREAK.split(text[start:])
    position = start
    for piece in pieces:
        offset = text.index(piece, position) if piece else position
        position = offset + len(piece)
        body = piece.strip().rstrip(".;!").strip()
        parts = [p.strip() for p in body.split(",")]
        if len(parts) > 1 and all(_item(p) for p in parts):
            count, end = count + len(parts), position
        elif _item(body):
            count, end = count + 1, position
        else:
            break
    return end if count >= 2 else 0


def _item(text: str) -> bool:
    """A labelled item whose value names someone or something ("laundry - me", "bins -
    Kofi, every thursday night"), not a remark ("Gym - was great")."""
    if not _LABELLED.fullmatch(text):
        return False
    value = re.split(r"\s[\-–]\s", text, maxsplit=1)[1]
    return any(
        t.pos_ in ("PROPN", "NOUN", "NUM")
        or t.lower_ in ("me", "us", "myself")
        or (t.is_alpha and t.text[:1].isupper())  # a name alone ("Ola") is hard to tag
        for t in parse(value.split(",")[0])
    )


def _from_text(
    text: str, day: date, before: list[Statement], *, announces: bool = False
) -> list[Statement]:
    """Statements of a line of prose; ``before`` (this message's so far) takes
    a sentence that refers back to it. ``announces``: the line ends the message."""
    items_end = _labelled_items_end(text)
    if items_end:
        # "chores this week: dishes - Sam. laundry - me. bins - Ola.": items, each a
        # label and who or what, under the heading before them; one roster, as said
        rest = text[items_end:].strip()
        listed = [_roster(text[:items_end].strip(), day)]
        return listed + (
            _from_text(rest, day, before + listed, announces=announces) if rest else []
        )
    if text[-1:].isalnum():
        # typed without a stop, the small tagger reads a last word as a verb ("I hate
        # coriander": "coriander" a base verb); the stop the parse needs is no word
        text = f"{text}."
    doc = parse(text)
    if prefaced := _without_prefaces(doc):
        doc = parse(prefaced)  # read as if typed without them: once, at most
    out: list[Statement] = []
    lead = ""  # a sentence of a few verbless words just before ("his pills.")
    supposing = False  # a supposition was put ("What if ...?"); what would follow is part of it
    # the sentence just before, when it announced something in a few words ("Holiday is
    # booked!!"): dropped, or the one statement it made
    announced: Span | None = None
    announcement: Statement | None = None
    for sent in doc.sents:
        words = sent.text.strip()
        if not words:
            continue
        if announces and words.endswith(":") and sent.end == len(doc):
            # "here's the basics about me for your notes:" ending a message announces
            # what the next one says, and says nothing itself
            continue
        if _is_question(sent):
            supposing = supposing or rule_for(sent, "hypothetical") is not None
            trace("question", "drop", words)
            # "Going backpacking in August, is my tent gonna be ok?": the lead-in is a fact
            # "I'm looking for a dinner idea; I'm lactose intolerant": so is what follows
            sent = _before_question(sent) or _after_question(sent)
            if sent is None:
                continue
            words = sent.text.strip()
        supposed = rule_for(sent, "hypothetical")
        if supposed is not None or (supposing and _WOULD.search(words)):
            # "What if we got a third dog? Nah, Tom would kill me": what would follow
            # from a supposition is part of it
            supposing = True
            trace(supposed.name if supposed else "hypothetical-what-follows", "drop", words)
            continue
        supposing = False
        clauses = _clauses(sent)
        if _joke(sent):
            # "my brother started his PhD in Delft so everyone's sending a million
            # photos": hyperbole is a joke of its own clause, the others still stand;
            # laughter over a sentence naming nothing is a joke of all of it
            kept = [c for c in clauses if not rule_for(c, "joke")]
            if not rule_for(sent, "joke") or not kept or len(kept) == len(clauses):
                trace(_joke_rule(sent), "drop", words)
                continue
            clauses = kept
        if _is_list(sent):
            items = _without_heading(sent, clauses)
            if not _clause_items(sent, items):
                out.append(_roster(words, day))
                continue
            clauses = items  # "quick facts before I forget: im pescatarian, ...": mine
        if _verbless_list(sent):
            # "his pills. amlodipine 5mg at 8am, gliclazide 80mg with lunch, ...": items
            # with their numbers, under the few words that said what they are
            heading = f"{_ended(lead)} " if lead else ""
            out.append(_roster(heading + words, day))
            continue
        lead = words if _heading_fragment(sent) else ""
        previous = (out or before)[-1] if (out or before) else None
        if _parallel(clauses):
            out.append(_roster(words, day))  # "Ana gets Theo, Theo gets Ingrid, ...": pairings
            continue
        clauses = _with_new_one(clauses)
        said_before = (len(out), previous.text if previous is not None else None)
        decided = False  # a rule said why a clause is dropped (a hedge about nothing)
        ahead: list[Token] = []  # "sertraline 50mg, i take it ...": what "it" is
        switched: list[Token] = []  # "Switched dentists, I'm with Dr Okoro now": of what
        for n, clause in enumerate(clauses):
            reason = n == 0 and _a_reason(clause)
            clause = _trim(clause)
            if not clause:
                continue
            if reason and previous is not None and previous in out and previous.kind == "fact":
                # "Bought an e-bike last week. Mainly so I can get to work without the
                # bus.": why, said after the statement it is the reason for; alone it
                # could not be read
                trace("reason-of-the-statement-before", "keep", words)
                _append(previous, list(sent), day, same_sentence=False)
                continue
            if (
                n == 0
                and (announced is not None or announcement is not None)
                and _value_fragment(_up_to_comma(clause))
                and any(c.isdigit() for c in _text(clause))
                and clause[0].pos_ != "CCONJ"  # "But not before 9": a condition, not a detail
            ):
                # "Holiday is booked!! 3 to 10 July at Pine Cove Lodge": the words
                # without a verb are what was announced; one statement, as said
                if announcement is not None:
                    _append(announcement, clause, day, same_sentence=False)
                    continue
                clause = list(doc[announced.start : clause[-1].i + 1])
                trace("announced-detail", "keep", _text(clause))
                statement = _statement(clause, day, kind="fact")
                out.append(statement)
                previous = statement
                continue
            refers_back = _refers_back(clause)
            if previous is not None and refers_back and (n > 0 or previous in out or before):
                if (
                    previous.kind == "fact"
                    and previous in out
                    and _he_or_she(clause)
                    and _informative(clause, allow_pronoun=True)
                ):
                    # "She teaches maths" after "My neighbour Priya is from Leicester":
                    # a fact of its own about the person named before
                    statement = _statement(clause, day, kind="fact")
                    statement.leans = True
                    if n > 0:  # the words that joined the clauses, to join them again
                        statement.joiner = _joiner(clauses, n, clause)
                    out.append(statement)
                    previous = statement
                    continue
                if n > 0 and _he_or_she(clause):
                    # cut only to be a fact of its own: said with the clause before, as typed
                    _append(
                        previous,
                        clause,
                        day,
                        same_sentence=True,
                        joiner=_joiner(clauses, n, clause),
                    )
                elif previous.kind == "roster" or _informative(clause, allow_pronoun=True):
                    _append(previous, clause, day, same_sentence=n > 0)
                continue
            if previous is not None and n > 0 and _liking_it(clause):
                # "my friend Hana is obsessed with matcha, I can't stand it": how I take
                # what the clause before named (the extractor puts it beside "it")
                statement = _statement(clause, day, kind="fact")
                out.append(statement)
                previous = statement
                continue
            if previous is not None and n > 0 and there_of_mine(clause):
                # "my aunt runs a cafe in Whitby so I work there in the summer": what
                # "there" is, the clause before said (the extractor puts it beside)
                statement = _statement(clause, day, kind="fact")
                out.append(statement)
                previous = statement
                continue
            if not _informative(clause) and not (
                # "When do you start?" "Thank you! I'm starting next month.": the first
                # clause of an answer says it of what the question names
                _ANSWERING.get() and not out and not before and _answers(clause)
            ):
                if n == 0 and _switch_of_kind(clause):
                    switched = clause
                elif previous is not None and (_value_fragment(clause) or _when_due(clause)):
                    # "Booked flights to Oaxaca! Volaris, $412 each", "my wife's
                    # pregnant!! due in october": the detail of the statement before,
                    # said without a verb
                    _append(previous, clause, day, same_sentence=n > 0)
                elif previous is None and _value_fragment(clause):
                    orphaned = _ORPHANS.get()
                    if orphaned is not None:
                        orphaned.append(clause)
                    ahead = clause if n == 0 else []
                continue
            chat = rule_for(clause, "smalltalk")
            if chat is not None:
                # "I'm typing this on the bus", "your answer helped": true for the moment
                # or of the chat, no lasting fact
                decided = True
                trace(chat.name, "drop", _text(clause))
                continue
            hedged = _hedged(clause)
            if hedged and not _names_a_thing(clause):
                decided = True
                trace("hedge-about-nothing", "drop", _text(clause))
                continue  # "I want to plan something": a hedge about nothing in particular
            if n == 1 and switched:
                # "Switched dentists, I'm with Dr Okoro now": the clause says who or
                # what, the one before of what kind; one statement, as said
                clause = list(clause[0].doc[switched[0].i : clause[-1].i + 1])
            elif n == 1 and ahead and any(t.lower_ in ("it", "them") for t in clause):
                # "a Brompton in racing green, I ride it to work": the thing named first
                # is what "it" is, said in one statement
                clause = list(clause[0].doc[ahead[0].i : clause[-1].i + 1])
            if n > 0 and _verb_left_out(clause):
                # "I don't drive but my wife does": what she does is the clause before's
                clause = _trim(list(sent)) or clause
            statement = _statement(clause, day, kind="hedge" if hedged else "fact")
            out.append(statement)
            previous = statement
        now = (len(out), previous.text if previous is not None else None)
        if now == said_before and not decided and _to_remember(sent):
            # "..., pls remember: Blk 423 Serangoon Central, unit #08-112": asked to be
            # remembered, with a name or a number to remember; kept whole, as said
            trace("kept-to-remember", "keep", words)
            out.append(_statement(_trim(list(sent)) or list(sent), day, kind="fact"))
        elif now == said_before and not decided and _clear_first_person(list(sent)):
            # nothing clear is lost: the rules above found no statement in a sentence
            # that says something of the speaker with a name, a number or a thing, and
            # none said why; it is kept whole, as said
            # of several clauses, the ones that say it ("Good shout on the harness, I
            # walk her twice a day anyway": a reaction is no part of the fact)
            mine = [c for c in clauses if any(_says_mine(t) for t in c)]
            verbless = [c for c in clauses if not any(t.pos_ in ("VERB", "AUX") for t in c)]
            whole = _trim(
                mine[0]
                if len(mine) == 1 and len(mine) + len(verbless) == len(clauses)
                else list(sent)
            )
            if whole:
                trace("kept-first-person", "keep", words)
                out.append(_statement(whole, day, kind="fact"))
        elif now == said_before and not decided and _new_thing(list(sent)):
            # "New physio, a guy called Jordi", "New phone, a Pixel 8": a new one of
            # a thing of mine, named; kept whole, as said
            trace("kept-new-thing", "keep", words)
            out.append(_statement(_trim(list(sent)) or list(sent), day, kind="fact"))
        elif now == said_before and not decided and _not_my_habit(list(sent)):
            # "I don't drive, never learned", "we don't smoke": what one never does is a
            # fact of one's life, said without a thing
            trace("kept-not-done", "keep", words)
            out.append(_statement(_trim(list(sent)) or list(sent), day, kind="fact"))
        elif now == said_before and not decided and _described_here(list(sent)):
            # "need someone for the dog, she's a 4 year old whippet called Nell": who
            # "she" is was said in the same sentence; kept whole, as said
            trace("kept-described", "keep", words)
            out.append(_statement(_trim(list(sent)) or list(sent), day, kind="fact"))
        elif now == said_before and not decided and (fact := _before_verdict(list(sent))):
            # "The wedding was on Saturday, it was amazing": the parser made the verdict
            # the sentence's root; the fact before it is kept, the verdict is tone
            trace("kept-before-verdict", "keep", words)
            out.append(_statement(fact, day, kind="fact"))
        elif now == said_before and not decided:
            trace("uninformative", "drop", words)
        announced = sent if now == said_before and _announces(sent) else None
        announcement = (
            out[-1]
            if now[0] == said_before[0] + 1 and _announces(sent) and not _names_specific(sent)
            else None
        )
    return out


def _announces(sent: Span) -> bool:
    """A few words that announce a thing of mine without saying it ("Holiday is
    booked!!", "New car!!", "The party is sorted.")."""
    words = [t for t in sent if not t.is_punct]
    return (
        0 < len(words) <= 5
        and any(t.pos_ == "NOUN" and _content(t) for t in words)
        and not any(t.lower_ in _COURTESY or interjection(t.text) for t in words)
    )


def _up_to_comma(tokens: list[Token]) -> list[Token]:
    comma = next((k for k, t in enumerate(tokens) if t.text == ","), len(tokens))
    return tokens[:comma]


def _names_specific(sent: Span) -> bool:
    return any(_specific(t) for t in sent)


_TO_REMEMBER = re.compile(
    r"\b(?:remember|note(?: down)?|keep in mind|don'?t forget|for (?:the|your) records?)\s*:\s*\S",
    re.IGNORECASE,
)


def _to_remember(sent: Span) -> bool:
    """A sentence asking, before a colon, that what follows be remembered, and what
    follows names something (a name or a number)."""
    m = _TO_REMEMBER.search(sent.text)
    if m is None:
        return False
    after = sent.start_char + m.end() - 1
    return any(_specific(t) for t in sent if t.idx >= after)


_NOT_STATING = word_set("need want hope wish wonder think guess suppose bet")


def _says_mine(token: Token) -> bool:
    """The subject "I" or "we" of a verb."""
    return token.lower_ in ("i", "we") and token.dep_ in ("nsubj", "nsubjpass")


def there_of_mine(tokens: Sequence[Token]) -> bool:
    """ "I work there in the summer", "we swim there most weekends": something the
    speaker does at a place said before, "there" and no place of its own."""
    return any(
        t.lower_ == "there"
        and t.dep_ == "advmod"
        and t.head.pos_ in ("VERB", "AUX")
        and any(_says_mine(c) for c in t.head.children)
        for t in tokens
    ) and not any(t.ent_type_ in ("GPE", "LOC", "FAC") for t in tokens)


def _described_here(tokens: list[Token]) -> bool:
    """A clause says of "he", "she" or "they" what they are or are called, with a name
    or a number, after a noun of the same sentence that they can be."""
    for subject in tokens:
        if subject.dep_ != "nsubj" or subject.lower_ not in ("he", "she", "they"):
            continue
        before = [
            t
            for t in tokens
            if t.i < subject.i
            and t.pos_ in ("NOUN", "PROPN")
            and t.lemma_.lower() not in VAGUE_NOUNS
        ]
        said = [t for t in subject.head.subtree if t.i > subject.i]
        if before and any(_specific(t) for t in said):
            return True
    return False


# verbs of talk and mind, which "I don't ..." says nothing of one's life with
_TALK_VERBS = _NOT_STATING | word_set(
    "know care mind remember understand get see mean believe bother matter agree worry "
    "feel recall reckon blame go do"
    # and what no one means plainly ("I don't sleep lol")
    " sleep eat breathe exist stop"
)


def _not_my_habit(tokens: list[Token]) -> bool:
    """ "I don't drive", "we don't smoke": "I" or "we", a negated present verb of doing
    with nothing after it (no object, no complement)."""
    verb = next((t for t in tokens if t.dep_ == "ROOT"), None)
    return (
        verb is not None
        and verb.tag_ == "VB"
        and verb.pos_ == "VERB"
        and verb.lemma_.lower() not in _TALK_VERBS
        and known_verb(verb.lemma_.lower())
        and any(_says_mine(c) for c in verb.children)
        and any(c.dep_ == "aux" and c.lemma_ == "do" and c.tag_ == "VBP" for c in verb.children)
        and any(c.dep_ == "neg" for c in verb.children)
        and not any(
            c.dep_ in ("dobj", "acomp", "attr", "ccomp", "xcomp", "prep") for c in verb.children
        )
    )


def _clear_first_person(tokens: list[Token]) -> bool:
    """A first-person clause ("I", "we", "my/our ..." as its subject, a finite verb)
    whose verb names something beyond its subject (a name, a number, or a noun that
    is no vague word), and is no request, musing or passing state ("my ears are done");
    or a change of the speaker's standing ("I got promoted", "we got engaged")."""
    inside = {t.i for t in tokens}
    for subject in (t for t in tokens if t.dep_ in ("nsubj", "nsubjpass")):
        mine = subject.lower_ in _FIRST_PERSON or any(
            c.lower_ in ("my", "our") for c in subject.children
        )
        if mine and subject.lower_ in _FIRST_PERSON and _status_change(subject.head):
            return True
        verb = subject.head
        while verb.dep_ in ("aux", "auxpass") and verb.head.i != verb.i:
            verb = verb.head  # "my cousin is getting married": the parser may hang it on "getting"
        if not mine or verb.i not in inside or verb.lemma_.lower() in _NOT_STATING:
            continue
        if not (
            _finite(verb)
            or any(_finite(c) for c in verb.children if c.dep_ in ("aux", "auxpass"))
            or any(_finite(t) for t in tokens if t.head.i in (verb.i, subject.head.i))
        ):
            continue
        own = {t.i for t in subject.subtree}
        said = [t for t in verb.subtree if t.i in inside and t.i not in own]
        state = verb.lower_ in FEELINGS or (
            verb.lemma_ == "be"
            and any(c.dep_ in ("acomp", "advmod") or c.lower_ in FEELINGS for c in verb.children)
        )
        if state and not any(_specific(t) for t in said):
            continue  # a state said of oneself ("my ears are done"), not "due on 4 June"
        if any(_specific(t) for t in said) or any(
            _noun_in_use(t)
            and t.dep_ in ("dobj", "pobj", "attr")
            and t.lemma_.lower() not in VAGUE_NOUNS
            and t.lower_ not in FEELINGS
            and good_label(t.text)
            for t in said
        ):
            return True
    return False


def _hedged(tokens: list[Token]) -> bool:
    """A hedge on the clause itself: "probably" in "it lives in bay 14, which is probably
    why the battery died" hedges the relative clause, not where it lives."""
    inside = {t.i for t in tokens}
    main = [t for t in tokens if not _in_relative_clause(t, inside)]
    return bool(main) and rule_for(main, "hedge") is not None


def _week_of_days(content: str) -> bool:
    """ "Saoirse has swimming tuesday at 5. Cian has hurling wednesday and friday ...":
    three different weekdays said bare (not "next Friday") in one message."""
    said = {
        m.group("day").casefold()
        for m in _BARE_WEEKDAY_WORD.finditer(content)
        if not m.group("which")
    }
    return len(said) >= 3


_BARE_WEEKDAY_WORD = re.compile(
    r"(?:\b(?P<which>next|this|last|coming)\s+)?\b(?P<day>" + "|".join(sorted(WEEKDAYS)) + r")\b",
    re.IGNORECASE,
)


def _statement(tokens: list[Token], day: date, *, kind: str) -> Statement:
    span = _span_of(tokens)
    found = resolve_dates(span, day, schedule=_WEEKLY.get())
    span_dates = [r for r in found if r.end in {t.i for t in tokens}]
    return Statement(
        plain=_text(tokens), text=_render(tokens, span_dates), kind=kind, dates=span_dates
    )


def _joiner(clauses: list[list[Token]], n: int, clause: list[Token]) -> str:
    """The words typed between clause ``n`` (trimmed to ``clause``) and the one before
    (" so ", ", and ")."""
    raw = clauses[n]
    lead = raw[: next((k for k, t in enumerate(raw) if t.i == clause[0].i), 0)]
    return clauses[n - 1][-1].whitespace_ + "".join(t.text_with_ws for t in lead)


def _append(
    previous: Statement,
    tokens: list[Token],
    day: date,
    *,
    same_sentence: bool,
    joiner: str = "",
) -> None:
    extra = _statement(tokens, day, kind=previous.kind)
    if len(previous.plain) + len(extra.plain) > MAX_STATEMENT_CHARS:
        return
    _join(previous, extra, joiner=joiner or (", " if same_sentence else ""))


_OWNED = re.compile(r"^(?:His|Her|Its|Their)\s+\w+")


def continuation(content: str, *, day: date) -> Statement | None:
    """ "costs £45 a year which is nothing", "needs new brake discs and a tyre", "also
    told me to cut back on salt": a message that goes on about what the speaker's message
    before said, its subject left out (not the speaker: the verb says "it" or "she"), with
    something specific or a thing it names. Its first sentence, as said, or None."""
    sent = next(iter(parse(content).sents), None)
    if sent is None:
        return None
    tokens = _trim(without_opener(list(sent)))
    if not tokens or any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in tokens[0].children):
        return None
    verb = tokens[0]
    someone_else = verb.tag_ == "VBZ" or (
        verb.tag_ == "NNS"
        and known_verb(verb.lemma_.lower())
        and len(tokens) > 1
        and (tokens[1].like_num or tokens[1].tag_ in ("$", "DT", "CD"))
    )  # "Costs £45 a year": the tagger's plural noun is the verb
    told_me = verb.tag_ == "VBD" and any(c.lower_ in ("me", "us") for c in verb.children)
    if not (someone_else or told_me):
        return None
    if not any(
        _specific(t) or (_noun_in_use(t) and _content(t) and t.dep_ in ("dobj", "pobj", "attr"))
        for t in tokens[1:]
    ):
        return None
    return _statement(tokens, day, kind="fact")


def _join(previous: Statement, extra: Statement, *, joiner: str = "") -> None:
    """``extra`` said after ``previous``, as one statement: a clause of its sentence after
    ``joiner`` (", ", " so "), else a sentence of its own (the one before ends, even after
    a date note: "(2026-08)")."""
    if joiner:
        previous.plain = previous.plain.rstrip(".!;") + joiner + _lower_first(extra.plain)
        previous.text = previous.text.rstrip(".!;") + joiner + _lower_first(extra.text)
    else:
        previous.plain = f"{_ended(previous.plain)} {extra.plain}"
        previous.text = f"{_ended(previous.text)} {extra.text}"
    previous.dates.extend(extra.dates)


def _ended(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    if first in ("I", "I'm", "I've", "I'd", "I'll") or (len(first) > 1 and first[1:2].isupper()):
        return text
    return text[:1].lower() + text[1:] if not _is_name(first) else text


def _is_name(word: str) -> bool:
    doc = parse(word)
    return len(doc) > 0 and doc[0].pos_ == "PROPN"


# --- what a sentence is -------------------------------------------------------------


def _is_question(sent: Span) -> bool:
    words = sent.text.strip()
    if words.endswith("?") or "?" in words.rstrip("?!. ")[-3:]:
        return not _uptalk(sent)
    start = _first_word(sent)
    if start is None:
        return False
    if rule_for(sent.doc[start.i : sent.end], "request"):
        return True
    # Typed without its "?": "is it normal for ...", "how do I get ...", and after a
    # lead-in ("ok random q but is it ...")
    tokens = [t for t in sent if t.i >= start.i]
    openings = [0] + [
        k + 1
        for k, t in enumerate(tokens[:5])
        if t.lower_ in ("but", ",")
        and k + 1 < len(tokens)
        # "My dad, Steve, is a plumber": a verb whose subject came before it says, not asks
        and not any(c.dep_.startswith("nsubj") and c.i < t.i for c in tokens[k + 1].children)
    ]
    if any(_asks(tokens[k:]) for k in openings if k < len(tokens)):
        return True
    # "Filling in the school form again, can you keep my contacts ...": a request put
    # after a comma, however long the lead-in
    return any(
        t.text == "," and rule_for(sent.doc[t.i + 1 : sent.end], "request") for t in tokens[5:-2]
    )


_MODALS = word_set("should shall could would can will might may must")


def _uptalk(sent: Span) -> bool:
    """A statement said with a rising "?" ("Paid £6,200 for it, which I reckon was
    fair?", "the exam was last tuesday and i think it went ok??"): it asks only whether
    it is right, and says what it says. Not when it opens as a question does, asks the
    assistant of themself ("you're coming?") or asks what to do ("so I should wait?")."""
    start = _first_word(sent)
    if start is None or start.tag_ in ("WP", "WRB", "WDT", "WP$"):
        return False
    tokens = [t for t in sent if t.i >= start.i and not t.is_punct]
    if len(tokens) < 4 or _asks(tokens) or any(t.lower_ in ("or", "any", "anyone") for t in tokens):
        return False
    if any(
        t.lower_ in ("how", "what", "where", "when", "why", "who")
        and t.i > sent.start
        and t.doc[t.i - 1].pos_ not in ("NOUN", "PROPN", "PRON")  # "the day when ..."
        for t in tokens
    ):
        return False  # "I'm on the grill 😎 how much meat is enough?": a question inside
    commas = [t.i for t in sent if t.text == ","]
    if commas and _tail_question([t for t in sent if t.i > commas[-1] and not t.is_punct]):
        return False  # "..., ideas?": the words after the comma ask
    root = sent.root
    if root.pos_ not in ("VERB", "AUX") or root.tag_ == "VB":
        return False
    if any(c.tag_ == "MD" or c.lower_ in _MODALS for c in root.children if c.dep_ == "aux"):
        return False
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    if not subjects:
        # "Bought a used Yaris ...?": the "I" left out of a past verb opening the
        # sentence; "thinking dal?" asks
        return root.i == start.i and root.tag_ == "VBD"
    return all(c.lower_ not in ("you", "u", "ya", "ye") for c in subjects)


def _tail_question(rest: list[Token]) -> bool:
    """ "ideas", "normal", "good idea": a few verbless words after a comma that, with
    the "?", ask about what the sentence said before them."""
    return 1 <= len(rest) <= 3 and not any(
        t.pos_ in ("VERB", "AUX", "PROPN") or t.like_num for t in rest
    )


def _before_question(sent: Span) -> Span | None:
    """The statement a question's sentence opens with, up to the comma the question
    begins after ("Going to Lisbon in May, any tips?"); None when there is none."""
    tokens = list(sent)
    for k in range(len(tokens) - 2, 0, -1):
        if tokens[k].text != ",":
            continue
        rest = [t for t in tokens[k + 1 :] if not (t.pos_ == "INTJ" or t.lower_ in INTERJECTIONS)]
        if not (
            _asks(rest)
            or (rest and rest[0].lower_ in ("any", "anything", "thoughts"))
            or _tail_question(rest)
            or (rest and rule_for(sent.doc[rest[0].i : sent.end], "request"))
        ):
            continue
        lead = sent.doc[sent.start : tokens[k].i]
        if _is_question(lead) or not any(t.pos_ in ("VERB", "AUX") for t in lead):
            return None
        return lead
    return None


def _after_question(sent: Span) -> Span | None:
    """The statement said after a question or request in its sentence, past a ``;`` or
    a comma before "I"/"we" and a verb ("Any dinner ideas without dairy; I'm lactose
    intolerant"); None when there is none."""
    tokens = list(sent)
    for k, token in enumerate(tokens[2:-2], start=2):
        if token.text not in (";", ","):
            continue
        if token.text == "," and tokens[k + 1].lower_ not in ("i", "we"):
            continue
        if _subject_at(tokens, k + 1) is None:
            continue
        rest = sent.doc[tokens[k + 1].i : sent.end]
        if _is_question(sent.doc[sent.start : token.i]) and not _is_question(rest):
            return rest
    return None


def _liking_it(clause: list[Token]) -> bool:
    """ "I can't stand it", "I love them": the speaker's liking of "it" or "them"."""
    return any(
        (t.lemma_.lower() in _LIKING or t.lemma_.lower() in ("stand", "loathe"))
        and any(c.dep_ == "nsubj" and c.lower_ in ("i", "we") for c in t.children)
        and any(c.dep_ == "dobj" and c.lower_ in ("it", "them") for c in t.children)
        for t in clause
    )


def _with_new_one(clauses: list[list[Token]]) -> list[list[Token]]:
    """A switch said without what to ("we switched dentists") joined to the clause
    after it that says it ("we're with Smile Studio now"): one fact, not two halves."""
    out: list[list[Token]] = []
    k = 0
    while k < len(clauses):
        clause = clauses[k]
        bare_switch = any(
            t.lemma_.lower() in ("switch", "change", "swap")
            and any(
                c.dep_ == "dobj"
                and c.tag_ == "NNS"
                and not any(g.dep_ in ("det", "poss") for g in c.children)
                for c in t.children
            )
            and not any(c.dep_ == "prep" and c.lower_ in ("to", "for") for c in t.children)
            for t in clause
        )
        if bare_switch and k + 1 < len(clauses):
            out.append([*clause, *clauses[k + 1]])
            k += 2
            continue
        out.append(clause)
        k += 1
    return out


def _parallel(clauses: list[list[Token]]) -> bool:
    """Three or more clauses on one verb, each with its own subject ("Marisol gets Theo,
    Theo gets Ingrid, Ingrid gets me"): a roster said in a sentence."""
    if len(clauses) < 3:
        return False
    verbs = []
    for clause in clauses:
        verb = next((t for t in clause if t.pos_ in ("VERB", "AUX") and t.dep_ != "aux"), None)
        subject = any(t.dep_ in ("nsubj", "nsubjpass") for t in clause)
        if verb is None or not subject:
            return False
        verbs.append(verb.lemma_.lower())
    return len(set(verbs)) == 1


def _answers(tokens: list[Token]) -> bool:
    """A clause that answers the question before it: a finite verb that is no request,
    with a date, a frequency or a word of content, not only a feeling."""
    first = next((t for t in tokens if not t.is_punct and t.pos_ != "ADV"), None)
    if first is None or (first.tag_ == "VB" and first.pos_ in ("VERB", "AUX")):
        return False
    if not any(_finite(t) for t in _main_verbs(tokens)) or _joke(_span_of(tokens)):
        return False
    if not any(t.dep_ in ("nsubj", "nsubjpass") for t in tokens):
        return False  # "Soooo excited.": a reaction, whoever it is of
    dated = any(
        t.ent_type_ in ("DATE", "TIME") and t.lower_ not in ("today", "now") for t in tokens
    )
    often = any(t.lower_ in ("once", "twice", "every", "daily", "weekly") for t in tokens)
    return dated or often or any(_content(t) for t in tokens)


def _clock(token: Token) -> bool:
    """A time of day: "7:30", "7am", or "7" before "am"/"pm"."""
    after = token.nbor(1).lower_ if token.i + 1 < len(token.doc) else ""
    return bool(CLOCK.match(token.text)) or (
        token.text.isdigit() and after in ("am", "pm", "a.m.", "p.m.")
    )


def _when_due(tokens: list[Token]) -> bool:
    """ "due in october", "due end of May": when something is due, said without a verb."""
    words = [t for t in tokens if not t.is_punct]
    return (
        bool(words)
        and words[0].lower_ == "due"
        and not any(t.pos_ in ("VERB", "AUX") for t in words)
        and any(t.ent_type_ == "DATE" for t in words)
    )


def _value_fragment(tokens: list[Token]) -> bool:
    """Words without a verb that name something specific: "Volaris, $412 each",
    "six of us", "small firm downtown, Pruitt & Vance", "£1,199, which my bank account
    is still recovering from" (a relative clause on the detail is no verb of its own)."""
    words = [t for t in tokens if not t.is_punct]
    inside = {t.i for t in tokens}
    return (
        len(words) >= 2
        and not any(t.pos_ in ("VERB", "AUX") and not _in_relative_clause(t, inside) for t in words)
        and any(_specific(t) for t in words)
        and not LAUGHTER.fullmatch(" ".join(t.text for t in words))
    )


def _in_relative_clause(token: Token, inside: set[int]) -> bool:
    """The token is part of a relative clause within the clause ("£1,199, which my bank
    account is still recovering from", "... car park which is probably why the battery
    died")."""
    return any(
        a.i in inside
        and (
            a.dep_ == "relcl"
            or a.dep_ in ("advcl", "acl", "ccomp")
            and any(c.tag_ in ("WDT", "WP") and c.i < a.i for c in a.children)
        )
        for a in (token, *token.ancestors)
    )


def _asks(tokens: list[Token]) -> bool:
    """The words begin a question: an auxiliary before its subject ("is it", "do you",
    "can u"), or a question word before an auxiliary ("how do I", "what should we")."""
    if len(tokens) < 3:
        return False
    first, second = tokens[0], tokens[1]
    inverted = (
        first.lower_ in _QUESTION_AUX
        and (second.lower_ in _QUESTION_SUBJECTS or second.pos_ in ("PROPN", "DET"))
        # "Did a half marathon on Sunday", "Have a mortgage with Halifax": a doing or a
        # having said without its "I" takes "a" as its object, no question does
        and not (first.lower_ in ("did", "have", "had") and second.lower_ in ("a", "an"))
    )
    # "where's good for dinner": the auxiliary may be contracted onto the question word;
    # "my friend Oksana, who's picking me up" is a relative clause, no question
    asked = (
        first.lower_ in _QUESTION_WORDS
        and (second.lower_ in _QUESTION_AUX or second.lower_ in _CONTRACTED_AUX)
        and first.head.dep_ != "relcl"
    )
    # "how long does a renewal take", "what kind of dog is best": the question word and
    # what it asks about (no subject or verb of its own: "what I need is ..."), then the
    # auxiliary
    aux = next((k for k, t in enumerate(tokens[1:5], 1) if t.lower_ in _QUESTION_AUX), None)
    measured = (
        first.lower_ in _QUESTION_WORDS
        and first.head.dep_ != "relcl"
        and aux is not None
        and all(t.pos_ in ("ADJ", "ADV", "NOUN", "ADP", "DET", "NUM") for t in tokens[1:aux])
    )
    return inverted or asked or measured


def _first_word(sent: Span) -> Token | None:
    for token in sent:
        if token.is_punct or token.lower_ in INTERJECTIONS or token.pos_ == "INTJ":
            continue
        return token
    return None


def _clause_items(sent: Span, clauses: list[list[Token]]) -> bool:
    """ "basics: my GP is Dr Achterberg, I take levothyroxine, and I'm allergic to
    ibuprofen": every item after the heading is a clause about me or mine, with its own
    verb, so they are statements; who does what ("Grace is bringing lasagna, Tariq is
    doing the salad, and I'm on drinks") is a roster whose pairings are the point."""
    colon = next((t for t in sent if t.text == ":"), None)
    if colon is None or len(clauses) < 2:
        return False
    after = [t for t in sent if t.i > colon.i]
    # "I work from home tuesdays and thursdays": an "and" between nouns is no new item
    items = 1 + sum(
        1
        for t in after
        if t.text in (",", ";") or t.dep_ == "cc" and t.head.pos_ in ("VERB", "AUX")
    )
    items -= sum(
        1 for a, b in zip(after, after[1:], strict=False) if a.text == "," and b.dep_ == "cc"
    )
    # "I'm Tomasz, 41, I teach maths, married to Ewa": an age or a participle after a
    # comma says more of the clause before, no item of its own
    items -= sum(
        1
        for a, b in zip(after, after[1:], strict=False)
        if a.text == ","
        and (b.tag_ in ("VBN", "VBG") or b.like_num and b.head.i < a.i)
        and not any(c.dep_.startswith("nsubj") for c in b.children)
    )
    verbs = set()
    mine = 0
    for clause in clauses:
        verb = next((t for t in clause if _finite(t)), None)
        subject = next((t for t in clause if t.dep_ in ("nsubj", "nsubjpass")), None)
        state = next((t for t in clause if t.lower_ in _STATE_PARTICIPLES), None)
        if verb is None and subject is None and state is not None:
            mine += 1  # "married to Ewa": the speaker's, said without the "I"
            verbs.add(state.lemma_.lower())
            continue
        if verb is None or subject is None or subject.pos_ == "PROPN":
            return False  # a named person's part: who does what
        # "I just moved into a one-bedroom, rent is R$ 3.900, I drive ...": mostly mine
        mine += subject.lower_ in _FIRST_PERSON or any(
            c.dep_ == "poss" and c.lower_ in ("my", "our") for c in subject.children
        )
        verbs.add(verb.lemma_.lower())
    return 2 * mine > len(clauses) and items <= len(clauses) and len(verbs) > 1


def _without_heading(sent: Span, clauses: list[list[Token]]) -> list[list[Token]]:
    """The clauses after a ``:`` heading that says no fact of its own ("quick facts
    before I forget:", "for the record:"); a heading with its own verb ("I have two
    jobs:") stays."""
    colon = next((t for t in sent if t.text == ":"), None)
    if colon is None:
        return clauses
    # the heading may have been cut in pieces itself ("Ok | so:")
    at = next((n for n, c in enumerate(clauses) if colon.i in {t.i for t in c}), None)
    if at is None:
        return clauses
    heading = [t for c in clauses[: at + 1] for t in c if t.i < colon.i]
    inside = {t.i for t in heading}
    tops = [t for t in heading if t.head.i not in inside or t.head.i == t.i]
    # "so you have context:": what it says is said to the listener, no fact of mine
    if any(
        t.pos_ in ("VERB", "AUX") and not any(c.lower_ == "you" for c in t.children) for t in tops
    ):
        return clauses
    first = [t for t in clauses[at] if t.i > colon.i]
    return [first, *clauses[at + 1 :]] if first else clauses[at + 1 :]


def _without_prefaces(doc: Doc) -> str:
    """The text without the headings that speak of the message rather than of anything
    in it ("Big news: moved to Headingley, ...", "Before I ask about my meds: I take
    ..."), or "" when it has none: what follows is the speaker's, said as if typed alone."""
    kept, at = [], 0
    for sent in doc.sents:
        colon = _preface(sent)
        if colon is None:
            continue
        trace("message-heading", "drop", doc[sent.start : colon.i + 1].text)
        rest = doc[colon.i + 1 : sent.end].text.lstrip()
        kept.append(doc.text[at : sent.start_char] + rest[:1].upper() + rest[1:])
        at = sent.end_char
    return "".join([*kept, doc.text[at:]]) if kept else ""


def _preface(sent: Span) -> Token | None:
    """The colon after a heading that names the message itself (``MESSAGE_NOUNS``: "Quick
    intro so you know me:", "About me:") or says only what the speaker is about to do or
    the listener to know ("Catching you up:", "Before I ask about my meds:"), when what
    follows is the speaker's own: a clause of "I", "my", "we", or a past doing said
    without the "I". A heading naming a thing ("Dentist: moved it to Friday") or a
    person stays: it says what the rest is about."""
    colon = next((t for t in sent if t.text == ":"), None)
    if colon is None:
        return None
    heading = [
        t
        for t in sent
        if t.i < colon.i and not t.is_punct and (t.lower_ in MESSAGE_NOUNS or not _opener_word(t))
    ]
    rest = [t for t in sent if t.i > colon.i and not t.is_punct]
    if not heading or len(heading) > 12 or len(rest) < 3:
        return None
    if any(
        (t.like_num and t.lower_ != "one")
        or t.ent_type_ in ("DATE", "TIME")
        or (t.pos_ == "PROPN" and t.lower_ not in MESSAGE_NOUNS)
        for t in heading
    ):
        return None
    # (the small tagger reads "Update on my life" as a verb); a verb of a clause under
    # the heading's noun or a verb said to the listener says no fact of its own
    inside = {t.i for t in heading}
    verbs = [
        t
        for t in heading
        if t.pos_ in ("VERB", "AUX")
        and t.dep_ != "aux"
        and t.lower_ not in MESSAGE_NOUNS
        and not _subordinate(t, inside)
    ]
    if any(not _to_the_listener(v) for v in verbs):
        return None  # "I have two jobs:": a fact of the speaker's own
    words = [t.lower_ for t in heading]
    if not verbs and not any(w in MESSAGE_NOUNS for w in words) and words[-2:] != ["about", "me"]:
        return None
    first = rest[0]
    mine = first.lower_ in ("i", "we", "my", "our", "me") or (
        first.tag_ in ("VBD", "VBN")
        # (the parser may take the heading's noun for its subject: "News from me: got ...")
        and not any(c.dep_.startswith("nsubj") and c.i > colon.i for c in first.children)
    )
    leaning = any(t.lower_ in _LEANING for t in rest[:4])  # "sold it": the heading says what
    return colon if mine and not leaning else None


def _subordinate(verb: Token, inside: set[int]) -> bool:
    """A verb of a clause under the heading's noun or under a verb said to the listener
    ("update on where I'm at since you keep forgetting stuff", "filling you in before I
    ask about scheduling my meds"): part of what the heading says of the message."""
    token = verb
    while token.head.i != token.i and token.head.i in inside:
        token = token.head
        if (token.pos_ in ("NOUN", "PROPN") and token.lower_ in MESSAGE_NOUNS) or (
            token.pos_ in ("VERB", "AUX") and _to_the_listener(token)
        ):
            return True
    return False


def _to_the_listener(verb: Token) -> bool:
    """ "so you know", "before I ask": a verb of what the heading tells the listener."""
    return any(c.lower_ == "you" or c.dep_ == "mark" for c in verb.children)


def _verbless_list(sent: Span) -> bool:
    """Three or more items, each with a number, with no verb among them."""
    if any(t.pos_ in ("VERB", "AUX") and t.tag_ != "VBN" for t in sent):
        return False
    items, numbered, current = 0, 0, False
    for token in [*sent, None]:
        if token is None or token.text in (",", ";"):
            items += 1
            numbered += current
            current = False
        elif token.like_num or any(c.isdigit() for c in token.text):
            current = True
    return items >= 3 and numbered >= 3


def _heading_fragment(sent: Span) -> bool:
    """A few words without a verb that can head what follows ("His pills.")."""
    words = [t for t in sent if not t.is_punct]
    return (
        0 < len(words) <= 3
        and not any(t.pos_ in ("VERB", "AUX") for t in words)
        and any(t.pos_ == "NOUN" and _content(t) for t in words)
    )


def _is_list(sent: Span) -> bool:
    """A heading and several items: "Weekend roster: - Sat: Hana, ..." or "For the
    potluck: Grace is bringing lasagna, Tariq the salad, and I'm on drinks."."""
    colon = next((t for t in sent if t.text == ":"), None)
    if colon is None:
        return False
    after = [t for t in sent if t.i > colon.i]
    items = sum(1 for t in after if t.text in (",", ";") or t.lower_ == "and")
    return items >= 2 and len(after) >= 5


# --- clauses ------------------------------------------------------------------------


def _clauses(sent: Span) -> list[list[Token]]:
    """The sentence cut where an independent clause with its own subject begins."""
    tokens = list(sent)
    cuts = [0]
    colons: list[int] = []
    for k, token in enumerate(tokens):
        if token.text == ":":
            colons.append(token.i)
        dash = token.text == "-" and k > 0 and bool(tokens[k - 1].whitespace_)  # not "me-time"
        if k == 0 or not (
            token.text in (",", ";", "—", "–")
            or dash
            or token.dep_ == "cc"
            or token.lower_ in ("and", "but")
            # "I'm type 1 diabetic so I need fast sugar": what follows from it is a
            # clause of its own
            or token.lower_ == "so"
            # "... a nightmare because my partner just started a new job": the reason is
            # a fact of its own
            or token.lower_ in ("because", "cos", "coz")
        ):
            continue
        j = k + 1
        while j < len(tokens) and (
            tokens[j].dep_ in _SKIP_AFTER_BREAK
            and tokens[j].pos_ in ("CCONJ", "PUNCT", "ADV", "INTJ", "SCONJ")
            or tokens[j].lower_ in ("so", "and", "but", "then", "also", "separately", "plus")
        ):
            j += 1
        while j < len(tokens) and tokens[j].ent_type_ in ("DATE", "TIME"):
            j += 1
        j = _after_time_phrase(tokens, j)
        subject_end = _subject_at(tokens, j)
        if subject_end is None and j - k <= 6 and _own_verb_phrase(tokens, k, j, cuts[-1]):
            cuts.append(k)  # ", and switched our broadband to ...": a second thing I did
            continue
        if subject_end is None or j - k > 6:
            continue
        if token.lower_ == "so" and tokens[subject_end].tag_ == "MD":
            continue  # "I joined a class so I could relax": a purpose, part of its clause
        if token.lower_ in ("because", "cos", "coz") and not any(
            t.pos_ in ("NOUN", "PROPN") for t in tokens[subject_end:]
        ):
            continue  # "I'm skipping it because I think it's overpriced": no fact apart
        if all(
            t.ent_type_ in ("DATE", "TIME") or t.is_punct or t.pos_ in ("ADP", "DET", "CCONJ")
            for t in tokens[cuts[-1] : k]
        ):
            continue  # "The first weekend of June, we got a campsite": the date is the clause's
        lead = tokens[cuts[-1] : k]
        if not any(t.pos_ in ("VERB", "AUX") for t in lead) and (
            # ("dentist this thursday at 4, then my review is ...": a note of its own)
            any(t.ent_type_ in ("DATE", "TIME") for t in lead)
            and not (_appointment(lead) and any(_day_word(t) for t in lead))
            or token.lower_ in ("and", "or")
            and lead[-1].pos_ in ("NOUN", "PROPN", "PRON")
        ):
            continue  # "Yesterday, for example, I was ...", "my girlfriend and I went": one clause
        if tokens[j].lower_ in _THIRD_PERSON and not (
            tokens[j].lower_ in ("he", "she") and _informative(tokens[cuts[-1] : k])
        ):
            # "it's massive": stays with what "it" refers to; "she's a midwife" after a
            # fact of its own is cut, and said with it again when the extractor cannot
            # say who "she" is
            continue
        if tokens[j].dep_ == "conj" and tokens[j].head.pos_ in ("NOUN", "PROPN", "PRON"):
            continue  # "My boyfriend Liam and I are ...": one subject of two people
        if not _personal_at(tokens, j) and not (
            token.text in (",", ";") and _copula_after_bare_noun(tokens, j, subject_end)
        ):
            continue  # "I saw how counseling and support groups improved ...": a bare noun
        fresh_start = (
            token.lower_ in ("and", "but")
            and k > 0
            and tokens[k - 1].text == ","
            and tokens[j].lower_ in ("i", "we")
        ) or (
            # "..., which is a nightmare because my partner just started ...": the reason
            # is its own fact, whatever clause it explains
            token.lower_ in ("because", "cos", "coz")
            and any(t.lower_ in ("which", "that") and t.tag_ == "WDT" for t in tokens[cuts[-1] : k])
        )  # ", and I've ...": a clause of its own even after "so he's on nights"
        # a heading's "before I forget:" ends at its colon
        # (a clause cut at "because" opens with it: no subordinate inside it)
        start = cuts[-1] + (tokens[cuts[-1]].lower_ in ("because", "cos", "coz"))
        opened = [t for t in tokens[start:k] if t.i > max(colons, default=-1)]
        if not fresh_start and any(
            _subordinates(t) and not _closed_relative(t, token) for t in opened
        ):
            continue  # inside "how ...", "that ...", "because ...": not a clause of its own
        if cuts[-1] < k:
            cuts.append(k)
    pieces = [tokens[a:b] for a, b in zip(cuts, [*cuts[1:], len(tokens)], strict=True)]
    out: list[list[Token]] = []
    for piece in pieces:
        out.extend(_split_values(piece))
    return out


def _copula_after_bare_noun(tokens: list[Token], j: int, subject_end: int | None) -> bool:
    """ "venue is Ashcombe Barn, caterer is Saffron & Salt": chat drops the article, so
    after a comma a bare noun of a word or two before "is" starts a clause of its own."""
    return (
        subject_end is not None
        and subject_end - j <= 2
        and tokens[subject_end].lemma_.lower() == "be"
        and all(t.pos_ in ("NOUN", "ADJ") for t in tokens[j:subject_end])
    )


# a participle after a comma that says a state of the speaker's own life
_STATE_PARTICIPLES = word_set("married engaged divorced separated widowed based retired")


def _own_verb_phrase(tokens: list[Token], k: int, j: int, start: int) -> bool:
    """ "Joined a climbing gym called Depot Leeds, signed up for the York 10k, bought
    Hoka Clifton 9s for £115": after a comma or "and", a second past verb with its own
    object and a name or number of its own, said of the same (unsaid or first-person)
    subject as a clause before it that has a name or number too."""
    if j >= len(tokens):
        return False
    verb = tokens[j]
    if (
        tokens[k].text == ","
        and verb.tag_ == "VBN"
        and verb.lower_ in _STATE_PARTICIPLES
        and not any(c.dep_.startswith("nsubj") for c in verb.children)
        and any(_specific(t) for t in verb.subtree)
    ):
        return True  # "I teach maths in Gdansk, married to Ewa, ...": a state of mine
    if (
        tokens[k].text == ","
        and verb.pos_ == "ADJ"
        and not any(c.dep_.startswith("nsubj") for c in verb.children)
        and any(
            c.dep_ == "prep"
            and any(g.dep_ == "pobj" and g.ent_type_ not in ("DATE", "TIME") for g in c.children)
            for c in verb.children
        )
        and any(t.dep_.startswith("nsubj") and t.lower_ in _FIRST_PERSON for t in tokens[start:k])
    ):
        return True  # "I'm vegan, allergic to sesame": a second state of mine, said without "I'm"
    if not (tokens[k].text == "," or tokens[k].lower_ == "and"):
        return False
    if verb.tag_ not in ("VBD", "VBN") or not (
        verb.dep_ == "conj" and verb.head.pos_ == "VERB" or _listed_doing(tokens[k], verb)
    ):
        return False
    subjects = [c for c in verb.head.children if c.dep_ in ("nsubj", "nsubjpass")]
    if subjects and subjects[0].lower_ not in _FIRST_PERSON:
        return False
    # (its own words: not those of a verb joined on after it)
    later = {u.i for c in verb.children if c.dep_ == "conj" for u in c.subtree}
    right = [t for t in tokens[j:] if t.i in {u.i for u in verb.subtree} and t.i not in later]
    left = tokens[start:k]
    if any(t.lower_ in _LEANING for t in right):
        return False  # "went for the sage green ones": what "ones" are, the clause before says
    if verb.head.lemma_.lower() in _GOING and verb.head.i < k:
        return False  # "I went to Croma and got the ThinkPad": where I got it, one fact
    return (
        _has_object(verb) and any(_specific(t) for t in right) and any(_specific(t) for t in left)
    )


_LEANING = word_set("one ones it them there that those")
_GOING = word_set("go come head pop nip")


def _listed_doing(cut: Token, verb: Token) -> bool:
    """ "Joined a gym called Depot, signed up for the York 10k": the small parser hangs a
    past verb after a comma on the noun before it; in a sentence that opens with a past
    verb of mine and no subject, one with a particle or an object of its own is the next
    thing I did (not "a car, imported from Japan")."""
    root = verb.sent.root
    return (
        cut.text == ","
        and verb.dep_ == "acl"
        and root.tag_ == "VBD"
        and root.i < verb.i
        and not any(c.dep_ in ("nsubj", "nsubjpass") for c in root.children)
        and any(c.dep_ in ("prt", "dobj") for c in verb.children)
    )


def _has_object(verb: Token) -> bool:
    """A thing the verb is done to: "bought X", "signed up for X", "moved to X"."""
    for child in verb.children:
        if child.dep_ in ("dobj", "dative"):
            return True
        if child.dep_ == "prep" and any(c.dep_ == "pobj" for c in child.children):
            return True
    return False


def _personal_at(tokens: list[Token], j: int) -> bool:
    """A subject that can start a statement of its own: a pronoun, a name, or a noun
    phrase with a determiner or possessive ("my partner Tomasz")."""
    first = tokens[j]
    return first.pos_ in ("PRON", "PROPN", "DET") or first.tag_ in ("PRP$",)


def _closed_relative(token: Token, cut: Token) -> bool:
    """ "rent is R$ 3.900 which hurts, I drive ...": a relative clause on a noun that
    ended before the cut leaves the next clause free."""
    # (the small parser may read "which stings" as a determiner and a noun: the words
    # it heads, wherever it hangs them, are what must have ended)
    return token.tag_ in ("WDT", "WP") and max(t.i for t in token.head.subtree) < cut.i


def _subordinates(token: Token) -> bool:
    return (
        token.dep_ == "mark"
        or token.tag_ in ("WRB", "WDT", "WP")
        or token.lower_ in ("how", "because")
    )


def _after_time_phrase(tokens: list[Token], j: int) -> int:
    """Past a time said before a clause's subject ("..., and on Sundays I play
    five-a-side", "but in the evenings she works"): where the subject may start."""
    if j >= len(tokens) or tokens[j].lower_ not in ("on", "at", "in", "during", "most", "every"):
        return j
    k = j + 1
    while k < len(tokens) and k - j <= 3 and tokens[k].pos_ in ("DET", "ADJ", "NUM"):
        k += 1
    if k < len(tokens) and (
        tokens[k].lower_.rstrip("s") in WEEKDAYS
        or tokens[k].lower_.removesuffix("s") in PARTS_OF_DAY
        or tokens[k].ent_type_ in ("DATE", "TIME")
    ):
        k += 1
        if k < len(tokens) and tokens[k].text == ",":
            k += 1
        return k
    return j


def _subject_at(tokens: list[Token], j: int) -> int | None:
    """If a subject starts at ``j`` and a finite verb follows it: where the subject ends."""
    if j >= len(tokens):
        return None
    k = j
    if tokens[k].pos_ == "PRON" and (
        tokens[k].lower_ in _SUBJECT_PRONOUNS
        or tokens[k].dep_ in ("nsubj", "nsubjpass")
        and tokens[k].tag_ not in ("WP", "WDT", "WP$")  # not "Oksana, who's picking me up"
    ):
        k += 1  # "she", and "everyone" in "so everyone's sending ..."
    else:
        # a noun phrase: determiners, possessives, adjectives, nouns, names
        while k < len(tokens) and (
            tokens[k].pos_ in ("DET", "ADJ", "NOUN", "PROPN", "NUM")
            or tokens[k].tag_ in ("PRP$", "POS")
            or (tokens[k].pos_ == "PRON" and tokens[k].dep_ == "poss")
        ):
            if tokens[k].tag_ == "POS" and k > j and _contracted_is(tokens, k):
                return k  # "the car's boring": "'s" is "is", read as a possessive
            k += 1
        if k == j or not any(t.pos_ in ("NOUN", "PROPN") for t in tokens[j:k]):
            return None
    # "me and Rob adopted ...", "my sister and I share ...": two people, one subject
    if k < len(tokens) and tokens[k].lower_ == "and":
        m = k + 1
        while (
            m < len(tokens)
            and m - k <= 3
            and (tokens[m].pos_ in ("PRON", "PROPN", "NOUN", "DET") or tokens[m].tag_ == "PRP$")
        ):
            m += 1
        if m > k + 1 and any(t.dep_ == "conj" for t in tokens[j:m]) and m < len(tokens):
            k = m
    while k < len(tokens) and tokens[k].pos_ == "ADV":
        k += 1
    if k < len(tokens) and _finite(tokens[k]):
        return k
    return None


def _contracted_is(tokens: list[Token], k: int) -> bool:
    """ "'s" after a noun that the parser took for a possessive but that is "is": the one
    word after it is an adjective or an -ing/-ed word that ends the clause ("the car's
    boring,"), not a thing owned ("the car's engine")."""
    if k + 1 >= len(tokens):
        return False
    word = tokens[k + 1]
    if word.pos_ == "ADP" and word.dep_ == "prep" and tokens[k].head.i == tokens[k - 1].i:
        return True  # "Liam's on the first aid kit", "Mum's in hospital": no one owns "on"
    if (
        word.pos_ == "ADJ"
        and k + 2 < len(tokens)
        and tokens[k + 2].tag_ in ("PRP$", "DT")
        and tokens[k + 2].lower_ not in ("that", "this", "these", "those")
    ):
        return True  # "my sister's due her baby": a possession has no "her" after its adjective
    ends = k + 2 >= len(tokens) or tokens[k + 2].is_punct or tokens[k + 2].dep_ in ("cc", "prep")
    predicate = word.pos_ == "ADJ" or (
        word.is_alpha and word.lower_.endswith(("ing", "ed")) and len(word) > 4
    )
    return ends and predicate


def _is_before_a_or_an(tokens: list[Token]) -> bool:
    """ "My partner's a teacher at Hillcrest Primary": the small tagger reads "'s" as a
    possessive and leaves the sentence without a verb; an owner's thing never starts
    with "a", so before "a" or "an" it is "is"; nor is it an -ing word ("My brother's
    getting married in Malta", "My sister's moving to Dubai")."""
    return any(
        (t.tag_ == "POS" or t.dep_ == "case")
        and t.lower_ in ("'s", "’s")
        and (u.lower_ in ("a", "an") or u.tag_ == "VBG" and u.pos_ in ("VERB", "AUX") or _an_age(u))
        for t, u in zip(tokens, tokens[1:], strict=False)
    )


def _an_age(token: Token) -> bool:
    """ "my son's 6", "Mum's 70 next month": a number that ends its clause is an age,
    not a count of things owned ("my dad's 3 cars")."""
    after = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return token.like_num and (
        after is None
        or after.is_punct
        or after.dep_ == "cc"
        or after.lower_ in ("now", "next", "this", "in", "on", "years", "year", "months", "today")
    )


def _finite(token: Token) -> bool:
    if token.tag_ == "VB" and any(c.dep_ in ("nsubj", "nsubjpass") for c in token.children):
        return True  # "These figurines ... remind me": a base form with a subject is finite
    if token.tag_ in ("VBN", "VBG") and any(
        c.dep_.startswith("nsubj")
        and any(g.dep_ == "case" and g.lower_ in _CONTRACTIONS for g in c.children)
        for c in token.children
    ):
        # "the band's called ...", "Dev's bringing the tent": the small parser reads
        # "'s" as a possessive
        return True
    if (
        token.tag_ in ("VBN", "VBG")
        and any(c.dep_.startswith("nsubj") for c in token.children)
        and any(
            h.tag_ in _FINITE_TAGS
            for c in token.children
            if c.dep_ in ("aux", "auxpass")
            for h in (c, *(g for g in c.children if g.dep_ == "aux"))
        )
    ):
        return True  # "I'm getting married": the parser hangs "'m" on "getting"
    return (
        token.tag_ in _FINITE_TAGS
        or token.lower_ in _CONTRACTIONS
        or (token.pos_ == "AUX" and "Fin" in token.morph.get("VerbForm"))
    )


def _split_values(tokens: list[Token]) -> list[list[Token]]:
    """ "Got X for $149 and Y for $299": two statements, the second with the shared verb."""
    values = [t for t in tokens if t.ent_type_ in _VALUE_LABELS and t.ent_iob_ == "B"]
    if len(values) < 2:
        return [tokens]
    for k, token in enumerate(tokens):
        if token.lower_ != "and" or k == 0:
            continue
        left, right = tokens[:k], tokens[k + 1 :]
        if not any(t.ent_type_ in _VALUE_LABELS for t in left) or not any(
            t.ent_type_ in _VALUE_LABELS for t in right
        ):
            continue
        if any(_finite(t) or t.pos_ == "VERB" for t in right):
            continue
        verb = next((n for n, t in enumerate(left) if t.pos_ == "VERB"), None)
        if verb is None:
            continue
        head = left[: verb + 1]
        while len(head) < len(left) and left[len(head)].dep_ in ("prt",):
            head.append(left[len(head)])
        return [left, head + right]
    return [tokens]


def _trim(tokens: list[Token]) -> list[Token]:
    """Without leading conjunctions, interjections and fillers, or trailing commas."""
    start, end = 0, len(tokens)
    while start < end and (
        tokens[start].is_punct
        or tokens[start].dep_ == "cc"
        or tokens[start].pos_ == "INTJ"
        or tokens[start].lower_ in _LEADING_CONJUNCTIONS
        and start + 1 < end
        # "because we're moving to Leeds" cut from its clause (not "because of the rain")
        or tokens[start].lower_ in ("because", "cos", "coz")
        and start + 1 < end
        and tokens[start + 1].lower_ != "of"
        or tokens[start].lower_ in INTERJECTIONS
        and start + 1 < end
        and (tokens[start + 1].is_punct or tokens[start + 1].lower_ in INTERJECTIONS)
        or tokens[start].lower_ in _FILLERS
        and start + 1 < end
        # "Heads up I'm off all next week": a warning of what follows, no word of it
        or tokens[start].lower_ == "heads"
        and start + 2 < end
        and tokens[start + 1].lower_ == "up"
        or tokens[start].lower_ == "up"
        and start > 0
        and tokens[start - 1].lower_ == "heads"
    ):
        start += 1
    while end > start and (
        tokens[end - 1].is_punct
        and tokens[end - 1].text not in (".", "!", ")", "%")
        or (end - start > 1 and LAUGHTER.fullmatch(f" {tokens[end - 1].text}"))
    ):
        end -= 1  # "I hate coriander lol": the laughter is tone, not the fact
    return tokens[start:end]


_BECAUSE = word_set("because cos coz cuz 'cause cause")
_MODALS = word_set("can could will would 'll 'd do don't won't wont dont")


def _a_reason(tokens: Sequence[Token]) -> bool:
    """A sentence that opens on why, said after what it is the reason for: "Because my
    shifts changed", "Mainly so I can get to work without the bus" ("so I can", not the
    "so" of "So I'm moving to Leeds")."""
    words = [t for t in tokens if not t.is_punct]
    while words and words[0].pos_ == "ADV" and words[0].lower_ != "so":
        words = words[1:]  # "Mainly", "Partly", "Just"
    if not words:
        return False
    if words[0].lower_ in _BECAUSE:
        return True
    if words[0].lower_ != "so":
        return False
    rest = [w.lower_ for w in words[1:4]]
    if rest[:1] == ["that"]:
        rest = rest[1:]
    return len(rest) >= 2 and rest[0] in ("i", "we") and rest[1] in _MODALS


def _refers_back(tokens: list[Token]) -> bool:
    first = tokens[0]
    if (
        first.lower_ in _THIRD_PERSON
        and first.pos_ == "PRON"
        and _subject_at(tokens, 0) is not None
    ):
        return True
    return (first.lower_ in ("he", "she", "they") and first.dep_.startswith("nsubj")) or _theirs(
        first
    )


def _he_or_she(tokens: list[Token]) -> bool:
    """ "she teaches maths", "he's a paramedic", "her name is Dorota": one person is the
    subject, or owns it, said as a pronoun (not "it" or "they", which may mean a thing
    or a group)."""
    first = tokens[0]
    return (first.lower_ in ("he", "she") and first.dep_.startswith("nsubj")) or (
        first.lower_ in ("his", "her") and _theirs(first)
    )


def _theirs(first: Token) -> bool:
    """ "Her name is Dorota", "His stitches come out next week": the subject is the
    person's (or thing's) said before, owned through a pronoun."""
    return (
        first.lower_ in ("his", "her", "their")
        and first.dep_ == "poss"
        and first.head.dep_ in ("nsubj", "nsubjpass")
    )


def rejoined(said: list[Statement]) -> list[Statement]:
    """The statements with each one that leans on the one before (``leans``) said with
    it again: the extractor could not say who its "he" or "she" is."""
    out: list[Statement] = []
    for statement in said:
        if statement.leans and out:
            _join(out[-1], statement, joiner=statement.joiner)
            continue
        out.append(statement)
    return out


def _opener_word(token: Token) -> bool:
    """An adverb or interjection before what a clause says ("just", "nah", "yeah")."""
    return token.pos_ in ("ADV", "INTJ") or token.lower_ in INTERJECTIONS


def _been_for(first: Token, tokens: list[Token]) -> bool:
    """ "been on sertraline for about a year now", "Been vegan since uni": a state of mine
    that has lasted, its "I've" left out, with a thing or quality to say what."""
    return (
        first.lower_ == "been"
        and any(t.dep_ == "prep" and t.lower_ in ("for", "since") for t in tokens)
        and any(
            _content(t)
            and t.pos_ in ("NOUN", "ADJ", "PROPN")
            and t.ent_type_ not in ("DATE", "TIME")
            and t.lemma_.lower() not in SPANS_OF_TIME
            for t in tokens
        )
    )


def _informative(tokens: list[Token], *, allow_pronoun: bool = False) -> bool:
    """Whether a clause states something: a finite verb, and a name, number, noun or
    quality that is not a passing feeling, said of someone other than "it"."""
    said = next((t for t in tokens if not (t.is_punct or _opener_word(t))), None)
    if said is not None and _state_without_subject(tokens, said):
        return True  # "Allergic to penicillin btw, found out ...": the state, no opener
    tokens = without_opener(tokens)
    first = next((t for t in tokens if not (t.is_punct or _opener_word(t))), None)
    if first is None:
        return False
    if _liking_without_subject(tokens, first):
        return True  # "Hate flying", "Not a big fan of cilantro": a liking, the "I" left out
    if _diet_without_subject(tokens, first):
        return True  # "Vegan since last March": what I eat, the "I'm" left out
    if _wish_without_subject(tokens, first):
        return True  # "keen to get over to Iceland next year": a plan, the "I" left out
    if first.lower_ == "off" and _away_to(tokens, first):
        return True  # "Off to Padstow 4 to 11 June": a trip, the "I'm" left out
    if _state_without_subject(tokens, first):
        return True  # "Allergic to ibuprofen", "Fluent in Welsh": a state, the "I'm" left out
    if work_said_bare(tokens) is not None:
        return True  # "Nurse at the Royal Infirmary", "Part-time at Boots": my post, no verb
    if pay_said(tokens):
        return True  # "Making 48k at the moment": what I earn, the "I'm" left out
    if fan_named(tokens) is not None and not any(
        t.dep_ in ("nsubj", "nsubjpass") and t.lower_ not in ("i", "we") for t in tokens
    ):
        return True  # "Massive Arsenal fan here": a liking of mine, the "I'm" left out
    if dose_said(tokens):
        return True  # "On 10mg amlodipine for my blood pressure": a medicine of mine
    if study_said(tokens) is not None:
        return True  # "Halfway through my PhD", "Second year of nursing": my course
    if home_place(tokens) is not None and not _is_question(tokens[0].sent):
        return True  # "bus home to levenshulme takes forever": where home is, said in passing
    # "Got a Kindle ...", "Just started doing aerial yoga", "Gonna continue my edu ..."
    opening = all(t.is_punct or _opener_word(t) for t in tokens[: max(0, first.i - tokens[0].i)])
    # the small tagger reads "Lost my job as a banker yesterday" as an imperative; a
    # past date says it is not one
    past_base = first.tag_ == "VB" and opening and (_past_date(tokens) or past_form(first))
    # "Going backpacking in the Wind Rivers in August": a plan, said of oneself
    # "nah doing lunchtimes now": a habit changed, its part of the day named
    habit_now = (
        first.tag_ == "VBG"
        and opening
        and any(t.lower_ == "now" for t in tokens)
        and any(t.lemma_.lower() in PARTS_OF_DAY for t in tokens)
    )
    going = habit_now or (
        first.tag_ == "VBG"
        and opening
        and (
            any(_specific(t) or t.ent_type_ == "DATE" for t in tokens)
            # "growing spuds, broad beans and courgettes": what I do with a list of things
            or (first.lemma_.lower() not in _MUSING | _LIKING and _listed_things(tokens) >= 2)
            # "Saving for a house deposit": an aim; "Swimming in the sea every morning": a habit
            or (first.lemma_.lower() in GOAL_VERBS and aim_preposition(first))
            or _recurring(tokens)
        )
    )
    # "Work from home Mondays and Fridays", "Live in Leeds with two flatmates": a habit
    # or a state said without its "I", by a verb a request to the assistant rarely opens
    # with, naming when or what
    habit = (
        first.tag_ in ("VB", "VBP")
        and opening
        and (first.lemma_.lower() in _HABIT_VERBS or _having(first))
        and not any(c.dep_ == "prt" for c in first.children)  # "Work out how much ..."
        and not any(t.lower_ in ("me", "us", "you", "your", "please") for t in tokens)
        and any(_specific(t) or t.ent_type_ in ("DATE", "TIME") for t in tokens)
    )
    implicit_i = (
        first.tag_ in ("VBD", "VBN")
        and opening
        or past_base
        or going
        or habit
        or first.lower_ in ("got", "did", "gonna", "gon")
    ) and not any(
        t.dep_ in ("nsubj", "nsubjpass")
        and not any(c.dep_ == "mark" for c in t.head.children)
        # ("Hosting lunch for Tobi's birthday, he's vegan": "he" is the next clause's)
        and not any(u.text == "," for u in tokens if first.i < u.i < t.i)
        # ("Insured with Aviva at £640 a year which feels steep": a relative clause's)
        and t.head.dep_ != "relcl"
        for t in tokens
    )  # (the subject of "because we're going ..." is not the opening verb's)
    done = _done_thing(tokens)
    if (
        not implicit_i
        and not done
        and not any(_finite(t) for t in _main_verbs(tokens))
        and not _is_before_a_or_an(tokens)
    ):
        # a fragment: "Long day.", "Quick one before my coffee kicks in."; but "dentist
        # next tuesday at 3:30" is a note of when something is
        return (
            _appointment(tokens)
            or _arranged(tokens)
            or new_amount(tokens) is not None
            or _counted_kin(tokens)
            or _origin(tokens)
        )
    if first.pos_ in ("VERB", "AUX") and first.tag_ == "VB" and not implicit_i:
        return False  # an imperative: a request, not a fact
    if (
        first.tag_ == "VBG"
        and first.lemma_.lower() in _MUSING
        and not any(_specific(t) for t in tokens)  # "thinking Osteria Lucca": a plan named
        # "Planning my mum's 60th, she's obsessed with gardening": what follows the
        # comma has a subject of its own and says something
        and not any(
            t.dep_ in ("nsubj", "nsubjpass") and any(u.text == "," for u in tokens if u.i < t.i)
            for t in tokens
        )
    ):
        return False  # "Thinking about home gym stuff.": a musing, not a fact
    content = [t for t in tokens if _content(t)]
    if not content:
        return (
            _someone_coming(tokens)
            or _someone_seen_regularly(tokens)
            or _took_up(tokens)
            or _mine_dated(tokens)
        )
    specific = any(_specific(t) for t in tokens)
    if (
        any(t.lower_ in ("pls", "please", "plz") for t in tokens)
        and not specific
        and not any(t.lower_ in _FIRST_PERSON or t.lower_ in ("my", "our") for t in tokens)
    ):
        return False  # "so no milk based stuff pls": asked of the assistant, no fact
    if (
        implicit_i
        and not habit
        and not habit_now
        and not specific
        and not _dated_object(tokens)
        and not _milestone(tokens)
        and not (first.tag_ == "VBG" and _listed_things(tokens) >= 2)
        and not _ends_a_thing(first)
        and not _been_for(first, tokens)
        and not _took_up(tokens)
        # "Training for the Cardiff half", "Working from home on Fridays": an aim, a habit
        and not (first.lemma_.lower() in GOAL_VERBS and aim_preposition(first))
        and not _recurring(tokens)
    ):
        return False  # "Went a bit wild at the mall today", "Finally nailed my sourdough!"
    # (not a relative clause's: "Bought a sofa which arrives on Friday" is said of me)
    subject = next(
        (t for t in tokens if t.dep_ in ("nsubj", "nsubjpass", "expl") and t.head.dep_ != "relcl"),
        None,
    )
    root = next(
        (t for t in tokens if t.head.i == t.i or t.head.i not in {u.i for u in tokens}), None
    )
    if (
        subject is not None
        and subject.lower_ == "it"
        and root is not None
        and root.lemma_ == "be"
        and _time_of_day_said(tokens, root)
    ):
        return False  # "it's 9pm now, gotta go": the time of day, said in passing
    if (
        not allow_pronoun
        and subject is not None
        and subject.lower_ in ("that", "this", "it", "there")
        and not specific
        and not CORRECTION.search(_text(tokens))
        and not _describes(root)
    ):
        return False  # "That's what sold me", "it's freezing out" (not "It was a poetry reading")
    if (
        subject is not None
        and not specific
        and not _personal(subject)
        and not done
        and not _mine(tokens)
        and not _dated_be(root)
        and not _placed_be(root, subject)
        and not _weekly(tokens, root)
        and not _moved_to_a_day(root)
        # "Passport expires in August", "car insurance renews on the 3rd": a thing's date
        and not (
            root is not None
            and root.tag_ in ("VBZ", "VBP")
            and root.lemma_.lower() in _DUE_VERBS
            and any(t.ent_type_ == "DATE" and t.lower_ not in ("today", "tonight") for t in tokens)
        )
    ):
        return False  # "Fingers crossed.", "Reorg happened." (not "Family's important to me")
    predicate = [
        c for c in (root.children if root is not None else ()) if c.dep_ in ("acomp", "oprd")
    ]
    if root is not None and (root.lower_ in FEELINGS or root.pos_ == "ADJ"):
        predicate.append(root)
    said_of = {t.i for t in subject.subtree} if subject is not None else set()
    if (
        predicate
        and all(t.lower_ in FEELINGS for t in predicate)
        and not specific
        and not any(t.i not in said_of for t in content)
    ):
        return False  # "My ears are done", "I'm so nervous" (not "great for my mental health")
    # (of the clause's first verb: "my passport expires in march so need to renew" is
    # a fact, the need it leads to said after it)
    first_verb = next((t for t in _main_verbs(tokens) if t.pos_ in ("VERB", "AUX")), None)
    verbs = {first_verb.lemma_.lower()} if first_verb is not None else set()
    if root is not None and root.lemma_.lower() in COURTESIES:
        return False  # "Thank youuu": a courtesy (not "..., weds nothing thank god, ...")
    # "I need a bakery recommendation": a request, not a fact; "i want to buy a
    # campervan" is a plan of the speaker's, with what it is about
    # (what someone else wants is a fact of theirs: "Our builder wants the deposit")
    return not (
        verbs & {"need", "want", "hope", "wish"}
        and (subject is None or subject.lower_ in _FIRST_PERSON)
        and not specific
        and not _plans(tokens)
    )


def _liking_without_subject(tokens: list[Token], first: Token) -> bool:
    """A liking said without its "I" ("Hate flying", "Really enjoy bouldering", "Big
    fan of the Arctic Monkeys"), naming what is liked: not a reaction to what was just
    said ("Love it", "Love that idea"). The small tagger often reads the opening verb
    as a noun, so the words decide, not the tags."""
    if first.i != tokens[0].i and not all(t.pos_ == "ADV" for t in tokens[: first.i - tokens[0].i]):
        return False
    rest = [t for t in tokens if t.i > first.i and not t.is_punct]
    if first.lower_ in LIKING_OPENERS:
        what = rest[0] if rest else None
        return (
            what is not None
            and what.lower_ not in _REACTION_WORDS
            and what.pos_ not in ("PRON", "AUX")
            and any(_content(t) for t in rest)
        )
    said = [t for t in tokens if t.i >= first.i and not t.is_punct]
    while said and said[0].lower_ in _INTENSIFIERS:
        said = said[1:]
    if said and said[0].lower_ == "into":  # "Really into bouldering these days"
        return (
            len(said) > 1
            and said[1].pos_ != "PRON"
            and said[1].lower_ not in ("it", "that", "this")
            and any(_content(t) or t.tag_ == "VBG" for t in said[1:])
        )
    return bool(_FAN_OF.match(_text(tokens[first.i - tokens[0].i :])))


_INTENSIFIERS = word_set("really big so massively well super very totally proper well")


def _counted_kin(tokens: list[Token]) -> bool:
    """ "Two kids, Maya 7 and Leo 4", "3 cats": how many of a kind of family one has,
    said as a count without "I have"."""
    return counted_family(tokens) is not None


def _origin(tokens: list[Token]) -> bool:
    """ "Originally from Galway", "From Leeds originally": where the speaker is from,
    said without "I'm"."""
    return any(t.lower_ == "originally" for t in tokens) and any(
        t.dep_ == "ROOT"
        and t.lower_ == "from"
        and any(c.dep_ == "pobj" and c.pos_ == "PROPN" for c in t.children)
        for t in tokens
    )


def _diet_without_subject(tokens: list[Token], first: Token) -> bool:
    """ "Vegan since last March", "Veggie for ten years now": what I eat, said as what I
    am without "I'm", and nothing else said (not "Vegan options were rubbish")."""
    if first.lower_ not in DIETS:
        return False
    if first.i != tokens[0].i and not all(t.pos_ == "ADV" for t in tokens[: first.i - tokens[0].i]):
        return False
    return not any(t.pos_ in ("VERB", "AUX") or t.tag_.startswith("VB") for t in tokens)


def _away_to(tokens: list[Token], first: Token) -> bool:
    after = [t for t in tokens if t.i > first.i]
    return len(after) > 1 and after[0].lower_ == "to" and _specific(after[1])


def _having(verb: Token) -> bool:
    """ "Have a mortgage with Halifax": having a thing, not "have a look at ..."."""
    return verb.lower_ == "have" and any(
        c.dep_ == "dobj" and c.pos_ == "NOUN" and c.lemma_.lower() not in _LIGHT_HAVES
        for c in verb.children
    )


_LIGHT_HAVES = word_set("look go think chat word read listen try break rest nap fun time day")


def _state_without_subject(tokens: list[Token], first: Token) -> bool:
    """ "Allergic to ibuprofen too", "Fluent in Welsh and Breton": a lasting state said
    without "I'm", its word and what it is about. The small tagger reads such a word at
    a sentence's start as a name and "to gluten" as a verb's, so the words decide."""
    if first.lower_ not in STATES:
        return False
    if first.i != tokens[0].i and not all(t.pos_ == "ADV" for t in tokens[: first.i - tokens[0].i]):
        return False
    after = [t for t in tokens if t.i > first.i]
    return (
        len(after) > 1
        and after[0].lower_ in ("to", "of", "in", "with", "on")
        and any(_content(t) for t in after[1:])
    )


def _switch_of_kind(clause: list[Token]) -> bool:
    """ "Switched dentists", "changed banks": the whole clause a change of one of a
    kind, the new one said in the clause after."""
    words = [t for t in clause if not (t.is_punct or _opener_word(t))]
    return len(words) == 2 and switched_kind(clause) is not None


def _moved_to_a_day(root: Token | None) -> bool:
    """ "Yoga's moved to Thursdays", "The match got pushed to Sunday", "Book club's moved
    to the library": a thing's day or place changed, said of it without "my"."""
    if root is None or root.lemma_.lower() not in MOVE_VERBS:
        return False
    return any(
        c.dep_ == "prep"
        and c.lower_ in ("to", "till", "until")
        and any(
            t.ent_type_ in ("DATE", "TIME", "GPE", "FAC", "ORG")
            or t.lower_.removesuffix("s") in WEEKDAYS
            or (t.dep_ == "pobj" and c.lower_ == "to" and t.lemma_.lower() in BUILT_PLACES)
            for t in c.subtree
        )
        for c in root.children
    )


def _recurring(tokens: list[Token]) -> bool:
    """ "every morning", "each Tuesday", "on Fridays", "weekends": a time that comes
    round again, so what is done then is a habit, not a passing doing."""
    words = [t.lower_ for t in tokens]
    if any(
        w in ("today", "tonight")
        or w == "this"
        and k + 1 < len(words)
        and words[k + 1] in _EVERY_WHAT
        for k, w in enumerate(words)
    ):
        return False  # "early start every day this week": a stretch that passes
    return any(
        w in _EVERY_WHAT
        and k > 0
        and words[k - 1] in ("every", "each")
        or w.endswith("s")
        and (w[:-1] in WEEKDAYS or w[:-1] in PARTS_OF_DAY)
        and (k == 0 or words[k - 1] != "for")  # "living for the weekends": no when
        and (k < 2 or words[k - 2] != "for")
        for k, w in enumerate(words)
    )


_EVERY_WHAT = WEEKDAYS | PARTS_OF_DAY | word_set("day week month year fortnight")


def _weekly(tokens: list[Token], root: Token | None) -> bool:
    """ "Rehearsals are Wednesday evenings", "Bin collection is Monday mornings", "Book
    club meets on the last Thursday of the month": a thing of mine said without "my",
    what is said of it the day of the week it is (or meets) on (not
    "Traffic builds up on Fridays": what it does then is a remark about the world)."""
    if root is None or root.tag_ not in ("VBZ", "VBP"):
        return False
    if root.lemma_.lower() not in _MEETING and root.lemma_.lower() != "be":
        return False
    if any(c.dep_ == "acomp" for c in root.children):
        return False  # "Work is mental on Mondays": a moan about the day, not when it is
    words = [t.lower_ for t in tokens]
    return any(
        w.removesuffix("s") in WEEKDAYS
        and (
            w.endswith("s")
            or k > 0
            and words[k - 1] in ("every", "each")
            or k + 1 < len(words)
            and words[k + 1].removesuffix("s") in PARTS_OF_DAY
            # "the first Sunday of the month"
            or words[k + 1 : k + 4] == ["of", "the", "month"]
        )
        for k, w in enumerate(words)
    )


# what a group or class does on its day: "Running club meets on ...", "Practice runs ..."
_MEETING = word_set("meet run rehearse train practise practice")


def _wish_without_subject(tokens: list[Token], first: Token) -> bool:
    """ "keen to get over to Iceland at some point", "hoping to move to Bath": a plan
    said without "I'm", naming where or what."""
    if first.lower_ not in _WISHING or first.i + 2 >= len(first.doc):
        return False
    after, verb = first.doc[first.i + 1], first.doc[first.i + 2]
    return (
        after.lower_ == "to"
        and verb.pos_ == "VERB"
        and any(_specific(t) or _content(t) and t.dep_ in ("dobj", "pobj") for t in tokens)
    )


def _plans(tokens: list[Token]) -> bool:
    """ "i want to buy a campervan": a wish with a verb of its own and the thing it is
    done to (not "I want to plan something", not "I need a recommendation")."""
    return any(
        t.lemma_.lower() in ("want", "need", "hope", "wish")
        and any(
            x.dep_ == "xcomp"
            and x.pos_ == "VERB"
            and any(
                o.dep_ == "dobj" and _content(o) and o.lemma_.lower() not in VAGUE_NOUNS
                for o in x.children
            )
            for x in t.children
        )
        for t in tokens
    )


_WISHING = word_set("keen hoping planning dying desperate itching")
_HABIT_VERBS = word_set(
    "work live commute cycle drive walk swim run jog play train teach study volunteer coach "
    "sing cook bake speak own rent leave start finish"
)
_REACTION_WORDS = word_set("it that this these those your you yours the idea everything")
_FAN_OF = re.compile(r"(?:not\s+)?(?:a\s+)?(?:(?:big|huge|massive|real)\s+)?fan\s+of\s+\w", re.I)


def _dated_be(root: Token | None) -> bool:
    """ "Closing is in three weeks", "Handover was on the 3rd": what is said of the
    subject is the date itself (not "Work is crazy this week")."""
    if root is None or root.lemma_.lower() != "be":
        return False
    if any(c.dep_ == "attr" and c.ent_type_ in ("DATE", "TIME") for c in root.children):
        return not any(
            c.dep_ == "acomp" for c in root.children
        )  # "Half term is the last week of May"
    if any(c.dep_ in ("acomp", "attr") for c in root.children):
        return False
    return any(
        t.ent_type_ in ("DATE", "TIME") and t.lower_ not in ("today", "tonight", "now")
        for c in root.children
        if c.dep_ in ("prep", "npadvmod")
        for t in c.subtree
    )


def _new_thing(tokens: list[Token]) -> bool:
    """ "New physio, a guy called Jordi": a sentence opening on "new" and a noun, with a
    name or a number said of it."""
    words = [t for t in tokens if not (t.is_punct or t.pos_ == "INTJ")]
    return (
        len(words) >= 3
        and words[0].lower_ == "new"
        and words[1].pos_ == "NOUN"
        and words[1].lemma_.lower() not in VAGUE_NOUNS
        and any(_specific(t) for t in words[2:])
    )


def _before_verdict(tokens: list[Token]) -> list[Token]:
    """ "The wedding was on Saturday" of "The wedding was on Saturday, it was amazing":
    the clause before a comma and "it"/"that" + "be" + a quality that ends the sentence,
    when it states something; [] otherwise."""
    words = [t for t in tokens if not (t.is_punct and t.text != ",")]
    for k, comma in enumerate(words):
        rest = words[k + 1 :]
        if comma.text != "," or len(rest) < 3 or len(rest) > 5:
            continue
        if rest[0].lower_ not in ("it", "that", "which") or rest[1].lemma_ != "be":
            continue
        if rest[-1].pos_ != "ADJ":
            continue
        lead = _trim(list(tokens[0].doc[tokens[0].i : comma.i]))
        if lead and _informative(lead):
            return lead
    return []


def _verb_left_out(clause: list[Token]) -> bool:
    """ "my wife does", "Tom can", "my sister is": a clause whose verb stands in for the
    one before it, with nothing after it."""
    words = [t for t in clause if not t.is_punct]
    if len(words) < 2 or words[-1].lemma_.lower() not in ("do", "can", "will", "be", "have"):
        return False
    last = words[-1]
    return (
        last.tag_ in ("VBZ", "VBP", "VBD", "MD")
        and any(c.dep_ == "nsubj" for c in last.children)
        and not any(c.dep_ in ("dobj", "attr", "acomp", "xcomp", "prep") for c in last.children)
    )


def _placed_be(root: Token | None, subject: Token) -> bool:
    """ "Band practice is at the scout hut", "Book club is in the back room of the Crown":
    a thing of one's week, named bare with the word that tells it apart, said to be at a
    place (not "The queue is at the door": no such word)."""
    if root is None or root.lemma_.lower() != "be" or subject.head.i != root.i:
        return False
    if not any(c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN") for c in subject.children):
        return False
    if any(c.dep_ in ("det", "poss") for c in subject.children):
        return False
    return any(
        c.dep_ == "prep"
        and c.lower_ in ("at", "in")
        and any(
            g.dep_ == "pobj" and g.pos_ in ("NOUN", "PROPN") and g.ent_type_ not in ("DATE", "TIME")
            for g in c.children
        )
        for c in root.children
    )


def _past_date(tokens: list[Token]) -> bool:
    words = {t.lower_ for t in tokens if t.ent_type_ == "DATE"}
    return bool(words & {"yesterday", "ago", "last"})


def _appointment(tokens: list[Token]) -> bool:
    """A verbless note of a thing and when it is: a noun that names something and a
    day or an hour ("dentist next tuesday at 3:30", "haircut tomorrow at noon")."""
    if any(t.pos_ in ("VERB", "AUX") for t in tokens):
        return False
    when = [t for t in tokens if t.ent_type_ in ("DATE", "TIME")]
    named_day = any(
        t.lower_ in ("tomorrow", "tonight", "noon", "midday", "next")
        or t.lower_.rstrip("s") in WEEKDAYS
        or any(c.isdigit() for c in t.text)
        for t in when
    )
    # ("haircut" alone is tagged an adjective: as the head of the note it is its thing)
    thing = any(
        (t.pos_ in ("NOUN", "PROPN") or (t.pos_ == "ADJ" and t.dep_ == "ROOT"))
        and t.ent_type_ not in ("DATE", "TIME")
        and t.is_alpha
        and t.lemma_.lower() not in VAGUE_NOUNS
        and t.lower_ not in FEELINGS
        for t in tokens
    )
    return named_day and thing


def _listed_things(tokens: list[Token]) -> int:
    """How many things a list in the clause names ("spuds, broad beans and courgettes"):
    nouns joined to one another, none of them vague; none in a labelled item of a list
    ("hoovering the hall and stairs - me")."""
    if any(t.text == "-" and t.i > 0 and t.doc[t.i - 1].whitespace_ for t in tokens):
        return 0
    joined = [
        t
        for t in tokens
        if t.pos_ == "NOUN"
        and t.lemma_.lower() not in VAGUE_NOUNS
        and (t.dep_ in ("conj", "appos") or any(c.dep_ in ("conj", "appos") for c in t.children))
    ]
    return len(joined)


def _day_word(token: Token) -> bool:
    """A word that names a day: a weekday, "tomorrow", "tonight"."""
    return token.lower_.rstrip("s") in WEEKDAYS or token.lower_ in ("tomorrow", "tonight")


def _mine_dated(tokens: list[Token]) -> bool:
    """ "Mine's in October" (after "My birthday is in June, when's yours?"): my one of
    what was just said, on a day; what it is, the extractor says beside "mine"."""
    return any(t.dep_ == "nsubj" and t.lower_ in ("mine", "ours") for t in tokens) and any(
        t.ent_type_ in ("DATE", "TIME") for t in tokens
    )


def _someone_coming(tokens: list[Token]) -> bool:
    """ "We've got a guy coming Thursday", "I have someone coming round on the 9th": a
    visit arranged for a day, whoever is coming (a word that names no one in particular)."""
    return any(
        t.tag_ == "VBG"
        and t.lemma_.lower() in ("come", "visit", "pop")
        and t.dep_ == "acl"
        and t.head.dep_ == "dobj"
        and t.head.head.lemma_.lower() in ("have", "get")
        and any(c.dep_ == "nsubj" and c.lower_ in ("i", "we") for c in t.head.head.children)
        and any(u.ent_type_ in ("DATE", "TIME") for u in t.subtree)
        for t in tokens
    )


def _time_of_day_said(tokens: list[Token], root: Token) -> bool:
    """ "it's 9pm now", "it's nearly 2am": all the "is" says, up to a comma, is a clock time."""
    said = []
    for t in tokens:
        if t.i <= root.i:
            continue
        if t.text in (",", ".", "!", "?", ";"):
            break
        said.append(t)
    return any(t.like_num and t.ent_type_ == "TIME" for t in said) and all(
        t.ent_type_ == "TIME" or t.pos_ == "ADV" for t in said
    )


_TAKING_UP = word_set("start begin stop quit resume restart")


def _took_up(tokens: list[Token]) -> bool:
    """ "I've started running again", "stopped drinking in January": a doing of mine
    begun or given up (the speaker's, said or left out), a habit of their life."""
    return any(
        t.lemma_.lower() in _TAKING_UP
        and t.pos_ == "VERB"
        and all(c.lower_ in ("i", "we") for c in t.children if c.dep_ in ("nsubj", "nsubjpass"))
        and any(c.dep_ in ("xcomp", "dobj") and c.tag_ == "VBG" for c in t.children)
        # for good, not for a moment ("I started laughing"): since, again, or on a day
        and (
            any(c.dep_ == "aux" and c.lemma_ == "have" for c in t.children)
            or any(
                u.lower_ in ("again", "now", "recently")
                or u.ent_type_ == "DATE"
                and u.lower_ not in ("today", "tonight")
                for u in tokens
            )
        )
        for t in tokens
    )


_EVERY = word_set("every each once twice")


def _someone_seen_regularly(tokens: list[Token]) -> bool:
    """ "I see her every other Thursday", "We call him once a week": whom the speaker
    sees, calls or visits, and how often (a habit of the speaker's life)."""
    return any(
        t.pos_ == "VERB"
        and t.tag_ in ("VBP", "VBZ")
        and any(c.dep_ == "nsubj" and c.lower_ in ("i", "we") for c in t.children)
        and any(c.dep_ == "dobj" and c.lower_ in ("him", "her", "them") for c in t.children)
        and any(u.lower_ in _EVERY and u.i > t.i for u in t.subtree)
        for t in tokens
    )


def _arranged(tokens: list[Token]) -> bool:
    """ "the electricians coming back in two weeks", "my sister visiting next weekend":
    someone's arrangement typed without its "are" or "is", and a day it names."""

    def someone(t: Token) -> bool:
        return t.pos_ in ("NOUN", "PROPN") and t.lemma_.lower() not in VAGUE_NOUNS

    arranged = any(
        t.tag_ == "VBG"
        and not any(c.dep_ in ("aux", "auxpass") for c in t.children)
        and (
            any(c.dep_ == "nsubj" and someone(c) for c in t.children)
            or t.dep_ == "acl"
            and t.head.dep_ == "ROOT"
            and t.head.i < t.i
            and someone(t.head)
        )
        for t in tokens
    )
    named_day = any(
        t.ent_type_ in ("DATE", "TIME")
        and (
            t.lower_ in ("tomorrow", "tonight", "next")
            or t.lower_.rstrip("s") in WEEKDAYS
            or t.like_num
        )
        for t in tokens
    )
    return arranged and named_day


# what a thing does on its date: "Passport expires in August", "the lease ends in May"
_DUE_VERBS = word_set("expire renew start end finish begin run arrive close open lapse")


_DONE_VERBS = word_set(
    "book sort pay sell fix order buy confirm renew arrange deliver finish submit install"
)


def _ends_a_thing(verb: Token) -> bool:
    """ "Gave up the food bank", "Cancelled the gym": an ending said of a thing (its
    object), the "I" left out; what it ended may be said before."""
    lemma = verb.lemma_.lower()
    ends = lemma in ENDING_VERBS or any(
        c.dep_ == "prt" and c.lower_ == ENDING_PARTICLES.get(lemma) for c in verb.children
    )
    return ends and any(c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN") for c in verb.children)


def _done_thing(tokens: list[Token]) -> bool:
    """ "Flights to Lisbon booked, £186 return": a thing of mine said done, the "are"
    left out (a past participle with a noun as its subject and no helper), with a
    name or a figure that says which."""
    root = next((t for t in tokens if t.dep_ == "ROOT"), None)
    return (
        root is not None
        and root.tag_ == "VBN"
        and root.lemma_.lower() in _DONE_VERBS
        and not any(c.dep_ in ("aux", "auxpass") for c in root.children)
        # its noun before it, as subject (or, after "oh and", hung on the interjection)
        and any(
            t.pos_ == "NOUN" and t.i < root.i and t.dep_ in ("nsubj", "conj", "dep") for t in tokens
        )
        and any(_specific(t) for t in tokens)
    )


def _dated_object(tokens: list[Token]) -> bool:
    """ "Got the tattoo a few years ago", "Started hitting the gym last week": a thing
    done, named by its object, on a date; what a dateless "Finally nailed my sourdough!"
    or an objectless "Went a bit wild at the mall today" does not have."""
    dated = any(t.ent_type_ == "DATE" and t.lower_ not in ("today", "tonight") for t in tokens)
    return dated and any(
        (t.dep_ == "dobj" and t.pos_ == "NOUN" and _content(t) and t.head.pos_ == "VERB")
        # "Started at the new gym on Monday": a place one began at, named
        or (
            t.dep_ == "pobj"
            and t.pos_ == "NOUN"
            and _content(t)
            and t.head.head.pos_ == "VERB"
            and t.head.head.lemma_.lower() in _BEGUN_AT
        )
        for t in tokens
    )


# verbs of beginning somewhere ("started at", "signed up at", "enrolled at")
_BEGUN_AT = word_set("start begin join sign enrol enroll register move transfer")


# Verbs of a thing acquired, given up or achieved: said without "I", with what it was
# done to ("bought a road bike", "got my new passport", "passed my driving test"), a
# fact a later question asks about even with no name or date in it.
_MILESTONE_VERBS = word_set(
    """buy get got receive adopt pass sell order book win join quit finish graduate
    rent lease hire replace upgrade"""
)  # "got" too: the small tagger reads an opening "Got" as a base form of its own


_CHANGED_TO = word_set("switch swap change convert upgrade downgrade transfer")


def _had_done(verb: Token) -> bool:
    """ "had my second covid jab", "had my wisdom tooth out": a thing of mine done, named
    with more than its noun ("had my lunch" is no milestone)."""
    out = any(
        c.dep_ == "prt" or c.lower_ in ("out", "done", "removed")
        for c in (
            *verb.children,
            *(g for o in verb.children if o.dep_ == "dobj" for g in o.children),
        )
    )
    return any(
        c.dep_ == "dobj"
        and c.pos_ == "NOUN"
        and _content(c)
        # (the small parser may hang "my" on the noun before: "my wisdom tooth")
        and any(d.dep_ == "poss" and d.lower_ in ("my", "our") for d in c.subtree if d.i < c.i)
        and (out or any(d.dep_ in ("amod", "compound", "nummod") for d in c.children))
        for c in verb.children
    )


def _status_change(verb: Token) -> bool:
    """ "got promoted", "was laid off", "got engaged": the passive of a verb of
    :data:`STATUS_CHANGES`, a change of someone's standing (not "got soaked")."""
    return (
        verb.tag_ == "VBN"
        and verb.lemma_.lower() in STATUS_CHANGES
        and any(c.dep_ == "auxpass" for c in verb.children)
    )


def _milestone(tokens: list[Token]) -> bool:
    """ "Bought a new bike", "got my new passport": the opening past verb is one of
    :data:`_MILESTONE_VERBS` and its object a noun of content ("got my coffee" is
    small talk all the same: only the verb and a real object count, not a reaction);
    "Just got engaged!": a change of standing (:func:`_status_change`)."""
    verb = next(
        (
            t
            for t in tokens
            if t.pos_ == "VERB"
            # ("Just had my wisdom tooth out": the small tagger may call "had" a helper)
            or t.lower_ == "had"
            and t.dep_ == "ROOT"
        ),
        None,
    )
    if verb is not None and _status_change(verb):
        return True
    if verb is not None and verb.lemma_.lower() in _CHANGED_TO:
        # "Switched to oat milk", "Upgraded to the family plan": what I have now
        return any(
            p.dep_ == "prep"
            and p.lower_ == "to"
            and any(
                g.dep_ == "pobj"
                and g.pos_ in ("NOUN", "PROPN")
                and _content(g)
                and g.lemma_.lower() not in ("topic", "subject")  # "switched to a new topic"
                for g in p.children
            )
            for p in verb.children
        )
    if verb is not None and verb.lemma_.lower() == "promote":
        # "Got promoted to charge nurse!": the new role, the tagger's "to" a verb's
        return verb.i + 2 < len(verb.doc) and verb.doc[verb.i + 1].lower_ == "to"
    if verb is not None and verb.lower_ == "had" and _had_done(verb):
        return True
    if verb is None or not {verb.lemma_.lower(), verb.lower_} & _MILESTONE_VERBS:
        return False
    return any(
        # (a "-ing" thing, "got my first piercing", is parsed a clause of its own)
        c.dep_ in ("dobj", "ccomp", "xcomp")
        and c.pos_ == "NOUN"
        and _content(c)
        and c.lemma_.lower() not in VAGUE_NOUNS
        and any(d.dep_ in ("poss", "det", "amod", "compound") for d in c.children)
        for c in verb.children
    )


def _describes(root: Token | None) -> bool:
    """ "It was a poetry reading", "It taught me self-acceptance": an "it" statement
    with a noun of its own, not a reaction ("That sounds great", "It's fine")."""
    if root is None or root.lemma_.lower() in ("sound", "look", "seem", "feel", "mean"):
        return False
    return any(c.dep_ in ("attr", "dobj") and _content(c) for c in root.children) or any(
        g.dep_ == "pobj" and _content(g)
        for c in root.children
        if c.dep_ == "prep"
        for g in c.children
    )


def _joke(sent: Span) -> bool:
    """Hyperbole or sarcasm, or laughter over a sentence that names nothing specific
    and says nothing of the speaker ("they are not lol"; "I hate coriander lol" and
    "passed my test, third attempt lol" are facts told laughing)."""
    return _joke_rule(sent) is not None


def _joke_rule(sent: Span) -> str | None:
    """The name of the rule that makes ``sent`` a joke, if one does."""
    rule = rule_for(sent, "joke")
    if rule is not None and rule.name == "joke-intensifier" and any(_specific(t) for t in sent):
        return None  # "an old Raleigh that squeaks like crazy": the degree only is overdone
    if rule is not None:
        return rule.name
    if not LAUGHTER.search(sent.text) or any(_specific(t) for t in sent):
        return None
    return None if _said_of_me(sent) else "joke-laughter-over-nothing"


def _said_of_me(sent: Span) -> bool:
    """A clause about the speaker with a content word: "I", "we", "my" as its subject or
    owner, or an opening past verb ("passed my test") whose subject is the speaker."""
    words = [t for t in sent if not t.is_punct and not LAUGHTER.fullmatch(f" {t.text}")]
    if not words or not any(_content(t) for t in words):
        return False
    subject = next((t for t in words if t.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is not None:
        return subject.lower_ in ("i", "we") or any(
            c.lower_ in ("my", "our") for c in subject.children
        )
    return words[0].tag_ in ("VBD", "VBN") or past_form(words[0])


def _a_day_of_the_month(token: Token) -> bool:
    """ "the 3rd" after a word of time ("from the 3rd", "on the 9th"), no noun after it."""
    doc = token.doc
    return (
        token.i >= 2
        and doc[token.i - 1].lower_ == "the"
        and doc[token.i - 2].lower_ in DAY_PREPOSITIONS
        and any(c.isdigit() for c in token.text)
        and (token.i + 1 == len(doc) or doc[token.i + 1].pos_ not in ("NOUN", "PROPN"))
    )


def _specific(token: Token) -> bool:
    """A name, a number or a date with a number: what makes a statement a fact."""
    if _addressed(token):
        return False
    if token.ent_type_ == "ORDINAL" and _a_day_of_the_month(token):
        return True  # "away from the 3rd to the 10th": days, not ranks
    if token.ent_type_ == "ORDINAL" or (
        token.ent_type_ in ("DATE", "TIME") and not any(c.isdigit() for c in token.text)
    ):
        return False
    if token.pos_ == "PROPN" and not interjection(token.text):
        return token.ent_type_ not in ("DATE", "TIME") or any(c.isdigit() for c in token.text)
    if (
        # "moved to Leeds" typed without a stop, "Leeds" tagged a plural noun: a word
        # capitalised inside the sentence is a name (not "Mum", not "UPDATE")
        token.pos_ == "NOUN"
        and token.text[:1].isupper()
        and not token.text.isupper()
        and not token.is_sent_start
        and token.is_alpha
        and token.lower_ not in RELATIONS
        and token.lower_ not in FEMALE_KIN
        and token.lower_ not in MALE_KIN
    ):
        return True
    if name_typed_lower(token) and token.head.lower_ in _NAMING_PREPOSITIONS:
        return True  # "Started at deloitte last month": a name typed in lower case
    return token.like_num or any(c.isdigit() for c in token.text)


_NAMING_PREPOSITIONS = frozenset(("at", "for", "with", "in", "to", "from"))


def _mine(tokens: list[Token]) -> bool:
    """The speaker is in the clause ("... to me", "my ...")."""
    return any(t.lower_ in ("me", "my", "mine", "myself", "us", "our") for t in tokens)


def _personal(subject: Token) -> bool:
    """A subject a fact can be about: a pronoun, a name, or a determined noun phrase
    ("the kids", "my back"); a bare noun is a saying ("Fingers crossed")."""
    if subject.lower_ in _SUBJECT_PRONOUNS or subject.pos_ == "PROPN":
        return True
    if (
        subject.is_alpha
        and subject.pos_ in ("NOUN", "PROPN")
        and subject.text[:1].isupper()
        and not dictionary_word(subject.text)
        and not dictionary_word(subject.lemma_)
        # something is said of it ("Reorg happened" says nothing of anyone)
        and any(
            c.dep_ in ("attr", "acomp", "dobj", "prep", "xcomp", "ccomp")
            for c in subject.head.children
        )
    ):
        return True  # "Tomasz is coeliac": a name the small tagger took for a noun
    if _bare_thing_of_mine(subject):
        return True
    return any(
        t.dep_ in ("det", "poss") or t.pos_ == "PROPN" for t in subject.subtree if t.i <= subject.i
    )


def _bare_thing_of_mine(subject: Token) -> bool:
    """ "Car failed its MOT today", "Boiler broke down on Sunday": chat leaves out the
    "my" of a thing of one's own; a bare singular noun opening the sentence, whose verb
    (past, not "be") did something to something or on a day, is that thing (not "Reorg
    happened", "Fingers crossed", "Traffic was awful")."""
    verb = subject.head
    opening = all(
        _opener_word(t) or t.is_punct for t in subject.doc[subject.sent.start : subject.i]
    )
    return (
        subject.tag_ == "NN"
        and subject.dep_ == "nsubj"
        and not list(subject.children)
        and opening
        and verb.pos_ == "VERB"
        and verb.tag_ == "VBD"  # what happened to it ("Traffic builds up on Fridays" is generic)
        and any(
            c.dep_ in ("dobj", "prt") or (c.ent_type_ in ("DATE", "TIME") and c.dep_ == "npadvmod")
            for c in verb.children
        )
    )


def _main_verbs(tokens: list[Token]) -> list[Token]:
    """The clause's top verbs (their head lies outside it) and their auxiliaries."""
    inside = {t.i for t in tokens}
    tops = [t for t in tokens if t.head.i not in inside or t.head.i == t.i]
    verbs = []
    for top in tops:
        verbs.append(top)
        verbs.extend(c for c in top.children if c.dep_ in ("aux", "auxpass") and c.i in inside)
        if top.pos_ not in ("VERB", "AUX"):
            verbs.extend(c for c in top.children if c.dep_ in ("cop",) and c.i in inside)
    # "Liam's on the first aid kit", "my sister's due her baby in April": an "is" the
    # parser read as a possessive
    verbs.extend(
        t
        for k, t in enumerate(tokens)
        if t.dep_ == "case" and t.lower_ in ("'s", "’s") and k > 0 and _contracted_is(tokens, k)
    )
    # a clause the parser hung under a noun ("starts" as a compound) still has its verb
    verbs.extend(
        t for t in tokens if t.tag_ in _FINITE_TAGS and t.dep_ in ("conj", "compound", "ccomp")
    )
    # "..., my aunt Lin is doing flowers": a verb the parser hung under a noun, with its
    # own subject and "is" inside the clause, is the clause's verb
    verbs.extend(
        c
        for t in tokens
        if t.pos_ == "VERB"
        and t.dep_ == "acl"
        and any(
            s.dep_ in ("nsubj", "nsubjpass") and s.i in inside and s.tag_ not in ("WDT", "WP")
            for s in t.children
        )
        for c in t.children
        if c.dep_ in ("aux", "auxpass") and c.i in inside
    )
    # "Sam is leaving the band next month, gutted": a feeling after a comma taken for the
    # root, the clause before it hung under it with its own "is"
    verbs.extend(
        c
        for t in tokens
        if t.dep_ == "ccomp" and t.head.i in inside and t.head.dep_ == "ROOT" and t.i < t.head.i
        for c in t.children
        if c.dep_ in ("aux", "auxpass") and c.i in inside
    )
    return verbs


def _names_a_thing(tokens: list[Token]) -> bool:
    """A name, a number, or the object of a verb ("considering adopting a rescue dog")."""
    return any(t.pos_ in ("PROPN", "NUM") for t in tokens) or any(
        t.dep_ in ("dobj", "pobj") and t.pos_ == "NOUN" and _content(t) for t in tokens
    )


def _addressed(token: Token) -> bool:
    """A name the speaker calls the other by ("Totally agree, Mel!", "Mel, that's
    awesome"), or a speaker of the conversation: it says who is talking, not a fact."""
    if token.pos_ != "PROPN":
        return False
    if token.lower_ in _SPEAKERS.get():
        return True
    doc = token.doc
    before = doc[token.i - 1] if token.i > 0 else None
    after = doc[token.i + 1] if token.i + 1 < len(doc) else None
    # "Thanks Mel, ...": after a greeting opening the sentence, not after a verb
    # ("cancelled FlexForm, too far")
    opens = (
        before is None
        or before.is_punct
        or (before.is_sent_start and (before.pos_ == "INTJ" or interjection(before.text)))
    )
    closes = after is None or after.is_punct
    # set off by commas and hung on the verb, not on a noun ("the new gym, Crux")
    return opens and closes and token.head.pos_ in ("VERB", "AUX", "ADJ", "INTJ")


def _noun_in_use(token: Token) -> bool:
    """A noun, or a word the small tagger calls an adjective used as one: an object or
    subject with its article ("seeing the flat", "the cold got worse")."""
    return token.pos_ == "NOUN" or (
        token.pos_ == "ADJ"
        and token.dep_ in ("dobj", "pobj", "nsubj", "nsubjpass")
        and any(c.dep_ in ("det", "poss") for c in token.children)
    )


def _content(token: Token) -> bool:
    if _addressed(token):
        return False
    if (
        token.ent_type_ in ("DATE", "TIME")
        and not token.like_num
        # "training for the Bristol 10k": a name the tagger took for part of a date
        and not (token.pos_ == "PROPN" and token.lower_ not in _DATE_NAMES)
        and not _shift(token)
    ):
        return False
    if token.ent_type_ == "ORDINAL":
        return False
    if interjection(token.text):
        return False  # "Soooo excited"
    if not any(c.isalnum() for c in token.text):
        return False  # "cant wait 🌞": the small tagger reads an emoji as a noun or name
    if (
        token.is_upper
        and token.is_alpha
        and len(token.text) > 1
        and not dictionary_word(token.text)
    ):
        return True  # "I ditched RACV": a name in capitals, whatever the tag ("SO DONE" is no name)
    if token.pos_ in ("PROPN", "NUM"):
        return token.lower_ not in VAGUE_NOUNS
    if _noun_in_use(token):
        return token.lemma_.lower() not in VAGUE_NOUNS and token.lower_ not in VAGUE_NOUNS
    if token.pos_ == "ADJ" and token.dep_ in ("acomp", "attr", "oprd", "ROOT"):
        return token.lower_ not in FEELINGS or bool(hyphenated(token))
    if token.tag_ == "VBN" and token.lower_ in _STATE_PARTICIPLES:
        return True  # "I'm getting married in June": a life event, said by its verb
    if token.tag_ == "VBG" and token.dep_ in ("xcomp", "dobj", "pcomp", "ccomp"):
        if token.head.lemma_ in _DOING:
            return token.head.tag_ == "VBD"  # "we went biking" (a plan is not yet a fact)
        return token.head.lemma_ in _LIKING  # "I hate running"
    return False


def _shift(token: Token) -> bool:
    """ "I'm on nights", "she's on lates": the part of the day someone works, said as
    being on it (a plain plural, no number or article)."""
    return (
        token.tag_ == "NNS"
        and token.dep_ == "pobj"
        and token.head.lower_ == "on"
        and token.head.head.lemma_ == "be"
        and not any(c.dep_ in ("nummod", "det", "amod") for c in token.children)
    )


_LIKING = word_set("like love hate enjoy prefer dislike adore detest miss")
_DOING = word_set("go start begin keep stop quit finish take")
_DATE_NAMES = (
    WEEKDAYS
    | {m.lower() for m in calendar.month_name if m}
    | word_set("jan feb mar apr jun jul aug sep sept oct nov dec christmas easter xmas")
)
_MUSING = word_set("think consider wonder plan hope try wish")


# --- text ---------------------------------------------------------------------------


def _span_of(tokens: list[Token]) -> Span:
    doc: Doc = tokens[0].doc
    return doc[tokens[0].i : tokens[-1].i + 1]


def _text(tokens: list[Token]) -> str:
    return _finish(_render(tokens, []))


def _render(tokens: list[Token], dates: list[Resolved]) -> str:
    notes = {r.end: r.note for r in dates}
    parts = []
    for n, token in enumerate(tokens):
        ws = token.whitespace_
        if n + 1 < len(tokens) and tokens[n + 1].i != token.i + 1:
            ws = " "  # a shared verb joined to the second object
        note = notes.get(token.i)
        text = token.text
        if note and n + 1 == len(tokens) and len(text) > 1 and text.endswith("."):
            # "Start 1st Feb.": the abbreviation's stop ends the sentence, after the note
            text, ws = text[:-1], f".{ws}"
        parts.append(f"{text} ({note}){ws}" if note else f"{text}{ws}")
    return _finish("".join(parts))


def _finish(text: str) -> str:
    text = text.strip().rstrip(",;:–—-").strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    # (a closing bracket ends the sentence only when what it closes did: "(the godzilla
    # one.)"; after a date note or an aside the sentence still wants its stop)
    if text[-1] not in ".!)\"”'%" or text[-1] == ")" and text[-2:-1] not in (".", "!", "?"):
        text += "."
    return text


# --- what the filters left out ------------------------------------------------------


def leftovers(
    content: str, kept: list[Statement], *, speakers: frozenset[str] = frozenset()
) -> list[tuple[int, str]]:
    """The sentences of a message that none of its ``kept`` statements holds and that
    name something (a noun, name or number the statements do not): what the filters
    left out as no fact of its own ("Especially after the accident, I've thought a lot
    about ..."), which a later question may still ask after. Each comes with the index
    of the kept statement said before it (0 when none was), whose memory takes it as
    a cue, never into its body. Questions are not taken: they are the next message's
    context (``memories.extraction.offline.cues.answered_question``)."""
    if not kept:
        return []
    token = _SPEAKERS.set(frozenset(speakers))
    try:
        return _leftovers(content, kept)
    finally:
        _SPEAKERS.reset(token)


def _leftovers(content: str, kept: list[Statement]) -> list[tuple[int, str]]:
    said = [_words(s.plain) for s in kept]
    everything = set().union(*said)
    out: list[tuple[int, str]] = []
    current = 0
    for line in content.replace("\r\n", "\n").split("\n"):
        prose, _ = _asides(_BULLET.sub("", line.strip()))
        if not prose:
            continue
        for sent in parse(prose).sents:
            colon = _preface(sent)
            if colon is not None:  # "Just so you know before I ask:": the statements left it out
                sent = sent.doc[colon.i + 1 : sent.end]
            words = _words(sent.text)
            if not words:
                continue
            best = max(range(len(said)), key=lambda k: len(words & said[k]))
            # (a third: "I'm lactose intolerant so no milk based stuff pls" is the
            # statement "I'm lactose intolerant" and what the filters left of it)
            if len(words & said[best]) * 3 >= len(words):
                current = best
            if _is_question(sent) or len(words - everything) * 5 <= len(words):
                continue  # a question, or (nearly) all of it in a statement
            things = _words(
                " ".join(t.text for t in sent if t.pos_ in ("NOUN", "PROPN") and _content(t))
            )
            if things - everything:
                for k, run in _uncovered(sent, said, current):
                    current = k
                    out.append((k, run))
    return out


def _uncovered(sent: Span, said: list[set[str]], current: int) -> list[tuple[int, str]]:
    """The runs of ``sent``'s clauses that no kept statement holds, each with the
    statement said just before it: "Good call on the oil thing, I carry an epipen
    anyway" leaves "Good call on the oil thing", never the statement beside it."""
    runs: list[tuple[int, str]] = []
    run: list[Token] = []
    for clause in _clauses(sent):
        words = _words(" ".join(t.text for t in clause))
        best = max(range(len(said)), key=lambda k: len(words & said[k]))
        if words and len(words & said[best]) * 2 >= len(words):
            if run:
                runs.append((current, run))
                run = []
            current = best
            continue
        run.extend(clause)
    if run:
        runs.append((current, run))
    out = []
    for k, tokens in runs:
        while tokens and (tokens[0].is_punct or tokens[0].dep_ == "cc"):
            tokens = tokens[1:]
        while tokens and tokens[-1].is_punct and tokens[-1].text not in ".!?":
            tokens = tokens[:-1]
        text = " ".join(sent.doc[tokens[0].i : tokens[-1].i + 1].text.split()) if tokens else ""
        if _words(text):
            out.append((k, text[:1].upper() + text[1:]))
    return out


def _words(text: str) -> set[str]:
    return {w for w in content_words(text) if w not in INTERJECTIONS and w not in _SPEAKERS.get()}
