"""Questions asked of any clause, from its parts alone: the fallback for a statement no
rule in ``cues`` knows the shape of.

The main verb, its subject and the parts hung on it each give one plain question: its
object "what" ("The plumber quoted £240" -> "what did the plumber quote"), a date
"when", a named or built place "where", a sum "how much", a "since" "how long", a
complement "what" or "who" ("The electrician is a guy called Mo" -> "who is the
electrician"). The subject is said as it was ("my bike", "the flight", "Rosie"); a
pronoun other than "I" or "we" says nothing a question could ask after, so none is
made of it (the extractor asks a resolved "she" as the person it means).
"""

from __future__ import annotations

import calendar
from datetime import date

from spacy.tokens import Token

from memories.extraction.offline.dates import WEEKDAYS, resolve_dates
from memories.extraction.offline.language import (
    aim_preposition,
    dictionary_word,
    done_to_their_own,
    known_noun,
)
from memories.extraction.offline.words import (
    BUILT_PLACES,
    DAY_PREPOSITIONS,
    GOAL_VERBS,
    MOVE_VERBS,
    RELATIONS,
    STATUS_CHANGES,
    VAGUE_NOUNS,
    past_form,
    word_set,
)

MAX_QUESTIONS = 3
_DATE_LABELS = frozenset(("DATE", "TIME"))
_PLACE_LABELS = frozenset(("GPE", "LOC", "FAC", "ORG"))
_PLACE_PREPS = word_set("at in on near outside inside from to")
_LIGHT_VERBS = word_set("be have do get")
_PERSON_WORDS = word_set(
    "guy man woman lady bloke girl boy fella chap called named dr mr mrs ms prof"
)


def clause_questions(tokens: list[Token], who: str | None) -> list[str]:
    """Up to three questions the clause ``tokens`` (one sentence) answers; [] when its
    verb or subject gives nothing to ask with."""
    verb = next((t for t in tokens if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    if verb is None or any(c.dep_ == "neg" and c.i < verb.i for c in verb.children):
        return []  # "My son doesn't eat meat": never "what meat does my son eat"
    if verb.lemma_.lower() in ("need", "want", "hope", "wish", "have") and any(
        c.dep_ == "xcomp" for c in verb.children
    ):
        return []  # "We need to be out by the 30th": never "when do we need"
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None and _first_word(tokens).i not in (verb.i, *(c.i for c in verb.lefts)):
        return []  # the verb, or its helper, opens the clause: "Been learning ..."
    if subject is None and done_to_their_own(verb):
        return []  # "Broke his wrist but he's fine": said of him, not of the speaker
    said = _subject(subject, who, tokens)
    if said is None:
        return []
    phrase, plural = said
    if verb.lemma_.lower() == "be":
        out = _of_being(verb, phrase, plural, who)
    else:
        out = _of_doing(verb, phrase, plural, subject)
    for also in verb.children:
        # "sold the jazz ... and bought a cargo bike": the second verb, the same subject
        if (
            also.dep_ == "conj"
            and also.pos_ == "VERB"
            and also.lemma_.lower() != "be"
            and not any(c.dep_ in ("nsubj", "nsubjpass") for c in also.children)
        ):
            out += _of_doing(also, phrase, plural, subject)
    # of the speaker's own doings only a measure is asked ("how long have I been learning
    # Italian", "how old am I"): in a long history "when did I go", even "what job did I
    # get offered", would be the nearest cue to too many questions of that shape (LoCoMo
    # recall@10 0.7515 without these questions, 0.7408 with all of them, 0.7454 with
    # those naming a thing of the sentence, 0.7493 with none of the speaker's)
    mine = subject is None or subject.lower_ in ("i", "we", "me") or phrase == who
    # but a change of standing is asked ("did I get promoted"): a life event, rare in a
    # history, not a doing of every day
    standing = verb.tag_ == "VBN" and verb.lemma_.lower() in STATUS_CHANGES
    # and a habit is asked ("I swim at the leisure centre on Mondays": when do I swim):
    # what one does as a rule is a fact of one's life, not one day's doing
    helpers = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    # and what one is doing these days ("Currently reading Wolf Hall", "I'm doing nights
    # at the moment"): going on now, said so, is no one day's doing either
    ongoing = verb.tag_ == "VBG" and any(t.lower_ in _GOING_ON for t in verb.sent)
    habit = (
        ongoing
        or (verb.tag_ == "VBP" and not helpers)
        or (
            # "I get paid on the 28th": the same, said in the passive
            verb.tag_ == "VBN"
            and len(helpers) == 1
            and helpers[0].dep_ == "auxpass"
            and helpers[0].tag_ == "VBP"
        )
    )
    # and an aim ("I'm training for the Manchester marathon"): what a stretch of life is for
    aim = verb.lemma_.lower() in GOAL_VERBS
    return [
        q
        for q in dict.fromkeys(out)
        if _asks_something(q)
        and (
            not mine
            or standing
            or habit
            or q.startswith(_MEASURED)
            or (aim and q.startswith("what ") and q.endswith((" for", " to", " onto")))
        )
    ][:MAX_QUESTIONS]


def _first_word(tokens: list[Token]) -> Token:
    return next((t for t in tokens if not (t.is_punct or t.pos_ in ("ADV", "INTJ"))), tokens[0])


def _subject(
    subject: Token | None, who: str | None, tokens: list[Token]
) -> tuple[str, bool] | None:
    """The subject as a question says it, and whether it is plural."""
    if subject is None:
        if _first_word(tokens).pos_ not in ("VERB", "AUX"):
            return None
        return (who or "I"), not who  # "Been learning Italian": I, said without
    low = subject.lower_
    if low in ("i", "me"):
        return (who or "I"), not who
    if low == "we":
        return "we", True
    if subject.pos_ == "PRON":
        return None
    if (
        subject.pos_ == "PROPN"
        and subject.i == subject.sent.start
        and dictionary_word(subject.text)
        and not known_noun(subject.lower_)
    ):
        return None  # "Ill do it": a word typed capitalised, not a name ("Nan" is one)
    if subject.pos_ == "PROPN" or (
        subject.text[:1].isupper()
        and subject.tag_ == "NN"  # a name is never plural ("Worktops are granite")
        and not dictionary_word(subject.text)
        and not dictionary_word(subject.lemma_)
    ):
        # "Harvey starts ...": a capitalised word no dictionary knows is a name
        words = [
            t.text for t in subject.subtree if t.i <= subject.i and t.pos_ in ("PROPN", "NOUN")
        ]
        return " ".join(words), False
    if subject.pos_ != "NOUN" or subject.lemma_.lower() in VAGUE_NOUNS:
        return None
    if any(c.dep_ == "poss" and c.lower_ in ("his", "her", "their") for c in subject.children):
        return None  # "her name": whose is said elsewhere ("Anika's birthday" asks it)
    left = [
        t
        for t in subject.subtree
        if t.i <= subject.i
        and (t.dep_ == "case" or not t.is_punct)  # "kids' school" keeps its "'"
        and t.dep_ not in ("appos", "relcl", "acl")
    ]
    words = ""
    for t in left:
        if t.dep_ == "det":
            continue
        if t.dep_ == "poss" and t.pos_ == "PRON":
            word = f"{who}'s" if who and t.lower_ in ("my", "our") else t.lower_
        else:
            word = t.text if t.pos_ == "PROPN" else t.lower_
        words += word + t.whitespace_
    # "my bike", "Priya's husband"; not "kids'": "the kids' school"
    owned = any(t.dep_ == "poss" and t.pos_ in ("PRON", "PROPN") for t in left)
    words = " ".join(words.split())
    return (words if owned else f"the {words}"), subject.tag_ == "NNS"


def _of_being(verb: Token, phrase: str, plural: bool, who: str | None = None) -> list[str]:
    """ "Worktops are granite" -> "what are the worktops"; "Choir's at the church hall"
    -> "where is choir"; "Surgery is on the 9th" -> "when is surgery"."""
    be = "am" if phrase == "I" and verb.tag_ != "VBD" else _be(verb, plural)
    if verb.tag_ == "VBN":  # "We've been together three years", "Been at Tesco 4 years"
        be = f"{_have(phrase, plural)} {phrase} been"
        return [f"how long {be}{_predicate(verb)}"] if _lasting(verb) else []
    out = []
    complement = next((c for c in verb.children if c.dep_ in ("attr", "acomp")), None)
    prep = next((c for c in complement.children if c.dep_ == "prep"), None) if complement else None
    if (
        complement is not None
        and complement.text.isdigit()
        and int(complement.text) <= 120
        # ("The kids are 7 and 10": an age each)
        and all(
            c.dep_ == "cc" or c.dep_ == "conj" and c.text.isdigit() for c in complement.children
        )
    ):
        return [f"how old {be} {phrase}"]  # "I'm 34, turning 35 in March"
    mine = owned_by_me(complement, who) if phrase not in ("I", "we") else ""
    if mine:
        # "Porridge is my go-to breakfast": what is asked after is the thing of mine
        kind = "who" if complement.lemma_.lower() in RELATIONS else "what"
        return [f"{kind} {'are' if complement.tag_ == 'NNS' else 'is'} {mine}"]
    if complement is not None and complement.pos_ == "ADJ":
        # "Ella is allergic to penicillin", "The kids are vegetarian"
        quality = complement.lower_
        out.append(
            f"what {be} {phrase} {quality} {prep.lower_}" if prep else f"{be} {phrase} {quality}"
        )
    elif complement is not None:
        # "the kids' school" is a place, "her name" a word: asked what, never who
        place = phrase.split()[-1].strip("'") in BUILT_PLACES | {"name", "names"}
        if not place and (
            complement.ent_type_ == "PERSON"
            or any(t.lower_.rstrip(".") in _PERSON_WORDS for t in complement.subtree)
        ):
            out.append(f"who {be} {phrase}")  # "a guy called Mo", "Dr Nkemelu"
        elif complement.ent_type_ not in _DATE_LABELS:
            out.append(f"what {be} {phrase}")
    if complement is None and (member := _member_of(verb)):
        # "I'm on day shifts now", "We're in a book club": what shifts am I on
        out.append(f"what {member[1]} {be} {phrase} {member[0]}")
    if _dated(verb):
        # "I'm away from the 3rd": when am I away (what is said, not the day)
        out.append(f"when {be} {phrase}{_predicate(verb) if complement is None else ''}")
    if _placed(verb):
        out.append(f"where {be} {phrase}")
    provider = next((c for c in verb.children if c.dep_ == "prep" and c.lower_ == "with"), None)
    if provider is not None and any(
        g.dep_ == "pobj" and g.pos_ == "PROPN" for g in provider.children
    ):
        out.append(f"who {be} {phrase} with")  # "Our wifi is with BT"
    return out


def _member_of(verb: Token) -> tuple[str, str] | None:
    """(preposition, noun) of a "be" that puts its subject on or in a kind of thing that
    is neither a place nor a day: "on day shifts", "in a choir", "on sertraline" is none
    (a name: what it is, not which of a kind)."""
    for prep in verb.children:
        if prep.dep_ != "prep" or prep.lower_ not in ("on", "in"):
            continue
        noun = next((c for c in prep.children if c.dep_ == "pobj"), None)
        if (
            noun is not None
            and noun.pos_ == "NOUN"
            and noun.ent_type_ not in _DATE_LABELS
            and noun.lemma_.lower() not in VAGUE_NOUNS | BUILT_PLACES
            and known_noun(noun.lemma_.lower())
            # one of a kind: "a choir", "day shifts"; "on sertraline" names a thing
            and (noun.tag_ == "NNS" or any(c.dep_ == "det" for c in noun.children))
        ):
            return prep.lower_, noun.lower_
    return None


def owned_by_me(complement: Token | None, who: str | None) -> str:
    """ "my go-to breakfast" of "Porridge is my go-to breakfast": a noun of the speaker's
    with the words before it, as a question says it; "" when it is no such noun."""
    if complement is None or complement.pos_ != "NOUN" or complement.lemma_ in VAGUE_NOUNS:
        return ""
    owner = next(
        (c for c in complement.children if c.dep_ == "poss" and c.lower_ in ("my", "our")), None
    )
    if owner is None:
        return ""
    words = "".join(
        (t.text if t.is_upper else t.lower_) + t.whitespace_
        for t in complement.subtree
        if owner.i < t.i <= complement.i
    ).strip()
    mine = f"{who}'s" if who else owner.lower_
    return f"{mine} {words}"


def _of_doing(verb: Token, phrase: str, plural: bool, subject: Token | None) -> list[str]:
    """ "The plumber quoted £240" -> "what did the plumber quote", "how much did ...";
    "Been learning Italian since March" -> "what have I been learning", "how long ..."."""
    lemma = verb.lemma_.lower()
    particle = "".join(
        f" {c.lower_}"
        for c in verb.children
        if c.dep_ == "prt" or (c.dep_ == "advmod" and c.lower_ in _PARTICLES)
    )
    auxes = [c for c in verb.children if c.dep_ in ("aux", "auxpass") and c.i < verb.i]
    passive = any(c.dep_ == "auxpass" for c in auxes) or (
        verb.tag_ == "VBN" and any(c.lemma_ == "get" for c in auxes)
    )
    if auxes:
        # "have been learning", "is selling", "got nicked": the helpers go before the subject
        first, rest = auxes[0], [a.lower_ for a in auxes[1:]]
        head = _helper(first, phrase, plural)
        if first.lower_ in ("'s", "’s") and (
            rest[:1] == ["been"] or (not rest and first.dep_ == "aux" and verb.tag_ == "VBN")
        ):
            head = "has"  # "My mum's been diagnosed", "Book club's moved": has, not is
        if first.tag_ == "VBN":  # "Been learning ...": its "have" left out
            head, rest = _have(phrase, plural), [first.lower_, *rest]
        asked = " ".join([head, phrase, *rest, verb.lower_ + particle])
        if first.lemma_ == "have" and not rest and verb.tag_ == "VBG":
            # "Lily has swimming on Saturdays": a thing she has, read as "has" + a verb
            does = "did" if first.tag_ == "VBD" else ("do" if plural or phrase == "I" else "does")
            asked = f"{does} {phrase} have {verb.lower_}"
        if first.lemma_ == "get":  # "got nicked": did ... get nicked ("get paid": do)
            does = "did" if first.tag_ == "VBD" else ("do" if plural or phrase == "I" else "does")
            asked = f"{does} {phrase} get {verb.lower_}{particle}"
    elif verb.tag_ == "VBG":  # "Currently reading ...": its "am" left out
        asked = f"{'am' if phrase == 'I' else _be(verb, plural)} {phrase} {verb.lower_}{particle}"
    else:
        past = (
            verb.tag_ == "VBD"
            or (verb.tag_ in ("VB", "VBN") and subject is None and past_form(verb))
            # "I quit smoking two years ago": "quit" read as a present
            or any(t.dep_ == "advmod" and t.lower_ == "ago" for t in verb.subtree)
        )
        does = "did" if past else ("do" if plural else "does")
        asked = f"{does} {phrase} {lemma}{particle}"
    if verb.lower_ == "born":  # "My son was born in Leeds": never "does my son bear"
        asked = f"{'were' if plural else 'was'} {phrase} born"
    if lemma == "turn" and any(c.like_num for c in verb.children):
        # "Grandma turned 90 last Sunday"; "Just turned 30": how old am I
        be = "am" if phrase == "I" else ("are" if plural else "is")
        return [f"how old {be} {phrase}", f"when {asked}"]
    if lemma in MOVE_VERBS and _dated(verb) and not phrase[:1].isupper():
        # "Yoga's moved to Thursdays": when it is now
        return [f"when {'are' if plural else 'is'} {phrase}"]
    if lemma in MOVE_VERBS and _placed(verb) and not phrase[:1].isupper() and phrase != "we":
        # "Book club's moved to the library": where it is now
        return [f"where {'are' if plural else 'is'} {phrase}"]
    out = []
    obj = next(
        (c for c in verb.children if c.dep_ in ("dobj", "dative") and c.pos_ != "PRON"), None
    )
    done = next((c for c in verb.children if c.dep_ == "ccomp" and c.tag_ == "VBN"), None)
    if lemma in ("have", "get") and done is not None:
        # "Dad had his knee replaced in October": what was done is what is asked after
        had = [
            t.lower_ for t in done.subtree if t.i < done.i and t.dep_ in ("nsubj", "poss", "det")
        ]
        thing = " ".join([*had, done.lower_])
        asked_done = [f"when {asked} {thing}"] if _dated(verb) else []
        if _placed(done) or _placed(verb):
            asked_done.append(f"where {asked} {thing}")
        return asked_done or [f"what {asked} {done.lower_}"]
    if obj is None and lemma in _LIGHT_VERBS and not passive and not particle:
        return []  # "I'll do it after work": nothing a question could ask after
    if obj is not None and not passive and obj.lower_ != "one":  # "Already got one": no sum
        if obj.ent_type_ == "MONEY" or (obj.like_num and obj.ent_type_ != "DATE"):
            out.append(f"how much {asked}")
        elif obj.pos_ == "NOUN" and obj.lemma_.lower() not in VAGUE_NOUNS:
            # "what quote did the plumber give"; but a thing said bare ("I hate coriander",
            # "we play tennis") is no one of a kind: "what do I hate"
            bare = not any(c.dep_ in ("det", "poss", "nummod", "compound") for c in obj.children)
            out.append(f"what {asked}" if bare else f"what {_kind(obj)} {asked}")
        elif obj.pos_ == "PROPN":
            out.append(f"what {asked}")
    elif obj is not None and passive:
        # "Got offered a job": what job did I get offered
        out.append(f"what {_kind(obj)} {asked}" if obj.pos_ == "NOUN" else f"what {asked}")
    elif passive and (prep := _passive_prep(verb)):
        out.append(f"what {asked} {prep}")  # "My mum's been diagnosed with diabetes"
    elif passive and lemma in STATUS_CHANGES:
        out.append(asked)  # "I got promoted": did I get promoted
    elif passive and phrase.islower() and phrase != "we" and any(a.tag_ == "VBD" for a in auxes):
        out.append(f"what happened to {phrase}")  # "My bike got nicked" (done, not going on)
    if lemma in GOAL_VERBS and not passive and (goal := aim_preposition(verb)):
        out.append(f"what {asked} {goal}")  # "I'm training for the Manchester marathon"
    if auxes and (
        any(c.dep_ == "prep" and c.lower_ == "since" for c in verb.children) or _lasting(verb)
    ):
        # "Been learning Italian since March": how long I have been learning Italian
        thing = _object_phrase(obj) if obj is not None and not passive else ""
        out.append(f"how long {asked}{thing}")
        return out
    # "when does Biscuit have a grooming appointment": what is done, with when and where
    thing = _object_phrase(obj) if obj is not None and not passive else ""
    if _clock_time(verb):
        out.append(f"what time {asked}{thing}")  # "I usually get up at 5:30"
    if _how_often(verb):
        out.append(f"how often {asked}{thing}")  # "Nell eats twice a day"
    if _dated(verb):
        out.append(f"when {asked}{thing}")
    if _placed(verb):
        out.append(f"where {asked}{thing}")
    return out


def _how_often(verb: Token) -> bool:
    """ "twice a day", "3 times a week", "once a fortnight": how often, said of the verb
    ("two coffees a day" is how many)."""
    doc = verb.doc
    for part in verb.subtree:
        if part.lemma_.lower() not in _SPANS or not any(c.lower_ == "a" for c in part.children):
            continue
        before = doc[max(part.i - 3, verb.sent.start) : part.i]
        if any(t.lower_ in ("once", "twice", "thrice", "times") for t in before):
            return True
    return False


_SPANS = word_set("day week month year fortnight night")


def _passive_prep(verb: Token) -> str:
    """ "diagnosed with", "signed up to": the preposition a passive verb takes a thing
    with, when a noun follows it."""
    for prep in verb.children:
        if (
            prep.dep_ == "prep"
            and prep.lower_ in ("with", "to", "for", "as", "into")
            and any(g.dep_ == "pobj" and g.pos_ in ("NOUN", "PROPN") for g in prep.children)
        ):
            return prep.lower_
    return ""


def _kind(obj: Token) -> str:
    """The kind of thing an object is: its compound nouns and its lemma ("sales manager
    job" -> "sales manager job", "lattes" -> "latte")."""
    nouns = [t.lower_ for t in obj.lefts if t.dep_ == "compound" and t.pos_ == "NOUN"]
    return " ".join([*nouns[-2:], obj.lemma_.lower()])


def _object_phrase(obj: Token) -> str:
    """ " a grooming appointment": the object with its article and the nouns before it
    (no sum, no date: "when did the plumber quote £240" asks nothing more)."""
    if obj.like_num or obj.ent_type_ in ("MONEY", "DATE", "TIME", "CARDINAL"):
        return ""
    words = [
        t.text if t.pos_ == "PROPN" else t.lower_
        for t in obj.lefts
        if t.dep_ in ("det", "compound", "amod", "poss") and not t.like_num
    ]
    return "".join(f" {w}" for w in [*words[-3:], obj.text if obj.pos_ == "PROPN" else obj.lower_])


def _be(verb: Token, plural: bool) -> str:
    if verb.tag_ == "VBD":
        return "were" if plural else "was"
    return "are" if plural else "is"


def _helper(aux: Token, phrase: str, plural: bool) -> str:
    """The helper verb as it goes before the subject: "is", "have", "will"."""
    lemma = aux.lemma_.lower()
    if lemma == "be":
        if phrase == "I":
            return "am" if aux.tag_ != "VBD" else "was"
        return _be(aux, plural)
    if lemma == "have":
        return "had" if aux.tag_ == "VBD" else _have(phrase, plural)
    if aux.tag_ == "MD":
        return aux.lower_ if aux.lower_ not in ("'ll", "ll") else "will"
    return aux.lower_


def _have(phrase: str, plural: bool) -> str:
    return "have" if plural or phrase == "I" else "has"


_SPANS = word_set("year month week day hour")
_STILL = word_set("now still")
_MEASURED = (
    "how long",
    "how old",
    "how much",
    "what time",
    "how often",
)  # a measure is specific enough
_GOING_ON = word_set("currently now atm nowadays moment")  # "at the moment"
_PARTICLES = word_set("back away home off out up down over")


def _lasting(verb: Token) -> bool:
    """How long it has gone on is said: "nine years", "for six months", "since 2019"
    ("4 years" the parser hangs on a name: "Been at Tesco 4 years")."""
    return any(
        t.lemma_.lower() in _SPANS
        and (t.tag_ == "NNS" or any(c.dep_ == "nummod" for c in t.children))
        and t.dep_ in ("npadvmod", "pobj", "dobj", "appos")
        # ("married 3 years ago": when, not how long)
        and "ago" not in (t.head.lower_, *(c.lower_ for c in t.children))
        for t in verb.subtree
    ) or any(
        c.dep_ == "prep" and c.lower_ == "since" and any(g.dep_ == "pobj" for g in c.children)
        for c in verb.children
    )


def _predicate(verb: Token) -> str:
    """What "be" says, without the time it has lasted: " together", " at Tesco"."""
    words = []
    for child in verb.children:
        if child.dep_ in ("advmod", "acomp", "attr", "prep") and child.lower_ not in _STILL:
            if child.ent_type_ in _DATE_LABELS or _time_prep(child):
                continue  # "nine years", "for six years", "from the 3rd": the time
            part = [
                t
                for t in child.subtree
                if t.lemma_.lower() not in _SPANS
                and not t.like_num
                and not t.is_punct
                # "50mg": the unit typed onto a figure goes with it
                and not (t.i > 0 and t.doc[t.i - 1].like_num and not t.doc[t.i - 1].whitespace_)
                and t.ent_type_ not in _DATE_LABELS
                and not any(_time_prep(a) for a in (t, *t.ancestors))
            ]
            if child.dep_ == "prep" and len(part) < 2:
                continue
            words += part
    words = words[:5]
    while words and words[-1].pos_ in ("DET", "ADP", "CCONJ", "PART", "PRON"):
        words.pop()  # "on the" of "on the 7:15 train": the train was a time
    return "".join(f" {t.text if t.pos_ == 'PROPN' else t.lower_}" for t in words)


def _time_prep(token: Token) -> bool:
    """ "for six years", "from the 3rd": a preposition whose phrase is a time."""
    return token.dep_ == "prep" and (_lasting(token) or names_a_day(list(token.subtree)))


def _clock_time(verb: Token) -> bool:
    """A time of day on the verb ("get up at 5:30", "swim at 7am"), not a date."""
    return any(
        t.ent_type_ == "TIME" and any(c.isdigit() for c in t.text)
        for c in verb.children
        if c.dep_ == "prep" and c.lower_ in ("at", "by", "around", "before")
        for t in c.subtree
    )


def _dated(verb: Token) -> bool:
    """A day or time said in the clause, on the verb or its parts (not "12 years old"),
    not on a verb joined to it ("is 7 and does ballet on Saturdays": the ballet's day)."""
    joined = {
        t.i
        for c in verb.children
        if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")
        for t in c.subtree
    }
    parts = [t for t in verb.subtree if t.i != verb.i and t.i not in joined]
    return names_a_day(parts) or any(t.ent_type_ == "TIME" for t in parts)


def names_a_day(tokens: list[Token]) -> bool:
    """The words name a day the date reader can resolve ("on the 9th", "next Tuesday";
    not "a 2017 Kia", "about 14,000 a month", "is 80")."""
    if not tokens:
        return False
    span = tokens[0].doc[tokens[0].i : tokens[-1].i + 1]
    # (a yearly day, "on 14 June", or a day of every month, "the last Thursday of the
    # month", is written without a date but names a day all the same)
    return bool(resolve_dates(span, _ANY_DAY)) or any(
        t.ent_type_ == "DATE"
        and (t.lower_ in _MONTHS or t.lower_.removesuffix("s") in WEEKDAYS)
        or _day_of_every_month(t)
        # "the weekend after next": a day said, though in words too loose to date
        or (t.ent_type_ == "DATE" and t.lower_ in ("weekend", "week", "fortnight"))
        # "meet first wednesday of the month": typed lower case, no tagger's date
        or (t.lower_.removesuffix("s") in WEEKDAYS and t.dep_ in ("npadvmod", "pobj"))
        for t in tokens
    )


def _day_of_every_month(token: Token) -> bool:
    """ "paid on the 28th", "goes out on the 1st": a numbered day after "the" and a
    word of time."""
    doc = token.doc
    return (
        token.ent_type_ in ("DATE", "ORDINAL")
        and token.lower_[-2:] in ("st", "nd", "rd", "th")
        and token.lower_[:-2].isdigit()
        and token.i >= 2
        and doc[token.i - 1].lower_ == "the"
        and doc[token.i - 2].lower_ in DAY_PREPOSITIONS
    )


_ANY_DAY = date(2026, 1, 1)  # only whether a day is named matters, not which
_MONTHS = frozenset(m.lower() for m in (*calendar.month_name[1:], *calendar.month_abbr[1:]))


def _placed(verb: Token) -> bool:
    """A place said after at/in/on/near: a name, or a built place ("the church hall")."""
    # ("got back from Crete": the parser hangs "from" on "back")
    heads = [verb, *(c for c in verb.children if c.lower_ in _PARTICLES)]
    preps = [c for h in heads for c in h.children if c.dep_ == "prep" and c.lower_ in _PLACE_PREPS]
    for prep in preps:
        for pobj in (g for g in prep.children if g.dep_ == "pobj"):
            if pobj.ent_type_ in _DATE_LABELS:
                continue
            if pobj.ent_type_ in _PLACE_LABELS or pobj.lemma_.lower() in BUILT_PLACES:
                return True
            if (
                prep.lower_ == "at"
                and pobj.pos_ == "NOUN"
                and any(c.dep_ == "det" and c.lower_ == "the" for c in pobj.children)
                and pobj.lemma_.lower() not in VAGUE_NOUNS | _SPANS | _NOT_PLACES
            ):
                return True  # "at the scout hut": a place said as a thing there
    return False


_NOT_PLACES = word_set("moment minute end start beginning time weekend latest least most")


def _asks_something(question: str) -> bool:
    """A question with a word of its own past its first two ("what is the venue", not
    "what did I do")."""
    words = question.split()[2:]
    return any(w.lower() not in _LIGHT_VERBS and w.lower() not in ("i", "we") for w in words)
