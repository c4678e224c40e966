"""What a statement says about whom: its (subject, attribute) facets and their values.

A correction is a new value for the same facet of the same subject ("My new manager is
Declan Byrne" after "My manager is Priyanka Rao"), so the offline reconciler compares
facets, never bags of words: two similar statements about different subjects (my
brother's job, my job) have different facets and never merge. Facets are read from the
dependency parse:

* ``job`` (I work at / I'm a <role> at an organisation), ``role`` (the <role> of "I'm
  a <role>"), ``home`` (I live in / moved to / we're in a place), ``is`` (my <relation>
  is <name>), ``when`` (an event's date), ``where`` (a dated occasion's venue, or the
  one it is moved to), ``price`` (a sum paid for a thing), ``count`` (how many I have),
  ``colour``, ``like:<thing>`` (love, hate, enjoy ...), each with the tokens that hold
  the value;
* an **ending** ("I left Unilever", "Liam and I broke up"): the names whose relation is
  over.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from spacy.tokens import Doc, Token

from memories.extraction.offline.language import (
    clauses_of_their_own,
    in_law,
    name_typed_lower,
    opening_word,
    parse,
    with_apostrophes,
    without_opener,
    work_said_bare,
)
from memories.extraction.offline.words import (
    CORRECTION,
    DIETS,
    DWELLINGS,
    ENDING_PARTICLES,
    ENDING_VERBS,
    INTERJECTIONS,
    MOVE_VERBS,
    NO_JOBS,
    RELATIONS,
    TRADES,
    UNREALISED,
    VAGUE_NOUNS,
    word_set,
)

logger = logging.getLogger("gitloom.memories")
_ORG_LABELS = frozenset(("ORG", "FAC", "PRODUCT", "PERSON", "GPE"))
_PLACE_LABELS = frozenset(("GPE", "LOC", "FAC"))
_VENUE_LABELS = _PLACE_LABELS | {"ORG"}
_FIRST = word_set("i we me us")
_DROP_MODIFIERS = word_set("new current old former previous latest first")
_LIKING = {
    "like": 1,
    "love": 1,
    "enjoy": 1,
    "adore": 1,
    "prefer": 1,
    "hate": -1,
    "dislike": -1,
    "detest": -1,
}
# "I want to", "hoping to", "keen to": what follows is wished for, not done
_WISHING = word_set("want hope plan wish aim intend dream")
_KEEN = word_set("keen eager desperate dying itching")


def wished_for(root: Token) -> Token | None:
    """The verb of what is wished for: "visit" of "want to visit", "learn" of "'d love to
    learn", "keen to learn", "doing" of "thinking of doing"."""
    children = list(root.children)
    if any(
        c.dep_ == "nsubj" and c.lower_ in _KEEN and c.i == root.sent.start for c in children
    ) and any(c.dep_ == "aux" and c.lower_ == "to" for c in children):
        return root  # "Keen to get over to NZ", parsed with "Keen" as the subject
    lemma = "hope" if root.lower_ == "hoping" else root.lemma_.lower()  # (tagged "hop")
    would = any(c.tag_ == "MD" and c.lower_ in ("would", "'d", "’d") for c in children)
    if lemma in _WISHING or (lemma in ("love", "like") and would):
        heads = [root]
    elif root.lower_ in _KEEN:
        heads = [root]  # "Keen to learn Portuguese": the adjective is the sentence
    elif lemma == "be":
        heads = [c for c in children if c.dep_ == "acomp" and c.lower_ in _KEEN]
    elif lemma == "think":
        heads = [c for c in children if c.dep_ == "prep" and c.lower_ in ("of", "about")]
    else:
        return None
    for head in heads:
        for child in head.children:
            if child.pos_ == "VERB" and child.dep_ in ("xcomp", "acl", "pcomp"):
                return child
    return None


def _wished(verb: Token) -> bool:
    """ "move" of "hoping to move to Bristol", "live" of "I'd love to live in Lisbon"."""
    return any(
        (wanted := wished_for(head)) is not None and wanted.i == verb.i
        for head in (verb.head, verb.head.head)
    )


# "can't stand", "cannot bear": said of a thing, a dislike
_ENDURE = word_set("stand bear abide stomach")


def _provider(tokens: list[Token], at: int) -> bool:
    """ "with Vodafone for my phone", "with Aviva for the car", "with Monzo for
    banking": the company is who a thing of mine is with (not "with Deloitte for 6
    years": how long)."""
    doc = tokens[0].doc
    if doc[at].lower_ != "with":
        return False
    return any(
        t.dep_ == "prep"
        and t.lower_ == "for"
        and any(
            g.dep_ == "pobj"
            and g.pos_ == "NOUN"
            and g.ent_type_ not in ("DATE", "TIME")
            and (any(d.dep_ in ("poss", "det") for d in g.children) or g.tag_ in ("NN", "VBG"))
            for g in t.children
        )
        for t in tokens
    )


def can_not_bear(verb: Token) -> bool:
    """ "I can't stand olives", "cannot bear horror films": endure, denied with "can"."""
    children = list(verb.children)
    return (
        verb.lemma_.lower() in _ENDURE
        and any(c.dep_ == "neg" for c in children)
        and any(c.dep_ == "aux" and c.lemma_.lower() in ("can", "ca") for c in children)
        and any(c.dep_ in ("dobj", "xcomp") for c in children)  # not "can't stand up for long"
        and not any(c.dep_ == "prt" for c in children)
    )


COLOURS = word_set(
    """black white grey gray red blue green yellow orange purple pink brown beige navy
    teal silver gold cream maroon turquoise"""
)
_DURATION = re.compile(
    r"\bold\b|^(?:about |around |almost |over )?\w+ (?:years?|months?|weeks?|days?|hours?)$", re.I
)
_JOB_VERBS = word_set("work join start be")
_JOB_NOUNS = word_set("job role position post")
_TAKING_A_JOB = word_set("start get land take accept begin have")  # not "want", "apply for"
_VENUE_VERBS = MOVE_VERBS | word_set("switch relocate")
PRONOUN = "it"  # a facet's subject said as "it": what it is was said before
_HOME_VERBS = word_set("live move relocate settle be base shift")
_HOME_HELD = word_set("rent own share")  # "I rent a flat in Leith": a home, not a garage
# base verbs that open a statement of one's own with the "I" left out, rarely a request
_SAID_WITHOUT_I = word_set("live work")
_STARTS = word_set("start join")
_ADDRESSED = word_set("me us you your please")


@dataclass(frozen=True)
class Facet:
    subject: str  # "i", "my manager", "retirement dinner", "chair"
    attribute: str  # job | home | is | when | price | colour | like:<thing>
    value: str  # lower-case text of the value
    tokens: tuple[int, ...]  # indices of the value's tokens in the parsed text
    exact: bool = True  # False: the subject is a referent read from the context


@dataclass
class Reading:
    text: str
    doc: Doc
    facets: list[Facet] = field(default_factory=list)
    endings: set[str] = field(default_factory=set)  # lower-case names
    stopped: set[str] = field(default_factory=set)  # "I'm no longer vegan": {"vegan"}
    holds: set[str] = field(default_factory=set)  # what "I" am, have or do: {"vegan"}
    marked: bool = False  # says it corrects something ("actually", "now", "moved")


# '... — answering "How long ...?"': the question a reply answers, quoted beside it
# as context (memories.extraction.offline.extractor); no facet of the statement
_QUOTED_CONTEXT = re.compile(r'\s+— (?:answering|after) "[^"\n]*"(?=\s*$|\n)', re.MULTILINE)


def read(text: str) -> Reading:
    """The facets and endings of ``text`` (a statement or a memory's body)."""
    body = with_apostrophes(_QUOTED_CONTEXT.sub("", without_speaker(text)))
    doc = parse(body)
    reading = Reading(text=body, doc=doc, marked=bool(CORRECTION.search(body)))
    for sent in doc.sents:
        tokens = list(sent)
        try:
            reading.facets.extend(_facets(tokens))
            reading.endings |= _endings(tokens)
            stopped, holds = _states(tokens)
            reading.stopped |= stopped
            reading.holds |= holds
        except Exception:  # noqa: BLE001 - a parse no rule foresaw costs that sentence its facets
            logger.exception("offline facets failed for a sentence; it is stored without them")
    return reading


def my_home_in(tokens: list[Token]) -> Token | None:
    """ "Our flat in Chorlton has no garden", "the heating in my place in Walthamstow":
    the speaker's home named with its place, whatever the sentence says of it (not "my
    old flat in Hackney", not a home the speaker told of in the past): the place's word."""
    root = next((t for t in tokens if t.dep_ == "ROOT"), None)
    if root is None or root.tag_ == "VBD":
        return None
    for home in tokens:
        if home.lemma_.lower() not in DWELLINGS | {"place"} or not any(
            c.dep_ == "poss" and c.lower_ in ("my", "our") for c in home.children
        ):
            continue
        if any(c.lower_ in _BYGONE for c in home.children):
            continue
        place = next(
            (
                p
                for c in home.children
                if c.dep_ == "prep" and c.lower_ == "in"
                for p in c.children
                if p.dep_ == "pobj"
            ),
            None,
        )
        if place is not None and (place.pos_ == "PROPN" or place.ent_type_ in ("GPE", "LOC")):
            return place
    return None


_BYGONE = word_set("old previous former last first")


def _bygone_state(verb: Token) -> bool:
    """ "lived", "was based", "used to live": a state of the past, where a move ("moved
    to Leeds") holds still."""
    if verb.lemma_.lower() not in ("live", "be", "base", "stay"):
        return False
    helpers = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    return (
        verb.tag_ == "VBD"
        or any(c.tag_ == "VBD" for c in helpers)
        or (verb.head.lemma_.lower() == "use" and verb.dep_ == "xcomp")
    )


def _a_stay(tokens: list[Token], lemmas: set[str]) -> bool:
    """ "We're in Paris this weekend", "I'm in Glasgow till Sunday": being somewhere for a
    time that is named (not how long: "been in Leeds for 5 years" is a home), a stay."""
    if lemmas & {"live", "move", "relocate", "settle", "base"}:
        return False
    first, last = tokens[0].i, tokens[-1].i
    return any(
        e.label_ in ("DATE", "TIME") and not _DURATION.search(e.text)
        for e in tokens[0].doc.ents
        if first <= e.start <= last
    )


def _titled_verb(token: Token) -> bool:
    """ "I loved 'Becoming Nicole'": a capitalised or quoted "verb" is a title's first
    word, not a liking for doing something."""
    quoted = token.i > 0 and token.doc[token.i - 1].text in ('"', "'", "“", "‘")
    return token.pos_ == "VERB" and (
        quoted or (token.text[:1].isupper() and not token.is_sent_start)
    )


def without_speaker(text: str) -> str:
    head, sep, rest = text.partition(": ")
    if sep and 0 < len(head) <= 64 and "\n" not in head and len(head.split()) <= 3:
        first = parse(head)
        if len(first) and all(t.pos_ == "PROPN" for t in first):
            return rest
    return text


def _facets(tokens: list[Token]) -> list[Facet]:
    tokens = without_opener(tokens)
    found: list[Facet] = []
    subject = next((t for t in tokens if t.dep_ in ("nsubj", "nsubjpass")), None)
    first_person = subject is not None and subject.lower_ in _FIRST
    opening = opening_word(tokens) if tokens else None
    if subject is None and opening is not None and opening.tag_ in ("VBD", "VBN"):
        first_person = True  # "Got a Kindle ...", "Finally moved to Leeds": the speaker
    if subject is None and tokens and tokens[0].lower_ in DIETS:
        first_person = True  # "Vegan since last March", "Pescatarian now": what I eat
    if (
        subject is None
        and tokens
        and (
            opening.tag_ in ("VB", "VBP")
            and opening.lemma_.lower() in _SAID_WITHOUT_I
            or opening.tag_ == "VBG"
            and opening.lemma_.lower() in _STARTS
        )
        and not any(t.lower_ in _ADDRESSED for t in tokens)
    ):
        # "Live in Kothrud", "Work at Deloitte", "Starting at Mercari on Monday": the
        # "I" left out
        first_person = True
    # "Nurse at the Royal Infirmary": a post of mine, the "I'm" left out
    post = work_said_bare(tokens) if subject is None and tokens else None
    first_person = first_person or post is not None
    ents = [e for e in tokens[0].doc.ents if tokens[0].i <= e.start and e.end - 1 <= tokens[-1].i]
    # "We bought a house in Kings Heath, moved in last week": a home bought and moved into
    moved_in = any(
        t.lemma_.lower() == "move"
        and any(c.lower_ == "in" and not any(c.children) for c in t.children)
        for t in tokens
    )
    held_verbs = _HOME_HELD | ({"buy"} if moved_in else set())

    def value_of(
        labels: frozenset[str], preps: tuple[str, ...], verbs: frozenset[str] | None = None
    ) -> tuple[str, tuple[int, ...]] | None:
        """The name after one of ``preps``: an entity of ``labels``, or any proper noun
        (the small model calls Valencia a person now and then)."""
        for prep in tokens:
            if prep.dep_ != "prep" or prep.lower_ not in preps:
                continue
            verb, held = prep.head, False
            if verbs is not None and verb.lemma_.lower() in DWELLINGS:
                # "We live in a flat in Hackney", "I rent a flat in Leith": the place of
                # the home the verb names
                home = verb.head.head if verb.dep_ == "pobj" else verb.head
                if verb.dep_ in ("pobj", "dobj") and home.pos_ in ("VERB", "AUX"):
                    verb, held = home, home.lemma_.lower() in held_verbs
            elif verbs is not None and verb.lemma_.lower() in held_verbs:
                held = any(c.dep_ == "dobj" and c.lower_ in DWELLINGS for c in verb.children)
            if verbs is not None and verb.lemma_.lower() not in verbs and not held:
                continue  # "on the payments team at Intercom in Dublin": not where I live
            if _wished(verb):
                continue  # "I'd love to live in Lisbon": a wish, no home (nor job)
            if verbs is not None and _bygone_state(verb):
                continue  # "I lived in Leeds for ten years before that": a home left
            if verbs is not None and any(
                c.dep_.startswith("nsubj") and c.lower_ not in _FIRST for c in verb.children
            ):
                continue  # "(the hospital is in Leeds) and I live in Headingley"
            pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
            if pobj is None:
                continue
            ent = next((e for e in ents if e.start <= pobj.i < e.end), None)
            if ent is not None and ent.label_ in ("DATE", "TIME"):
                continue  # "for Christmas", "at Easter": when, never where
            if ent is not None and ent.label_ in labels:
                return ent.text.lower(), tuple(range(prep.i, ent.end))
            if pobj.pos_ == "PROPN" or name_typed_lower(pobj):
                words = sorted(
                    [pobj, *(c for c in pobj.children if c.dep_ in ("compound", "flat"))],
                    key=lambda t: t.i,
                )
                return " ".join(t.lower_ for t in words), tuple(range(prep.i, pobj.i + 1))
        return None

    lemmas = {t.lemma_.lower() for t in tokens if t.pos_ in ("VERB", "AUX")}

    # the verbs said of the speaker: "I play badminton at the Baner Club, it's the only
    # exercise I get" has no "be" of mine, so no job at the club
    def said_of_me(verb: Token) -> bool:
        if any(c.dep_.startswith("nsubj") for c in verb.children):
            return any(c.dep_.startswith("nsubj") and c.lower_ in _FIRST for c in verb.children)
        if verb.dep_ in ("conj", "aux", "auxpass") and verb.head.i != verb.i:
            return said_of_me(verb.head)  # "I resigned ..., started at Kopano Re": the same "I"
        if verb.dep_ == "advcl" and verb.lemma_.lower() in _STARTS and verb.head.i != verb.i:
            return said_of_me(verb.head)  # "I got a new job, starting at Lloyds": mine
        # "Started at Monzo", "Big news, starting at Lloyds": the "I" left out
        return verb.dep_ == "ROOT" or not tokens[0].i <= verb.head.i <= tokens[-1].i

    # (a helper's "be" is no "I'm a ...": "I'm doing a part-time MBA at ..." is no job)
    mine = {
        t.lemma_.lower()
        for t in tokens
        if t.pos_ in ("VERB", "AUX") and t.dep_ not in ("aux", "auxpass") and said_of_me(t)
    }
    if first_person:
        job = None
        # "starting at Lloyds on Monday": a start with no object is a place of work;
        # "starting yoga at Triyoga" is not
        starts_at = any(
            t.lemma_.lower() == "start" and not any(c.dep_ == "dobj" for c in t.children)
            for t in tokens
            if t.pos_ == "VERB"
        )
        # "started a new job at Aldi", "got a job as a buyer at Waitrose": a job named
        new_job = any(
            t.dep_ == "dobj"
            and t.lemma_.lower() in _JOB_NOUNS
            and t.head.lemma_.lower() in _TAKING_A_JOB
            and said_of_me(t.head)
            for t in tokens
        )
        if (
            new_job
            or post is not None
            or (
                mine & _JOB_VERBS
                and (
                    "work" in lemmas
                    or "join" in lemmas
                    or starts_at
                    or any(t.dep_ in ("attr", "pobj") and t.pos_ == "NOUN" for t in tokens)
                )
            )
        ):
            job = value_of(_ORG_LABELS, ("at", "for", "with"))
        if job is not None and _provider(tokens, job[1][0]):
            job = None  # "I'm with Vodafone for my phone": a provider of mine, no employer
        if job is not None:
            found.append(Facet("i", "job", job[0], job[1]))
        role = _role(tokens)
        if role is None and post is not None and post[0].lower_ in TRADES:
            span = sorted(
                [post[0], *(t for t in post[0].lefts if t.dep_ in ("compound", "amod"))],
                key=lambda t: t.i,
            )
            role = Facet("i", "role", " ".join(t.lower_ for t in span), tuple(t.i for t in span))
        if role is not None:
            found.append(role)
        if lemmas & (_HOME_VERBS | _HOME_HELD) and (
            lemmas & {"live", "move", "relocate", "shift"} or job is None
        ):
            home = value_of(_PLACE_LABELS, ("in", "to"), _HOME_VERBS)
            if (
                home is not None
                and not (lemmas & {"fly", "drive", "travel", "visit", "go", "trip"})
                and not _a_stay(tokens, lemmas)
            ):
                found.append(Facet("i", "home", home[0], home[1]))
        diet = next(
            (
                t
                for t in tokens
                if t.lower_ in DIETS and not (t.head.pos_ == "NOUN" and t.head.i > t.i)
            ),
            None,
        )
        if diet is not None and not any(t.dep_ == "neg" for t in tokens):
            # "I'm vegetarian", "so pescatarian now": what I eat ("vegan food" is none)
            found.append(Facet("i", "diet", diet.lower_, (diet.i,)))
        for token in tokens:
            polarity = _LIKING.get(token.lemma_.lower())
            if polarity is None and can_not_bear(token):
                polarity = -1  # "I can't stand olives": a dislike
            if polarity is None or token.pos_ != "VERB":
                continue
            if any(c.tag_ == "MD" and c.lower_ in ("would", "'d", "’d") for c in token.children):
                continue  # "I'd love to learn the cello": a wish, no liking
            own = next((c for c in token.children if c.dep_ == "nsubj"), None)
            if own is not None and own.lower_ not in _FIRST:
                continue  # "a lurcher, Bramble, who hates the rain": the dog's liking
            objects = [
                c
                for c in token.children
                if c.dep_ in ("dobj", "xcomp", "ccomp")
                and c.pos_ in ("NOUN", "PROPN", "VERB")
                and not _titled_verb(c)
            ]
            if objects and objects[0].lower_ in INTERJECTIONS:
                # "I hate the heat tbh": the parser hangs the noun on the "tbh"
                objects = [c for c in objects[0].children if c.dep_ == "compound"]
            if objects:
                thing = objects[0].lower_
                found.append(Facet("i", f"like:{thing}", "+" if polarity > 0 else "-", (token.i,)))
    if subject is not None and not first_person:
        key = _subject_key(subject)
        attr = next(
            (t for t in subject.head.children if t.dep_ in ("attr", "acomp") and t.pos_ != "PRON"),
            None,
        )
        # "My brother is great": a person's quality, no new value of who my brother is
        quality = attr is not None and attr.pos_ == "ADJ" and key.split()[-1] in RELATIONS
        if (
            subject.head.lemma_ == "be"
            and attr is not None
            and key.startswith("my ")
            and not quality
        ):
            # "My manager is Priyanka Rao", "My favourite colour is green": the value is
            # the complement with its modifiers, up to a clause or a preposition
            span = sorted(
                [
                    attr,
                    *(
                        t
                        for t in attr.subtree
                        if t.i < attr.i and t.dep_ in ("compound", "amod", "nummod", "det")
                    ),
                ],
                key=lambda t: t.i,
            )
            span = [t for t in span if t.dep_ != "det"]
            found.append(
                Facet(key, "is", " ".join(t.lower_ for t in span), tuple(t.i for t in span))
            )
        clause_of_its_own = clauses_of_their_own(subject.head)
        dates = [
            e
            for e in ents
            if e.label_ == "DATE"
            and any(ch.isalpha() for ch in e.text)
            and not _DURATION.search(e.text)
            and e.root.i not in clause_of_its_own
        ]
        person = subject.ent_type_ == "PERSON" or any(
            c.dep_ in ("appos", "conj") and (c.ent_type_ == "PERSON" or c.lower_ in _FIRST)
            for c in subject.children
        )
        if dates and subject.pos_ in ("NOUN", "PROPN") and not person:
            date = dates[0]
            start = (
                date.start - 1
                if date.start > 0 and tokens[0].doc[date.start - 1].pos_ == "ADP"
                else date.start
            )
            found.append(
                Facet(_event_key(subject), "when", date.text.lower(), tuple(range(start, date.end)))
            )
            place = _place(tokens, ents, skip={t.i for t in subject.subtree})
            if place is not None and _event_key(subject) not in RELATIONS:
                # "Priti's wedding is on September 12th at Hever Castle": a dated
                # occasion's venue
                found.append(Facet(_event_key(subject), "where", place[0], place[1]))
    moved = _moved(tokens, ents)
    if moved is not None:
        found.append(moved)
    venue = _new_venue(tokens, ents, first_person)
    if venue is not None:
        # "we moved the book launch to Foyles": the launch's place, not where we live
        found = [f for f in found if not (f.attribute == "home" and f.tokens[0] == venue.tokens[0])]
        found.append(venue)
    count = _count(tokens, first_person)
    if count is not None:
        found.append(count)
    age = _age(tokens, subject)
    if age is not None:
        found.append(age)
    referent = _referent(tokens, subject)
    money = _money(tokens)
    if money is not None and referent is not None:
        found.append(Facet(referent, "price", money[0], money[1], exact=False))
    colours = [
        t
        for t in tokens
        if t.lower_ in COLOURS
        and t.pos_ in ("ADJ", "NOUN", "PROPN")
        and not any(c.dep_ in ("amod", "compound") for c in t.children)  # "a flat white"
        and (t.dep_ in ("amod", "acomp", "conj") or (t.dep_ == "pobj" and t.head.lower_ == "in"))
    ]
    if colours:
        described = colours[0].head if colours[0].dep_ == "amod" else None
        if (
            described is not None
            and described.pos_ == "NOUN"
            and described.lemma_.lower() not in ("one",)
        ):
            referent = described.lemma_.lower()
    if colours and referent is not None:
        positive = [
            t
            for t in colours
            if not any(c.dep_ == "neg" for c in t.children)
            and (t.i == 0 or t.nbor(-1).lower_ != "not")
        ]
        chosen = positive[0] if positive else colours[0]
        span = [chosen.i]
        if chosen.head.pos_ == "ADP" and chosen.dep_ == "pobj":
            span.insert(0, chosen.head.i)
        found.append(Facet(referent, "colour", chosen.lower_, tuple(span), exact=False))
    return found


def _place(tokens: list[Token], ents, *, skip: set[int], preps=("at", "in")) -> tuple | None:
    """The first place after one of ``preps`` outside ``skip``: a place, organisation
    or building the parser named, or a proper noun ("at Hever Castle")."""
    for prep in tokens:
        if prep.dep_ != "prep" or prep.lower_ not in preps or prep.i in skip:
            continue
        pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
        if pobj is None or pobj.ent_type_ in ("DATE", "TIME"):
            continue
        ent = next((e for e in ents if e.start <= pobj.i < e.end), None)
        if ent is not None and ent.label_ in _VENUE_LABELS:
            return ent.text.lower().strip(" .,!"), tuple(range(prep.i, ent.end))
        if pobj.pos_ == "PROPN":
            words = [t for t in pobj.subtree if t.pos_ == "PROPN"]
            return " ".join(t.lower_ for t in words), tuple(range(prep.i, words[-1].i + 1))
    return None


def _new_venue(tokens: list[Token], ents, first_person: bool) -> Facet | None:
    """ "Priti's wedding update: they've switched venues to Leeds Castle", "they moved
    it to the Crown": a new place for the occasion named before the verb (or for "it").
    Not "I moved to Leeds" (a home) or "we switched our broadband to Hyperoptic" (no
    occasion named)."""
    for verb in tokens:
        if verb.lemma_.lower() not in _VENUE_VERBS or verb.pos_ != "VERB":
            continue
        to = [c for c in verb.children if c.dep_ == "prep" and c.lower_ == "to"]
        place = _place(tokens, ents, skip=set(), preps=("to",)) if to else None
        if place is None or place[1][0] != to[0].i:
            continue
        obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        occasion = [
            t
            for t in tokens
            if t.i < verb.i
            and t.pos_ == "NOUN"
            and not CORRECTION.fullmatch(t.lower_)
            and t.lemma_.lower() not in VAGUE_NOUNS
        ]
        if occasion and not (first_person and obj is None):
            subject = occasion[-1].lemma_.lower()
        elif obj is not None and obj.lower_ in ("it", "that"):
            subject = PRONOUN
        elif obj is not None and obj.pos_ == "NOUN" and obj.lemma_.lower() not in VAGUE_NOUNS:
            subject = obj.lemma_.lower()  # "we moved the book launch to Foyles"
        else:
            continue
        return Facet(subject, "where", place[0], place[1], exact=False)
    return None


_NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        ("zero", "one", "two", "three", "four", "five", "six")
        + ("seven", "eight", "nine", "ten", "eleven", "twelve")
    )
}
_HAVE_VERBS = word_set("have get keep own")


def _count(tokens: list[Token], first_person: bool) -> Facet | None:
    """How many of a thing I have: "We've got 3 hens" (hen, 3); "it's just the two of
    them now" says it of what was counted before (it, 2)."""
    for token in tokens:
        if not token.like_num or token.ent_type_ in ("DATE", "TIME", "MONEY", "PERCENT"):
            continue
        value = _NUMBER_WORDS.get(token.lower_, token.lower_)
        noun = token.head
        if (
            first_person
            and token.dep_ == "nummod"
            and noun.pos_ == "NOUN"
            and noun.dep_ == "dobj"
            and noun.head.lemma_.lower() in _HAVE_VERBS
        ):
            return Facet(noun.lemma_.lower(), "count", value, (token.i,))
        if any(
            c.dep_ == "prep"
            and c.lower_ == "of"
            and any(g.lower_ in ("them", "us") for g in c.children)
            for c in token.children
        ):
            return Facet(PRONOUN, "count", value, (token.i,), exact=False)
    return None


def _role(tokens: list[Token]) -> Facet | None:
    """ "I'm a junior designer at Pentagram": what I am, the noun with its modifiers
    ("junior designer"). The reconciler compares it only between statements that name
    the same workplace (``memories.extraction.offline.reconcile.correction``)."""
    for verb in tokens:
        if verb.lemma_.lower() != "be" or verb.pos_ not in ("AUX", "VERB"):
            continue
        if not any(c.dep_ == "nsubj" and c.lower_ == "i" for c in verb.children):
            continue
        attr = next((c for c in verb.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
        if attr is None or attr.lemma_.lower() in VAGUE_NOUNS | NO_JOBS:
            continue
        span = sorted(
            [attr, *(t for t in attr.lefts if t.dep_ in ("compound", "amod"))], key=lambda t: t.i
        )
        return Facet("i", "role", " ".join(t.lower_ for t in span), tuple(t.i for t in span))
    return None


def _moved(tokens: list[Token], ents) -> Facet | None:
    """ "they moved it to Friday": a new date for what "it" is, said before (the
    reconciler takes it for the one dated memory it could be, or for none)."""
    for verb in tokens:
        if verb.lemma_.lower() not in MOVE_VERBS or verb.pos_ != "VERB":
            continue
        if not any(c.dep_ == "dobj" and c.lower_ in ("it", "that") for c in verb.children):
            continue
        dates = [e for e in ents if e.label_ == "DATE" and e.start > verb.i]
        if dates:
            date = dates[0]
            start = date.start - 1 if tokens[0].doc[date.start - 1].pos_ == "ADP" else date.start
            return Facet(PRONOUN, "when", date.text.lower(), tuple(range(start, date.end)), False)
    return None


def _age(tokens: list[Token], subject: Token | None) -> Facet | None:
    """ "a three-year-old beagle named Biscuit", "Biscuit is four years old", "Nora just
    turned seven": (the name, age)."""
    for n, token in enumerate(tokens):
        if not token.like_num:
            continue
        after = " ".join(t.lower_ for t in tokens[n + 1 : n + 5])
        turned = n > 0 and tokens[n - 1].lemma_.lower() == "turn"
        if not (after.startswith(("- year - old", "-year-old", "year old", "years old")) or turned):
            continue
        name = _named(tokens, subject)
        if name is None:
            return None
        width = 0 if turned else (4 if after.startswith("- year") else 2)
        return Facet(name, "age", token.lower_, tuple(range(token.i, token.i + 1 + width)))
    return None


def _named(tokens: list[Token], subject: Token | None) -> str | None:
    """Whom an age is about: the subject's name, or the name after "named"/"called"."""
    for token in tokens:
        if token.lower_ in ("named", "called"):
            name = next((t for t in tokens if t.i > token.i and t.pos_ == "PROPN"), None)
            if name is not None:
                return name.lower_
    if subject is not None:
        if subject.pos_ == "PROPN":
            return subject.lower_
        appos = next((c for c in subject.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
        if appos is not None:
            return appos.lower_
    return None


def _money(tokens: list[Token]) -> tuple[str, tuple[int, ...]] | None:
    """The first sum of money: a MONEY entity, or a number after a currency sign (the
    small model does not always tag "£900")."""
    for n, token in enumerate(tokens):
        if not token.like_num:
            continue
        sign = n > 0 and tokens[n - 1].text in ("$", "€", "£", "₹", "¥")
        if sign or token.ent_type_ == "MONEY":
            start = tokens[n - 1].i if sign else token.i
            return token.text.lower(), tuple(range(start, token.i + 1))
    return None


def _subject_key(subject: Token) -> str:
    words = [
        t
        for t in subject.subtree
        if t.i <= subject.i and t.dep_ in ("poss", "compound", "amod", "nmod") or t.i == subject.i
    ]
    owner = (
        "my " if any(t.lower_ in ("my", "our") for t in subject.subtree if t.i < subject.i) else ""
    )
    kept = []
    for t in words:
        if t.lower_ in ("my", "our") or t.lower_ in _DROP_MODIFIERS or t.pos_ == "PART":
            continue
        # "My wife's name": the owner noun as said ("wife's"), the head by its lemma
        kept.append(f"{t.lower_}'s" if t.dep_ == "poss" else t.lemma_.lower())
    return owner + " ".join(kept) + in_law(subject)  # "my sister-in-law", not "my sister"


def _event_key(subject: Token) -> str:
    """The event a date belongs to, by its head noun: "Dad's retirement dinner" and "the
    dinner" are one event, and so are "My son Kofi's piano recital" and "the recital"."""
    verb = subject.head
    before = [t for t in subject.doc[subject.sent.start : verb.i] if t.pos_ == "NOUN"]
    return (before[-1] if before else subject).lemma_.lower()


def _referent(tokens: list[Token], subject: Token | None) -> str | None:
    """The thing a statement is about: its object, or for "it was $1,400" the thing the
    sentence names ("Small correction on the chair: it was ...")."""
    for token in tokens:
        if token.dep_ in ("dobj", "pobj", "attr", "nsubj", "nsubjpass") and token.pos_ == "NOUN":
            lemma = token.lemma_.lower()
            if (
                CORRECTION.fullmatch(lemma)
                or lemma in VAGUE_NOUNS
                or lemma in COLOURS  # "a 2019 Yaris hybrid in grey": the colour, no thing
                or lemma
                in (
                    "one",
                    "correction",
                    "thing",
                    "email",
                    "order",
                )
            ):
                continue
            return lemma
    if subject is not None and subject.lower_ in ("it", "that"):
        return PRONOUN  # "actually it's £1,530 not £1,350"
    return None


def _endings(tokens: list[Token]) -> set[str]:
    names: set[str] = set()
    for token in tokens:
        lemma = token.lemma_.lower()
        if token.pos_ == "VERB" and lemma == "stop" and not _unrealised(token):
            names |= _stopped_names(token)
            continue
        if token.pos_ != "VERB" or (lemma not in ENDING_VERBS and lemma not in ENDING_PARTICLES):
            continue
        particles = {c.lower_ for c in token.children if c.dep_ in ("prt", "prep", "advmod")}
        if lemma in ENDING_PARTICLES and ENDING_PARTICLES[lemma] not in particles:
            continue
        if _unrealised(token):
            continue
        related = [
            c
            for c in token.children
            if c.dep_ in ("dobj", "nsubj", "nsubjpass", "conj", "prep", "prt")
            # "I ditched NRMA": the small tagger takes a word of capitals for a modifier
            or (c.i > token.i and c.is_upper and c.is_alpha and len(c.text) > 1)
        ]
        for item in (t for c in related for t in c.subtree):
            # a name typed in lower case ("pulled out of the bristol half") still names
            # what the older memory capitalised; names() of that memory is what it meets
            if item.pos_ in ("PROPN", "NOUN") or (
                item.is_upper and item.is_alpha and len(item.text) > 1
            ):
                names.add(item.lower_)
    return names


def _stopped_names(verb: Token) -> set[str]:
    """ "Stopped lessons with Mrs Hale", "stopped seeing Dr Patel": what "stop" ends is
    what it is done to, and whom with; "Stopped at Tesco", "stopped for a coffee with
    Jo" are a call on the way, and end nothing."""
    done = [c for c in verb.children if c.dep_ == "dobj" or (c.dep_ == "xcomp" and c.tag_ == "VBG")]
    if not done:
        return set()
    withs = [c for c in verb.children if c.dep_ == "prep" and c.lower_ == "with"]
    return {
        t.lower_
        for c in (*done, *withs)
        for t in c.subtree
        if t.pos_ in ("PROPN", "NOUN") and t.ent_type_ not in ("DATE", "TIME")
    }


def _unrealised(verb: Token) -> bool:
    """An ending only wanted, planned, asked or denied ("wants to quit piano", "might
    sell the car", "if I leave", "didn't quit", "going to resign"): nothing is over yet."""
    while True:
        children = list(verb.children)
        if any(
            c.dep_ == "neg"
            or (c.dep_ == "aux" and c.tag_ == "MD")
            or (c.dep_ == "mark" and c.lower_ in ("if", "whether", "unless"))
            for c in children
        ):
            return True
        if verb.lemma_.lower() in UNREALISED or verb.lower_ == "going":
            return True
        if verb.dep_ not in ("xcomp", "pcomp", "ccomp", "conj") or verb.head.i == verb.i:
            break
        verb = verb.head
        if verb.pos_ == "ADP":  # "thinking of selling": the preposition hangs on the verb
            verb = verb.head
    return verb.sent.text.rstrip().endswith("?")


def _states(tokens: list[Token]) -> tuple[set[str], set[str]]:
    """What a first-person clause says the speaker is, has or does (its complements
    and objects, by lemma), split by whether it says that is over ("I'm no longer
    vegan", "we're not using Saffron & Salt anymore")."""
    stopped: set[str] = set()
    holds: set[str] = set()
    for verb in tokens:
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is None or subject.lower_ not in _FIRST or verb.pos_ not in ("VERB", "AUX"):
            continue
        # what it is, has or does (and when: "I work nights"); of "be", also where it is
        # ("not in the band anymore", "not on nights anymore")
        parts = [c for c in verb.children if c.dep_ in ("attr", "acomp", "dobj", "npadvmod")]
        if verb.lemma_ == "be":
            parts += [g for c in verb.children if c.dep_ == "prep" for g in c.children]
        said = {
            t.lemma_.lower()
            for c in parts
            for t in c.subtree
            if t.pos_ in ("NOUN", "PROPN", "ADJ") and t.lemma_.lower() not in VAGUE_NOUNS
        }
        # the parser hangs "no longer" on the verb or on its complement
        near = [t for c in verb.children for t in (c, *c.children)]
        doc = verb.doc
        pairs = {(doc[t.i - 1].lower_, t.lower_) for t in near if t.i > 0}
        no_longer = ("no", "longer") in pairs
        negated = no_longer or any(t.dep_ == "neg" for t in near)
        over = no_longer or ("any", "more") in pairs or any(t.lower_ == "anymore" for t in near)
        if negated and over:
            stopped |= said
        elif not negated:
            holds |= said
    return stopped, holds


def cleft_states(doc: Doc) -> list[tuple[str, str]]:
    """ "what I'm actually allergic to is sesame": the state the speaker says of
    themself in the form "what I am ... is X" ("allergic") and its preposition ("to")."""
    found = []
    for t in doc:
        if t.lower_ != "what" or t.dep_ not in ("attr", "pobj", "dobj"):
            continue
        h = t.head  # "allergic to what": up through the preposition and the state
        while h.lemma_ != "be" and h.head.i != h.i and h.dep_ in ("prep", "acomp"):
            h = h.head
        if h.lemma_ != "be":
            continue
        if not any(s.dep_ == "nsubj" and s.lower_ in ("i", "we") for s in h.children):
            continue
        for c in h.children:
            if c.dep_ == "acomp":
                prep = next((p.lower_ for p in c.children if p.dep_ == "prep"), "")
                found.append((c.lemma_.lower(), prep))
    return found


def names(reading: Reading) -> set[str]:
    return {t.lower_ for t in reading.doc if t.pos_ == "PROPN"}
