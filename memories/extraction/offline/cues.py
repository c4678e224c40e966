"""Question-shaped cues, from the parse of a statement.

A cue is written only where the parse gives a confident pattern, and its slot always
holds a noun: who/what/where/when/how much + the statement's verb and the noun or name
it is about ("what bike did I buy", "where did I buy the bike", "when is the retirement
dinner", "who is my manager"). The statement itself is a cue too. A named speaker's
statements are asked in the third person ("where does Caroline work").
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Token

from memories.extraction.offline.clause_questions import (
    clause_questions,
    names_a_day,
    owned_by_me,
)
from memories.extraction.offline.dates import WEEKDAYS
from memories.extraction.offline.facets import (
    PRONOUN,
    Reading,
    can_not_bear,
    cleft_states,
    my_home_in,
    read,
    wished_for,
)
from memories.extraction.offline.language import (
    CLOCK,
    ROLE_ENDINGS,
    clauses_of_their_own,
    counted_family,
    dictionary_word,
    done_to_their_own,
    dose_said,
    fan_named,
    home_place,
    hyphenated,
    in_law,
    known_noun,
    language_learned,
    main_verb,
    name_given,
    opening_word,
    parse,
    pay_said,
    study_said,
    switched_kind,
    work_said_bare,
)
from memories.extraction.offline.rules import rule_for
from memories.extraction.offline.words import (
    BUILT_PLACES,
    CAR_MAKES,
    CAR_MODELS,
    CAT_BREEDS,
    DOG_BREEDS,
    DWELLINGS,
    ENDING_VERBS,
    FEELINGS,
    FEMALE_KIN,
    INTERJECTIONS,
    LAPTOP_NAMES,
    MALE_KIN,
    MOVE_VERBS,
    NO_JOBS,
    PARTS_OF_DAY,
    PHONE_NAMES,
    RELATIONS,
    STATES,
    VAGUE_NOUNS,
    past_form,
    word_set,
)

MAX_CUES = 8
_STATE_PREPS = word_set("to of in with on")
MAX_ROSTER_ITEMS = 6
_CUE_CHARS = 200
_PLACE = frozenset(("GPE", "LOC", "FAC", "ORG"))
_WHERE_PREPS = word_set("at in from to near")
_ACQUIRE = word_set("buy get order purchase pick adopt rent lease win")
_SWITCHING = word_set("switch change upgrade convert swap")
# "Mum and Dad", "Nan": kin capitalised as names, which no "who is" cue asks after
_KIN_WORDS = RELATIONS | FEMALE_KIN | MALE_KIN | word_set("and mummy daddy mama papa")
_CURRENCIES = word_set(
    "euro dollar pound quid buck rupee rand real yen yuan franc krona peso dirham"
)
# what a person is "on" or "in": "I'm on the payments team" -> "what team am I on"
_GROUPS = word_set("team squad crew band club group committee league class course program")
_OFTEN = re.compile(
    r"\b(?:once|twice|three times|every|each) (?:a |per )?(?:day|week|month|year|morning|"
    r"evening|night|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
    r"|\b(?:daily|weekly|monthly)\b",
    re.IGNORECASE,
)
# "who is my mum", "what is my sister's name": who someone is, not what is said of them
_IDENTITY = re.compile(r"who is [\w' -]+|what is [\w' -]+'s name")
_YOU = re.compile(r"\b(you|your|yours|yourself)\b", re.IGNORECASE)


def cues_for(
    reading: Reading, *, who: str | None, asked: str = "", items: bool = False
) -> list[str]:
    """Cues for one statement: its questions, the assistant's question it answers (in
    the speaker's person), then the statement itself; for a roster (``items``) each of
    its items as said, since a question asks after one of them."""
    if items:
        return _roster_cues(reading.text)
    cues: list[str] = []
    # each sentence's plain questions, asked once (a measure is always wanted, the rest
    # only when no rule knows the statement's shape)
    plain = {s.start: clause_questions(list(s), who) for s in reading.doc.sents}
    dated: list[str] = []
    for sent in reading.doc.sents:
        reported = _found_out(list(sent))
        if reported:
            # "Turns out I'm allergic to cats": asked as what was found out
            inner = cues_for(read(reported), who=who)
            cues.extend(c for c in inner if c not in (reported, f"{who}: {reported}"))
        # "Picked up a secondhand Kia Niro EV": a car of mine named by its make or model
        cues.extend(_gadget_of_mine(list(sent), who))
        cues.extend(_pet_by_breed(list(sent), who))
        cues.extend(_retired(list(sent), who))
        cues.extend(_born(list(sent), who))
        fan = (
            _fan_of(list(sent), who)
            or _into(list(sent), who)
            or _counted_kin(list(sent), who)
            or _from_originally(list(sent), who)
        )
        if fan:
            # "Not a fan of horror films tbh": a liking, asked as one
            cues.extend(fan)
            continue
        denied = _denied(list(sent), who)
        if denied is not None:
            # "I don't eat pork": asked as said, never "what do I eat"
            cues.extend(denied)
            continue
        couple = _kin_couple(list(sent))
        if couple is not None:
            # "My mum and dad live in Kendal": asked after as "my parents", not one of them
            cues.extend(_couple_questions(list(sent), couple, who))
            continue
        cues.extend(_questions(list(sent), who))
        cues.extend(_clause_roles(list(sent), who))
        cues.extend(_home_questions(list(sent), who))
        cues.extend(_wish_questions(list(sent), who))
        cues.extend(_switched_questions(list(sent), who))
        cues.extend(_shape_questions(list(sent), who))
        cues.extend(_put_me_on(list(sent), who))
        # "I've been learning the piano for about 6 months": how long, whatever else is
        # asked of it
        cues.extend(q for q in plain[sent.start] if q.startswith("how long"))
        if any(t.ent_type_ == "DATE" for t in sent):
            # "My sister Anika is getting married next March": when, whatever else is
            # asked of it (who she is, where), asked below unless a "when" is
            dated.extend(q for q in plain[sent.start][:3] if _asks_when_done(q))
        cues.extend(_named_aside(list(sent), who))
        cues.extend(_new_amount(list(sent), who))
        cues.extend(_new_one(list(sent), who))
        if home_place(list(sent)) is not None and not _is_question_sentence(list(sent)):
            me, do, _ = _subject_words(who, "i")
            cues.append(f"where {do} {me} live")
        cues.extend(_said_of_oneself(list(sent), who))
    # "a nurse at St James's on £34,000 a year": a sum said with my job is my pay
    roles = {f.value for f in reading.facets if f.subject == "i" and f.attribute == "role"}
    kinds: list[str] = []
    for facet in reading.facets:
        if facet.attribute == "price" and facet.subject in roles:
            my = f"{who}'s" if who else "my"
            me, do, _ = _subject_words(who, "i")
            cues.extend([f"what is {my} salary", f"how much {do} {me} earn"])
            continue
        if facet.attribute == "diet":
            # asked after the plain questions of the clause ("how long have I been a
            # vegan"), which a diet's own questions would otherwise stand in for
            kinds.extend(_facet_questions(facet.subject, facet.attribute, who, facet.value))
            continue
        cues.extend(_facet_questions(facet.subject, facet.attribute, who, facet.value))
    said = [t for t in reading.doc if not (t.is_punct or t.lower_ in INTERJECTIONS)]
    if len(said) > 2 and said[0].lower_ in STATES and said[1].lower_ in _STATE_PREPS:
        # "Intolerant to lactose fyi": a state said without "I'm" asks what of
        me = who or "I"
        cues.append(f"what {'is' if who else 'am'} {me} {said[0].lower_} {said[1].lower_}")
    for state, prep in cleft_states(reading.doc):
        # "what I'm actually allergic to is sesame" answers what I am allergic to
        cues.append(
            " ".join(w for w in ("what", "is" if who else "am", who or "I", state, prep) if w)
        )
    # "I've found a cleaner. Her name is Dorota": who the cleaner is
    cues[:0] = _role_then_name(reading.doc, who)
    if _introduces(reading):
        # "Hi, I'm Marta.": a name said of oneself answers what one is called
        my = f"{who}'s" if who else "my"
        cues.extend([f"what is {my} name", f"who is {who}" if who else "who am I"])
        cues.extend(_introduced_as(reading.doc, who))
    if all(_IDENTITY.fullmatch(c) for c in cues):
        # no rule knows the statement's shape (or asks only who someone is): plain
        # questions of its clauses' parts
        for sent in reading.doc.sents:
            room = max(0, MAX_CUES - 2 - len(cues)) if cues else MAX_CUES
            cues.extend(plain[sent.start][:room])
    if not any(c.startswith("when ") for c in cues):
        cues.extend(dated)
    cues.extend(kinds)
    if asked:
        cues.append(asked)
    prefix = f"{who}: " if who else ""  # a question names the person it asks about
    sentences = [" ".join(s.text.split()) for s in reading.doc.sents if s.text.strip()]
    statement = " ".join(reading.text.split())
    if len(statement) <= _CUE_CHARS:
        cues.append(prefix + statement)
    # a question usually asks after one sentence of several, often not the first
    if len(sentences) > 1 or len(statement) > _CUE_CHARS:
        cues.extend(prefix + s[:_CUE_CHARS] for s in sentences)
    seen: set[str] = set()
    out = []
    for cue in cues:
        key = cue.casefold().rstrip("?. ")
        if cue and key not in seen:
            seen.add(key)
            out.append(cue)
    return out[:MAX_CUES]


def _said_of_oneself(tokens: list[Token], who: str | None) -> list[str]:
    """What is said of oneself without the usual verb, asked as the speaker would ask
    it: a post ("Nurse at the Royal Infirmary"), a course ("Halfway through my PhD"), a
    language being learned, a medicine by its dose ("On 10mg amlodipine"), pay ("I'm on
    £35k now"). The readings are ``language``'s, shared with what is kept."""
    me, do, my = _subject_words(who, "i")
    am = "is" if who else "am"
    asked = not _is_question_sentence(tokens)
    out: list[str] = []
    if work_said_bare(tokens) is not None:
        out.append(f"what {do} {me} do for work")
    if study_said(tokens) is not None:
        out += [f"what {am} {me} studying", f"what {do} {me} study"]
        if any(
            (t.pos_ == "PROPN" and t.dep_ == "pobj" and t.head.lower_ == "at")
            or t.lower_ in _PLACES_OF_STUDY
            for t in tokens
        ):
            out.append(f"where {do} {me} study")  # "Second year of nursing at Salford uni"
    if asked and language_learned(tokens) is not None:
        out.append(f"what language {am} {me} learning")
    if dose_said(tokens):
        out += [f"what medication {am} {me} on", f"what medication {do} {me} take"]
    if asked and pay_said(tokens):
        out += [f"how much {do} {me} earn", f"what is {my} salary"]
    return out


def _asks_when_done(question: str) -> bool:
    """ "when is my sister getting married", "when do I swim": when something is done,
    not "when is my brother" (a "be" with no doing asks of no event)."""
    words = question.split()
    if len(words) < 3 or words[0] != "when":
        return False
    return words[1] not in ("is", "are", "am", "was", "were") or any(
        w.endswith("ing") for w in words[3:]
    )


def _new_one(tokens: list[Token], who: str | None) -> list[str]:
    """ "New physio, a guy called Jordi": who my physio is now ("New phone, a Pixel 8":
    what my phone is)."""
    words = [t for t in tokens if not (t.is_punct or t.pos_ == "INTJ")]
    if len(words) < 3 or words[0].lower_ != "new" or words[1].pos_ != "NOUN":
        return []
    if words[1].lemma_.lower() in VAGUE_NOUNS or words[1].dep_ != "ROOT":
        return []
    person = any(
        t.ent_type_ == "PERSON"
        or t.lower_ in ("called", "named")
        or t.lower_.rstrip(".") in _TITLES
        for t in words[2:]
    )
    _, _, my = _subject_words(who, "i")
    return [f"{'who' if person else 'what'} is {my} {words[1].lemma_.lower()}"]


_CHANGES = word_set("rise increase drop fall go put bump cut raise reduce lower change")


def _new_amount(tokens: list[Token], who: str | None) -> list[str]:
    """ "My landlord is putting the rent up to 1150", "Council tax went up to 190": the
    thing whose sum changed to a new one is asked "how much is my rent"."""
    root = next((t for t in tokens if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    if root is None or root.lemma_.lower() not in _CHANGES:
        return []
    doc = root.doc
    if not any(
        t.lower_ == "to"
        and t.i > root.i
        and (doc[t.i - 1].lower_ in ("up", "down") or t.head.i == root.i)
        and any(any(ch.isdigit() for ch in w.text) for w in doc[t.i + 1 : t.i + 3])
        for t in tokens
    ):
        return []  # "to" a figure, after "up"/"down" or on the verb itself
    thing = next((c for c in root.children if c.dep_ == "dobj" and c.pos_ == "NOUN"), None)
    if thing is None:
        thing = next((c for c in root.children if c.dep_ == "nsubj"), None)
    if thing is None or thing.pos_ not in ("NOUN", "PROPN") or thing.lemma_.lower() in VAGUE_NOUNS:
        return []
    if thing.pos_ == "PROPN" and not dictionary_word(thing.text):
        return []  # "Priya went up to 60 kilos": a person, no price
    owner = next((c for c in thing.children if c.dep_ == "poss"), None)
    mine = owner is None or owner.lower_ in ("my", "our")
    if not mine and owner.pos_ != "PROPN":
        return []  # "their rent": whose is said elsewhere
    whose = (f"{who}'s" if who else "my") if mine else f"{owner.text}'s"
    words = [*(c.lower_ for c in thing.lefts if c.dep_ == "compound"), thing.lower_]
    return [f"how much {'are' if thing.tag_ == 'NNS' else 'is'} {whose} {' '.join(words)}"]


# verbs that report what the speaker learned: "found out", "turns out", "realised"
_LEARNING = word_set("find turn realise realize learn discover")


def _found_out(tokens: list[Token]) -> str:
    """ "I'm lactose intolerant" of "Just found out I'm lactose intolerant": the clause a
    verb of learning reports, with its own subject, as said; "" when there is none."""
    verb = next((t for t in tokens if t.dep_ == "ROOT"), None)
    if verb is None or verb.lemma_.lower() not in _LEARNING:
        return ""
    if verb.lemma_.lower() in ("find", "turn") and not any(
        c.dep_ == "prt" and c.lower_ == "out" for c in verb.children
    ):
        return ""  # "found a cleaner", "turned 40"
    clause = next(
        (
            c
            for c in verb.children
            if c.dep_ == "ccomp" and any(g.dep_ in ("nsubj", "nsubjpass") for g in c.children)
        ),
        None,
    )
    if clause is None:
        return ""
    # (not "which explains a lot": what the speaker makes of it)
    aside = {t.i for r in clause.subtree if r.dep_ == "relcl" for t in r.subtree}
    words = [t for t in clause.subtree if t.i not in aside and t.dep_ != "mark"]
    return "".join(t.text_with_ws for t in words).strip().rstrip(",")


def _role_then_name(doc: Doc, who: str | None) -> list[str]:
    """ "Got a new boss today. His name is Martin.", "I'm seeing a therapist. She's
    called Dr Ahmed.": a person first said by what they are to the speaker, then named
    through "he" or "she", is asked after by both ("who is my boss", "what is my boss's
    name", "who is Martin")."""
    for token in doc:
        name = name_given(token)
        if name is None:
            continue
        role = next(
            (
                t
                for t in reversed(doc[: token.i])
                if t.pos_ == "NOUN"
                and t.dep_ in ("dobj", "attr", "nsubj", "nsubjpass", "appos")
                and t.lemma_.lower() not in VAGUE_NOUNS | BUILT_PLACES | _SOMEONE_WORDS
                and not t.ent_type_
            ),
            None,
        )
        if role is None:
            return []
        kind = " ".join(
            [*(c.lower_ for c in role.lefts if c.dep_ == "compound"), role.lemma_.lower()]
        )
        owner = next((c for c in role.head.children if c.dep_ == "nsubj"), None)
        if (
            role.dep_ == "dobj"
            and role.head.lemma_.lower() in ("have", "get")
            and owner is not None
            and owner.pos_ == "NOUN"
            and any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in owner.children)
        ):
            kind = f"{owner.lower_}'s {kind}"  # "My son has a new teacher": my son's teacher
        my = f"{who}'s" if who else "my"
        return [f"who is {my} {kind}", f"what is {my} {kind}'s name", f"who is {name}"]
    return []


# a person said by no more than that ("a new guy"): what they are to the speaker is
# said elsewhere, or not at all
_SOMEONE_WORDS = word_set("guy man woman lady bloke girl boy fella chap person one")


def _named_aside(tokens: list[Token], who: str | None) -> list[str]:
    """ "I do have a betta fish, Captain", "Retired racing greyhound, Tully.": a name set
    after a comma beside a thing, ending its phrase, is what the thing is called."""
    my = f"{who}'s" if who else "my"
    out: list[str] = []
    doc = tokens[0].doc if tokens else None
    for noun in tokens:
        if (
            noun.pos_ != "NOUN"
            or noun.lemma_.lower() in VAGUE_NOUNS
            or noun.lemma_.lower() in RELATIONS  # "my brother, Dev": asked by its own rules
            or noun.i + 2 >= len(doc)
            or doc[noun.i + 1].text != ","
        ):
            continue
        name = doc[noun.i + 2]
        after = doc[name.i + 1] if name.i + 1 < len(doc) else None
        if (
            (name.pos_ == "PROPN" or name.is_title)
            and name.head.i == noun.i
            and name.ent_type_ not in _NOT_A_NAME
            and (after is None or after.is_punct)
        ):
            phrase = _noun_phrase(noun)
            out += [f"what is {my} {phrase} called", f"what is {my} {phrase}'s name"]
    return out


# a place, a company, a day or a sum beside a thing is no name it is called
_NOT_A_NAME = frozenset(
    ("GPE", "LOC", "FAC", "ORG", "NORP", "DATE", "TIME", "MONEY", "CARDINAL", "QUANTITY")
)


# two kin said together and the word for both
_COUPLES = (
    (
        frozenset(("mum", "mom", "mam", "mother", "mummy")),
        frozenset(("dad", "father", "daddy")),
        "parents",
    ),
    (
        frozenset(("nan", "nana", "gran", "granny", "grandma", "grandmother")),
        frozenset(("grandad", "granddad", "grandpa", "grandfather")),
        "grandparents",
    ),
)


def _denied(tokens: list[Token], who: str | None) -> list[str] | None:
    """A statement whose main verb is denied ("I don't eat pork", "I never drive"): the
    questions it answers as said ("what don't I eat", "do I eat pork"), [] when it is
    not the speaker's; None when nothing is denied."""
    verb = main_verb(tokens)
    verb = verb if verb is not None and verb.pos_ == "VERB" else None
    # ("I'm a pharmacist ... so usually not home til 7": a "not" after the verb denies
    # something else)
    if verb is None or not any(c.dep_ == "neg" and c.i < verb.i for c in verb.children):
        return None
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    # "honestly cant stand mushrooms": the "I" left out, the denied verb opening the clause
    left_out = subject is None and all(
        t.is_punct or t.pos_ in ("ADV", "INTJ", "AUX", "PART") or t.dep_ == "neg"
        for t in tokens
        if t.i < verb.i
    )
    said = "i" if left_out else subject.lower_ if subject is not None else ""
    if said not in ("i", "we") or verb.lemma_ in ("be", "have"):
        return []
    me, do, _ = _subject_words(who, said)
    lemma = verb.lemma_.lower()
    if can_not_bear(verb):
        return [f"what {do}n't {me} like", f"what {do} {me} hate"]  # and "do I like olives"
    obj = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN")), None)
    out = [f"what {do}n't {me} {lemma}"] if obj is not None else []
    if obj is not None:
        out.append(f"{do} {me} {lemma} {' '.join(t.lower_ for t in obj.subtree if not t.is_punct)}")
    elif not any(
        c.dep_ in ("dobj", "acomp", "attr", "ccomp", "xcomp", "prep") for c in verb.children
    ):
        out.append(f"{do} {me} {lemma}")  # "I don't drive": do I drive
    return out


def _introduced_as(doc, who: str | None) -> list[str]:
    """ "I'm Tomás, 41, electrician in Cork": what an introduction lists beside the name,
    asked as the speaker would ask it (an age, a job, where one lives or is from)."""
    me, do, my = _subject_words(who, "i")
    am = "is" if who else "am"
    out: list[str] = []
    name = next((t for t in doc if t.pos_ == "PROPN" and t.dep_ in ("attr", "acomp", "ROOT")), None)
    parts = [c for c in name.children if c.dep_ == "appos"] if name is not None else []
    for part in parts:
        if part.text.isdigit() and int(part.text) <= 120:
            out.append(f"how old {am} {me}")
        elif (
            part.tag_ == "NN"
            and part.lemma_.lower() not in NO_JOBS | RELATIONS | VAGUE_NOUNS
            and known_noun(part.lemma_.lower())
        ):
            out += [f"what {do} {me} do for work", f"what is {my} job"]
            for prep in (c for c in part.children if c.dep_ == "prep"):
                if prep.lower_ == "in":
                    out.append(f"where {do} {me} live")
                elif prep.lower_ == "from":
                    out.append(f"where {am} {me} from")
    return out


def _fan_of(tokens: list[Token], who: str | None) -> list[str]:
    """ "I'm not a fan of horror films", "Big fan of jazz": the speaker's liking or
    dislike of the thing ("what don't I like", "do I like horror films"); [] for
    anyone else's ("My brother is a huge fan of Arsenal")."""
    fan = next((t for t in tokens if t.lemma_.lower() == "fan"), None)
    of = next((c for c in fan.children if c.lower_ == "of"), None) if fan else None
    thing = next((c for c in of.children if c.dep_ == "pobj"), None) if of else None
    if thing is None:
        return _fan_before(tokens, fan, who)
    subject = next((t for t in tokens if t.dep_ in ("nsubj", "nsubjpass") and t.i < fan.i), None)
    if subject is not None and subject.lower_ not in ("i", "we"):
        return []
    me, do, _ = _subject_words(who, subject.lower_ if subject is not None else "i")
    said = " ".join(
        t.text if t.pos_ == "PROPN" else t.lower_ for t in thing.subtree if not t.is_punct
    )
    denied = any(t.lower_ in ("not", "n't", "nt", "no", "never") for t in tokens if t.i < fan.i)
    doing = f"{do}n't" if denied else do
    return [f"what {doing} {me} like", f"{do} {me} like {said}"]


def _fan_before(tokens: list[Token], fan: Token | None, who: str | None) -> list[str]:
    """ "Lifelong Leeds fan", "I'm a huge Taylor Swift fan": whom the speaker supports
    and likes, the name said before "fan"; [] for anyone else's ("My dad is a big
    Spurs fan")."""
    named = fan_named(tokens) if fan is not None else None
    if named is None:
        return []
    subject = next((t for t in tokens if t.dep_ in ("nsubj", "nsubjpass") and t.i < fan.i), None)
    if subject is not None and subject.lower_ not in ("i", "we"):
        return []
    me, do, _ = _subject_words(who, "i")
    return [f"who {do} {me} support", f"{do} {me} like {named}", f"what {do} {me} like"]


def _retired(tokens: list[Token], who: str | None) -> list[str]:
    """ "Retired since 2019", "I retired last year", "I used to be a postman": the
    speaker's working life over, or what it was, asked as work ("what do I do for
    work", "am I retired", "what did I do for work"); [] for anyone else's."""
    out: list[str] = []
    me, do, _ = _subject_words(who, "i")
    am = "is" if who else "am"
    others = any(t.dep_ in ("nsubj", "nsubjpass") and t.lower_ not in ("i", "we") for t in tokens)
    for word in tokens:
        subject = (
            next((c for c in word.head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            if word.dep_ == "acomp"
            else next((c for c in word.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        )
        # ("Retired since 2019, used to be a postman": the "I" left out of both)
        left_out = subject is None and not others
        mine = left_out or (subject is not None and subject.lower_ in ("i", "we"))
        if not mine or any(t.dep_ == "neg" for t in tokens):
            continue
        if word.lower_ in ("retired", "retire"):
            out += [f"{am} {me} retired", f"what {do} {me} do for work"]
            if word.tag_ == "VBD" or any(t.ent_type_ == "DATE" for t in tokens):
                out.append(f"when did {me} retire")
        elif word.lemma_.lower() == "use" and any(
            c.dep_ == "xcomp"
            and c.lemma_ == "be"
            and any(
                g.dep_ == "attr" and g.pos_ == "NOUN" and g.lemma_.lower() not in NO_JOBS
                for g in c.children
            )
            for c in word.children
        ):
            out.append(f"what did {me} do for work")  # "I used to be a postman"
    return list(dict.fromkeys(out))


def _into(tokens: list[Token], who: str | None) -> list[str]:
    """ "I'm really into bouldering", "Big into fly fishing": a liking of the speaker's,
    asked as one ("what am I into", "do I like bouldering"); [] for anyone else's."""
    into = next((t for t in tokens if t.lower_ == "into"), None)
    thing = next((c for c in into.children if c.dep_ in ("pobj", "pcomp")), None) if into else None
    if thing is None or thing.pos_ == "PRON" or thing.lower_ in ("it", "that", "this"):
        return []
    subject = next((t for t in tokens if t.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is not None and subject.lower_ not in ("i", "we"):
        return []
    if subject is None and any(
        not (t.is_punct or t.pos_ in ("ADV", "ADJ")) for t in tokens if t.i < into.i
    ):
        return []  # "Drove into town": a way, not a liking
    if subject is not None and (subject.head.lemma_ != "be" or subject.head.tag_ == "VBD"):
        return []  # "we were really into skateboarding": a liking gone by
    if subject is not None and any(c.dep_ == "neg" for c in subject.head.children):
        return []  # "I'm not really into hiking": no liking to ask after
    me, do, _ = _subject_words(who, subject.lower_ if subject is not None else "i")
    when = {t.i for c in thing.children if c.dep_ == "npadvmod" for t in c.subtree}
    said = " ".join(
        t.text if t.pos_ == "PROPN" else t.lower_
        for t in thing.subtree
        if not t.is_punct and t.i not in when  # "bouldering these days": no when
    )
    am = "are" if me == "we" else ("is" if who else "am")
    return [f"what {am} {me} into", f"{do} {me} like {said}"]


def _day_word(token: Token) -> bool:
    """A word of a day said after an age ("70 next month", "65 in June", "90 on Sunday")."""
    return token.ent_type_ == "DATE" or token.lower_ in ("in", "on", "next", "this")


def _gadget_of_mine(tokens: list[Token], who: str | None) -> list[str]:
    """ "Picked up a secondhand Kia Niro EV", "My Nexon is making a rattling noise",
    "Finally upgraded, got a Pixel 8": a car, phone or laptop of the speaker's, named by
    its make or model and never by its kind, asked as one ("what car do I drive", "what
    phone do I have"); not one sold, one denied or someone else's."""
    if any(
        t.lemma_.lower() in ENDING_VERBS or t.lemma_.lower() == "replace" or t.dep_ == "neg"
        for t in tokens
    ):
        return []  # "I finally replaced the old Fiesta": gone, not mine now
    for token in tokens:
        kind = _gadget_named(token)
        if kind is None:
            continue
        head = token
        while head.dep_ in ("compound", "amod", "nmod", "nummod") and head.head.i != head.i:
            head = head.head
        if any(c.lower_ in ("old", "previous", "former") for c in head.children):
            continue  # "my old Fiesta": the one before
        if head.i != token.i and not (
            _gadget_named(head) == kind
            or head.lower_ in _GADGET_ENDINGS
            or any(ch.isdigit() for ch in head.text)
        ):
            continue  # "The Golf course was packed": a course, not a car
        mine = any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in head.children)
        verb = head.head
        # "Ended up with a 2017 Skoda Octavia estate", "went with a Kia", "settled on"
        chose = head.dep_ == "pobj" and verb.lower_ in ("with", "on")
        if chose:
            verb = verb.head
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        by_me = subject is None or subject.lower_ in ("i", "we")
        if chose:
            had = verb.lemma_.lower() in ("end", "go", "settle") and by_me
        else:
            had = head.dep_ == "dobj" and verb.lemma_.lower() in _HAVING and by_me
        # "Booked the Peugeot 208 in for a service", "The Corsa failed its MOT": the car
        # one's own talk calls "the" is one's own
        known = any(c.dep_ == "det" and c.lower_ == "the" for c in head.children) and (
            head.dep_ == "nsubj" or head.dep_ == "dobj" and by_me
        )
        if mine or had or known:
            me, do, _ = _subject_words(who, subject.lower_ if subject is not None else "i")
            # one question: each more would count the kind's word again in every
            # question about it ("who services my car")
            return [f"what {kind} {do} {me} {'drive' if kind == 'car' else 'have'}"]
    return []


def _pet_by_breed(tokens: list[Token], who: str | None) -> list[str]:
    """ "Our cockapoo Bramble is two next month", "Got a labrador puppy", "My dog Biscuit
    is a beagle": a pet of the speaker's named by its breed, asked as the kind of animal
    it is ("what breed is my dog", "what is my dog's name"); not someone else's."""
    for token in tokens:
        kind = _breed_kind(token)
        if kind is None:
            continue
        head = token
        while head.dep_ in ("compound", "amod", "nmod") and head.head.i != head.i:
            head = head.head  # "a labrador puppy"
        verb = head.head
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        mine = any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in head.children)
        by_me = subject is None or subject.lower_ in ("i", "we")
        had = head.dep_ == "dobj" and verb.lemma_.lower() in _PET_TAKING and by_me
        # "My dog Biscuit is a beagle": the breed of a pet already called mine
        of_mine = (
            head.dep_ == "attr"
            and subject is not None
            and any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in subject.children)
        )
        if not (mine or had or of_mine) or any(t.dep_ == "neg" for t in tokens):
            continue
        me, do, my = _subject_words(who, "i")
        out = [f"what breed is {my} {kind}", f"what pets {do} {me} have"]
        # "Our cockapoo Bramble", "My dog Biscuit", "a greyhound called Pip": its name
        # (the small tagger reads "Bramble" as an adjective, and "Our cat Miso" as two
        # subjects)
        owner = subject if of_mine else head
        named = any(
            (t.pos_ == "PROPN" or (t.dep_ == "appos" and t.text[:1].isupper()))
            and _breed_kind(t) is None
            for t in [*owner.subtree, *(c for c in verb.children if c.dep_ == "nsubj")]
            if t.i != owner.i or t.pos_ == "PROPN"
        )
        if named or any(t.lower_ in ("called", "named") for t in tokens):
            out.append(f"what is {my} {kind}'s name")
        return out
    return []


def _breed_kind(token: Token) -> str | None:
    word = token.lower_
    if word in DOG_BREEDS:
        return "dog"
    if word in CAT_BREEDS and (word != "coon" or token.doc[token.i - 1].lower_ == "maine"):
        return "cat"
    return None


_PET_TAKING = word_set("have get adopt rescue buy pick bring own")
_HAVING = word_set("drive have get buy pick own lease hire rent collect order finance use")
# what a name may end on: "a Kia Niro EV", "a Skoda Octavia estate", "a Pixel 8 Pro"
_GADGET_ENDINGS = word_set(
    "ev estate hatchback hybrid electric diesel saloon convertible suv van pro max plus mini air"
)
_GADGETS = (
    ("car", CAR_MAKES, CAR_MODELS),
    ("phone", PHONE_NAMES, ()),
    ("laptop", LAPTOP_NAMES, ()),
)


def _gadget_named(token: Token) -> str | None:
    """The kind ("car", "phone", "laptop") a make or model names: a make is a word of a
    dictionary only when capitalised ("Seat", "Pixel"), a model only capitalised
    ("Corolla"; "golf" is a game) or after its make ("Peugeot 208")."""
    word = token.lower_
    for kind, makes, models in _GADGETS:
        if word in makes:
            if (
                token.text[:1].isupper()
                or token.text[1:2].isupper()
                or not dictionary_word(token.text)
            ):
                return kind
        elif word in models and (
            token.text[:1].isupper()
            or any(t.lower_ in makes for t in token.doc[max(0, token.i - 2) : token.i])
        ):
            return kind
    return None


def _counted_kin(tokens: list[Token], who: str | None) -> list[str]:
    """ "Two kids, Maya 7 and Leo 4": a count of family said without "I have", asked as
    how many, and by their names and ages when they follow."""
    root = counted_family(tokens)
    if root is None or any(c.dep_ in ("nsubj", "nsubjpass") for c in root.children):
        return []
    me, do, my = _subject_words(who, "i")
    kind = root.lower_
    out = [f"how many {kind} {do} {me} have"]
    if any(t.pos_ == "PROPN" and t.i > root.i for t in tokens):
        out.append(f"what are {my} {kind} called")
    if any(t.like_num and t.i > root.i for t in tokens):
        out.append(f"how old are {my} {kind}")
    return out


def _born(tokens: list[Token], who: str | None) -> list[str]:
    """ "Born in Lagos but grew up in Croydon", "I was born in 1990": where or when the
    speaker was born, and where they grew up, asked as one asks it (never "where do I
    bear"). Only of the speaker: no one else is said to be born here."""
    me, _, _ = _subject_words(who, "i")
    out: list[str] = []
    for verb in tokens:
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is not None and subject.lower_ not in ("i", "we"):
            continue
        if verb.lower_ == "born":
            for pobj in (g for c in verb.children if c.lower_ == "in" for g in c.children):
                if pobj.ent_type_ == "DATE" or pobj.like_num:
                    out += [f"when was {me} born", f"how old {'is' if who else 'am'} {me}"]
                elif _place_name(pobj):
                    out += [f"where was {me} born", f"where {'is' if who else 'am'} {me} from"]
        elif (
            verb.lemma_ == "grow"
            and any(c.lower_ == "up" for c in verb.children)
            and any(c.lower_ == "in" for c in verb.children)
        ):
            out.append(f"where did {me} grow up")
    return out


def _from_originally(tokens: list[Token], who: str | None) -> list[str]:
    """ "Originally from Galway": where the speaker is from."""
    root = next((t for t in tokens if t.dep_ == "ROOT"), None)
    if root is None or root.lower_ != "from" or not any(t.lower_ == "originally" for t in tokens):
        return []
    me, _, _ = _subject_words(who, "i")
    return [f"where {'is' if who else 'am'} {me} from"]


def _kin_couple(tokens: list[Token]) -> str | None:
    """ "My mum and dad", "Grandma and Grandad" as the subject: "parents",
    "grandparents"; None otherwise."""
    verb = next((t for t in tokens if t.dep_ == "ROOT"), None)
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None) if verb else None
    if subject is None:
        return None
    words = {subject.lower_} | {c.lower_ for c in subject.children if c.dep_ == "conj"}
    for one, other, both in _COUPLES:
        if words & one and words & other:
            return both
    return None


def _couple_questions(tokens: list[Token], couple: str, who: str | None) -> list[str]:
    """Where my parents live, and who they are: what "my mum and dad" are asked after."""
    owner = f"{who}'s" if who else "my"
    verb = next(t for t in tokens if t.dep_ == "ROOT")
    out = [f"who are {owner} {couple}"]
    if verb.lemma_.lower() in ("live", "be", "move", "stay") and any(
        c.dep_ == "prep" and c.lower_ in ("in", "to", "near") for c in verb.children
    ):
        out.insert(0, f"where do {owner} {couple} live")
    return out


def _introduces(reading: Reading) -> bool:
    """ "I'm Marta", "I am Tomás Ruiz", "name's Ade", "call me Jo": the speaker's name,
    said of the speaker (a proper noun as the complement of "I am", or after "call me")."""
    for token in reading.doc:
        if token.pos_ != "PROPN" or token.ent_type_ in ("DATE", "TIME", "NORP"):
            continue
        head = token.head
        if token.dep_ in ("attr", "acomp") and head.lemma_ == "be":
            subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
            if subject is not None and subject.lower_ == "i":
                return True
        if head.lemma_ == "call" and any(c.lower_ == "me" for c in head.children):
            return True
    return False


LEAD_IN = re.compile(
    r"^(?:(?:also|and|so|but|of course|sure thing|got it|great|perfect|nice|cool|absolutely|"
    r"definitely|no problem|" + "|".join(sorted(INTERJECTIONS)) + r")[,!.]?\s+"
    # "Lovely, whereabouts?": praise or a nod, set off by its comma ("Congrats on Noodle!"
    # keeps what it congratulates)
    r"|(?:lovely|wonderful|amazing|awesome|fantastic|brilliant|excellent|how exciting|"
    r"how lovely|congrats|congratulations|noted|understood|okay|ok)[,!.]\s+)+",
    re.IGNORECASE,
)


def answered_question(question: str, *, who: str | None) -> str:
    """The question a statement answers, asked as the speaker would ask it later
    ("What do you drive?" -> "what do I drive", "Do you have any pets?" -> "do I have
    any pets", "What concert was it?" as asked); "" when it is not one a later question
    could name: it must name a thing (a noun or a name), ask one question, and not be
    an offer ("Would you like ...", "Want me to ...") or about the asker."""
    question = " ".join(question.split()).strip()
    question = LEAD_IN.sub("", question)  # "Sure, when's the appointment?"
    # "What do you do, if you don't mind me asking?": the courtesy is no part of it
    question = re.sub(r",\s*if\b[^,?]*\?$", "?", question, flags=re.IGNORECASE)
    # "How long have you been teaching, and what kind of students ...?": two questions;
    # a short answer answers the first
    question = re.sub(
        r",?\s+(?:and|or)\s+(?:what|where|who|when|which|how)\b[^?]*\?$",
        "?",
        question,
        flags=re.IGNORECASE,
    )
    # "Any allergies I should know about?": what the asker should know is no part of it
    question = re.sub(
        r",?\s+(?:that\s+)?I\s+(?:should|need to|ought to|must)\s+(?:know|be aware)"
        r"(?:\s+(?:about|of))?\?$",
        "?",
        question,
    )
    if len(question) > 90 or not question.endswith("?"):
        return ""
    # "Have you been playing long?" asks how long
    question = re.sub(
        r"^(?i:(have|has) you been) (.+?) (?i:for )?long\?$",
        r"How long have you been \2?",
        question,
    )
    wh = re.match(r"^(what|where|who|when|which|how)\b", question, re.IGNORECASE)
    yes_no = re.match(
        r"^(?i:(?:do|did|have|are|were|was|is|can|will) you|any|anything|got any)\b"
        # "Is Kez your partner?": whether someone named is the speaker's someone
        r"|^(?i:is|are|was|were) [A-Z][\w'-]*(?: (?i:and) [A-Z][\w'-]*)? (?i:your)\b",
        question,
    )
    if not wh and not yes_no:
        return ""
    if _OFFER.search(question):
        return ""  # the asker's offer, not a question about the speaker
    if re.search(r"\b(?:and|or) (?:what|where|who|when|which|how)\b", question, re.IGNORECASE):
        return ""  # two questions in one: neither is a cue on its own
    if re.search(r"\b(?:I|me|my)\b", question) or (
        re.search(r"\b(?:we|us)\b", question, re.IGNORECASE) and not _names_a_thing(question)
    ):
        # "What can I do for you?": about the asker, not the speaker; a "we" with a
        # thing named ("How many cats are we dealing with?") is the speaker's
        return ""
    if not (wh and _YOU.search(question)) and not _names_a_thing(question):
        return ""  # "What's going on?", "Did you just get it?": asks after nothing named
    me, my = (who, f"{who}'s") if who else ("I", "my")
    swap = {"you": me, "your": my, "yours": my, "yourself": me}

    def replace(m: re.Match[str]) -> str:
        return swap[m.group(1).lower()]

    text = re.sub(r"\bare you\b", f"is {who}" if who else "am I", question, flags=re.IGNORECASE)
    text = re.sub(r"\bwere you\b", f"was {who}" if who else "was I", text, flags=re.IGNORECASE)
    text = re.sub(r"\byou(?:'|’)re\b", f"{who} is" if who else "I'm", text, flags=re.IGNORECASE)
    text = re.sub(r"\byou(?:'|’)ve\b", f"{who} has" if who else "I've", text, flags=re.IGNORECASE)
    if who:
        text = re.sub(r"\bdo you\b", f"does {who}", text, flags=re.IGNORECASE)
        text = re.sub(r"\bhave you\b", f"has {who}", text, flags=re.IGNORECASE)
    text = _YOU.sub(replace, text).strip()
    text = text[:1].lower() + text[1:]
    # a wh- or do/did/are question is question-shaped as it stands; "any plans for the
    # summer?" keeps its question mark
    return text.rstrip("?").strip() if wh or not text.startswith(("any", "got")) else text


_OFFER = re.compile(
    r"\b(?:would you like|do you want|want me|shall i|should i|can i|let me|"
    r"how about you|what about you|you too)\b",
    re.IGNORECASE,
)


def offers(question: str) -> bool:
    """The question offers the speaker something ("Should I update your bio?", "Want
    me to draft it?") rather than asks about them."""
    return bool(question) and _OFFER.search(question) is not None


def _names_a_thing(question: str) -> bool:
    return any(
        t.pos_ in ("NOUN", "PROPN")
        and t.lemma_.lower() not in VAGUE_NOUNS
        and t.lower_ not in ("you", "anything", "something")
        for t in parse(question)
    )


def _roster_cues(text: str) -> list[str]:
    if text.lstrip().startswith(("- ", "* ", "• ")):  # items without a heading
        heading, rest = "", text
    else:
        heading, _, rest = text.partition(":")
    lines = [line.strip(" -") for line in rest.split("\n") if line.strip(" -")]
    if len(lines) <= 1:
        lines = [
            p.strip()
            for p in re.split(r",\s*(?:and\s+)?|\s+and\s+(?=\w+\s+(?:is|are|does|do|'s)\b)", rest)
            if p.strip()
        ]
    cues = [" ".join(text.split())[:_CUE_CHARS]]
    title = re.sub(r"^(?:for|about|on)\s+", "", heading.strip(), flags=re.IGNORECASE)
    words = title.split()
    if (
        0 < len(words) <= 5
        and "\n" not in title
        and not re.search(r"\b(?:is|are|do|does|did|split|'s)\b", title.lower().replace("'s ", " "))
    ):
        lowered = title[:1].lower() + title[1:]
        article = "" if re.match(r"(?:my|our|the|his|her|their|\w+'s)\b", lowered) else "the "
        cues.append(f"what is {article}{lowered}")
    for line in lines[:MAX_ROSTER_ITEMS]:  # each item as said, then what it answers
        said = f"{heading.strip()}: {line.rstrip('.')}" if heading.strip() else line.rstrip(".")
        cues.append(said[:_CUE_CHARS])
        cues += _item_questions(title, line.rstrip("."))
    return list(dict.fromkeys(cues))


def _item_questions(title: str, item: str) -> list[str]:
    """The questions one roster item answers, from its parse: "Saturday evening: Bruno"
    -> "who is on Saturday evening"; "Aisha does the bins" -> "what does Aisha do",
    "who does the bins"; "Grace is bringing lasagna" -> "what is Grace bringing", "who is
    bringing lasagna"; "Mondays I drive" -> "who drives on Mondays"; "350g water" in a
    recipe -> "how much water is in my sourdough recipe". Nothing when the item is not
    one of these shapes."""
    key, colon, value = item.partition(":")
    if colon and 0 < len(key.split()) <= 4 and value.strip():
        names = parse(value.strip())
        people = all(t.pos_ in ("PROPN", "CCONJ", "PUNCT") for t in names) and any(
            t.pos_ == "PROPN" for t in names
        )
        key = key.strip()
        key = (
            key
            if key[:1].isupper() and parse(key)[0].pos_ == "PROPN"
            else key[:1].lower() + key[1:]
        )
        keyed = parse(key)
        if not people and not any(
            t.ent_type_ in ("DATE", "TIME") or t.like_num or t.pos_ == "PROPN" for t in keyed
        ):
            return []  # "monstera: every 10 days": not something one is "on"
        if not people and all(
            t.pos_ == "PROPN" and t.ent_type_ not in ("DATE", "TIME") for t in keyed
        ):
            return [f"what does {key} do"]  # "Leo: swimming on Mondays", not "what is on Leo"
        return [f"{'who' if people else 'what'} is on {key}"]
    doc = parse(item)
    verb = next((t for t in doc if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    if verb is None:
        first = doc[0] if len(doc) else None
        noun = next((t for t in doc if t.pos_ == "NOUN" and t.dep_ in ("ROOT", "appos")), None)
        quantity = first is not None and (first.like_num or first.ent_type_ == "QUANTITY")
        if quantity and noun is not None and title:
            lowered = title[:1].lower() + title[1:]
            words = [t.lower_ for t in noun.lefts if t.dep_ == "compound" and len(t) > 2]
            return [f"how much {' '.join([*words, noun.lower_])} is in {lowered}"]
        return []
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subject is None or subject.lower_ in ("it", "this", "that", "there"):
        return []
    who = " ".join(t.text for t in subject.subtree)
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    aux = next((c for c in verb.children if c.dep_ == "aux"), None)
    out = []
    if obj is not None and verb.lemma_ != "be":
        thing = " ".join(t.text for t in obj.subtree)
        if verb.tag_ == "VBG" and aux is not None:
            be = {"'m": "am", "'re": "are", "'s": "is"}.get(aux.lower_, aux.lower_)
            out += [f"what {be} {who} {verb.lower_}", f"who is {verb.lower_} {thing}"]
        elif verb.tag_ in ("VBZ", "VBP"):
            do = (
                "do"
                if subject.lower_ in ("i", "we", "you", "they") or subject.tag_ == "NNPS"
                else "does"
            )
            out += [f"what {do} {who} {verb.lemma_.lower()}", f"who {_third(verb)} {thing}"]
    elif obj is None and verb.tag_ in ("VBZ", "VBP"):
        when = next(
            (c for c in verb.children if c.dep_ == "npadvmod" or c.ent_type_ == "DATE"), None
        )
        if when is not None:
            out.append(f"who {_third(verb)} on {when.text}")
    return out


def _third(verb: Token) -> str:
    """The verb as "who ..." asks it: "drive" -> "drives", "do" -> "does"."""
    if verb.tag_ == "VBZ":
        return verb.lower_
    lemma = verb.lemma_.lower()
    if lemma in ("do", "go"):
        return lemma + "es"
    if lemma == "have":
        return "has"
    if lemma.endswith(("s", "sh", "ch", "x", "z")):
        return lemma + "es"
    if lemma.endswith("y") and lemma[-2:-1] not in "aeiou":
        return lemma[:-1] + "ies"
    return lemma + "s"


def _subject_words(who: str | None, person: str) -> tuple[str, str, str]:
    """(subject, do-form, possessive) for the speaker: I / do / my, or Name / does / Name's."""
    if who:
        return who, "does", f"{who}'s"
    return ("we", "do", "our") if person == "we" else ("I", "do", "my")


def _questions(tokens: list[Token], who: str | None) -> list[str]:
    out: list[str] = []
    verb = next((t for t in tokens if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    if verb is None:
        return out
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    # (only a verb that opens the sentence: asking "Just sold my bike" what was sold made
    # it the nearest cue to many a question of a long history, README "Without a model")
    implicit = (
        subject is None
        and tokens[0].i == verb.i
        and (verb.tag_ in ("VBD", "VBN") or verb.lower_ == "got")  # "Got" is tagged VB too
        and not done_to_their_own(verb)
    )
    # "Me and my friend Fiona are going to Lisbon", "Tom and I moved": we
    together = subject is not None and (
        subject.lower_ == "me"
        or any(c.dep_ == "conj" and c.lower_ in ("i", "me") for c in subject.children)
    )
    first_person = implicit or together or (subject is not None and subject.lower_ in ("i", "we"))
    past = (
        verb.tag_ == "VBD"
        or implicit  # "Signed up for ...", "Got a Kindle": what I did
        or any(c.tag_ == "VBD" for c in verb.children if c.dep_ == "aux")
    )
    person = "i" if together else (subject.lower_ if subject is not None else "i")
    me, do, my = _subject_words(who, person)
    do = "did" if past else do
    lemma = "get" if verb.lower_ == "got" else verb.lemma_.lower()  # tagged VB, its own lemma
    if lemma == "get" and any(c.lemma_ == "have" and c.dep_ == "aux" for c in verb.children):
        lemma, do = "have", ("do" if do == "did" else do)  # "I've got an interview": I have one
    obj = next((c for c in verb.children if c.dep_ in ("dobj",) and c.pos_ == "NOUN"), None)
    if obj is not None and obj.lemma_.lower() in VAGUE_NOUNS:
        obj = None
    ents = list(tokens[0].doc.ents)
    product = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "PROPN"), None)
    if (
        first_person
        and product is not None
        and lemma not in ("be", "have", "do")
        and lemma not in ENDING_VERBS
        and rule_for(tokens, "hedge") is None
    ):
        name = " ".join(t.text for t in product.subtree if t.pos_ in ("PROPN", "NUM"))
        perfect = any(c.lemma_ == "have" and c.dep_ == "aux" for c in verb.children)
        out.append(f"what did {me} {lemma}" if past or perfect else f"what {do} {me} {lemma}")
        if lemma not in ("do", "get") and rule_for(tokens, "hedge") is None:
            out.append(
                f"{'did' if past or perfect else do} {me} {lemma} {name}"
            )  # "did I read Hyperion"
        if any(e.label_ == "MONEY" for e in ents):
            out.append(f"how much did the {name} cost")
        if any(e.label_ in _PLACE for e in ents if e.root.head.lower_ in ("from", "at")):
            out.append(f"where did {me} {lemma} the {name}")

    if first_person and lemma not in ("be", "have") and verb.pos_ == "VERB":
        if lemma == "do" and any(c.dep_ == "dobj" and c.pos_ != "PRON" for c in verb.children):
            # "I'm doing the esky and all the food": "do" says nothing of its object, the
            # question asks what I do (or do then: "on Wednesdays")
            be = "are" if person == "we" else ("is" if who else "am")
            doing = verb.tag_ == "VBG"
            out.append(f"what {be} {me} doing" if doing else f"what {do} {me} do")
            when = _time_said(verb)
            if when:
                out.append(f"what {be} {me} doing {when}" if doing else f"what {do} {me} do {when}")
        if obj is not None:
            noun = _noun_phrase(obj)
            # ("I hate coriander": a thing said bare is no one of a kind, "what do I hate")
            bare = not any(c.dep_ in ("det", "poss", "nummod", "compound") for c in obj.children)
            if lemma not in ("name", "call", "do"):  # "what did we name the kitten" instead
                out.append(f"what {do} {me} {lemma}" if bare else f"what {noun} {do} {me} {lemma}")
            for prep in (c for c in verb.children if c.dep_ == "prep"):
                pobj = next((g for g in prep.children if g.dep_ == "pobj"), None)
                if pobj is None:
                    continue
                if prep.lower_ in _WHERE_PREPS and _place_name(pobj):
                    out.append(f"where {do} {me} {lemma} {my} {noun}")
                if pobj.ent_type_ == "MONEY" or (prep.lower_ == "for" and pobj.like_num):
                    out.append(f"how much {'did' if past else 'does'} {my} {noun} cost")
            if any(e.label_ == "DATE" for e in ents) and past:
                out.append(f"when {do} {me} {lemma} {my} {noun}")
        else:
            for prep in (c for c in verb.children if c.dep_ == "prep"):
                pobj = next((g for g in prep.children if g.dep_ in ("pobj", "dep")), None)
                if pobj is None:
                    continue
                if _partner_of(verb, prep, pobj):
                    be = "is" if who else ("are" if person == "we" else "am")
                    out.append(f"who {be} {me} {verb.lower_} to")  # "Married to Ewa"
                    break
                if prep.lower_ == "to" and lemma in _SWITCHING:
                    out.append(f"what {_asked(verb, do, me, lemma, who, person)} to")
                    break  # "switched to a Fairphone": what to, not where
                if prep.lower_ in _WHERE_PREPS and _place_name(pobj):
                    out.append(f"where {_asked(verb, do, me, lemma, who, person)}")
                    break
                # a noun ("jazz" is sometimes tagged a verb, but it is the preposition's object)
                passive = verb.tag_ == "VBN" and any(
                    c.dep_ in ("aux", "auxpass") and c.lemma_ in ("be", "get")
                    for c in verb.children
                )  # "I got promoted to ...": no "what do I promote to"
                phrasal = any(c.dep_ == "prt" for c in verb.children)
                if (
                    not passive
                    and (
                        pobj.pos_ in ("NOUN", "VERB")
                        # "ended up with a Honda Civic": a thing's name (not a person's)
                        or phrasal
                        and pobj.pos_ == "PROPN"
                        and pobj.ent_type_ != "PERSON"
                    )
                    and pobj.lemma_.lower() not in VAGUE_NOUNS
                    # "met on the 2nd of February": a day, not a thing met on
                    and pobj.ent_type_ not in ("DATE", "TIME", "ORDINAL", "CARDINAL")
                    and prep.lower_ in ("to", "with", "on", "about")
                ):
                    particle = "".join(f" {c.lower_}" for c in verb.children if c.dep_ == "prt")
                    # "what do I listen to", "what did I end up with"
                    out.append(f"what {do} {me} {lemma}{particle} {prep.lower_}")
                    break
            # "I climb at Boulder Barn": the parser may hang the place off the verb directly
            # (and "going to Whitby" as "going to <do>": xcomp)
            place = next(
                (c for c in verb.children if c.dep_ in ("dep", "xcomp") and c.pos_ == "PROPN"),
                None,
            )
            if place is not None and not out:
                out.append(f"where {_asked(verb, do, me, lemma, who, person)}")
    if first_person and lemma == "be":
        attr = next((c for c in verb.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
        # ("lactose intolerant": the small tagger may call the complement a noun)
        acomp = next(
            (c for c in verb.children if c.dep_ == "acomp" and c.pos_ in ("ADJ", "NOUN")), None
        )
        be = "is" if who else ("are" if person == "we" else "am")
        if (
            attr is not None
            and attr.lemma_.lower() not in NO_JOBS  # "a huge Arsenal fan"
            and any(e.label_ == "ORG" for e in ents)
        ):
            out.append(f"what is {my} job")
        kind = _kind_of_person(attr)
        if kind:
            # "I'm a type 2 diabetic", "I'm a night owl": a kind of person, asked whether
            out.append(f"{be} {me} {'an' if kind[:1] in 'aeiou' else 'a'} {kind}")
        if acomp is None:
            # "I'm vegan", "I'm coeliac": a bare word says what I am, as "vegetarian" does
            acomp = next(
                (
                    c
                    for c in verb.children
                    if c.dep_ == "attr"
                    and c.pos_ in ("ADJ", "NOUN")
                    # (", which explains a lot": what follows says more of it, not what)
                    and all(g.dep_ in ("relcl", "punct") for g in c.children)
                ),
                None,
            )
        # "I'm dairy-free", "she is gluten-free": the whole word, whatever its parts' tags
        joined = next(
            (w for c in verb.children if c.dep_ in ("acomp", "oprd") and (w := hyphenated(c))),
            "",
        )
        if joined:
            out.append(f"{be} {me} {joined}")
        elif acomp is not None and acomp.lower_ not in FEELINGS:
            prep = next((c for c in acomp.children if c.dep_ == "prep"), None)
            pobj = next((g for g in prep.children if g.dep_ == "pobj"), None) if prep else None
            if prep is not None and pobj is not None and _partner_of(acomp, prep, pobj):
                out.append(f"who {be} {me} {acomp.lower_} to")  # "I'm married to Ewa"
            elif any(
                c.dep_ == "prep" and c.lower_ == "since" for c in [*acomp.children, *verb.children]
            ):
                # "I've been vegetarian since uni": how long, and whether I am
                have = "has" if who else "have"
                out += [f"how long {have} {me} been {acomp.lower_}", f"{be} {me} {acomp.lower_}"]
            elif prep is not None:
                out.append(f"what {be} {me} {acomp.lower_} {prep.lower_}")  # allergic to
            elif not any(c.dep_ == "xcomp" for c in acomp.children):  # not "able to ..."
                said = " ".join(
                    t.lower_
                    for t in acomp.subtree
                    if t.i <= acomp.i
                    and t.pos_ in ("ADJ", "NOUN")
                    # "5 months pregnant": whether I am pregnant, not "months pregnant"
                    and not any(c.dep_ == "nummod" for c in t.children)
                )
                if said:
                    out.append(f"{be} {me} {said}")  # "am I vegetarian", "am I lactose intolerant"
        for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ in ("on", "in")):
            group = next((g for g in prep.children if g.dep_ == "pobj" and g.pos_ == "NOUN"), None)
            if group is not None and group.lemma_.lower() in _GROUPS:
                out.append(f"what {_noun_phrase(group)} {be} {me} {prep.lower_}")  # team I'm on
    modal = next((c for c in verb.children if c.dep_ == "aux" and c.tag_ == "MD"), None)
    thing = obj if obj is not None else product
    if (
        first_person
        and thing is not None
        and modal is not None
        and modal.lower_ in ("might", "may")
    ):
        # a hedge asked as one: "I might buy a Peloton" -> "what might I buy"
        out.append(f"what {modal.lower_} {me} {lemma}")
    if (
        first_person
        and lemma in ENDING_VERBS
        and product is not None
        and (verb.tag_ == "VBD" or implicit)
    ):
        out.append(f"did {me} {lemma} {' '.join(t.text for t in product.subtree)}")  # left Unilever
    # "I have eczema": the small tagger calls a lower-case word it does not know a name
    had = obj or next(
        (c for c in verb.children if c.dep_ == "dobj" and c.tag_ == "NNP" and c.text.islower()),
        None,
    )
    if first_person and lemma == "have" and had is not None and had is not obj:
        out.append(f"{do} {me} have {had.lower_}")
    if first_person and lemma == "have" and obj is not None:
        if obj.tag_ == "NN" and not any(c.dep_ in ("det", "poss", "nummod") for c in obj.children):
            # "I have asthma": whether I have it, not which asthma
            out.append(f"{do} {me} have {_noun_phrase(obj)}")
        elif not any(c.dep_ == "nummod" for c in obj.children):  # "two kids": how many
            out.append(f"what {_noun_phrase(obj)} {do} {me} have")
    if lemma == "be":
        out.extend(_dated_occasion(verb, who))
    if subject is None and tokens[0].i == verb.i and verb.tag_ == "VBG":
        out.extend(_dated_plan(verb, who))
    if first_person and lemma in ("get", "have"):
        out.extend(_got_done(verb, _asked(verb, do, me, lemma, who, person), who))
    if first_person:
        out.extend(_counted_named_dated(tokens, verb, lemma, me=me, do=do, my=my, past=past))
        out.extend(_how_often_how_long(tokens, verb, lemma, me=me, do=do))
    if subject is not None and not first_person:
        out.extend(_about_someone(subject, verb, tokens, who))
    for name in _person_names(tokens, subjects_only=True):
        out.append(f"who is {name}")
    if any(t.lemma_.lower() in ENDING_VERBS for t in tokens):
        out.extend(f"what happened with {name}" for name in _person_names(tokens))
    for other in tokens:  # "My friend Carla is obsessed ..., she's flying ...": Carla too
        if (
            other.dep_.startswith("nsubj")
            and other is not subject
            and other.i != getattr(subject, "i", -1)
        ) and any(c.dep_ == "appos" and c.ent_type_ == "PERSON" for c in other.children):
            out.extend(_about_someone(other, other.head, tokens, who))
    return out


_JOB_VERBS = word_set("work")
_ANIMALS = word_set("dog cat kitten puppy pet rabbit hamster horse parrot tortoise")
_TRADE_VERBS = word_set("teach lecture tutor")
# "I drive for Uber", "I deliver for Deliveroo": a service done for a named firm
_SERVICE_VERBS = word_set("drive deliver ride clean cook write freelance")
# "I run a small bakery", "we own a garage": a business one keeps is one's work
_KEEPING = word_set("run own manage")
_BUSINESSES = word_set(
    "business company shop bakery cafe café restaurant salon studio stall pub bar clinic "
    "practice firm agency store garage farm startup boutique nursery takeaway brewery "
    "bookshop gym hostel hotel workshop consultancy"
)
_TAKING_UP = word_set("join start")


# what one is that is no work: a diet, a habit, a condition
def _as_role(prep: Token | None) -> bool:
    """ "as a firmware engineer": a noun after "as", no name or number."""
    noun = next((c for c in prep.children if c.dep_ == "pobj"), None) if prep else None
    return noun is not None and noun.pos_ == "NOUN" and noun.lemma_.lower() not in VAGUE_NOUNS


def _named_place(head: Token, preps: str = "at in for", *, objects: bool = True) -> bool:
    """A name hung on ``head`` by "at", "in" or "for", or as its object ("joined
    Tarangini Robotics"): a workplace, when the clause names a post."""
    for child in head.children:
        if objects and child.dep_ == "dobj" and child.pos_ == "PROPN" and head.lemma_ != "be":
            return True
        if child.dep_ == "prep" and child.lower_ in preps.split():
            pobj = next((g for g in child.children if g.dep_ == "pobj"), None)
            if pobj is not None and pobj.pos_ == "PROPN" and pobj.ent_type_ not in ("DATE", "TIME"):
                return True
    return False


_NAMING = word_set("call name")
_NOT_NAMES = frozenset(("GPE", "LOC", "FAC", "ORG", "DATE", "TIME", "MONEY", "NORP", "PRODUCT"))
_NOT_PEOPLE = frozenset(("GPE", "LOC", "FAC", "DATE", "TIME", "MONEY", "NORP"))


def _home_questions(tokens: list[Token], who: str | None) -> list[str]:
    """ "Signed the lease on a flat in Stoneybatter", "we bought a house in Frome": a
    home taken by the speaker in a named place answers where the speaker lives (not
    one stayed in: "a flat in Lisbon for a week")."""
    verb = next((t for t in tokens if t.dep_ == "ROOT" and t.pos_ == "VERB"), None)
    if _is_question_sentence(tokens):
        return []
    if my_home_in(tokens) is not None:
        me, do, _ = _subject_words(who, "i")
        return [f"where {do} {me} live"]
    if verb is None or verb.lemma_.lower() not in _HOME_TAKING:
        return []
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is not None and subject.lower_ not in ("i", "we"):
        return []
    # ("a flat" is tagged an adjective now and then: its role says it is a thing)
    homes = [
        t
        for t in tokens
        if t.lemma_.lower() in DWELLINGS and (t.pos_ == "NOUN" or t.dep_ in ("pobj", "dobj"))
    ]
    if not homes or any(
        c.dep_ == "poss" and c.lower_ not in ("my", "our") for h in homes for c in h.children
    ):
        return []  # "my parents' house in Cork"
    if any(t.dep_ == "pobj" and t.pos_ == "PROPN" and t.head.lower_ == "in" for t in tokens):
        me, do, _ = _subject_words(who, "i")
        return [f"where {do} {me} live"]
    return []


_PLACES_OF_STUDY = word_set("uni university college school academy sixth-form")
_HOME_TAKING = word_set("sign buy rent lease own purchase find get move")
_GOING = word_set("go visit travel get fly head see")


def _switched_questions(tokens: list[Token], who: str | None) -> list[str]:
    """ "Switched dentists, I'm with Dr Okoro now": who (or what) my dentist is now."""
    kind = switched_kind(tokens)
    if kind is None:
        return []
    person = any(
        t.ent_type_ == "PERSON" or t.lower_.rstrip(".") in _TITLES for t in tokens if t.i > kind.i
    )
    _, _, my = _subject_words(who, "i")
    return [f"{'who' if person else 'what'} is {my} {kind.lemma_.lower()}"]


def _wish_questions(tokens: list[Token], who: str | None) -> list[str]:
    """ "I want to visit Japan", "I'd love to learn the cello", "Keen to get over to NZ",
    "Thinking of doing a masters": what the speaker wants to do, as asked ("what do I
    want to learn", "where do I want to go"), never what they do."""
    root = next((t for t in tokens if t.dep_ == "ROOT"), None)
    if root is None or _is_question_sentence(tokens):
        return []
    wanted = wished_for(root)
    if wanted is None:
        return []
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    if wanted.i == root.i:
        subject = None  # "Keen to ...": the wish is the subject the parser saw
    first = next(t for t in tokens if not (t.is_punct or t.pos_ == "INTJ"))
    if subject is None and first.i != root.i and first.head.i != root.i:
        return []  # said without "I" only when the wish opens the sentence
    if subject is not None and subject.lower_ not in ("i", "we"):
        return []
    me, do, _ = _subject_words(who, subject.lower_ if subject is not None else "i")
    lemma = wanted.lemma_.lower()
    place = any(
        t.ent_type_ in ("GPE", "LOC") or (t.pos_ == "PROPN" and t.dep_ == "pobj")
        for t in wanted.subtree
        if t.i > wanted.i
    )
    if place and lemma in ("move", "live", "settle"):
        return [f"where {do} {me} want to live", f"where {do} {me} want to move"]
    if place and lemma == "work":
        return [f"where {do} {me} want to work"]
    if place and lemma in _GOING:
        return [f"where {do} {me} want to go", f"where {do} {me} want to travel"]
    return [f"what {do} {me} want to {lemma}"]


_MONEY_SIGNS = frozenset("£$€₹¥") | {"R$", "A$", "C$", "NZ$", "HK$", "S$"}


_CHILDREN = word_set("kid child boy girl twin grandkid grandchild")
# what "I'm a …" says one is by habit or health ("a night owl", "a diabetic"), not a
# role taken in something ("a member", "a guest") nor a taste ("a fan")
_KINDS_OF_PERSON = NO_JOBS - {"person", "fan", "lover", "member", "guest"}


def _kind_of_person(attr: Token | None) -> str:
    """ "night owl" of "a night owl", "diabetic" of "a type 2 diabetic" (the small parser
    hangs it on "type"): a kind of person by habit or health (``NO_JOBS``), or ""."""
    if attr is None or not any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in attr.children):
        return ""
    for noun in (attr, *(c for c in attr.children if c.dep_ == "appos")):
        if noun.lemma_.lower() in _KINDS_OF_PERSON:
            nouns = [c.lower_ for c in noun.children if c.dep_ == "compound" and c.pos_ == "NOUN"]
            return " ".join([*nouns, noun.lower_])
    return ""


def _put_me_on(tokens: list[Token], who: str | None) -> list[str]:
    """ "My GP put me on sertraline", "they've started me on insulin": what the speaker
    is on now, asked as "what am I on" and "am I on sertraline"."""
    me = who or "I"
    am = "is" if who else "am"
    for verb in tokens:
        if verb.lemma_.lower() not in ("put", "start", "switch", "move") or verb.pos_ != "VERB":
            continue
        if not any(c.dep_ == "dobj" and c.lower_ == "me" for c in verb.children):
            continue
        for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ == "on"):
            thing = next((g for g in prep.children if g.dep_ == "pobj"), None)
            if (
                thing is not None
                and thing.pos_ in ("NOUN", "PROPN")
                and thing.ent_type_ not in ("DATE", "TIME")
                # ("She put me on the spot": an idiom, nothing one is on)
                and not any(c.dep_ == "det" and c.lower_ == "the" for c in thing.children)
            ):
                return [f"what {am} {me} on", f"{am} {me} on {thing.lower_}"]
    return []


def _shape_questions(tokens: list[Token], who: str | None) -> list[str]:
    """Questions the sentence's shape asks, whatever its words: a thing's figure ("Rent
    is R$ 3.900": how much is my rent; "Pickup is 7:40": what time is pickup), what a
    named person has ("Orla has speech therapy thursday": when does Orla have speech
    therapy) and where the speaker does something at a named place ("I volunteer at
    the Bow Valley food bank": where do I volunteer)."""
    if _is_question_sentence(tokens):
        return []
    verb = next((t for t in tokens if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    if verb is None:
        return []
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None:
        return []
    out: list[str] = []
    me, do, my = _subject_words(who, "i")
    said = [t for t in tokens if t.i > verb.i and not t.is_punct]
    # (up to "and" or a comma: "Grandad is 91 and still drives")
    ends = next((t.i for t in tokens if t.i > verb.i and (t.text == "," or t.dep_ == "cc")), None)
    aged = [t for t in said if ends is None or t.i < ends]
    kin = subject.lower_ in RELATIONS and (
        subject.text[:1].isupper() or any(c.lower_ in ("my", "our") for c in subject.children)
    )
    # "The kids are 7 and 10": the children's ages, asked as "how old are the kids"
    young = subject.tag_ == "NNS" and subject.lemma_.lower() in _CHILDREN
    if (
        # "Maya is 8", "Arjun is 6 now": a name and a bare count of years is an age
        verb.lemma_ == "be"
        and (subject.text[:1].isupper() or kin)
        and subject.pos_ != "PRON"  # "She's 4": whose age is the note's (cues_for's asked_as)
        and aged
        and aged[0].text.isdigit()
        and int(aged[0].text) <= 120
        and all(t.lower_ in _AGE_WORDS or _day_word(t) for t in aged[1:])
    ):
        # "Gran is 94", "my nan is 90": asked as mine; "Mum's 70 next month": and when
        whose = f"my {subject.lower_}" if kin else subject.text
        if any(_day_word(t) and t.lower_ not in _AGE_WORDS for t in aged[1:]):
            return [f"how old is {whose}", f"when is {whose}'s birthday"]
        return [f"how old is {whose}"]
    if (
        verb.lemma_ == "be"
        and young
        and aged
        and aged[0].text.isdigit()
        and int(aged[0].text) <= 18
    ):
        whose = next((c.lower_ for c in subject.children if c.dep_ == "poss"), "the")
        return [f"how old are {whose} {subject.lower_}", f"how old are {my} {subject.lower_}"]
    # "Dentist is next tuesday at 9:40": a word at the sentence's start may be tagged a name
    thing_like = subject.pos_ == "NOUN" or (
        subject.pos_ == "PROPN" and subject.i == tokens[0].i and dictionary_word(subject.text)
    )
    if verb.lemma_ == "be" and thing_like and subject.lemma_.lower() not in VAGUE_NOUNS:
        thing = _noun_phrase(subject)
        owner = next((c for c in subject.children if c.dep_ == "poss"), None)
        whose = (
            my
            if owner is None or owner.lower_ in ("my", "our")
            else f"{owner.text}'s"
            if owner.pos_ == "PROPN"
            else None
        )
        after = [t for t in tokens if t.i > verb.i]
        if whose and any(t.text in _MONEY_SIGNS or t.ent_type_ == "MONEY" for t in after):
            out.append(f"how much is {whose} {thing}")
        elif whose and any(CLOCK.match(t.text) for t in after):
            out += [f"what time is {whose} {thing}", f"when is {whose} {thing}"]
        elif whose and names_a_day(after[:4]):
            out.append(f"when is {whose} {thing}")  # "Surgery is on the 9th at 8am"
        elif whose and any(any(ch.isdigit() for ch in t.text) for t in after[:4]):
            out.append(f"what is {whose} {thing}")  # "Budget is about R14,000 a month max"
    named = _named_person(subject)
    if named and verb.lemma_ in ("have", "do") and verb.pos_ == "VERB":
        done = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "NOUN"), None)
        if done is not None and done.lemma_.lower() not in VAGUE_NOUNS:
            thing = _noun_phrase(done)
            has = {"have": "has", "do": "does"}[verb.lemma_]
            out += [f"when does {named} {verb.lemma_} {thing}", f"who {has} {thing}"]
    if subject.lower_ in ("i", "we") and verb.pos_ == "VERB" and verb.lemma_ not in ("be", "have"):
        for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ in ("at", "in")):
            if any(
                t.pos_ == "PROPN" and t.ent_type_ not in ("DATE", "TIME", "PERSON")
                for t in prep.subtree
            ):
                who_does, we_do, _ = _subject_words(who, subject.lower_)
                # in the statement's tense: "where did we meet", "where did we get married"
                do = "did" if verb.tag_ == "VBD" else we_do
                lemma = verb.lemma_.lower()
                out.append(f"where {_asked(verb, do, who_does, lemma, who, subject.lower_)}")
                break
    return out


def _up_to(token: Token) -> set[int]:
    """The token and the words of its phrase before it ("my old car")."""
    return {t.i for t in token.subtree if t.i <= token.i}


_AGE_WORDS = frozenset(("now", "already", "years", "year", "old", "yo", "and", "a", "half"))


def _clause_roles(tokens: list[Token], who: str | None) -> list[str]:
    """The role questions of the sentence's main clause, and of each other clause whose
    subject is the speaker ("Im a nurse in Mallow General, so it needs to be comfy")."""
    out = _role_questions(tokens, who)
    for verb in tokens:
        if verb.dep_ != "ROOT" and any(
            c.dep_ == "nsubj" and c.lower_ in ("i", "we") for c in verb.children
        ):
            out += _role_questions(tokens, who, verb=verb)
    return out


def _role_questions(tokens: list[Token], who: str | None, verb: Token | None = None) -> list[str]:
    """Questions the parse's roles ask in the asker's voice, whatever the words: a job
    ("I work as a paramedic", "I'm a nurse") asks "what do I do for work"; a name given
    to something ("my dog is called Biscuit") asks what it is called; a person as the
    value of "my X is ..." asks "who is my X"; a named person's verb and object ("Kofi
    teaches chemistry") ask what and where that person does it."""
    if verb is None:
        verb = next((t for t in tokens if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    if verb is None or _is_question_sentence(tokens):
        return []
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    # "Started at Monzo in March", "Starting as head chef at ...": the "I" left out
    implicit = (
        subject is None and opening_word(tokens).i == verb.i and verb.tag_ in ("VBD", "VBN", "VBG")
    )
    if subject is None and not implicit:
        return []
    out: list[str] = []
    lemma = verb.lemma_.lower()
    first = implicit or subject.lower_ in ("i", "we")
    me, do, my = _subject_words(who, subject.lower_ if first and subject is not None else "i")
    preps = {c.lower_: c for c in verb.children if c.dep_ == "prep"}
    person = _named_person(subject) if subject is not None else None
    if person is not None and not who:
        me, do, my = person, "does", f"{person}'s"
    owned = _owned(subject, who) if subject is not None else ""
    if subject is not None and not owned and not who:
        owned = _kin_of_someone(subject)  # "Noor's husband is a pilot", "my son's teacher"
    if subject is None:
        subject = verb  # no word of its own: nothing below is asked of it
    if owned and subject.lemma_.lower() in RELATIONS and not first and person is None:
        me, do, my = owned, "does", f"{owned}'s"  # "My mum is a retired nurse"
    if first or person is not None or me == owned:
        attr = next((c for c in verb.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
        # ("works nights as a midwife": the parser may hang "as" on "nights")
        works_as = lemma in _JOB_VERBS and (
            "as" in preps
            or any(
                g.dep_ == "prep" and g.lower_ == "as"
                for c in verb.children
                if c.dep_ == "dobj"
                for g in c.children
            )
        )
        is_a = (
            lemma == "be"
            and attr is not None
            # "We're a one car family": what a group is, no one's job
            and (subject is None or subject.lower_ != "we")
            and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in attr.children)
            and attr.lemma_.lower() not in VAGUE_NOUNS
            and attr.lemma_.lower() not in RELATIONS
            and attr.lemma_.lower() not in NO_JOBS  # "I've been a vegan for six years"
            # "a fan of jazz", "a member of the choir": what one is of something, no job
            and not any(c.dep_ == "prep" and c.lower_ == "of" for c in attr.children)
        )
        # "I joined Tarangini Robotics as a firmware engineer": a post taken up
        taken_up = (lemma in _TAKING_UP and _as_role(preps.get("as"))) or (
            lemma == "promote" and _as_role(preps.get("to"))  # "got promoted to senior nurse"
        )
        # "I teach chemistry at Citadel High": a trade plied at a named place
        present = verb.tag_ in ("VBP", "VBZ")
        # "I teach Portuguese online" (not "I teach my son to swim": a person taught)
        taught = not any(c.dep_ in ("xcomp", "ccomp") for c in verb.children) and any(
            (
                c.dep_ == "dobj"
                and c.pos_ in ("NOUN", "PROPN")
                and c.ent_type_ != "PERSON"
                and c.lemma_.lower() not in RELATIONS
                and not any(g.dep_ == "poss" for g in c.children)
            )
            or c.lower_ == "online"
            for c in verb.children
        )
        for_firm = any(
            t.pos_ == "PROPN" and t.ent_type_ not in ("DATE", "TIME", "PERSON")
            for c in verb.children
            if c.dep_ in ("prep", "dative") and c.lower_ == "for"
            for t in c.subtree
        )
        plies = present and (
            lemma in _TRADE_VERBS
            and (_named_place(verb, "at") or taught)
            or lemma in _SERVICE_VERBS
            and for_firm
        )
        kept = next(
            (
                c
                for c in verb.children
                if c.dep_ == "dobj"
                and c.lemma_.lower() in _BUSINESSES
                and not any(g.dep_ == "poss" and g.lower_ not in ("my", "our") for g in c.children)
            ),
            None,
        )
        if present and lemma in _KEEPING and kept is not None:
            plies = True  # "I run a small bakery in Leith"
            out.append(f"what {_noun_phrase(kept)} {do} {me} {lemma}")
        # an animal has no job ("My two dogs are a nightmare")
        animal = subject.lemma_.lower() in _ANIMALS
        if is_a and verb.tag_ == "VBD" and not (works_as or taken_up or plies):
            out.append(f"what did {me} do for work")  # "I was a teacher for 20 years"
        elif (works_as or is_a or taken_up or plies) and not animal:
            out += [f"what {do} {me} do for work", f"what is {my} job"]
        named_place = (
            _named_place(verb)
            or (attr is not None and is_a and _named_place(attr))
            # "I teach maths at Hillside Academy": the place hung on what is taught
            or (
                plies
                and any(
                    _named_place(c, "at", objects=False) for c in verb.children if c.dep_ == "dobj"
                )
            )
        )
        if (
            (lemma in _JOB_VERBS and any(p in preps for p in ("at", "for", "in")))
            or ((is_a or taken_up or plies) and named_place)
            or (
                lemma in _TAKING_UP
                and verb.tag_ in ("VBD", "VBN")
                and _named_place(verb, "at", objects=False)
            )
        ):
            # "I'm a nurse in Mallow General", "started at Monzo in March"
            out.append(f"where {do} {me} work")
    # "My sister Ama lives in Accra": asked of "my sister" or of "Ama"
    named = [
        " ".join(t.text for t in c.subtree if t.pos_ == "PROPN")
        for c in subject.children
        if c.dep_ in ("appos", "compound")
        and c.pos_ == "PROPN"
        # the name beside "my girlfriend" is hers, whatever the tagger makes of it
        and (c.ent_type_ not in _NOT_PEOPLE or subject.lemma_.lower() in RELATIONS)
    ]
    if named and me == owned and not first:
        # "My girlfriend Aisha just started at Deloitte": her job asked by her name too
        out += [q.replace(f" {owned} ", f" {named[0]} ") for q in out if q.endswith(" work")]
    others = [o for o in (person, owned, *named[:1]) if o and not first]
    if others and verb.pos_ == "VERB" and lemma not in ("be", "have"):
        does = "did" if verb.tag_ == "VBD" else ("do" if subject.tag_ == "NNS" else "does")
        obj = next(
            (c for c in verb.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN")), None
        )
        for other in others:
            if obj is not None and obj.lemma_.lower() not in VAGUE_NOUNS:
                out.append(f"what {does} {other} {lemma}")
            if any(
                p in preps
                # ("Lily has swimming on Saturdays at 9": a time, no place)
                and not any(
                    g.ent_type_ in ("DATE", "TIME") or g.like_num for g in preps[p].children
                )
                for p in ("at", "in")
            ) or any(
                g.dep_ == "pobj" and g.pos_ == "PROPN" and g.ent_type_ not in ("DATE", "TIME")
                for g in (preps["from"].children if "from" in preps else ())
            ):
                # not "switched from football"; "was my son born", never "does my son bear"
                verb_asked = (
                    f"was {other} born" if verb.lower_ == "born" else f"{does} {other} {lemma}"
                )
                out.append(f"where {verb_asked}")
            kin = subject.lower_ in FEMALE_KIN | MALE_KIN  # "Mum's just moved into ..."
            if (
                lemma in ("move", "relocate", "emigrate")
                and ("to" in preps or "into" in preps)
                # ("Choir's moved to the library": a word typed capitalised, no one;
                # "My appointment got moved to the 9th": no one either)
                and (kin or not (subject.is_sent_start and dictionary_word(subject.text)))
                and (subject.pos_ == "PROPN" or subject.lemma_.lower() in RELATIONS or kin)
            ):
                # "my brother Tom moved to Vancouver"; "Mum's moved into a care home": my mum
                out.append(f"where does {f'my {subject.lower_}' if kin else other} live")
    if owned and lemma in _NAMING and subject.dep_ == "nsubjpass":
        # "My dog is called Biscuit": asked by what it is called, or its name
        out += [f"what is {owned} called", f"what is {owned}'s name"]
    if (
        owned
        and lemma == "be"
        # (a person is no day: "My daughter is 7 and does ballet on Saturdays")
        and subject.lemma_.lower() not in RELATIONS
        and names_a_day([t for t in tokens if t.i > verb.i])
    ):
        out.append(f"when is {owned}")  # "My anniversary is on 14 June" (not "... is 80")
    if owned and lemma == "be":
        value = next((c for c in verb.children if c.dep_ == "attr"), None)
        if (
            value is not None
            and (value.ent_type_ == "PERSON" or value.tag_ == "NNP")
            and value.ent_type_ not in _NOT_NAMES
            # "My car is a 2018 Honda Jazz": a make and model, no one's name
            and not any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in value.children)
            and not any(c.like_num for c in value.subtree)
            and subject.lemma_.lower() not in BUILT_PLACES
            # a person by what they are to me ("My favourite restaurant is Dishoom" is
            # no one), or a name with a title
            and (
                subject.lemma_.lower() in RELATIONS
                or subject.lower_.endswith(ROLE_ENDINGS)
                or any(t.lower_.rstrip(".") in _TITLES for t in value.subtree)
                or subject.is_upper
            )
        ):
            out.append(f"who is {owned}")  # "My landlord is Mr Patel"
    return out


def _is_question_sentence(tokens: list[Token]) -> bool:
    return bool(tokens) and tokens[-1].text == "?"


def _named_person(subject: Token) -> str | None:
    """The subject when it is a person's name ("Kofi", "Ama Mensah"): a proper noun the
    entity tagger does not call a place, company or date."""
    # the small tagger often calls an unfamiliar first name an ORG ("Kofi teaches ..."),
    # and "what does Monzo charge" is a fair question too: only places and times are out
    if subject.pos_ != "PROPN" or subject.ent_type_ in _NOT_PEOPLE:
        return None
    words = [t for t in subject.subtree if t.pos_ == "PROPN" and t.i <= subject.i]
    return " ".join(t.text for t in words[-2:]) or None


def _owned(subject: Token, who: str | None) -> str:
    """ "my dog" for a subject "my dog" (the asker's: "Kofi's dog" for a named speaker);
    "" when the subject is no one's."""
    if subject.pos_ != "NOUN" or subject.lemma_.lower() in VAGUE_NOUNS:
        return ""
    if not any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in subject.children):
        return ""
    owner = f"{who}'s" if who else next(c.lower_ for c in subject.children if c.dep_ == "poss")
    # "my grandparents", asked as they were said (not "my grandparent")
    return f"{owner} {_noun_phrase(subject, plural=subject.tag_ == 'NNS')}"


def _possessor(poss: Token) -> str:
    """ "Priya Sharma" of "Priya Sharma's husband": the owner's words, without the "'s"."""
    return " ".join(t.text for t in poss.subtree if t.dep_ != "case")


def _kin_of_someone(subject: Token) -> str:
    """ "Noor's husband" for a subject "Noor's new husband", "my brother's wife" for "my
    brother's wife": a relation of someone named or of my own relation; "" otherwise."""
    if subject.lemma_.lower() not in RELATIONS:
        return ""
    poss = next((c for c in subject.children if c.dep_ == "poss"), None)
    if poss is None:
        return ""
    if poss.pos_ == "PROPN" and poss.text[:1].isupper():  # (no firm has a husband)
        whose = _possessor(poss)
    elif poss.lemma_.lower() in RELATIONS and any(
        c.dep_ == "poss" and c.lower_ in ("my", "our") for c in poss.children
    ):
        whose = f"{next(c.lower_ for c in poss.children if c.dep_ == 'poss')} {poss.lower_}"
    else:
        return ""
    return f"{whose}'s {subject.lower_}"


def _asked(verb: Token, do: str, me: str, lemma: str, who: str | None, person: str) -> str:
    """ "do I go" for "I go", "am I going" for "I'm going" (what follows a wh-word)."""
    be = "is" if who else ("are" if person == "we" else "am")
    if verb.lower_ == "born":
        return f"{'were' if person == 'we' else 'was'} {me} born"  # never "do I bear"
    if verb.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children):
        return f"{be} {me} {verb.lower_}"
    got = next((c for c in verb.children if c.dep_ == "auxpass" and c.lemma_ == "get"), None)
    if verb.tag_ == "VBN" and got is not None:
        # "We got married in Santorini": "where did we get married", never "do we marry"
        if got.tag_ == "VBG":
            return f"{be} {me} getting {verb.lower_}"
        return f"{'did' if got.tag_ == 'VBD' else do} {me} get {verb.lower_}"
    particle = " ".join(c.lower_ for c in verb.children if c.dep_ == "prt")
    return f"{do} {me} {lemma} {particle}".rstrip()  # "where did I sign up"


def _dated_occasion(verb: Token, who: str | None) -> list[str]:
    """ "Tomorrow is my first session at the gym" -> "when is my first session";
    "Saturday is Maya's recital" -> "when is Maya's recital" (the parser makes the day
    the subject or an adverb: either way the day is what "when" asks)."""
    if not any(c.dep_ in ("nsubj", "npadvmod") and c.ent_type_ == "DATE" for c in verb.children):
        return []
    occasion = next((c for c in verb.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
    if occasion is None or occasion.lemma_.lower() in VAGUE_NOUNS:
        return []
    owner = next((c for c in occasion.children if c.dep_ == "poss"), None)
    if owner is None:
        return []
    if owner.lower_ in ("my", "our"):
        whose = _subject_words(who, "we" if owner.lower_ == "our" else "i")[2]
    elif owner.ent_type_ == "PERSON":
        whose = f"{owner.text}'s"
    else:
        return []
    ordinal = [c.lower_ for c in occasion.lefts if c.ent_type_ == "ORDINAL"]
    return [f"when is {' '.join([whose, *ordinal, _noun_phrase(occasion)])}"]


def _dated_plan(verb: Token, who: str | None) -> list[str]:
    """A plan said without its subject: "Organising the team lunch for Thursday" -> "when
    am I organising the team lunch"; "Going to Lisbon in May" -> "when am I going to
    Lisbon"."""
    if not any(t.ent_type_ == "DATE" for t in verb.subtree):
        return []
    after = []
    for child in verb.children:
        if child.i < verb.i or child.ent_type_ == "DATE":
            continue
        if (
            (
                child.dep_ == "dobj"
                and child.pos_ == "NOUN"
                and child.lemma_.lower() not in VAGUE_NOUNS
            )
            or child.dep_ == "prep"
            and any(
                g.dep_ == "pobj" and g.pos_ == "PROPN" and g.ent_type_ != "DATE"
                for g in child.children
            )
        ):
            after.append(" ".join(_until_date(list(child.subtree))))
        if after:
            break
    if not after:
        return []
    me = f"is {who}" if who else "am I"
    return [f"when {me} {verb.lower_} {after[0]}"]


def _until_date(tokens: list[Token]) -> list[str]:
    """The words before a date phrase ("to Reykjavik in June" -> "to Reykjavik")."""
    words = []
    for n, token in enumerate(tokens):
        if (
            token.ent_type_ == "DATE"
            or token.is_punct  # "a dinner for friday, 5 of us": the plan ends at the comma
            or (token.pos_ == "ADP" and n + 1 < len(tokens) and tokens[n + 1].ent_type_ == "DATE")
        ):
            break
        words.append(token.text)
    return words


def _got_done(verb: Token, asked: str, who: str | None) -> list[str]:
    """A dated thing had done: "I'm getting my Mazda 3 serviced on Friday" -> "when am I
    getting my Mazda 3 serviced"; "I got my teeth cleaned last week" -> "when did I get
    my teeth cleaned"."""
    done = next(
        (c for c in verb.children if c.dep_ in ("advcl", "ccomp", "xcomp") and c.tag_ == "VBN"),
        None,
    )
    if done is None or not any(t.ent_type_ == "DATE" for t in done.subtree):
        return []
    thing = next(
        (c for c in done.children if c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN")), None
    )
    if thing is None or thing.lemma_.lower() in VAGUE_NOUNS:
        return []
    owner = next(
        (c for c in thing.children if c.dep_ == "poss" and c.lower_ in ("my", "our")), None
    )
    if owner is None:
        return []
    words = [t.text for t in thing.subtree if t.dep_ not in ("det", "poss") and t.i < done.i]
    # a named speaker's "my" has no pronoun the cue could know: "the" asks it as well
    whose = "the" if who else owner.lower_
    return [f"when {asked} {whose} {' '.join(words)} {done.lower_}"]


def _counted_named_dated(
    tokens: list[Token], verb: Token, lemma: str, *, me: str, do: str, my: str, past: bool
) -> list[str]:
    """Questions about what a first-person statement counts, names or dates:
    "We keep an aquarium with six neon tetras" -> "how many neon tetras do we have";
    "We adopted a greyhound called Noodle" -> "what is our greyhound called"; "We finally
    named the kitten" -> "what did we name the kitten"; "I've got a job interview at
    Canva on Friday" -> "when is my job interview"; "we went apple picking at Carter
    Hill Orchard last weekend" -> "where did we go apple picking", "when did we go apple
    picking"."""
    out: list[str] = []
    inside = {t.i for t in tokens}
    for noun in tokens:
        if noun.pos_ != "NOUN" or noun.lemma_.lower() in VAGUE_NOUNS or noun.ent_type_:
            continue
        counted = next(
            (c for c in noun.children if c.dep_ == "nummod" and c.ent_type_ in ("CARDINAL", "")),
            None,
        )
        if counted is not None and noun.lemma_.lower() in _CURRENCIES:
            # "for 2,840 euros": a price, not a count of euros
            paid = lemma in _ACQUIRE or lemma in ("pay", "spend")
            out.append(f"how much {do} {me} pay" if paid else f"how much {do} {me} {lemma} it for")
        elif (
            counted is not None
            and counted.lower_ not in ("one", "1")
            and len(noun.text) > 2
            and counted.whitespace_ != ""  # "50m": a figure typed onto its unit
            # a count is of things: "a 5:2 diet", "a type 2 diabetic" name a kind
            and noun.tag_ == "NNS"
            and counted.i < noun.i
            and not any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in noun.children)
        ):
            have = "have" if lemma in ("have", "keep", "own", "be") else lemma
            out.append(f"how many {_noun_phrase(noun, plural=True)} {do} {me} {have}")
        called = next(
            (
                c
                for c in noun.children
                if c.dep_ == "acl"
                and c.lower_ in ("called", "named")
                # (a name the small tagger reads as a word: "called Bramble" an adjective)
                and any(g.pos_ == "PROPN" or g.is_title and g.i > c.i for g in c.subtree)
            ),
            None,
        )
        if called is not None:
            out.append(f"what is {my} {_noun_phrase(noun)} {called.lower_}")
    obj = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "NOUN"), None)
    if lemma in ("name", "call") and obj is not None and obj.lemma_.lower() not in VAGUE_NOUNS:
        out.append(f"what {'did' if past else do} {me} {lemma} the {_noun_phrase(obj)}")
    dated = any(t.ent_type_ == "DATE" and t.i in inside for t in tokens)
    if dated and lemma == "have" and obj is not None and obj.lemma_.lower() not in VAGUE_NOUNS:
        out.append(f"when is {my} {_noun_phrase(obj)}")
    going = next(
        (c for c in verb.children if c.dep_ in ("xcomp", "dobj") and c.tag_ == "VBG"), None
    )
    if lemma == "go" and going is not None:
        activity = " ".join(t.lower_ for t in going.subtree if t.i <= going.i)
        place = any(
            g.pos_ == "PROPN" for c in going.subtree if c.dep_ == "prep" for g in c.children
        )
        go = "did" if past else do
        if place:
            out.append(f"where {go} {me} go {activity}")
        if dated:
            out.append(f"when {go} {me} go {activity}")
    return out


def _how_often_how_long(
    tokens: list[Token], verb: Token, lemma: str, *, me: str, do: str
) -> list[str]:
    """ "I climb at Boulder Barn twice a week" -> "how often do I climb"; "We've been
    married since 2015" -> "how long have we been married"; "I've known Sam for ten
    years" -> "how long have I known Sam"."""
    out: list[str] = []
    text = " ".join(t.text for t in tokens)
    if verb.pos_ == "VERB" and lemma not in ("be", "have", "do") and _OFTEN.search(text):
        out.append(f"how often {do} {me} {lemma}")
    perfect = any(c.lemma_ == "have" and c.dep_ == "aux" for c in verb.children)
    since = any(
        t.lower_ in ("since", "for") and any(g.ent_type_ == "DATE" for g in t.subtree)
        for t in verb.children
        if t.dep_ == "prep"
    )
    if perfect and since and verb.tag_ == "VBN":
        have = "has" if do == "does" else "have"
        if verb.lemma_ == "be":
            state = next((c for c in verb.children if c.dep_ in ("acomp", "attr")), None)
            if state is not None and state.pos_ in ("ADJ", "VERB") and state.lower_ not in FEELINGS:
                out.append(f"how long {have} {me} been {state.lower_}")
        elif any(c.dep_ == "auxpass" for c in verb.children):
            out.append(f"how long {have} {me} been {verb.lower_}")  # "been married since"
        else:
            obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
            thing = (
                " ".join(t.text for t in obj.subtree)
                if obj is not None and obj.lower_ not in ("it", "them", "that")
                else ""
            )
            if obj is None:  # "I've lived in Montreal since 2019": lived where
                where = next((c for c in verb.children if _place_prep(c)), None)
                if where is not None:
                    thing = " ".join(_until_date(list(where.subtree)))
            out.append(f"how long {have} {me} {verb.lower_} {thing}".strip())
    return out


def _place_name(pobj: Token) -> bool:
    """A name after at/in/from that is a place: not a month or a day ("in June")."""
    return pobj.pos_ == "PROPN" and pobj.ent_type_ not in ("DATE", "TIME")


def _place_prep(token: Token) -> bool:
    """A preposition naming where, not when: "in Montreal", not "since 2019"."""
    return (
        token.dep_ == "prep"
        and token.lower_ not in ("since", "for")
        and any(g.dep_ == "pobj" and g.ent_type_ != "DATE" for g in token.children)
    )


def _person_names(tokens: list[Token], *, subjects_only: bool = False) -> list[str]:
    """People the statement names. ``subjects_only``: those it is about (a subject, or
    the name of one: "my partner Tomasz"); the small model also calls places and shops
    PERSON ("Valencia", "Verde Kitchen"), which a "who is" cue must not ask after."""
    doc = tokens[0].doc
    names = []
    for e in doc.ents:
        if e.label_ != "PERSON" or not (tokens[0].i <= e.start and e.end - 1 <= tokens[-1].i):
            continue
        if "\n" in e.text:
            continue
        if all(w.casefold() in _KIN_WORDS for w in e.text.split() if w.isalpha()):
            continue  # "Mum and Dad", capitalised as names, are my parents
        root = e.root
        about = root.dep_.startswith("nsubj") or (
            root.dep_ in ("appos", "conj") and root.head.dep_.startswith("nsubj")
        )
        if about or not subjects_only:
            names.append(e.text)
    return names


def reading_text(tokens: list[Token]) -> str:
    return " ".join(t.text for t in tokens)


def _partner_of(word: Token, prep: Token, pobj: Token) -> bool:
    """ "married to Ewa", "engaged to Sam": whom, not what."""
    return (
        word.lemma_.lower() in ("marry", "married", "engage", "engaged")
        and prep.lower_ == "to"
        and (pobj.pos_ == "PROPN" or pobj.ent_type_ == "PERSON")
    )


def _named_role(subject: Token) -> str | None:
    """ "my teacher Samir", "my landlord Mr Patel", "my mechanic Gaz": a role that the
    person's name beside it says is a person's, whichever of the two the parser made
    the subject."""
    if subject.pos_ == "NOUN" and any(
        c.dep_ == "appos" and c.ent_type_ == "PERSON" for c in subject.children
    ):
        return subject.lemma_.lower()
    if subject.pos_ == "PROPN" and subject.ent_type_ == "PERSON":
        role = next(
            (
                c
                for c in subject.children
                if c.i < subject.i
                and c.dep_ in ("amod", "compound", "nmod")
                and c.is_lower
                and known_noun(c.lower_)
                and not c.lower_.endswith("ly")  # "my lovely Gaz"
            ),
            None,
        )
        if role is not None and any(c.lower_ in ("my", "our") for c in subject.children):
            return role.lower_
    return None


def _about_someone(subject: Token, verb: Token, tokens: list[Token], who: str | None) -> list[str]:
    out: list[str] = []
    relation = (
        subject.lemma_.lower() + in_law(subject) if subject.lemma_.lower() in RELATIONS else None
    )
    if relation is None:
        relation = _named_role(subject)
    # "Sam's girlfriend is a vet": she is someone's kin, no one named; asked as such
    named_owner = next(
        (
            c
            for c in subject.children
            if c.dep_ == "poss" and c.pos_ == "PROPN" and c.text[:1].isupper()
        ),
        None,
    )
    if relation is None or who:
        named_owner = None
    names = [
        t
        for t in subject.subtree
        if t.pos_ == "PROPN"
        and t != named_owner
        and not (named_owner is not None and t.head == named_owner)
        and t.lower_ not in _KIN_WORDS
        # "my neighbour Priya": the name beside a relation is a person's, tagged or not
        and (t.ent_type_ == "PERSON" or (relation and t.dep_ == "appos" and t.head.i == subject.i))
    ]
    owner = "my" if not who else f"{who}'s"
    mine = any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in subject.children)
    if named_owner is not None:
        owner, mine = f"{_possessor(named_owner)}'s", True
    # "my flatmate's cat": the cat is my flatmate's, asked as such (never "my cat")
    kin = next(
        (
            c
            for c in subject.children
            if c.dep_ == "poss"
            and c.lemma_.lower() in RELATIONS
            and any(g.dep_ == "poss" and g.lower_ in ("my", "our") for g in c.children)
        ),
        None,
    )
    if relation and kin is not None:
        relation, mine = f"{kin.lemma_.lower()}'s {relation}", True
    if relation and mine:
        out.append(f"who is {owner} {relation}")
        if names:
            out.append(f"what is {owner} {relation}'s name")
        acomp = next((c for c in verb.children if c.dep_ == "acomp"), None)
        prep = next((c for c in acomp.children if c.dep_ == "prep"), None) if acomp else None
        if _from_place(verb):
            out.append(f"where is {owner} {relation} from")
        elif verb.lemma_ == "be" and prep is not None and acomp.lower_ not in FEELINGS:
            out.append(f"what is {owner} {relation} {acomp.lower_} {prep.lower_}")  # allergic to
    if names:
        name = " ".join(t.text for t in names[:2])
        lemma = verb.lemma_.lower()
        if lemma == "be":
            out.append(f"who is {name}")
            acomp = next((c for c in verb.children if c.dep_ == "acomp"), None)
            prep = (
                next((c for c in [*acomp.children, *verb.children] if c.dep_ == "prep"), None)
                if acomp is not None
                else None
            )
            if _from_place(verb):
                out.append(f"where is {name} from")  # "Jonas is German, from Hamburg"
            elif acomp is not None and prep is not None and acomp.lower_ not in FEELINGS:
                out.append(f"what is {name} {acomp.lower_} {prep.lower_}")  # allergic to
            attr = next((c for c in verb.children if c.dep_ == "attr"), None)
            if mine_too := owned_by_me(attr, who):
                # "Marta is my best friend from uni": who my best friend is, no job
                kind = "who" if attr.lemma_.lower() in RELATIONS else "what"
                out.append(f"{kind} is {mine_too}")
            elif (
                attr is not None and attr.pos_ == "NOUN" and attr.lemma_.lower() not in VAGUE_NOUNS
            ):
                out.append(f"what does {name} do")  # "My partner Tomasz is a vet"
        elif lemma == "turn" and any(t.like_num for t in tokens):
            out.append(f"how old is {name}")
        elif verb.tag_ in ("VBZ", "VBP", "VBD") and not any(
            c.dep_ == "conj" and c.lower_ in ("i", "me") for c in subject.children
        ):
            does = "did" if verb.tag_ == "VBD" else "does"
            obj = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "NOUN"), None)
            if obj is not None and any(t.ent_type_ == "DATE" for t in tokens):
                out.append(f"when {does} {name} {lemma} {_noun_phrase(obj)}")
            elif obj is not None:
                out.append(f"what {does} {name} {lemma}")
            if any(t.ent_type_ in _PLACE for t in tokens if t.head.lower_ in _WHERE_PREPS):
                out.append(
                    f"where {does} {name} {lemma}"
                    + (" from" if any(t.lower_ == "from" for t in tokens) else "")
                )
    if (
        subject.pos_ == "NOUN"
        and not relation
        and subject.ent_type_ not in ("DATE", "TIME")
        and subject.lemma_.lower() not in VAGUE_NOUNS
        # a day is named ("The car is a 2017 Kia": a year that is no day of it)
        and names_a_day(
            [t for t in tokens if t.i not in _up_to(subject) | clauses_of_their_own(verb)]
        )
        and not any(c.dep_ == "dobj" for c in verb.children)  # "My grandad bought him ..."
    ):
        if verb.lemma_.lower() in MOVE_VERBS:
            # "Yoga's moved to Thursdays": when it is now, not when it moved
            out.append(f"when {'are' if subject.tag_ == 'NNS' else 'is'} {_noun_phrase(subject)}")
        else:
            out.append(f"when {_asked_of(subject, verb)}")
    obj = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "NOUN"), None)
    if (
        not out
        and not names
        and subject.pos_ == "NOUN"
        and subject.lemma_.lower() not in VAGUE_NOUNS
        and any(c.dep_ == "det" or c.dep_ == "poss" for c in subject.children)
        and verb.tag_ in ("VBZ", "VBP", "VBD")
        and obj is not None
        and obj.lemma_.lower() not in VAGUE_NOUNS
    ):
        # "The doctor changed my prescriptions" -> "what did the doctor change"
        does = "did" if verb.tag_ == "VBD" else ("do" if subject.tag_ == "NNS" else "does")
        whose = (
            "the"
            if who
            else next((c.lower_ for c in subject.children if c.dep_ in ("det", "poss")), "the")
        )
        out.append(f"what {does} {whose} {_noun_phrase(subject)} {verb.lemma_.lower()}")
    return out


def _from_place(verb: Token) -> bool:
    """ "is from Leicester", "is German, from Hamburg": "be" and a place said after
    "from" (on the verb, or on its complement)."""
    if verb.lemma_ != "be":
        return False
    heads = [verb, *(c for c in verb.children if c.dep_ in ("acomp", "attr"))]
    return any(
        prep.dep_ == "prep"
        and prep.lower_ == "from"
        and any(g.dep_ == "pobj" and g.ent_type_ in ("GPE", "LOC", "NORP") for g in prep.children)
        for head in heads
        for prep in head.children
    )


def _thing_said(subject: Token) -> str:
    """The subject as a question says it: "my son's football" (whose it is, as said),
    "Sophie" (a name), else "the recital"."""
    if subject.text[:1].isupper() and not dictionary_word(subject.text):
        return subject.text  # "Sophie from work", tagged a noun now and then
    owned = [t for t in subject.lefts if t.dep_ == "poss"]
    if owned:
        words = [
            t.text if t.pos_ == "PROPN" else t.lower_
            for t in subject.subtree
            if t.i <= subject.i and t.dep_ != "det" and not t.is_punct or t.dep_ == "case"
        ]
        return re.sub(r" (['’]s)\b", r"\1", " ".join(words))
    return f"the {_noun_phrase(subject)}"


def _asked_of(subject: Token, verb: Token) -> str:
    """What "when" asks of a thing, in the statement's tense and with its verb: "is the
    recital" (a date said of it), "is the engineer coming", "did the boiler pack in"."""
    thing = _thing_said(subject)
    lemma = verb.lemma_.lower()
    particle = "".join(f" {c.lower_}" for c in verb.children if c.dep_ == "prt")
    if lemma == "be" or verb.pos_ not in ("VERB", "AUX"):
        return f"is {thing}"
    if verb.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children):
        return f"is {thing} {verb.lower_}{particle}"
    passive = next((c for c in verb.children if c.dep_ == "auxpass"), None)
    if passive is not None and passive.lower_ == "getting":  # "is getting married"
        return f"is {thing} getting {verb.lower_}{particle}"
    if passive is not None:  # "the parcel was delivered yesterday"
        return f"{'was' if passive.tag_ == 'VBD' else 'is'} {thing} {verb.lower_}{particle}"
    if verb.tag_ == "VBD" or (verb.tag_ in ("VB", "VBN") and past_form(verb)):
        return f"did {thing} {lemma}{particle}"
    if verb.tag_ in ("VBZ", "VBP"):
        return f"{'does' if verb.tag_ == 'VBZ' else 'do'} {thing} {lemma}{particle}"
    return f"is {thing}"


_SLOTS_WHEN_NAMED = word_set("type kind sort day time week part")


def _facet_questions(subject: str, attribute: str, who: str | None, value: str = "") -> list[str]:
    me = who or "I"
    my = f"{who}'s" if who else "my"
    do = "does" if who else "do"
    if subject == "i" and attribute == "job":
        return [f"where {do} {me} work", f"what is {my} job", f"what company {do} {me} work for"]
    if subject == "i" and attribute == "home":
        return [f"where {do} {me} live"]
    if subject == "i" and attribute == "diet":
        return [f"what is {my} diet", f"{'is' if who else 'am'} {me} {value}"]
    if subject == "i" and attribute.startswith("like:"):
        return [f"{do} {me} like {attribute[5:]}"]
    if subject.startswith("my ") and attribute == "is":
        words = subject.split()
        # ("my blood type", "my pay day": a vague word told apart by a word before it)
        told_apart = len(words) > 2 and words[-1] in _SLOTS_WHEN_NAMED
        if (words[-1] in VAGUE_NOUNS and not told_apart) or any(
            w in ("-", "go", "to") for w in words
        ):
            return []  # "My current one is ...", "My go-to coffee order is ...": no slot noun
        if words[-1] in RELATIONS or value.split(".")[0].split(" ")[0] in _TITLES:
            return [f"who is {my} {subject[3:]}"]  # "My supervisor is Dr Nkemelu"
        return [f"what is {my} {subject[3:]}"]
    if subject == PRONOUN:
        return []  # "actually it's £1,530": what "it" is was said before, no slot noun
    if attribute == "price":
        return [f"how much did the {subject} cost"]
    if attribute == "colour":
        return [f"what colour is the {subject}"]
    return []


_TITLES = word_set("dr mr mrs ms miss prof sir dame")


def _hyphenated(token: Token) -> str:
    """The word as typed with what a hyphen joins to its left ("part-time", not "time")."""
    doc, i = token.doc, token.i
    text = token.lower_
    while i >= 2 and doc[i - 1].text == "-" and not doc[i - 2].whitespace_:
        text = f"{doc[i - 2].lower_}-{text}"
        i -= 2
    return text


def _time_said(verb: Token) -> str:
    """A day or part of the week a verb is done on, as said ("on Wednesdays", "at
    weekends"), or ""."""
    heads = [verb, *(c for c in verb.children if c.dep_ == "dobj")]
    preps = [c for h in heads for c in h.children if c.dep_ == "prep"]
    for prep in (p for p in preps if p.lower_ in ("on", "at", "in")):
        pobj = next((g for g in prep.children if g.dep_ == "pobj"), None)
        if pobj is not None and (
            pobj.lower_.rstrip("s") in WEEKDAYS or pobj.lemma_.lower() in PARTS_OF_DAY
        ):
            det = " ".join(t.lower_ for t in pobj.lefts if t.dep_ == "det")
            return " ".join(w for w in (prep.lower_, det, pobj.lower_) if w)
    return ""


def _noun_phrase(noun: Token, *, plural: bool = False) -> str:
    """The noun with its compound nouns ("road bike"), without articles or names; its
    lemma unless ``plural`` (a count keeps "neon tetras")."""
    words = [
        _hyphenated(t) for t in noun.lefts if t.dep_ in ("compound", "amod") and t.pos_ == "NOUN"
    ]
    words += (
        [t.lower_ for t in noun.lefts if t.dep_ == "amod" and t.pos_ == "ADJ"][-1:]
        if plural
        else []
    )
    head = (noun.lower_ if plural else noun.lemma_.lower()) + in_law(noun)
    return " ".join([*words, head])
