"""The offline extractor: Extract, Cue, Relate and Reconcile on a parse, without a model.

It keeps the whole write path working on a fresh machine and always says it is the
offline one (``name == "offline"``; jobs and commits carry that name).

* **Extract** (``memories.extraction.offline.statements``): a user's (or a named speaker's)
  statements, one fact each; the assistant's, system and tool messages are not the
  user's facts. A named speaker's memories read ``Name: ...`` and are tagged with the
  name in lower case.
* **Tier**: ``preferences`` for a liking (love, hate, prefer, favourite) said in the
  present ("I loved Charlotte's Web as a kid" is a fact: it stays true), ``events``
  for something dated after the day it was said (not a move or a new job: where one
  lives or works stays true), ``working`` for a hedged plan ("I
  might ..."), which fades fast; ``facts`` otherwise.
* **Cue** (``memories.extraction.offline.cues``): questions from the parse, the question the
  statement answers (the message before it, asked in the speaker's person, on its own;
  that message is one of its sources too), the statement, and what the message said
  around it that is no fact of its own (``statements.leftovers``), never in the body.
* **Relate**: memories naming the same person, place or thing (``same-entity``);
  neighbours from one message (``same-context``); a reply ``follows`` what it answers.
* **Reconcile** (``memories.extraction.offline.reconcile``): a new value for the same facet of the
  same subject rewrites the one memory that held it, or, when more than one could be
  meant, is stored with a ``supersedes`` link to each; an ending ("I left Unilever")
  supersedes the memories naming what ended. A restatement adds its source to the
  memory it restates.
"""

from __future__ import annotations

import calendar
import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date, datetime

from spacy.tokens import Doc, Span, Token

from gitloom.core.times import as_utc
from memories.extraction.offline.cues import LEAD_IN, answered_question, cues_for, offers
from memories.extraction.offline.dates import WEEKDAYS
from memories.extraction.offline.facets import (
    COLOURS,
    PRONOUN,
    Facet,
    Reading,
    can_not_bear,
    read,
    without_speaker,
)
from memories.extraction.offline.language import (
    as_typed,
    dictionary_word,
    known_verb,
    name_given,
    parse,
    with_apostrophes,
    with_contractions,
)
from memories.extraction.offline.reconcile import SUPERSEDES, heads, reconcile, value_kinds
from memories.extraction.offline.respelling import Respelling, mistyped, respelling, respelt
from memories.extraction.offline.statements import (
    Statement,
    continuation,
    leftovers,
    rejoined,
    statements,
    there_of_mine,
)
from memories.extraction.offline.words import (
    COURTESIES,
    FAMILY,
    FEMALE_KIN,
    INSTEAD,
    LIKING_OPENERS,
    MALE_KIN,
    RELATIONS,
    VAGUE_NOUNS,
    good_label,
    interjection,
    word_set,
)
from memories.extraction.types import Candidate, Decision, Draft, DraftLink, Message, Usage

logger = logging.getLogger("gitloom.memories")

NAME = "offline"
CONFIDENCE = 0.6  # rules are less sure than a model
MAX_LINKS_PER_MEMORY = 6
MAX_CUE_CHARS = 250  # below the format's 300 per cue
MAX_CONTEXT_CUES = 2
MAX_MEMORY_CUES = 12  # memories.extraction.pipeline keeps this many
_TOPIC_LABELS = ("PERSON", "ORG", "PRODUCT", "GPE", "FAC", "LOC", "WORK_OF_ART", "EVENT", "NORP")
# a liking is read from the parse (a like:<thing> facet); these words say it outright
_RETRACTS = re.compile(
    r"^\W*(?:(?:oh|ok|um|uh)\W+)?(?:wait|actually|sorry|correction|scratch that|no wait)\b"
    # "6 actually, she had her birthday last week", "£975 actually": a value, then "actually"
    r"|^\W*(?:the\s+)?[£$€]?\d[\w,.:/]*(?:\s?(?:am|pm))?\W+actually\b",
    re.I,
)
# "my partner's grandad's name" names the grandad's name, not my partner: an owner
# ("'s") is no person a later "he" could mean
_MY_RELATION = re.compile(
    r"\b[Mm]y (?:" + "|".join(sorted(RELATIONS)) + r")\b(?!['’]s\b)"
    # ("my friend Siobhán's birthday": the name is Siobhán)
    r"(?:,? (?P<name>[A-Z][\w-]*(?:'(?!s\b)[\w-]+)*))?"
)
_KIN_AS_NAME = re.compile(
    r"(?<![Mm]y )(?<![Oo]ur )\b(?:Mum|Mom|Mam|Dad|Nan|Nana|Gran|Granny|Grandma|Grandad|Granddad|Grandpa)\b(?!['’]s\b)"
)
_SOMEONE = re.compile(
    r"\b(?:[Mm]y (?:" + "|".join(sorted(RELATIONS)) + r")|(?i:mum|mom|mam|dad|nan|nana|gran"
    r"|granny|grandma|grandad|granddad|grandpa))\b"
)
_YOUR_RELATION = re.compile(r"\byour (" + "|".join(sorted(RELATIONS)) + r")\b", re.I)
_SETTLING = frozenset(("move", "live", "relocate", "work", "join", "start"))
# marks what a memory's body quotes from outside its statement (the question it
# answers): context, in the speaker's words, never the fact itself
CONTEXT_MARK = "—"
_FAVOURITE = re.compile(r"\b(?:favou?rite|go-to|prefer|prefers|preferred)\b", re.I)


class OfflineExtractor:
    """Deterministic Extract+Cue and Relate+Reconcile; see the module docstring."""

    name = NAME

    def __init__(self) -> None:
        # extract() keeps what it read of each draft for relate(); the speakers' names
        # are in nearly every memory of a conversation, so they link nothing.
        self._speakers: set[str] = set()
        self._readings: dict[str, Reading] = {}
        self._corrects: dict[str, str] = {}

    def extract(self, *, messages: Sequence[Message], now: datetime) -> tuple[list[Draft], Usage]:
        drafts: list[Draft] = []
        by_body: dict[str, int] = {}
        self._speakers = {m.name.casefold() for m in messages if m.name}
        self._readings = {}
        asked = ""  # the question the message before asked, if any
        asker = ""  # that message's id
        things: list[str] = []  # what the speaker's statements so far were about
        last_said: dict[str, str] = {}  # each speaker's last statement, as said
        people: dict[str, list[str]] = {}  # whom each speaker's last message named
        places: dict[str, list[str]] = {}  # the places each speaker last named
        young_ones: dict[str, str] = {}  # the new pet or baby each speaker last spoke of
        topics: dict[str, str] = {}  # what each speaker's last "it" was
        asked_for: dict[str, str] = {}  # each speaker's last message, its first sentence
        offered_by = ""  # the message before, as said: what a short reply may pick from
        genders: dict[str, str] = {}  # "my sister Eilidh": Eilidh is no "he"
        just_said: dict[str, str] = {}  # each speaker's last message's last statement, if any
        last_key: dict[str, str] = {}  # each speaker's latest memory (its draft's key)
        self._corrects = {}  # a memory put right in the next message -> the one it corrects
        for message in messages:
            content = with_apostrophes(message.content)
            question, asked = asked, _last_question(content)
            prior, offered_by = offered_by, content
            question_id, asker = asker, message.id
            if not _speaks_facts(message):
                continue
            when = as_utc(message.timestamp or now)
            # relative dates count on the speaker's own clock: "tomorrow" said on Tuesday
            # 21:30 at -05:00 is Wednesday, though it is already Wednesday in UTC
            spoken = message.timestamp if message.timestamp is not None else when
            spoken_day = (spoken if spoken.tzinfo is not None else when).date()
            # "wait actually it's £1,530": a reply that corrects answers no question
            retracts = _RETRACTS.match(content)
            answered = "" if retracts else answered_question(question, who=message.name)
            fix = respelling(content)
            if fix is not None and (wrong := self._respell(drafts, by_body, fix, message)):
                # "he" said next is the one whose name was put right
                people = {k: [respelt(p, wrong, fix.name) for p in v] for k, v in people.items()}
                just_said = {k: respelt(v, wrong, fix.name) for k, v in just_said.items()}
                if not fix.rest:
                    continue  # "Aoife* sorry, autocorrect": the name said before, put right
                content = fix.rest  # "... its Aidan with an a. and hes pumped": said on
            try:
                said = statements(
                    content,
                    day=spoken_day,
                    speakers=frozenset(self._speakers),
                    answers=bool(answered),
                    # a question that makes no cue may still be answered by a name ("Are
                    # you working towards anything?" "the Gloucester 10k")
                    asked=bool(question and not retracts),
                    offered=offers(question),
                )
            except Exception:  # noqa: BLE001 - a sentence no rule foresaw loses no write
                # the message is kept whole, as said, rather than failing the job and
                # every other message of the conversation with it
                logger.exception("offline statements failed on message %s; kept whole", message.id)
                whole = " ".join(content.split())
                said = [Statement(plain=whole, text=whole)] if whole else []
            if not said and retracts and last_key.get(message.name or ""):
                # "no wait, the 15th": a bare value putting right what was just said, kept
                # as a short answer is (only its statements with a figure or a day)
                said = [
                    s
                    for s in statements(
                        content, day=spoken_day, speakers=frozenset(self._speakers), answers=True
                    )
                    if _DIGIT.search(s.plain)
                ]
            if not said and answered and _AFFIRMS.match(content):
                # "Is Kez your partner?" "yeah": a yes to a question naming someone or
                # something says what the question says; kept beside the question
                yes = " ".join(content.split()).rstrip(".!")
                yes = f"{yes[:1].upper()}{yes[1:]}."  # the speaker's word ("Yep.")
                said = [Statement(plain=yes, text=yes)]
            speaker = message.name or ""
            went_on = ""  # the statement a message going on about it continues
            if not said and not answered and just_said.get(speaker):
                # "costs £45 a year which is nothing" after "finally got an allotment!!":
                # what it goes on about is the speaker's message before
                going_on = continuation(content, day=spoken_day)
                if going_on is not None:
                    said, went_on = [going_on], just_said[speaker]
            earlier = just_said.get(speaker, "")
            just_said[speaker] = said[-1].plain if said else ""
            if said:
                # "Mine's in October" after "My birthday is in June, when's yours?"
                said[0] = _with_mine(said[0], _sentence_before(content, said[0].plain) or prior)
                for n in range(1, len(said)):
                    said[n] = _with_mine(said[n], said[n - 1].plain)
                # "she's gluten-free" opening a reply: who "she" is, beside the word
                said[0] = _with_referent(
                    said[0],
                    question,
                    people.get(speaker, []),
                    genders,
                    said_before=_sentence_before(content, said[0].plain),
                )
                # "Mum lives in Galway, I visit her every Easter": "her" is the one
                # person a statement before it in the same message named
                for n in range(1, len(said)):
                    genders.update(_genders(said[n - 1].plain))
                    if _names_newcomer(said[n].plain, said[n - 1].plain):
                        continue  # "My son has a new teacher. His name is ...": not my son's
                    meant = _with_referent(
                        said[n],
                        "",
                        _maybe_people(said[:n], self._speakers),
                        genders,
                        said_before=said[n - 1].plain,
                    )
                    said[n] = replace(meant, leans=False) if meant is not said[n] else meant
                # a "she ..." whose person cannot be said is said with the statement before
                said = rejoined(said)
                genders.update(_genders(said[-1].plain))
            # "my sister lives there" after "flying to Osaka tomorrow": there (Osaka)
            # (a message's later "there" is what its own statements before named: "my
            # mum has 2 dachshunds so I get my dog fix there" is no place said earlier)
            for n in range(len(said)):
                said[n] = _with_place(
                    said[n], _places(said[:n]) or (places.get(speaker, []) if n == 0 else [])
                )
            # "WE GOT A PUPPY." ... "We decided, he's Rigby.": he (the puppy)
            named: dict[int, str] = {}
            for n in range(len(said)):
                young = _young(said[: n + 1]) or young_ones.get(speaker, "")
                said[n], named_one = _with_named(said[n], young)
                if named_one:
                    named[n] = named_one
            # "he works nights as a paramedic" names no one new: the one "he" meant is
            # still the one the next message's "he" means
            people[speaker] = _maybe_people(said, self._speakers) or (
                people.get(speaker, []) if any(_HE_OR_SHE.match(x.plain) for x in said) else []
            )
            if named:  # "His name is Pablo": the next "he" is Pablo
                people[speaker] = [_given_name(said[max(named)].plain) or named[max(named)]]
            places[speaker] = _places(said) or places.get(speaker, [])
            young_ones[speaker] = _young(said) or young_ones.get(speaker, "")
            wanted = asked_for.get(speaker, "")
            asked_for[speaker] = _said_sentences(content)[0]
            context: dict[int, list[str]] = {
                n: [f"what is my {one}'s name", f"what is my {one} called"]
                for n, one in named.items()
            }
            for k, sentence in leftovers(content, said, speakers=frozenset(self._speakers)):
                context.setdefault(k, []).append(sentence)
            for n, statement in enumerate(said):
                # the first statement answers the question before it, its cue: that
                # message is one it came from too
                answers = answered if n == 0 and statement.kind == "fact" else ""
                text = statement.text
                reading = read(statement.plain)
                replying = n == 0 and question and not retracts and statement.kind != "roster"
                # the sentence typed just before the message's first statement, which no
                # statement holds: what its "it" may be
                dropped = _sentence_before(content, statement.plain) if n == 0 else ""
                instead_of = ""  # the memory an "instead" takes the place of
                later_it = (
                    n > 0
                    and question
                    and not retracts
                    and statement.kind == "fact"
                    and (
                        (_it_subject(reading.doc) and not _IT.search(said[n - 1].plain))
                        # "My husband wants yellow. I'm leaning green": green what
                        or any(_value_without_thing(t) for t in reading.doc)
                    )
                )
                corrected = _corrected(
                    reading,
                    last_key.get(speaker, "") if n == 0 and retracts else "",
                    self._readings,
                )
                if corrected:
                    # "sorry £975, it went up in January" after "my rent is £950": the
                    # value put right, said with what it corrects
                    # (the old value left out: the memory says only the value now)
                    was = _clip_cue(_value_left_out(self._readings[corrected].doc))
                    text = f'{text} {CONTEXT_MARK} correcting "{was}"'
                elif (replying and _reply_leans(reading.doc)) or later_it:
                    # "About six years.": what it answers is part of what it says
                    asked_as = _clip_cue(LEAD_IN.sub("", question))
                    text = f'{text} {CONTEXT_MARK} answering "{asked_as[:1].upper()}{asked_as[1:]}"'
                    if (
                        n == 0
                        and earlier
                        and (
                            _elliptical(asked_as)
                            # (a figure quoted in another memory would outlive its correction)
                            or (_it_unnamed(reading.doc, asked_as) and not _DIGIT.search(earlier))
                            or (
                                _asks_by_pronoun(asked_as)
                                and _names_someone(earlier)
                                and not _figure(earlier)
                            )
                        )
                    ):
                        # "What colour?" asks after what the speaker said just before
                        text = f'{text} after "{_clip_cue(earlier)}"'
                        context.setdefault(n, []).insert(0, earlier)
                elif (
                    dropped
                    and _it_subject(reading.doc)
                    and (resolved := _with_antecedent(text, dropped, subject=True))[1]
                ):
                    # "My thesis is nearly done. It is on medieval trade routes.": the
                    # sentence before was no fact of its own, but says what "it" is
                    text = resolved[0]
                    _context_first(context, n, dropped)
                elif (
                    n == 0
                    and earlier
                    and not question
                    and (
                        _it_subject(reading.doc)
                        or (_someone_unsaid(reading.doc, text) and not _DIGIT.search(earlier))
                    )
                    and _names_nothing(prior)
                ):
                    # "It's a girl." after "My wife is pregnant, due in august!!" and
                    # "Congratulations!": what "it" is, the speaker's message before said
                    # (a reply between that names something may be what "it" is)
                    text = f'{text} {CONTEXT_MARK} after "{_clip_cue(earlier)}"'
                    context.setdefault(n, []).insert(0, earlier)
                elif (
                    (replaced := earlier if n == 0 else said[n - 1].plain)
                    and INSTEAD.search(statement.plain)
                    and not INSTEAD.search(replaced)
                    # "going to Rome instead of Paris": what it replaces, it names itself
                    and not _INSTEAD_OF.search(statement.plain)
                    # "Cancelled Smart Fit and joined CrossFit Ilha instead": what it
                    # replaces is said in the statement itself
                    and sum(t.pos_ == "VERB" for t in reading.doc) < 2
                ):
                    # "Doing Seville instead.": what it replaces, the statement before said
                    text = f'{text} {CONTEXT_MARK} after "{_clip_cue(replaced)}"'
                    context.setdefault(n, []).insert(0, replaced)
                    instead_of = _replaced_key(reading, last_key.get(speaker, ""), self._readings)
                elif went_on:
                    text = f'{text} {CONTEXT_MARK} after "{_clip_cue(went_on)}"'
                    context.setdefault(n, []).insert(0, went_on)
                elif (
                    (before_key := last_key.get(speaker, ""))
                    and (amount := _bare_amount(reading.doc)) is not None
                    and any(t.like_num for t in self._readings[before_key].doc)
                ):
                    # "trying to cut down to 2" after "I drink about 4 coffees a day": 2 of
                    # what, the statement before said; done ("down to 2 now"), it replaces it
                    said_before = self._readings[before_key].text
                    text = f'{text} {CONTEXT_MARK} after "{_clip_cue(said_before)}"'
                    context.setdefault(n, []).insert(0, said_before)
                    if not _wished(amount):
                        instead_of = before_key
                elif n > 0 and "there (" not in text and there_of_mine(list(reading.doc)):
                    # "We swim there most weekends.": "there" is what the statement
                    # before named ("My brother has a pool."), no place to put beside it
                    text = f'{text} {CONTEXT_MARK} after "{_clip_cue(said[n - 1].plain)}"'
                    context.setdefault(n, []).insert(0, said[n - 1].plain)
                elif n == 0 and _CHOICE.match(statement.plain) and len(wanted.split()) > 3:
                    # "Ananthagiri it is.": a choice, of what the speaker asked for before
                    wanted = _clip_cue(wanted)
                    text = f'{text} {CONTEXT_MARK} after "{wanted[:1].upper()}{wanted[1:]}"'
                    context.setdefault(n, []).insert(0, wanted)  # and what a question asks of it
                elif (
                    n == 0
                    and not retracts
                    and (picked := _picked_from(reading.doc, prior, question)) is not None
                ):
                    # "Oat is good." after "you could try oat, soy or almond milk": the
                    # reply picks what the message before offered
                    mark = "answering" if picked == question else "after"
                    picked = _clip_cue(LEAD_IN.sub("", picked))
                    text = f'{text} {CONTEXT_MARK} {mark} "{picked[:1].upper()}{picked[1:]}"'
                elif n == 0 and not question and prior and _points_back(reading.doc):
                    # "That's my long run day." after "I could put the barbecue on
                    # Saturday then.": what "that" is, the message before said
                    pointed = _clip_cue(_said_sentences(prior)[-1])
                    text = f'{text} {CONTEXT_MARK} after "{pointed[:1].upper()}{pointed[1:]}"'
                    context.setdefault(n, []).insert(0, pointed)
                elif (
                    n > 0
                    and (part := _owner_subject(reading.doc)) is not None
                    and part.lemma_.lower() not in said[n - 1].plain.lower()
                    and CONTEXT_MARK not in text
                    and _names_a_thing_done(read(said[n - 1].plain).doc)
                    and not _DIGIT.search(said[n - 1].plain)
                ):
                    # "My cousin drives a Corsa. Mine's a Fiesta": mine of what the
                    # statement before named, said beside it ("the" part of it, "The
                    # broth was incredible", said so cost LoCoMo recall@10 0.0012)
                    text = f'{text} {CONTEXT_MARK} after "{_clip_cue(said[n - 1].plain)}"'
                group = next((g for g in reversed(said[:n]) if _group(g.plain)), None)
                if group is not None and _member(reading, group.plain):
                    # "Our cats are driving me up the wall. Mochi keeps knocking things
                    # off the counter": Mochi is one of the cats the statement before named
                    text = f'{text} {CONTEXT_MARK} after "{_clip_cue(group.plain)}"'
                    context.setdefault(n, []).insert(0, group.plain)
                    context[n].insert(0, f"what are my {_GROUP.search(group.plain)['noun']} called")
                before = said[n - 1].plain if n > 0 else last_said.get(message.name or "")
                if n == 0 and question and not _IT.search(question):
                    # "Which bike did you get?" "... I ride it to work": a question about
                    # something else came between; "it" is no thing said before it
                    before = ""
                if (
                    dropped
                    and _pronoun_object(reading)
                    and (resolved := _with_antecedent(text, dropped))[1]
                ):
                    # "Started a podcast about old films lol. I record it every Sunday":
                    # the sentence just before was no fact of its own, but names what
                    # "it" is, nearer than anything an earlier message said
                    _context_first(context, n, dropped)
                    text, topics[speaker] = resolved
                elif before and _pronoun_object(reading):
                    # "We split it: ...": what "it" is was said in the statement before;
                    # the thing it names goes beside "it", that statement into the cues
                    context.setdefault(n, []).insert(0, before)
                    text, thing = _with_antecedent(text, before, topics.get(speaker, ""))
                    topics[speaker] = thing
                elif not _IT.search(statement.plain):
                    topics.pop(speaker, None)
                body = f"{message.name}: {text}" if message.name else text
                seen = by_body.get(body.casefold())
                if seen is not None:  # the same statement twice: one memory, both sources
                    old = drafts[seen]
                    if message.id not in old.sources:
                        drafts[seen] = replace(
                            old, sources=(*old.sources, message.id), when=max(old.when, when)
                        )
                    continue
                last_said[message.name or ""] = statement.plain
                referent = _one_of(reading, things)
                # "actually it's £1,530": asked what the memory it corrects was asked
                inherited = _corrected_cues(reading, drafts, self._readings)
                # "they put it up, it's £40 now" after "Gym membership is £35 a month":
                # a new value of the "it" just said takes its place
                instead_of = instead_of or (
                    ""
                    if corrected
                    else _updated(reading, last_key.get(speaker, ""), self._readings)
                )
                if instead_of:
                    # "change of plan, doing Sicily instead" takes the place of Crete
                    self._corrects[f"n{len(drafts) + 1}"] = instead_of
                if corrected:
                    self._corrects[f"n{len(drafts) + 1}"] = corrected
                    inherited += [
                        c for d in drafts if d.key == corrected for c in d.cues if c[:1].islower()
                    ]
                things.extend(_objects(reading))
                key = f"n{len(drafts) + 1}"
                self._readings[key] = reading
                by_body[body.casefold()] = len(drafts)
                last_key[speaker] = key
                tier = _tier(statement, reading, spoken_day)
                drafts.append(
                    Draft(
                        key=key,
                        tier=tier,
                        topic=_topic(reading, self._speakers),
                        title=as_typed(" ".join(statement.plain.split()[:8]), message.content),
                        body=as_typed(body, message.content),
                        tags=tuple(
                            _tags(reading, self._speakers, who=message.name, meant=statement)
                        ),
                        cues=_with_context(
                            _asked_cues(
                                statement,
                                reading,
                                who=message.name,
                                # a hedge does not answer "what do you have?"
                                asked=answers,
                                items=statement.kind == "roster",
                            )
                            + (
                                [f"what {referent} do I have"]
                                if referent and not message.name
                                else []
                            )
                            + inherited,
                            _context_cues(context.get(n, []), who=message.name),
                        ),
                        sources=(
                            (message.id, question_id)
                            if answers and question_id and question_id != message.id
                            else (message.id,)
                        ),
                        confidence=CONFIDENCE,
                        when=when,
                    )
                )
        return drafts, Usage()

    def _respell(
        self, drafts: list[Draft], by_body: dict[str, int], fix: Respelling, message: Message
    ) -> str | None:
        """Put the name right in the latest of the speaker's memories that mistyped it;
        the name as it was mistyped, or None when no memory mistyped it."""
        prefix = f"{message.name}: " if message.name else ""
        wrong: str | None = None
        for n in range(len(drafts) - 1, -1, -1):
            draft = drafts[n]
            mine = (
                draft.body.startswith(prefix)
                if prefix
                else without_speaker(draft.body) == draft.body
            )
            if not mine:
                continue
            if wrong is None:
                wrong = mistyped(draft.body, fix)  # the latest memory that mistyped it
            if wrong is None or not re.search(rf"\b{re.escape(wrong)}\b", draft.body):
                continue
            # every memory of the conversation with that spelling: "Alfie starts
            # camogie", "no clue what gear she (Alfie) needs"
            by_body.pop(draft.body.casefold(), None)
            drafts[n] = _respell_draft(draft, wrong, fix.name, message.id)
            by_body[drafts[n].body.casefold()] = n
            self._readings[draft.key] = read(drafts[n].body)
        return wrong

    def relate(
        self,
        *,
        drafts: Sequence[Draft],
        candidates: Sequence[Candidate],
        candidates_for: Mapping[str, Sequence[str]],
    ) -> tuple[Decision, Usage]:
        readings = {d.key: self._readings.get(d.key) or read(d.body) for d in drafts}
        readings.update({c.key: read(c.memory.text) for c in candidates})
        rewrites, supersedes = reconcile(
            drafts=drafts, candidates=candidates, candidates_for=candidates_for, readings=readings
        )
        # a value put right in the next message replaces what it corrects
        keys = {d.key for d in drafts}
        said = {(s.source, s.target) for s in supersedes}
        supersedes = [
            *supersedes,
            *(
                DraftLink(source=later, target=earlier, type=SUPERSEDES)
                for later, earlier in self._corrects.items()
                if later in keys and earlier in keys and (later, earlier) not in said
            ),
        ]
        # a supersedes link replaces any other link between the same pair
        replaced = {(s.source, s.target) for s in supersedes}
        links = [
            *supersedes,
            *(
                link
                for link in _relate(drafts, candidates, readings, self._speakers)
                if (link.source, link.target) not in replaced
            ),
        ]
        return Decision(links=tuple(links), rewrites=tuple(rewrites)), Usage()


def _cues(reading: Reading, **kwargs) -> list[str]:
    """Cues from the parse; a pattern the rules did not foresee costs that statement
    its question cues, never the job (the statement itself stays a cue)."""
    try:
        return [c for c in (_clip_cue(cue) for cue in cues_for(reading, **kwargs)) if c]
    except Exception:  # noqa: BLE001 - logged; the write goes on
        logger.exception("offline cues failed for a statement; keeping it as its own cue")
        return [" ".join(reading.text.split())[:200]]


def _with_context(cues: list[str], context: list[str]) -> tuple[str, ...]:
    """The statement's cues and its context cues, within the pipeline's cap per memory
    (the context keeps its place; the last of the statement's own cues go first)."""
    room = max(0, MAX_MEMORY_CUES - len(context))
    return tuple(dict.fromkeys([*cues[:room], *context]))


def _context_cues(sentences: list[str], *, who: str | None) -> list[str]:
    """What the message said around a statement that is no fact of its own, as cues
    (retrievable, never in the body): at most ``MAX_CONTEXT_CUES``, as said."""
    prefix = f"{who}: " if who else ""
    return [_clip_cue(prefix + s) for s in sentences[:MAX_CONTEXT_CUES]]


def _clip_cue(text: str) -> str:
    """At most ``MAX_CUE_CHARS`` (a cue is one header line of bounded length), cut at a
    word."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_CUE_CHARS else text[:MAX_CUE_CHARS].rsplit(" ", 1)[0]


def _elliptical(question: str) -> bool:
    """ "What colour?", "Where?", "Which one?": a question of a few words that asks after
    what was just said without naming it."""
    words = re.findall(r"[\w'’]+", question)
    return 0 < len(words) <= 3 and not any(w.casefold() in ("you", "your", "u") for w in words)


def leans_on_question(doc: Doc) -> bool:
    """A reply that says nothing on its own without the question it answers: no
    subject of its own ("About six years.", "Still Jaipur."), a pronoun or "there" as
    its subject ("It's a Brompton."), or a bare yes or no."""
    subjects = [
        t
        for t in doc
        if t.dep_ in ("nsubj", "nsubjpass", "expl")
        # "Thai I think.": the hedge's "I" is no subject of the answer
        and not (t.lower_ == "i" and _hedge_aside(t.head))
        # "Nearly 5 years, came for the job": a figure cut off by its comma is the
        # answer, not the subject of the verb after it
        and not any(u.text == "," for u in doc[t.i + 1 : t.head.i])
    ]
    if not subjects:
        # "Got a second-hand Kona, 2021.": the "I" left out of a past verb and its
        # object says it all; a fragment does not
        opening = next((t for t in doc if not t.is_punct), None)
        return not (
            opening is not None
            and opening.dep_ == "ROOT"
            and opening.pos_ == "VERB"
            and (opening.tag_ in ("VBD", "VBN") or opening.lower_ == "got")
            and any(c.dep_ in ("dobj", "prep", "dative") for c in opening.children)
        )
    # "$2,150 which hurt a bit.": the only subject is a relative clause's
    subjects = [t for t in subjects if t.tag_ not in ("WDT", "WP")]
    if not subjects:
        return True
    first = subjects[0]
    if any(
        t.dep_ in ("dobj", "pobj") and t.lower_ in _POINTING and not list(t.children) for t in doc
    ):
        return True  # "My partner hates all of those.": those the question offered
    return first.lower_ in (
        *("it", "that", "this", "there", "they", "those", "these", "one", "he", "she"),
    )


def _reply_leans(doc: Doc) -> bool:
    """A reply read alone needs the question it answers: as ``leans_on_question``, or it
    says a value without its thing ("My husband wants yellow."), names nothing of its
    own ("We lost 3-1."), or speaks of a part of what was asked after ("The ending was a
    bit rushed" after "What did you think of the book?")."""
    return (
        leans_on_question(doc)
        or any(_value_without_thing(t) for t in doc)
        or _names_nothing_of_its_own(doc)
        or _the_subject(doc) is not None
    )


def _asks_by_pronoun(question: str) -> bool:
    """ "Do you know much about her?": a question asking after someone by a pronoun,
    whom the speaker's statement before may name."""
    return any(w.casefold() in _PERSONAL_PRONOUNS | _THEY for w in re.findall(r"[\w'’]+", question))


_THEY = frozenset(("they", "them", "their"))


def _names_someone(text: str) -> bool:
    """ "Meeting my new line manager on Monday": a statement naming someone, by name or
    by who they are to the speaker (not "Bins go out every wednesday night", which a
    "them" after it does not mean)."""
    return any(t.lemma_.lower() in RELATIONS or t.ent_type_ == "PERSON" for t in parse(text))


def _figure(text: str) -> bool:
    """A figure, in digits or words ("£950", "About six."): quoted in another memory it
    would outlive its correction there."""
    return bool(_DIGIT.search(text)) or any(t.like_num for t in parse(text))


def _it_unnamed(doc: Doc, question: str) -> bool:
    """ "It tastes like a bonfire." answering "What did you think?", "That's where I went
    as a kid" answering "How did you choose?": an "it" or "that" the question names
    nothing for, so the speaker's statement before says what it is."""
    return (_it_subject(doc) or _points_back(doc)) and not any(
        t.pos_ in ("NOUN", "PROPN") for t in parse(question)
    )


def _someone_unsaid(doc: Doc, text: str) -> bool:
    """ "They met at uni." after "My friends Priya and Sam are getting married" and
    "Congratulations!": a "he", "she" or "they" opening the statement with no note of
    who, so the speaker's message before says who it may be."""
    subject = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass")), None)
    return (
        subject is not None
        and subject.i == 0
        and subject.lower_ in ("he", "she", "they")
        and not text[len(subject.text) :].lstrip().startswith("(")
    )


def _names_nothing_of_its_own(doc: Doc) -> bool:
    """ "We came second!", "I'd fall asleep.": a short reply naming no thing, of no
    state of the speaker's ("I'm vegetarian" says all it means)."""
    if len(doc) > 8 or any(t.pos_ in ("NOUN", "PROPN") for t in doc):
        return False
    return not any(
        t.dep_ == "nsubj" and t.lower_ in ("i", "we") and t.head.lemma_ == "be" for t in doc
    )


def _the_subject(doc: Doc) -> Token | None:
    """The subject of a statement said as "the" something ("The broth was incredible"),
    none of the speaker's or anyone's by name: a part of what was said just before."""
    if (owner := _owner_subject(doc)) is not None:
        return owner
    subject = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass")), None)
    if (
        subject is None
        or subject.pos_ != "NOUN"
        or subject.i > 3
        # "the wife", "the kids" are the speaker's; "the reason" names nothing
        or subject.lemma_.lower() in FAMILY | VAGUE_NOUNS
        or not any(c.dep_ == "det" and c.lower_ == "the" for c in subject.children)
        or any(c.dep_ in ("poss", "compound") for c in subject.children)
    ):
        return None
    return subject


def _owner_subject(doc: Doc) -> Token | None:
    """ "Hers is in May", "Mine's a Polo": hers, mine of what was said, as the subject."""
    subject = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass")), None)
    return subject if subject is not None and subject.lower_ in _OWNERS and subject.i < 2 else None


_OWNERS = frozenset(("mine", "hers", "his", "ours", "theirs", "yours"))


def _names_a_thing_done(doc: Doc) -> bool:
    """A statement with a thing done or gone to ("Tried that ramen place on Deansgate"):
    what "the broth" after it may be a part of. Not a day ("Dentist on Tuesday")."""
    return any(
        t.dep_ in ("dobj", "pobj")
        and t.pos_ in ("NOUN", "PROPN")
        and t.ent_type_ not in ("DATE", "TIME")
        and t.lemma_.lower() not in VAGUE_NOUNS
        for t in doc
    )


def _value_without_thing(token: Token) -> bool:
    """A colour said for the thing it is the colour of ("wants yellow", "the grey is
    nicer"), or a "one" said for a thing ("the smaller one"): the thing is elsewhere."""
    if token.lower_ in COLOURS:
        return token.dep_ not in ("amod", "compound", "conj") or token.head.pos_ != "NOUN"
    return (
        token.lower_ == "one"
        and token.dep_ in ("dobj", "pobj", "nsubj", "attr")
        and any(c.dep_ in ("det", "amod") for c in token.children)
    )


_POINTING = frozenset(("those", "these", "both", "either", "neither"))
_HEDGING = frozenset(("think", "guess", "reckon", "suppose", "believe"))


def _hedge_aside(verb: Token) -> bool:
    """A "think" with nothing thought ("Thai I think"): an aside, not a statement."""
    return verb.lemma_ in _HEDGING and not any(
        c.dep_ in ("ccomp", "dobj", "xcomp") for c in verb.children
    )


def _corrected_cues(
    reading: Reading, drafts: list[Draft], readings: dict[str, Reading]
) -> list[str]:
    """For a new value said of "it" (a price, a date), the question cues of the latest
    statement before it with that attribute: it answers what that one answered."""
    if not reading.marked and len(reading.doc) > 8:
        return []  # "..., it's the only exercise I get": no new value of anything said
    attributes = {f.attribute for f in reading.facets if f.subject == PRONOUN}
    for draft in reversed(drafts):
        earlier = readings.get(draft.key)
        if earlier is not None and any(
            f.attribute in attributes and f.subject != PRONOUN for f in earlier.facets
        ):
            # its questions, not its own words: those start with a capital
            return [c for c in draft.cues if c[:1].islower()]
    return []


def _names_newcomer(text: str, before: str) -> bool:
    """ "His name is Mr Adeyemi" after "My son has a new teacher": a name given right
    after someone new came in ("a new teacher", "a cleaner") is that one's, whoever
    the statement before named first."""
    if not any(name_given(t) for t in parse(text)):
        return False
    return any(
        t.pos_ == "NOUN"
        and t.dep_ in ("dobj", "attr", "appos")
        and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in t.children)
        and t.lemma_.lower() not in VAGUE_NOUNS
        for t in parse(before)
    )


_NAMED_ONE = re.compile(r"\b(?:named|called)\s+([A-Z][\w'’-]+)")


def _people(said: Sequence[Statement], speakers: set[str]) -> list[str]:
    """The people a message's statements name: names, and "my <relation>"."""
    found: list[str] = []
    for statement in said:
        # "my nephew Luca" is Luca; "my dad" is "my dad"
        relations = list(_MY_RELATION.finditer(statement.plain))
        found += [m.group("name") or m.group(0).lower() for m in relations]
        # "Mum lives in Galway": a relation said as a name is a person too
        found += [m.group(0) for m in _KIN_AS_NAME.finditer(statement.plain)]
        named = {m.group("name") for m in relations}
        # "I have a dog named Biscuit": one "his" can mean next
        found += [m.group(1) for m in _NAMED_ONE.finditer(statement.plain)]
        found += [
            name
            for e in parse(statement.plain).ents
            if e.label_ == "PERSON"
            and e.text.casefold() not in speakers
            and e.text not in named
            # "at Aga Khan hospital", "St Mary's school": a name that names a place
            and not (e.root.dep_ == "compound" and e.root.head.pos_ == "NOUN")
            # "a home in Kent" (tagged a person's name): no one lives in a person
            and not (e.root.dep_ == "pobj" and e.root.head.lower_ in ("in", "near", "outside"))
            and (name := _person_name(e))
        ]
    return list(dict.fromkeys(found))


def _maybe_people(said: Sequence[Statement], speakers: set[str]) -> list[str]:
    """The people a message's statements name (``_people``) and every other name a
    later "he" or "she" could mean, which the small tagger may have taken for a place
    ("moved Aidan to Mr. Romero's class", "Ben and Callum came round", "her flatmate
    Sofia"): with two, a pronoun after them is in doubt and gets no note."""
    found = _people(said, speakers)
    if not found:
        return found  # no one a pronoun could be said to mean: none to doubt either
    known = {word.casefold() for name in found for word in name.split()}
    for statement in said:
        for token in parse(statement.plain):
            if token.text.casefold() in known or not _could_be_someone(token):
                continue
            known.add(token.text.casefold())
            found.append(token.text)
    return found


def _could_be_someone(token: Token) -> bool:
    """A capitalised name standing where a person can: after a noun that says who ("her
    flatmate Sofia"), one of a pair of names ("Rose and Mark"); or, when no dictionary
    knows the word, a subject, an object, with "with" or "for". Not "a Skoda", not a
    day or month, not "at Lidl" or "to Leeds"."""
    if not (token.pos_ == "PROPN" and token.text[:1].isupper() and token.is_alpha):
        return False
    if token.lower_ in _DAYS_AND_MONTHS or token.dep_ == "compound":
        return False
    if any(c.dep_ == "det" for c in token.children):
        return False
    before = token.doc[token.i - 1] if token.i else None
    if before is not None and before.dep_ in ("compound", "amod") and before.head == token:
        return True  # "her flatmate Sofia" (the tagger may take "flatmate" for an adjective)
    if (token.dep_ == "conj" and token.head.pos_ == "PROPN") or any(
        c.dep_ == "conj" and c.pos_ == "PROPN" for c in token.children
    ):
        return True  # "Ben and Callum", "Rose and Mark"
    if dictionary_word(token.text):
        return False
    if token.dep_ == "pobj":
        return token.head.lower_ in ("with", "for", "by")
    if token.dep_ == "dobj":  # "moved Aidan", not "play Minecraft"
        return token.head.lemma_.lower() in _DONE_TO_SOMEONE
    return token.dep_ in ("nsubj", "nsubjpass", "appos", "poss")


# verbs whose object is most often a person: "moved Aidan to ...", "met Jonas"
_DONE_TO_SOMEONE = word_set(
    """meet see call ring text phone email tell ask invite marry date move put pick drop hug
    babysit help message introduce"""
)


_DAYS_AND_MONTHS = WEEKDAYS | {m.lower() for m in calendar.month_name if m}


def _person_name(ent: Span) -> str:
    """A person's name as the tagger marked it, without the verb it opened on or the
    word after ("Hosting Deepak" is Deepak, "keiko again" is keiko)."""
    words = list(ent)
    while words and (words[0].tag_ == "VBG" or _ing_verb(words[0].lower_)):
        words = words[1:]
    while words and words[-1].pos_ in ("ADV", "PART", "PUNCT"):
        words = words[:-1]
    return ent.doc[words[0].i : words[-1].i + 1].text if words else ""


def _ing_verb(word: str) -> bool:
    """ "hosting", "visiting", "taking": a verb's "-ing" form."""
    stem = word.removesuffix("ing")
    return stem != word and len(stem) > 2 and (known_verb(stem) or known_verb(f"{stem}e"))


_GROUP = re.compile(
    r"\b(?:[Mm]y|[Oo]ur) (?:two |three |four )?(?P<noun>"
    + "|".join(sorted({f"{r}s" for r in RELATIONS} | {"kids", "children", "parents", "pets"}))
    + r")\b(?!['’])"
)


def _group(text: str) -> bool:
    """ "Our cats are ...", "my two sons ...": people or pets said as a group, unnamed."""
    m = _GROUP.search(text)
    return m is not None and not re.search(r"[A-Z][\w'-]+", text[m.end() : m.end() + 3])


def _member(reading: Reading, group: str) -> bool:
    """The statement's subject is a name the group's statement did not say ("Mochi
    keeps knocking things off the counter" after "Our cats are ...")."""
    subject = next((t for t in reading.doc if t.dep_ in ("nsubj", "nsubjpass")), None)
    return (
        subject is not None
        # the small tagger reads a pet's name at a sentence's start as anything
        and (subject.pos_ == "PROPN" or subject.is_title and not dictionary_word(subject.text))
        and subject.ent_type_ not in ("GPE", "ORG", "LOC", "FAC")
        and subject.text not in group
        and not _MY_RELATION.search(reading.text[: subject.idx])
    )


_YOUNG = word_set(
    "puppy kitten dog cat baby bunny rabbit hamster guinea parrot budgie tortoise foal "
    "gecko lizard snake ferret chinchilla pony horse turtle goldfish axolotl rat mouse"
)


_TAKING_IN = word_set("adopt rescue foster")


def _young(said: Sequence[Statement]) -> str:
    """The last new pet or baby the statements speak of ("we got a puppy", "we adopted
    a rescue greyhound"), or ""."""
    found = [
        t.lemma_.lower()
        for st in said
        for t in parse(st.plain)
        if t.dep_ in ("dobj", "attr", "nsubj", "pobj")
        and (
            t.lemma_.lower() in _YOUNG
            or (t.pos_ == "NOUN" and t.dep_ == "dobj" and t.head.lemma_.lower() in _TAKING_IN)
        )
    ]
    return found[-1] if found else ""


def _given_name(text: str) -> str:
    """The name a naming statement gives ("His name is Pablo", "she's called Miso")."""
    return next(
        (t.text for t in parse(text) if t.pos_ == "PROPN" and t.dep_ in ("attr", "oprd")), ""
    )


def _with_named(statement: Statement, young: str) -> tuple[Statement, str]:
    """ "he's Rigby", "she's called Miso" after "we got a puppy": the name is the
    puppy's, said beside the pronoun ("he (the puppy)'s Rigby"); the pet it names."""
    if not young:
        return statement, ""
    doc = parse(statement.text)
    pronoun = next(
        (
            t
            for t in doc[:8]
            if (t.lower_ in ("he", "she") and t.dep_ in ("nsubj", "nsubjpass"))
            # "His name is Pablo": whose name it is
            or (
                t.lower_ in ("his", "her")
                and t.dep_ == "poss"
                and t.head.lower_ == "name"
                and t.head.dep_ == "nsubj"
            )
        ),
        None,
    )
    if pronoun is None:
        return statement, ""
    verb = pronoun.head if pronoun.dep_ != "poss" else pronoun.head.head
    names = [
        t
        for t in verb.subtree
        if t.pos_ == "PROPN" and t.i > pronoun.i and t.dep_ in ("attr", "oprd", "npadvmod", "dobj")
    ]
    if not names or verb.lemma_ not in ("be", "call", "name"):
        return statement, ""
    end = pronoun.idx + len(pronoun.text)
    whose = "'s" if pronoun.dep_ == "poss" else ""
    text = f"{statement.text[:end]} (the {young}{whose}){statement.text[end:]}"
    return replace(statement, text=text), young


def _places(said: Sequence[Statement]) -> list[str]:
    """The places the statements name (cities, countries, regions), the last first."""
    found = [e.text for st in said for e in parse(st.plain).ents if e.label_ in ("GPE", "LOC")]
    return list(dict.fromkeys(reversed(found)))


def _with_place(statement: Statement, places: list[str]) -> Statement:
    """ "My sister lives there": "there (Osaka)", when one place only was named before
    and the statement names none of its own. The words stay as said."""
    if len(places) != 1:
        return statement
    doc = parse(statement.text)
    there = next(
        (t for t in doc[:12] if t.lower_ == "there" and t.dep_ == "advmod"),
        None,
    )
    if there is None or any(e.label_ in ("GPE", "LOC", "FAC") for e in doc.ents):
        return statement
    end = there.idx + len(there.text)
    return replace(statement, text=f"{statement.text[:end]} ({places[0]}){statement.text[end:]}")


def _gender(word: str) -> str:
    key = word.casefold().removeprefix("my ")
    return "f" if key in FEMALE_KIN else "m" if key in MALE_KIN else ""


def _genders(text: str) -> dict[str, str]:
    """ "my sister Eilidh": {"Eilidh": "f"}; the people a statement names with a
    relation that says which pronoun they take."""
    return {
        m.group("name"): g
        for m in _MY_RELATION.finditer(text)
        if m.group("name") and (g := _gender(m.group(0).split()[1]))
    }


_HE_OR_SHE = re.compile(r"(?:he|she)\b", re.IGNORECASE)


def _asked_cues(statement: Statement, reading: Reading, **kwargs) -> list[str]:
    """The statement's cues: its questions as asked of what it means (``_asked_reading``),
    its own words as said (question cues start in lower case, said words with a capital)."""
    said = _cues(reading, **kwargs)
    asked = _asked_reading(statement, reading)
    others = [asked] if asked is not reading else []
    others += [read(text) for text in _clauses_asked(reading)]
    if not others:
        return said
    questions = [c for c in said if c[:1].islower()]
    for other in others:
        questions += [c for c in _cues(other, **kwargs) if c[:1].islower() and c not in questions]
    return questions + [c for c in said if not c[:1].islower()]


def _clauses_asked(reading: Reading) -> list[str]:
    """Clauses asked after on their own: the one before ", she's 7" when the parser made
    that pronoun's clause the sentence's root (``_clause_before_pronoun``), and a later
    clause whose "he" or "she" is the person the statement opens with."""
    return [*_clause_before_pronoun(reading), *_person_clauses(reading)]


def _clause_before_pronoun(reading: Reading) -> list[str]:
    """ "We've got a rescue greyhound called Pip, she's 7": the parser makes "she's 7"
    the root and the clause before it a part of it, so no question of the greyhound was
    asked; that clause, read alone, has its own ("what is our rescue greyhound called")."""
    out = []
    for sent in reading.doc.sents:
        root = sent.root
        pronoun = next(
            (
                c
                for c in root.children
                if c.dep_ == "nsubj" and c.lower_ in ("he", "she", "it", "they")
            ),
            None,
        )
        if pronoun is None or not any(c.dep_ == "ccomp" and c.i < pronoun.i for c in root.children):
            continue
        comma = next((t for t in reversed(sent[: pronoun.i - sent.start]) if t.text == ","), None)
        if comma is not None and comma.i > sent.start + 2:
            out.append(reading.doc[sent.start : comma.i].text + ".")
    return out


def _person_clauses(reading: Reading) -> list[str]:
    """ "My mum's 70 next month, she lives in Swansea": a later clause whose "he" or
    "she" is the person the statement opens with, as asked after ("My mum lives in
    Swansea"), so it has questions of its own (the parser often makes that clause the
    sentence's root, so it is found in the words, not the tree)."""
    opening = _OPENING_PERSON.match(reading.text)
    if opening is None:
        return []
    kin, name = opening.group("kin"), opening.group("name") or opening.group("alone")
    if kin is None and name not in _people(
        [Statement(plain=reading.text, text=reading.text)], set()
    ):
        return []  # "Tom" only when the statement names a person by it
    person = name or f"my {kin.lower()}"
    out = []
    for clause in _PRONOUN_CLAUSE.finditer(reading.text):
        said_as = "m" if clause.group("pronoun").lower() == "he" else "f"
        known = _gender(kin.lower()) if kin else ""
        if known and known != said_as:
            continue
        rest = re.sub(r"^['’]s\b", " is", clause.group("rest"))
        out.append(f"{person[:1].upper()}{person[1:]}{rest.rstrip()}.")
    return out


_OPENING_PERSON = re.compile(
    r"^(?:[Mm]y (?P<kin>" + "|".join(sorted(RELATIONS)) + r")\b(?:,? (?P<name>[A-Z][\w'-]+))?"
    r"|(?P<alone>[A-Z][a-z]+)\b)"
)
_PRONOUN_CLAUSE = re.compile(
    r"(?:,|;|\band\b|\bbut\b)\s+(?P<pronoun>he|she)\b(?P<rest>[^,.;!?]+)", re.IGNORECASE
)


def _asked_reading(statement: Statement, reading: Reading) -> Reading:
    """What the statement's questions are asked of: with the person its "he" or "she"
    means ("Jonas works nights as a paramedic"), or with the "I" typed without
    ("Staying in a cottage near Keswick" as "I'm staying ..."), or with its contractions
    written out ("Hes allergic to nuts"); else the statement."""
    if statement.asked_as:
        asked = read(statement.asked_as)
        _as_person(asked.doc, statement.asked_of)
        return asked
    written = with_contractions(reading.text)
    if written != reading.text:
        return _asked_reading(replace(statement, plain=written), read(written))
    first = reading.doc[0] if len(reading.doc) else None
    subjectless = not any(t.dep_ in ("nsubj", "nsubjpass", "expl") for t in reading.doc)
    if first is not None and subjectless and first.tag_ == "VBG":
        return read(f"I'm {first.lower_}{statement.plain[len(first.text) :]}")
    if (
        first is not None
        and subjectless
        and first.lemma_.lower() in LIKING_OPENERS
        and first.tag_ in ("VB", "VBP", "NN", "NNP")
        and not statement.leans
    ):
        # "Hate coriander", "Love a good curry": a liking of mine said without "I"
        return read(f"I {first.lower_}{statement.plain[len(first.text) :]}")
    if (
        first is not None
        and subjectless
        and first.dep_ == "aux"
        and can_not_bear(first.head)
        and not statement.leans
    ):
        return read(
            f"I {first.lower_}{statement.plain[len(first.text) :]}"
        )  # "Can't stand mushrooms"
    second = reading.doc[1] if len(reading.doc) > 1 else None
    if (
        first is not None
        and subjectless
        and not statement.leans
        and first.pos_ in ("ADJ", "PROPN")
        and second is not None
        and second.lower_ in ("to", "in", "of", "with")
        # (the small tagger takes a capitalised "Fluent" for a name: asked lower case)
        and (
            first.pos_ == "ADJ"
            or parse(first.lower_ + statement.plain[len(first.text) :])[0].pos_ == "ADJ"
        )
    ):
        # "Allergic to kiwi", "Fluent in Welsh": a state of mine said without "I'm"
        return read(f"I'm {first.lower_}{statement.plain[len(first.text) :]}")
    contracted = _is_read_as_possessive(reading.doc)
    if contracted is not None:
        # "Ella's allergic to penicillin": asked as "Ella is allergic to penicillin"
        end = contracted.idx + len(contracted.text)
        return read(f"{reading.text[: contracted.idx].rstrip()} is{reading.text[end:]}")
    return reading


def _is_read_as_possessive(doc: Doc) -> Token | None:
    """The "'s" the small tagger read as a possessive where it is "is": the sentence has
    no verb, and what follows is no thing owned ("Ella's allergic to ...", "The boiler's
    a Worcester Bosch", "Carla's from Porto"); or an -ing word follows ("My brother's
    getting married", "My dad's retiring in April")."""
    going = next(
        (
            t
            for t in doc[:-1]
            if t.tag_ == "POS"
            and t.lower_ in ("'s", "’s")
            and doc[t.i + 1].tag_ == "VBG"
            and doc[t.i + 1].pos_ in ("VERB", "AUX")
        ),
        None,
    )
    if going is not None:
        return going
    if any(t.pos_ in ("VERB", "AUX") for t in doc):
        return None
    return next(
        (
            t
            for t in doc[:-1]
            if t.tag_ == "POS"
            and t.lower_ in ("'s", "’s")
            and doc[t.i + 1].pos_ in ("ADJ", "DET", "ADV", "ADP", "NUM")
        ),
        None,
    )


def _as_person(doc: Doc, name: str) -> None:
    """The name a pronoun meant is a person's, whatever the small tagger makes of it
    alone ("Kasia works nights": it knows "Jonas", not "Kasia")."""
    words = name.split()
    if not words or not words[0][:1].isupper():
        return  # "my mum": a relation, asked after as one
    for token in doc:
        if doc[token.i : token.i + len(words)].text == name:
            span = Span(doc, token.i, token.i + len(words), label="PERSON")
            doc.set_ents([span], default="unmodified")
            for named in span:
                named.pos_ = "PROPN"
                named.tag_ = "NNP"
            return


def _with_referent(
    statement: Statement,
    question: str,
    before: list[str],
    genders: dict[str, str] | None = None,
    *,
    said_before: str = "",
) -> Statement:
    """ "She's gluten-free" after "my friend Ottilie is coming over": "She (Ottilie)'s
    gluten-free"; "I called her this morning": "her (Ottilie)"; "His pills": "His (my
    dad's) pills", when one person only could be meant: the one the question before
    asks about ("How old is your brother?": "my brother"), else the one the speaker's
    last message named, and the statement names no one before the pronoun. The words
    stay as said; the note is beside them."""
    doc = parse(statement.text)
    pronoun = next((t for t in doc if t.lower_ in _PERSONAL_PRONOUNS), None)
    if pronoun is None or pronoun.i > 12:
        return statement
    if pronoun.dep_ in ("nsubj", "nsubjpass") and any(
        (c.dep_ == "attr" and pronoun.head.lemma_ == "be")
        or (c.dep_ == "oprd" and pronoun.head.lemma_ in ("call", "name"))
        for c in pronoun.head.children
        if c.pos_ == "PROPN"
    ):
        return statement  # "he's Rigby", "she's called Miso": the statement says who
    earlier = doc[: pronoun.i]
    if (
        any(t.ent_type_ == "PERSON" for t in earlier)
        or _SOMEONE.search(earlier.text)
        # "Ifeoma is already planning the shower, she's scary organised": a name the
        # statement itself made its subject (the tagger may not know it for a person's)
        or any(
            t.dep_ in ("nsubj", "nsubjpass")
            and (t.pos_ == "PROPN" or (t.text[:1].isupper() and not dictionary_word(t.text)))
            and not t.is_stop  # "Everything has to be gluten free, and she's ..."
            and not any(c.dep_ == "det" for c in t.children)  # "The Airbnb": no one's name
            for t in earlier
        )
    ):
        # "my sister Anika said she ...", "My gran's 92, she lives in Tenby", "Gran's
        # having her hip done": said in the statement itself
        return statement
    asked = [f"my {m.group(1).lower()}" for m in _YOUR_RELATION.finditer(question)]
    asked += [e.text for e in parse(question).ents if e.label_ == "PERSON"] if question else []
    candidates = list(dict.fromkeys(asked or before))
    if len(candidates) != 1:
        return statement
    # "my sister Eilidh just had a baby boy. His name is Rory": "his" is not hers
    said_as = "m" if pronoun.lower_ in ("he", "him", "his") else "f"
    known = (genders or {}).get(candidates[0]) or _gender(candidates[0])
    partner = _their_kin(said_before, said_as)
    if partner is not None:
        # "dinner with Maya and her new boyfriend. he's a chef": "he" is the boyfriend,
        # said by whose he is; with that one in doubt, no note
        owner, kin = partner
        if known and known != ("m" if owner == "his" else "f"):
            return statement
        candidates = [f"{candidates[0]}'s {kin}"]
    elif known and known != said_as:
        return statement
    owner = pronoun.lower_ == "his" or (pronoun.lower_ == "her" and pronoun.dep_ == "poss")
    end = pronoun.idx + len(pronoun.text)
    joined = doc[pronoun.i + 1] if pronoun.i + 1 < len(doc) and not pronoun.whitespace_ else None
    if joined is not None and joined.is_alpha:
        end = joined.idx + len(joined.text)  # "shes thrilled": "Shes (Ottilie) thrilled"
    note = f" ({candidates[0]}'s)" if owner else f" ({candidates[0]})"
    named = statement.text[:end] + note + statement.text[end:]
    if owner and pronoun.head.dep_ in ("nsubj", "nsubjpass"):
        # "Her birthday is on the 9th": asked after as "Anika's birthday"
        return replace(
            statement,
            text=named,
            asked_as=_named_subject(statement.plain, doc, pronoun, f"{candidates[0]}'s"),
        )
    if pronoun.dep_ != "nsubj":
        return replace(statement, text=named)
    return replace(
        statement,
        text=named,
        asked_as=_named_subject(statement.plain, doc, pronoun, candidates[0]),
        # ("Maya's new boyfriend": asked after as someone's kin, no name of his own)
        asked_of="" if partner is not None else candidates[0],
    )


def _with_mine(statement: Statement, before: str) -> Statement:
    """ "Mine's in October" after "My birthday is in June, when's yours?": "Mine (my
    birthday)'s in October", asked after as "My birthday is in October": the one thing
    the words before said was someone's ("my sister's car", "your birthday"), never a
    person ("My sister has a Golf. Mine's a Polo": no note)."""
    doc = parse(statement.text)
    mine = next(
        (t for t in doc if t.dep_ == "nsubj" and t.lower_ in ("mine", "ours") and t.i < 3), None
    )
    if mine is None or not before:
        return statement
    owned = {
        t.lemma_.lower()
        for t in parse(before)
        if t.pos_ == "NOUN"
        and t.lemma_.lower() not in RELATIONS
        and any(c.dep_ == "poss" for c in t.children)
    }
    if len(owned) != 1:
        return statement
    whose = "my" if mine.lower_ == "mine" else "our"
    thing = f"{whose} {owned.pop()}"
    end = mine.idx + len(mine.text)
    text = f"{statement.text[:end]} ({thing}){statement.text[end:]}"
    return replace(statement, text=text, asked_as=_named_subject(statement.plain, doc, mine, thing))


def _their_kin(text: str, gender: str) -> tuple[str, str] | None:
    """ "his girlfriend", "her new boyfriend": someone said just before by whose they
    are, of the gender a pronoun after it takes ("his", the kin said); None when no one
    is, or when more than one is."""
    found = [
        (m.group("owner").lower(), m.group("kin"))
        for m in _THEIR_KIN.finditer(text)
        if _gender(m.group("kin").split()[-1]) == gender
    ]
    return found[0] if len(found) == 1 else None


_THEIR_KIN = re.compile(
    r"\b(?P<owner>his|her)\s+(?P<kin>(?:new\s+)?(?:"
    + "|".join(sorted(FEMALE_KIN | MALE_KIN))
    + r"))\b",
    re.IGNORECASE,
)


def _named_subject(plain: str, doc: Doc, pronoun: Token, person: str) -> str:
    """ "He's allergic to nuts" with "Jonas" for "he": "Jonas is allergic to nuts", the
    statement as the questions about that person ask after it."""
    plain = with_contractions(plain)  # "Hes allergic to nuts": "He's ..."
    found = re.search(rf"\b{re.escape(pronoun.text)}\b", plain)
    if found is None:
        return ""
    rest = plain[found.end() :]
    joined = doc[pronoun.i + 1] if pronoun.i + 1 < len(doc) and not pronoun.whitespace_ else None
    if joined is not None and rest[:2] in ("'s", "’s"):
        verb = "has" if joined.lemma_ == "have" else "is"
        rest = f" {verb}{rest[2:]}"
    elif joined is not None and joined.text in ("'re", "’re") and rest[:3] in ("'re", "’re"):
        rest = f" are{rest[3:]}"
    named = f"{plain[: found.start()]}{person}{rest}"
    return named[:1].upper() + named[1:]


_PERSONAL_PRONOUNS = frozenset(("he", "she", "him", "her", "his"))


def _with_antecedent(
    text: str, before: str, earlier: str = "", *, subject: bool = False
) -> tuple[str, str]:
    """ "We split it: ..." after "We had a flat meeting about chores": "We split it
    (chores): ...", the last thing the statement before named as an object or
    complement (a preposition's object only when it named none), in its words; the
    thing ``earlier`` when the statement before spoke of "it" too. As said when there
    is none. Returns the text and the thing. ``subject``: the "it" that opens the
    statement as its subject ("It is on medieval trade routes")."""
    doc = parse(text)
    if subject:
        # ("mine is at 180k km" after "... on a 2014 corolla?": my corolla)
        if not _it_subject(doc):
            return text, ""
        pronoun = next(t for t in doc if not t.is_punct)
    else:
        pronoun = next((t for t in doc if t.dep_ == "dobj" and t.lower_ in ("it", "them")), None)
    if pronoun is None:
        return text, ""
    thing = earlier if earlier and _IT.search(before) else ""
    said = parse(before)
    words = [t for t in said if not t.is_punct]
    if (
        not thing
        and 0 < len(words) <= 5
        # (the small tagger reads "bambino" as a verb: a verb is one its tables know)
        and not any(t.pos_ in ("VERB", "AUX") and known_verb(t.lemma_.lower()) for t in said)
        and not any(t.pos_ in ("PRON", "DET") for t in said)
        # "misbehaving again 😩. I'll take it to ...": a thing is named in words
        and any(t.pos_ in ("NOUN", "PROPN") and not interjection(t.text) for t in said)
    ):
        # "dyson v15 detect. got it from currys": the thing named without a verb is all
        # of its words ("plus" of "breville bambino plus" is no thing of its own)
        thing = before.strip().rstrip(".!")
    if not thing and _IT.search(before):
        # "sertraline 50mg, i take it every night": the statement before named what its
        # own "it" is first, without a verb; the next "it" is the same thing
        comma = next((t.i for t in said[:7] if t.text == ","), None)
        head = list(said[:comma]) if comma else []
        if (
            head
            and not any(t.pos_ in ("VERB", "AUX", "PRON") for t in head)
            and any(t.pos_ in ("NOUN", "PROPN") and t.is_alpha for t in head)
            and any(t.lower_ == "it" and t.dep_ == "dobj" for t in said[comma:])
        ):
            thing = said[:comma].text
    if not thing:
        chunks = [
            c for c in said.noun_chunks if _a_thing(c) and c.root.dep_ in ("dobj", "pobj", "attr")
        ]
        # "A little villa near Chania. My wife found it ...": a statement without a
        # verb names its thing first, the rest hangs on it
        fragment = [c for c in said.noun_chunks if _a_thing(c) and c.root.dep_ == "ROOT"]
        # "The washing machine is leaking again. Gonna take it to the repair shop", "The
        # car is at the garage in Didsbury. Mike is fixing it": with no object named,
        # "it" is what the statement was about, its subject, before where it is
        subjects = [
            c
            for c in said.noun_chunks
            if _a_thing(c)
            and c.root.dep_ in ("nsubj", "nsubjpass")
            and c.root.head.dep_ == "ROOT"
            and c.root.lemma_.lower() not in RELATIONS
        ]
        if fragment:
            chunks = fragment
        elif subjects and not any(_topical(c) for c in chunks):
            chunks = subjects
        # "It is a Velotraum Kettle 9 with a mid motor. I bought it ...": the bike, not
        # a detail hung on it by "with", "in", "at"; "a meeting about chores": chores
        named = [c for c in chunks if _topical(c)]
        # ("every night before bed": what a time is told by is no thing "it" is)
        named = named or [c for c in chunks if c.root.head.lower_ not in _WHEN_PREPS]
        # "We've got a fox visiting the garden. My wife named it Reynard": the fox, not
        # what a clause hung on the fox acts on
        inner = [c for c in named if c.root.dep_ != "pobj" and c.root.head.dep_ in _INNER]
        if len(inner) < len([c for c in named if c.root.dep_ != "pobj"]):
            named = [c for c in named if c not in inner]
        if pronoun.lower_ == "it":
            # "a podcast about old films ... I record it": "it" is one thing, not films
            named = [c for c in named if c.root.tag_ not in ("NNS", "NNPS")] or named
        if not named:
            return text, ""
        if subjects and named[-1].root.dep_ == "dobj" and pronoun.lower_ == "it":
            # "The hoover's making a grinding noise. Taking it back to Argos": the thing
            # that did it or the thing it did; in doubt, no note
            return text, ""
        thing = _whole_name(named[-1])
        if named[-1][0].pos_ != "PROPN":
            thing = thing[:1].lower() + thing[1:]  # "The washing machine", said mid-sentence
    end = pronoun.idx + len(pronoun.text)
    return f"{text[:end]} ({thing}){text[end:]}", thing


def _topical(chunk: Span) -> bool:
    """An object or complement, or the object of a preposition saying what about
    ("a meeting about chores"), not where or with what."""
    return chunk.root.dep_ != "pobj" or chunk.root.head.lower_ in _TOPICAL


def _a_thing(chunk: Span) -> bool:
    """A noun chunk that can be what "it" is: a thing named, not a date, a sum, a
    person or a list."""
    return (
        chunk.root.pos_ in ("NOUN", "PROPN")
        and chunk.root.is_alpha  # the small tagger reads an emoji as a noun: "misbehave 😩"
        and not interjection(chunk.root.text)  # nor "Ugh."
        and not any(t.tag_ in ("WDT", "WP", "WP$") for t in chunk)  # "what oil": the asked
        and chunk.root.ent_type_ not in ("DATE", "TIME", "PERSON", "MONEY", "CARDINAL")
        and "\n" not in chunk.text  # a list's items are no one thing
    )


_IT = re.compile(r"\bit\b", re.IGNORECASE)
_INNER = frozenset(("acl", "relcl", "advcl", "xcomp", "ccomp", "pcomp"))
_TOPICAL = frozenset(("about", "for", "of", "regarding", "on"))
_WHEN_PREPS = frozenset(("before", "after", "during", "until", "till", "since", "by"))


def _whole_name(chunk) -> str:
    """A noun chunk with the rest of a name the parser cut off it ("T4" of "a Fujifilm
    X-T4"): the names, numbers and hyphens next to it, and the article before them."""
    doc, start, end = chunk.doc, chunk.start, chunk.end
    joined = ("PROPN", "NUM")
    # (a hyphen glues the words either side: "sit-on-top", never "-top")
    while start > 0 and (
        doc[start - 1].pos_ in joined
        or doc[start - 1].text == "-"
        or (doc[start].text == "-" and not doc[start - 1].whitespace_)
    ):
        start -= 1
    while end < len(doc) and (
        doc[end].pos_ in joined
        or doc[end].text == "-"
        or (doc[end - 1].text == "-" and not doc[end - 1].whitespace_)
    ):
        end += 1  # "9" of "a Velotraum Kettle 9"
    if start > 0 and doc[start - 1].pos_ == "DET" and start < chunk.start:
        start -= 1
    return doc[start:end].text


def _objects(reading: Reading) -> list[str]:
    return [
        t.lemma_.lower() for t in reading.doc if t.dep_ in ("dobj", "attr") and t.pos_ == "NOUN"
    ]


def _it_subject(doc: Doc) -> bool:
    """The statement opens on "it" (or "its" typed for "it's", or "mine") as its subject
    ("It's a 2015 Astra so ..."): what "it" is, a reply's question or a sentence
    before said."""
    first = next((t for t in doc if not t.is_punct), None)
    return first is not None and (
        (first.lower_ in ("it", "it's", "mine") and first.dep_ == "nsubj")
        or _its_typed_for_it_is(first)
    )


def _its_typed_for_it_is(token: Token) -> bool:
    """ "its a 2009 worcester", "its only 2 years old": "its" typed for "it's", before
    what no owner's "its" comes before (an article, a number, an adverb)."""
    after = token.nbor(1) if token.i + 1 < len(token.doc) else None
    return (
        token.lower_ == "its"
        and after is not None
        and (after.tag_ in ("DT", "CD", "RB") or after.lower_ in ("a", "an", "the"))
    )


def _pronoun_object(reading: Reading) -> bool:
    """The statement's verb acts on "it" or "them" ("We split it: ..."), so what it is
    about was said before."""
    first = next(iter(reading.doc.sents), None)
    return first is not None and any(
        t.dep_ == "dobj"
        and t.lower_ in ("it", "them")
        and (t.i <= 3 or t.i <= 5 and t.head.dep_ == "ROOT")  # "I can't stand it"
        and t.head.lemma_ != "do"  # "Brenda usually does it": the doing, no thing said
        for t in first
    )


def _one_of(reading: Reading, things: list[str]) -> str | None:
    """ "My current one is a 2017 Dell XPS 13" after "I need a new laptop": the thing
    "one" stands for, for a cue (the body stays as said)."""
    for token in reading.doc:
        if (
            token.lower_ == "one"
            and token.dep_.startswith("nsubj")
            and any(c.dep_ in ("poss", "amod") for c in token.children)
        ):
            return things[-1] if things else None
    return None


def _respell_draft(draft: Draft, wrong: str, name: str, source: str) -> Draft:
    return replace(
        draft,
        title=respelt(draft.title, wrong, name),
        body=respelt(draft.body, wrong, name),
        cues=tuple(respelt(cue, wrong, name) for cue in draft.cues),
        sources=draft.sources if source in draft.sources else (*draft.sources, source),
    )


def _speaks_facts(message: Message) -> bool:
    role = (message.role or "").lower()
    if role in ("system", "tool", "function", "developer"):
        return False
    return role == "user" or bool(message.name)


# "Ananthagiri it is.", "ok, the Lucca it is": a choice made
_CHOICE = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|alright|right|so)\W+)?(?!(?:that|this|what|which|it|that's)\b)"
    r"(?:the\s+)?\w[\w'&-]*(?:\s+[\w'&-]+){0,3}\s+it\s+is"
    r"[\s,.!]*(?:(?:thanks|thank you|then|lol|haha)[\s,.!]*)?$",
    re.IGNORECASE,
)


# a reply that is only a yes
_AFFIRMS = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|yea|correct|exactly|that['’]s right|(?:he|she|it|they)(?: i|['’])s"
    r"|they are)\b[\s!.,]*(?:(?:lol|haha|:\))[\s!.]*)?$",
    re.IGNORECASE,
)


_MAX_PICK_WORDS = 12


_DIGIT = re.compile(r"\d")
_I_MEANT = re.compile(r"\W*i\s+meant\b", re.IGNORECASE)  # "I meant flat 4D"


def _corrected(reading: Reading, key: str, readings: Mapping[str, Reading]) -> str:
    """``key`` when the statement puts right a value of the memory it names: a message
    opening "sorry", "wait" or "actually" on a value of the same kind with no subject
    of its own ("sorry £975, it went up in January" after "my rent is £950"); "" when
    it is no such correction ("Actually I also have a cat")."""
    if not key or not (leans_on_question(reading.doc) or _I_MEANT.match(reading.text)):
        return ""
    # a figure or a day, not a word the small tagger takes for a name ("wait typo")
    kinds = value_kinds(reading.doc) & value_kinds(readings[key].doc) & {"figure", "when"}
    return key if kinds else ""


def _bare_amount(doc: Doc) -> Token | None:
    """The number of "cut down to 2", "up to 3 a week now": a new amount said without
    what it counts (no noun after it), or None."""
    for t in doc:
        if not (t.like_num and t.i >= 2 and doc[t.i - 1].lower_ == "to"):
            continue
        if doc[t.i - 2].lower_ not in ("down", "up", "back"):
            continue
        after = doc[t.i + 1] if t.i + 1 < len(doc) else None
        if after is None or after.is_punct or after.lower_ in ("a", "per", "now", "each", "every"):
            return t
    return None


def _wished(token: Token) -> bool:
    """The words say it is wanted or tried, not done ("trying to cut down to 2")."""
    return any(
        t.lemma_.lower() in ("try", "want", "hope", "aim", "plan", "need", "wish")
        for t in token.doc
        if t.i < token.i
    )


def _updated(reading: Reading, key: str, readings: Mapping[str, Reading]) -> str:
    """``key`` when the statement gives "it" a figure "now" and the statement ``key``
    gave a figure too ("it's £40 now" after "Gym membership is £35 a month")."""
    if not key or key not in readings:
        return ""
    doc = reading.doc
    it = next((t for t in doc if t.lower_ == "it" and t.dep_ in ("nsubj", "nsubjpass")), None)
    if it is None:
        return ""
    clause = list(it.head.subtree)
    if not any(t.lower_ == "now" for t in clause):
        return ""
    # no one else's ("my brother pays £20, it's cheaper now"): only "it" and the speaker
    if any(
        t.dep_ in ("nsubj", "nsubjpass") and t.lower_ not in ("it", "they", "i", "we") for t in doc
    ):
        return ""
    kinds = value_kinds(clause) & value_kinds(readings[key].doc) & {"figure"}
    return key if kinds else ""


_INSTEAD_OF = re.compile(r"\binstead of\b", re.IGNORECASE)


def _subject_of(doc: Doc) -> str:
    """Who the statement's first clause is said of: "i" for the speaker (I, we, me, or
    no subject at all: "doing Sicily instead"), else the subject's head word."""
    subject = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or subject.lower_ in ("i", "we", "me"):
        return "i"
    return subject.lemma_.lower()


def _replaced_key(reading: Reading, key: str, readings: Mapping[str, Reading]) -> str:
    """``key`` when the "instead" statement gives a value of a kind the statement it
    follows gave too (a place for a place: "doing Sicily instead" after "going to Crete
    in June"); "" when they share none ("we're doing a turkey crown instead" after "my
    sister is coming for Christmas" replaces something unsaid)."""
    if not key or key not in readings:
        return ""
    if _subject_of(reading.doc) != _subject_of(readings[key].doc):
        return ""  # "Her friend Amy goes to Oakfield instead": not what my daughter does
    # (a name or a place: "doing Sicily" names the place "going to Crete" did)
    named = {"place", "name"}
    kinds = value_kinds(reading.doc) & named and value_kinds(readings[key].doc) & named
    return key if kinds else ""


def _value_left_out(doc: Doc) -> str:
    """The statement with each figure, sum or day it gives as "…" ("My rent is £950."
    -> "My rent is …"): what a correction corrects, without the value it replaces."""
    out, gap = "", False
    for t in doc:
        value = (
            t.like_num
            or t.ent_type_ in ("MONEY", "DATE", "TIME", "CARDINAL")
            or (t.is_currency or t.text in ("#", "-", "/"))
            and (gap or t.i + 1 < len(doc) and doc[t.i + 1].like_num)
            or any(ch.isdigit() for ch in t.text)
        )
        if value:
            if not gap:
                out += "…"
            gap = True
            trailing = t.whitespace_
            continue
        if gap:
            out += trailing
        gap = False
        out += t.text_with_ws
    return re.sub(r"…\s*\.$", "…", out.strip())


def _names_nothing(message: str) -> bool:
    """A short message naming no thing, person or number ("Congrats!", "Oh no, how
    awful."): a reaction, nothing a later "it" could mean."""
    words = [t for t in parse(message) if not t.is_punct]
    return len(words) <= _MAX_PICK_WORDS and not any(
        t.pos_ in ("NOUN", "PROPN", "NUM") and not (interjection(t.text) or t.lower_ in COURTESIES)
        for t in words
    )


def _points_back(doc: Doc) -> bool:
    """A statement that opens on "that" or "this" alone as its subject ("That's choir
    night"): what it says is of something said before it (not "The shop is closed on
    Wednesdays, that's my day off", which says what "that" is itself)."""
    first = next((t for t in doc if not t.is_punct), None)
    return (
        first is not None
        and first.lower_ in ("that", "this")
        and first.dep_ in ("nsubj", "nsubjpass")
    )


def _picked_from(doc: Doc, prior: str, question: str) -> str | None:
    """The sentence of the message before that a short reply picks from: the reply
    opens on a bare word that sentence named ("Oat is good." after "You could try oat,
    soy or almond milk."; "the timemore one" after "the Baratza Encore or the Timemore
    C3"). The question itself when it names it; None when the reply stands alone."""
    words = [t for t in doc if not t.is_punct]
    if not prior or not words or len(words) > _MAX_PICK_WORDS:
        return None
    opening = words[1] if words[0].lower_ == "the" and len(words) > 1 else words[0]
    if (
        opening.pos_ not in ("NOUN", "PROPN", "ADJ")
        or opening.is_stop
        or any(c.dep_ == "poss" for c in opening.children)
        or any(t.lower_ in ("i", "we", "my", "our") for t in words[: opening.i - doc[0].i + 1])
    ):
        return None
    if opening.pos_ == "ADJ" and not (
        opening.i + 1 < len(doc) and doc[opening.i + 1].lower_ == "one"
    ):
        return None  # "the blue one": a choice; "Great idea": no pick
    for sentence in _said_sentences(prior):
        if re.search(rf"\b{re.escape(opening.lower_)}\b", sentence.casefold()):
            return question if question and sentence == question else sentence
    return None


def _last_question(content: str) -> str:
    """The message's last question ("What concert was it? The advocacy event was ...":
    the question), which the next message may answer."""
    questions = [p for p in _said_sentences(content) if p.endswith("?")]
    return questions[-1] if questions else ""


def _context_first(context: dict[int, list[str]], n: int, sentence: str) -> None:
    """``sentence`` first among statement ``n``'s context cues, once however cased."""
    cues = context.setdefault(n, [])
    cues[:] = [c for c in cues if c.casefold() != sentence.casefold()]
    cues.insert(0, sentence[:1].upper() + sentence[1:])


def _sentence_before(content: str, plain: str) -> str:
    """The sentence of ``content`` typed just before the one ``plain`` was made from
    (the one sharing most of its words), "" when it opens the message."""
    sentences = _said_sentences(content)
    words = set(_WORD.findall(plain.casefold()))
    if len(sentences) < 2 or not words:
        return ""
    shared = [len(words & set(_WORD.findall(s.casefold()))) for s in sentences]
    best = max(range(len(sentences)), key=lambda k: (shared[k], -k))
    return sentences[best - 1] if best > 0 and shared[best] * 2 >= len(words) else ""


_WORD = re.compile(r"[^\W_]+")


def _said_sentences(content: str) -> list[str]:
    """A message's sentences as typed, cut after ".", "!" or "?" (no parse)."""
    return re.split(r"(?<=[.!?])\s+", " ".join(content.split()))


def _tier(statement: Statement, reading: Reading, day: date) -> str:
    if statement.kind == "hedge":
        return "working"
    if statement.kind != "roster" and (
        any(f.attribute.startswith("like:") and not _past(reading, f) for f in reading.facets)
        or _FAVOURITE.search(statement.plain)
    ):
        return "preferences"
    # "We're moving to Bristol next month": where one lives or works stays true after
    # the day it happens, so it does not fade like an appointment
    # ("We're in Lisbon next week" is a trip: "be" says no move)
    settled = any(
        f.attribute in ("home", "job") and f.subject == "i" for f in reading.facets
    ) and any(t.lemma_.lower() in _SETTLING for t in reading.doc)
    if any(r.first > day for r in statement.dates) and not settled:
        return "events"
    return "facts"


def _past(reading: Reading, facet: Facet) -> bool:
    """ "I loved reading Charlotte's Web as a kid": a liking said in the past tense is
    what happened then (a fact that stays true), not a taste that drifts."""
    return bool(facet.tokens) and reading.doc[facet.tokens[0]].tag_ == "VBD"


def _entities(reading: Reading, speakers: set[str]) -> list[str]:
    out = []
    for ent in reading.doc.ents:
        if ent.label_ in _TOPIC_LABELS and ent.text.casefold() not in speakers:
            if "\n" in ent.text:
                continue  # a name never spans lines; the small model sometimes says so
            text = " ".join(ent.text.split()).strip(" .,:;-")
            if any(c.isalpha() for c in text) and text not in out:
                out.append(text)
    return out


def _topic(reading: Reading, speakers: set[str]) -> str:
    for name in _entities(reading, speakers):
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z-]+", name) if good_label(w)]
        if words:
            return " ".join(words)
    nouns = [
        t.lemma_.lower()
        for t in reading.doc
        if t.pos_ == "NOUN"
        and good_label(t.lemma_)
        and t.dep_ in ("dobj", "pobj", "nsubj", "attr", "nsubjpass")
    ]
    nouns += [t.lemma_.lower() for t in reading.doc if t.pos_ == "NOUN" and good_label(t.lemma_)]
    return nouns[0] if nouns else "general"


def _tags(reading: Reading, speakers: set[str], *, who: str | None, meant: Statement) -> list[str]:
    tags = [name.lower() for name in _entities(reading, speakers)][:3]
    if meant.asked_of[:1].isupper():  # "He (Jonas) works nights": a memory about Jonas
        tags.append(meant.asked_of.lower())
    # "Pablo has a vet appointment": a name the small tagger took for a noun
    tags += [t.lower_ for t in reading.doc if _untagged_name(t) and t.lower_ not in speakers][:2]
    if who:
        tags.append(who.lower())
    return list(dict.fromkeys(tags))


def _untagged_name(token: Token) -> bool:
    """A capitalised word no dictionary knows, in a noun's place, that the entity
    tagger left out ("Pablo" in "Pablo has a vet appointment")."""
    return (
        not token.ent_type_
        and token.is_alpha
        and len(token.text) > 1
        and token.text[0].isupper()
        and not token.text.isupper()
        and token.pos_ in ("NOUN", "PROPN")
        and token.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj", "appos", "poss", "attr")
        and not dictionary_word(token.text)
        and not dictionary_word(token.lemma_)
    )


def _names(reading: Reading, speakers: set[str]) -> set[str]:
    return {e.casefold() for e in _entities(reading, speakers)}


def _relate(
    drafts: Sequence[Draft],
    candidates: Sequence[Candidate],
    readings: Mapping[str, Reading],
    speakers: set[str],
) -> list[DraftLink]:
    names = {key: _names(reading, speakers) for key, reading in readings.items()}
    # A name in most of a big job's memories is the conversation's subject, not a
    # distinguishing one.
    counts = Counter(n for d in drafts for n in names[d.key])
    common = {n for n, c in counts.items() if len(drafts) >= 4 and c > len(drafts) / 2}
    links: list[DraftLink] = []
    degree: Counter[str] = Counter()
    others = [d.key for d in drafts] + [c.key for c in candidates]
    for i, draft in enumerate(drafts):
        for other in others[i + 1 :]:
            if degree[draft.key] >= MAX_LINKS_PER_MEMORY:
                break
            if degree[other] >= MAX_LINKS_PER_MEMORY:
                continue
            if (names[draft.key] & names[other]) - common:
                links.append(DraftLink(source=draft.key, target=other, type="same-entity"))
                degree[draft.key] += 1
                degree[other] += 1
    linked = {(link.source, link.target) for link in links}
    named = {d.key: heads(readings[d.key]) for d in drafts}
    for before, after in zip(drafts, drafts[1:], strict=False):
        if (before.key, after.key) in linked or max(degree[before.key], degree[after.key]) >= (
            MAX_LINKS_PER_MEMORY
        ):
            continue
        same_message = before.sources[:1] == after.sources[:1]
        # a link means something only where the later statement goes on from the
        # earlier one: it answers, leans on a pronoun or "instead", or names the same
        # thing; neighbours alone are no relation
        if not (_continues(after) or named[before.key] & named[after.key]):
            continue
        if same_message:
            links.append(DraftLink(source=before.key, target=after.key, type="same-context"))
        else:
            links.append(DraftLink(source=after.key, target=before.key, type="follows"))
        degree[before.key] += 1
        degree[after.key] += 1
        linked.add((before.key, after.key))
    return links


_CONTINUES = re.compile(
    r"^(?:\w+: )?(?:(?:yes|yeah|yep|no|nope|nah|ok|okay|well|so|and|but|oh)\W+)*"
    r"(?:he|she|they|it|that|this|those|these|his|her|their|its|there|then)\b"
    r"|\binstead\b",
    re.IGNORECASE,
)


def _continues(draft: Draft) -> bool:
    """A statement that goes on from what was said before: an answer to the question
    asked (its sources hold the question), or one that leans on a pronoun ("She loved
    the flowers") or says "instead"."""
    return len(draft.sources) > 1 or bool(_CONTINUES.search(draft.body))
