"""Reconcile without a model: which new statement replaces which memory, and how.

A correction is a new value for the same (subject, attribute) facet
(``memories.extraction.offline.facets``) said by the same speaker. When exactly one memory the
index offers holds that facet, it is rewritten: the new statement, then, in brackets,
the old statement's words that the new one does not contradict ("... it was $1,400
(for a Herman Miller Aeron chair from the Design Within Reach store)"), each piece as
it was said; its other sentences stay as they were. Nothing else is written into it:
no value is moved into a sentence about something else. When several memories could
be meant, or a statement ends a relation ("I left Unilever", "Liam and I broke up"),
the new memory is stored with a ``supersedes`` link to each, and retrieval ranks it
above them. A statement that says nothing new (every name and noun of it already in
one memory) adds its source to that memory. Statements of one job are reconciled with
each other the same way (a later one supersedes an earlier one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from spacy.tokens import Span, Token

from memories.extraction.offline.dates import WEEKDAYS
from memories.extraction.offline.facets import (
    PRONOUN,
    Facet,
    Reading,
    cleft_states,
    my_home_in,
    names,
    read,
)
from memories.extraction.offline.facets import without_speaker as speaker_free
from memories.extraction.offline.language import (
    new_amount,
    parse,
    switched_kind,
    with_is,
    work_said_bare,
)
from memories.extraction.offline.respelling import looks_alike, respelt
from memories.extraction.offline.words import (
    CORRECTION,
    DWELLINGS,
    ENDING_VERBS,
    INSTEAD,
    MOVE_VERBS,
    UNREALISED,
    VAGUE_NOUNS,
    word_set,
)
from memories.extraction.stopwords import STOPWORDS
from memories.extraction.types import Candidate, Draft, DraftLink, Rewrite

SUPERSEDES = "supersedes"
# a new value of these replaces the old memory whole, never folded into it: "I've been
# vegan for 5 years" then "I'm vegetarian now" is no "vegetarian for 5 years"
_REPLACED_WHOLE = ("diet",)
_MARKED_ATTRIBUTES = (
    "when",
    "where",
    "price",
    "colour",
    "count",
)  # need a correction word to count


def reconcile(
    *,
    drafts: Sequence[Draft],
    candidates: Sequence[Candidate],
    candidates_for: Mapping[str, Sequence[str]],
    readings: Mapping[str, Reading],
) -> tuple[list[Rewrite], list[DraftLink]]:
    by_key = {c.key: c for c in candidates}
    folds: dict[str, list[tuple[Draft, Facet | None]]] = {}
    links: list[DraftLink] = []
    endings: list[tuple[Draft, list[str]]] = []
    renames: dict[str, list[tuple[Draft, tuple[str, str]]]] = {}
    for draft in drafts:
        new = readings[draft.key]
        keys = [
            k
            for k in candidates_for.get(draft.key, ())
            if _speaker(by_key[k].memory.text) == _speaker(draft.body)
        ]
        matches = [(k, old) for k in keys if (old := correction(new, readings[k])) is not None]
        respellings = [(k, pair) for k in keys if (pair := renamed(new, readings[k])) is not None]
        if respellings and not matches:
            # "Her name is Aoibhe not Aoife": the older memories say it right now
            for k, pair in respellings:
                renames.setdefault(k, []).append((draft, pair))
            continue
        if len(matches) > 1 and any(f.subject == PRONOUN for f in new.facets):
            continue  # "actually it was £499" and three prices: which "it"? In doubt, none
        if len(matches) == 1:
            folds.setdefault(matches[0][0], []).append((draft, matches[0][1]))
            continue
        if matches:
            links.extend(DraftLink(source=draft.key, target=k, type=SUPERSEDES) for k, _ in matches)
            continue
        ended = [k for k in keys if _ends(new, readings[k])]
        if ended:
            endings.append((draft, ended))
            continue
        changed = [k for k in keys if changes(new, readings[k])]
        if changed:
            links.extend(DraftLink(source=draft.key, target=k, type=SUPERSEDES) for k in changed)
            continue
        amounts = [k for k in keys if _amount_changed(new, readings[k])]
        if len(amounts) == 1:  # of two amounts of that kind, which one? In doubt, none
            links.append(DraftLink(source=draft.key, target=amounts[0], type=SUPERSEDES))
            continue
        same = [k for k in keys if _restates(new, readings[k])]
        if same:
            folds.setdefault(same[0], []).append((draft, None))
    # "cancelled FlexForm, too far. switched to Ironbark Fitness": the change said next
    # takes the ended one's place too, so what asked after the old one finds it
    order = {d.key: i for i, d in enumerate(drafts)}
    claimed = {link.source for link in links} | {
        d.key for parts in folds.values() for d, _ in parts
    }
    for draft, ended in endings:
        after = drafts[order[draft.key] + 1] if order[draft.key] + 1 < len(drafts) else None
        if (
            after is not None
            and after.key not in claimed
            and after.sources[:1] == draft.sources[:1]
            and _SWITCH.search(readings[after.key].text)
        ):
            links.extend(DraftLink(source=after.key, target=k, type=SUPERSEDES) for k in ended)
    for draft, ended in endings:
        for key in ended:
            if key in folds and any(f is not None for _, f in folds[key]):
                folds[key].insert(0, (draft, None))  # "I left Unilever." joins the rewrite
                break
        else:
            links.extend(DraftLink(source=draft.key, target=k, type=SUPERSEDES) for k in ended)
    # Within the job: a later statement supersedes an earlier one it corrects.
    folded = {d.key for parts in folds.values() for d, _ in parts}
    pronoun: dict[str, list[str]] = {}
    for i, later in enumerate(drafts):
        if later.key in folded:
            continue
        for earlier in drafts[:i]:
            if earlier.key in folded or _speaker(earlier.body) != _speaker(later.body):
                continue
            new, old = readings[later.key], readings[earlier.key]
            if _ends(new, old) or changes(new, old):
                links.append(DraftLink(source=later.key, target=earlier.key, type=SUPERSEDES))
            elif (found := correction(new, old)) is not None:
                if found.subject == PRONOUN or any(f.subject == PRONOUN for f in new.facets):
                    pronoun.setdefault(later.key, []).append(earlier.key)
                else:
                    links.append(DraftLink(source=later.key, target=earlier.key, type=SUPERSEDES))
    # "wait, it was £499": "it" is the latest earlier statement with that attribute
    links.extend(
        DraftLink(source=later, target=earlier[-1], type=SUPERSEDES)
        for later, earlier in pronoun.items()
    )
    rewrites = []
    for key, parts in renames.items():
        if key in folds:
            continue
        body = by_key[key].memory.text
        for _, (wrong, right) in parts:
            body = respelt(body, wrong, right)
        rewrites.append(Rewrite(target=key, drafts=tuple(d.key for d, _ in parts), body=body))
    for key, parts in folds.items():
        old = by_key[key].memory.text
        facets = [f for _, f in parts if f is not None]
        if not facets:
            rewrites.append(Rewrite(target=key, drafts=tuple(d.key for d, _ in parts), body=old))
            continue
        body = corrected_body(readings[key], facets[0], [d.body for d, _ in parts])
        rewrites.append(Rewrite(target=key, drafts=tuple(d.key for d, _ in parts), body=body))
    return rewrites, links


_SWITCH = re.compile(
    r"\b(?:switch(?:ed)?|mov(?:ed|ing)|chang(?:ed|ing)|went|going)\s+(?:over\s+)?to\b|\binstead\b"
    # "someone nicked my Allez, so I've bought a Trek", "..., I start at Kingsmead"
    r"|\bjoined\b|\bbought\b|\bstart(?:s|ed|ing)?\s+(?:at|with)\b"
    # "Cancelled the Nuffield, I'm at PureGym now", "Priya left, my new boss is Tom"
    r"|\bnow\b|\bnew\b|\bthese days\b",
    re.I,
)


def _of(reading: Reading, attribute: str) -> set[str]:
    return {f.subject for f in reading.facets if f.attribute == attribute}


def _ends(new: Reading, old: Reading) -> bool:
    """``new`` says what ``old`` names is over: a relation ended ("I left Unilever") or
    a state the speaker had ("I'm no longer vegan" after "I'm vegan")."""
    if new.stopped & old.holds:
        return True
    if _ends_my_thing(new, old):
        return True
    if not (new.endings | new.stopped) & names(old):
        return False
    # "Sam is leaving the band" ends Sam's part, never "I play bass in a band with Sam"
    return not (_ended_by_someone_else(new) and _said_of_me(old))


_GIVEN_UP = word_set("quit cancel leave sell trade scrap drop")


def _ends_my_thing(new: Reading, old: Reading) -> bool:
    """ "Gave up the food bank" after "I help out at the food bank on Sundays": I ended
    a thing the older first-person statement named, said as a noun, not a name (a
    broken or lost thing is not over: "broke my phone screen")."""
    if not _first_person(old):
        return False
    before = {lemma for lemma, _, _ in _roles(old)}
    for verb in new.doc:
        lemma = verb.lemma_.lower()
        given_up = lemma == "give" and any(
            c.dep_ == "prt" and c.lower_ == "up" for c in verb.children
        )
        if verb.pos_ != "VERB" or not (lemma in _GIVEN_UP or given_up or lemma == "rid"):
            continue
        subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subject is not None and subject.lower_ not in ("i", "we"):
            continue
        if lemma == "rid" and any(
            g.dep_ == "pobj" and g.lemma_.lower() in before
            for c in verb.children
            if c.dep_ == "prep" and c.lower_ == "of"
            for g in c.children
        ):
            return True  # "Got rid of the Corsa"
        # ("Dropped French": the small parser may hang the name on the verb as an adverb;
        # "dropped my phone" is a fall, not an ending: what is dropped is no thing of mine)
        if any(
            (c.dep_ == "dobj" or (c.dep_ == "advmod" and c.pos_ == "PROPN"))
            and c.lemma_.lower() in before
            and not (lemma == "drop" and (_owned_by_me(c) or _dropped_somewhere(verb)))
            for c in verb.children
        ):
            return True
    return False


def _dropped_somewhere(verb: Token) -> bool:
    """ "dropped the car at the garage", "dropped the kids off": put somewhere, not given
    up."""
    return any(
        (c.dep_ == "prt" and c.lower_ == "off")
        or (c.dep_ == "prep" and c.lower_ in ("at", "to", "in", "into", "on", "with", "off"))
        for c in verb.children
    )


def _ended_by_someone_else(reading: Reading) -> bool:
    """Every ending verb of the statement has a subject that is not the speaker."""
    enders = [t for t in reading.doc if t.pos_ == "VERB" and t.lemma_.lower() in ENDING_VERBS]
    subjects = [
        next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")), None) for t in enders
    ]
    # "someone nicked my Allez": what they ended is mine
    mine = any(
        _owned_by_me(c) for t in enders for c in t.children if c.dep_ in ("dobj", "nsubjpass")
    )
    return (
        bool(enders)
        and not mine
        and all(s is not None and s.lower_ not in ("i", "we") for s in subjects)
    )


def _owned_by_me(token: Token) -> bool:
    return any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in token.children)


def _said_of_me(reading: Reading) -> bool:
    """The statement's main verb is the speaker's ("I play bass in a band with Sam")."""
    root = next((t for t in reading.doc if t.dep_ == "ROOT"), None)
    if root is None:
        return False
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    return subject is not None and subject.lower_ in ("i", "we")


# A change marker: the newer statement says something replaced what was before.
CHANGE = re.compile(
    r"\b(?:instead|now|no longer|not\b[^.!?]{0,40}\bany ?more|moved|switched|sold|new|"
    r"actually|turns out|typo|changed|cut (?:down|back)|down to|up to|went with|replaced|"
    r"upgraded|swapped|traded|upped|increased|raised|lowered|reduced)\b",
    re.IGNORECASE,
)
# ... unless both plainly hold: "I'm also allergic to nuts", "our second child"
BOTH_HOLD = re.compile(
    r"\b(?:also|too|as well|another|second|third|both|each|plus|in addition)\b", re.I
)


def changes(new: Reading, old: Reading) -> bool:
    """The generic rule of current truth, without understanding the sentence: a newer
    first-person statement whose clause has a change marker and names the same
    distinguishing thing (the head of a noun phrase or a name as a subject, object or
    complement, not a date, a sum or a vague word) as an older one replaces it, unless
    it says both hold. The marker must be in the clause that names the thing ("I've
    been painting a lot now; the new canvas is huge" supersedes nothing about painting)."""
    if BOTH_HOLD.search(new.text):
        return False
    new, old = _read_as_is(new), _read_as_is(old)
    if new.marked and (_retyped(new, old) or _moves_the_day(new, old)):
        return True
    if _new_figure(new, old):
        return True
    if _promoted(new, old):
        return True
    if _route_changed(new, old):
        return True
    if _switched_kind(new, old):
        return True
    if _moved_from(new, old):
        return True
    if _new_one(new, old):
        return True
    if any(
        f.attribute == b.attribute and f.value != b.value
        for f in new.facets
        for b in old.facets
        if f.attribute in _REPLACED_WHOLE and f.subject == b.subject
    ):
        return True  # "pescatarian now" after "I'm vegetarian"
    if new.marked and {state for state, _ in cleft_states(new.doc)} & old.holds:
        return True  # "turns out what I'm actually allergic to is sesame"
    if (new.marked or _figure_not_figure(new)) and _denies(new, old):
        return True  # "turns out it's dogs I'm allergic to, not cats", "it's 14B, not 41B"
    marked = _marked_clauses(new)
    if not marked:
        return False
    # lemmas and words as said: the small tagger lemmatises "pilates" once as "pilate"
    before = {form for t, lemma, _ in _role_tokens(old) for form in (lemma, t.lower_)}
    mine_before = before if _first_person(old) else set()
    # "Football got moved to Thursdays" after "The kids' football training is on
    # Tuesdays": the thing named by the word that told it apart before
    kinds_before = _compounds(old, bare=not _first_person(old))
    speaker = _first_person(new)
    return any(
        clause in marked
        and (
            (lemma in before or token.lower_ in before)
            and (
                (speaker and _said_of_mine(new.doc[clause], lemma))
                or (
                    (lemma in mine_before or token.lower_ in mine_before)
                    and _my_thing_changed(token, new.doc[clause], old)
                )
            )
            or token.dep_ in ("nsubj", "nsubjpass")
            and (lemma in kinds_before or token.lower_ in kinds_before)
            and not any(c.dep_ == "compound" for c in token.children)
            and _my_thing_changed(token, new.doc[clause], old)
            # a day for a day, a place for a place ("My football boots are Nike" is no
            # football that moved to Thursdays)
            and bool(value_kinds(new.doc[clause].subtree) & value_kinds(old.doc))
        )
        for token, lemma, clause in _role_tokens(new)
    )


def _moved_from(new: Reading, old: Reading) -> bool:
    """ "We moved to Kingston on the weekend" after "Our apartment in the Glebe has a big
    south window": a move of the speaker's to another place puts right a home of theirs
    said in passing. Only that way round: a home said in passing replaces nothing, for
    it may name a part of the place said before ("We live in Ottawa, in the Glebe")."""
    moved = [
        f
        for f in new.facets
        if f.subject == "i"
        and f.attribute == "home"
        and any(t.lemma_.lower() in _MOVING for t in new.doc)
    ]
    if not moved:
        return False
    for sent in old.doc.sents:
        place = my_home_in(list(sent))
        if place is not None and all(place.lower_ not in f.value for f in moved):
            return True
    return False


_MOVING = frozenset(("move", "relocate", "shift"))


def value_kinds(tokens) -> set[str]:
    """The kinds of value the words give: a day or time, a figure, a place (a name or a
    built place after at/in/to), another name."""
    kinds = set()
    for t in tokens:
        if t.ent_type_ in ("DATE", "TIME") or t.lower_.removesuffix("s") in WEEKDAYS:
            kinds.add("when")
        elif t.like_num or t.ent_type_ == "MONEY":
            kinds.add("figure")
        elif (
            t.dep_ == "pobj"
            and t.head.lower_ in ("at", "in", "to", "from")
            and t.pos_ in ("NOUN", "PROPN")
            and t.lemma_.lower() not in VAGUE_NOUNS
        ):
            kinds.add("place")  # "at the scout hut", "to the library", "in Leith"
        elif t.pos_ == "PROPN":
            kinds.add("name")
    return kinds


def _compounds(reading: Reading, *, bare: bool = False) -> set[str]:
    """The nouns that tell a subject of mine apart ("football" of "the kids' football
    training", "book" of "our book club"): what the thing may be called alone later.
    ``bare``: the statement is not said of the speaker, and only a subject said without
    an article or an owner counts ("Choir practice is at St Mary's": mine, unsaid)."""
    return {
        form
        for t, _, _ in _role_tokens(reading)
        if t.dep_ in ("nsubj", "nsubjpass")
        and not (bare and any(c.dep_ in ("det", "poss", "amod") for c in t.children))
        for c in t.children
        if c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN")
        for form in (c.lemma_.lower(), c.lower_)
    }


def _new_one(new: Reading, old: Reading) -> bool:
    """ "New physio, a guy called Jordi", "I've got a new GP, Dr Okafor" after "My physio
    is Ines", "My GP is Dr Shah": a new one of a thing I called mine, naming who or what
    it is now; said without a verb, or got by me."""
    words = [t for t in new.doc if not (t.is_punct or t.pos_ == "INTJ")]
    if len(words) < 3:
        return False
    if words[0].lower_ == "new" and words[1].dep_ == "ROOT" and words[0].head.i == words[1].i:
        root = words[1]
    else:
        root = next(
            (
                t
                for t in new.doc
                if t.dep_ == "dobj"
                and t.head.lemma_.lower() in ("get", "find", "have")
                and any(c.dep_ == "amod" and c.lower_ == "new" for c in t.children)
                and _said_of_mine(t.head, "")
            ),
            None,
        )
    if root is None or root.pos_ != "NOUN":
        return False
    named = any(t.pos_ == "PROPN" or t.like_num for t in root.subtree if t.i != root.i)
    mine = any(
        t.lemma_.lower() == root.lemma_.lower() and _owned_by_me(t) for t, _, _ in _role_tokens(old)
    )
    return named and mine


def _read_as_is(reading: Reading) -> Reading:
    """ "Spin's on Thursdays now" read as "Spin is on ...": the small parser takes the
    "'s" for an owner's where no noun follows (``language.with_is``)."""
    if "'s" not in reading.text and "’s" not in reading.text:
        return reading
    written = with_is(reading.doc)
    return reading if written == reading.text else read(written)


def _switched_kind(new: Reading, old: Reading) -> bool:
    """ "Switched dentists, I'm with Dr Okoro now" replaces "My dentist is Dr Patel":
    one of a kind swapped, said as the kind (the parser may read "Switched dentists" as
    an adjective and its noun, so the words decide)."""
    kind = switched_kind(new.doc)
    return kind is not None and kind.lemma_.lower() in heads(old)


def _route_changed(new: Reading, old: Reading) -> bool:
    """ "I get the train to work now" after "I walk to work": both mine, each a way of
    getting to the same everyday place (a verb of travel, or "by"), the new one said
    with now, these days or instead."""
    if not (_first_person(new) and _first_person(old)):
        return False
    if not (_NOW.search(new.text) or INSTEAD.search(new.text)):
        return False
    before, after = _route(old), _route(new)
    return before is not None and before == after


_ROUTE = re.compile(r"\bto\s+(?:the\s+)?(work|school|uni|college|office|nursery)\b", re.I)
_TRAVEL_VERBS = frozenset(
    ("walk", "cycle", "bike", "drive", "take", "get", "catch", "ride", "run", "commute", "scoot")
)


_VIA_VERBS = frozenset(("get", "take", "catch"))


def _route(reading: Reading) -> str | None:
    """The everyday place a statement says how I get to, or None."""
    m = _ROUTE.search(reading.text)
    if m is None:
        return None
    travels = any(
        t.lemma_.lower() in _TRAVEL_VERBS
        and t.pos_ == "VERB"
        # "get the train", "take the bus"; not "I get to work at 8" (the words decide:
        # the small parser reads "get the train to work" as making the train work)
        and (
            t.lemma_.lower() not in _VIA_VERBS
            or t.i + 1 < len(t.doc)
            and t.doc[t.i + 1].pos_ in ("DET", "NOUN")
        )
        for t in reading.doc
    ) or re.search(r"\bby\s+(?:bus|train|bike|car|tube|tram)\b", reading.text, re.I)
    return m.group(1).lower() if travels else None


def _promoted(new: Reading, old: Reading) -> bool:
    """ "Just got promoted to charge nurse!" after "I'm a staff nurse at Leeds General":
    a promotion of mine is my new role, where the older statement said my role, at the
    workplace it names (or, naming none, at the one I said)."""
    if not any(f.subject == "i" and f.attribute == "role" for f in old.facets):
        return False
    if not _first_person(new) or not any(
        t.lemma_.lower() == "promote"
        and not any(
            c.dep_ in ("nsubj", "nsubjpass") and c.lower_ not in ("i", "we") for c in t.children
        )
        for t in new.doc
    ):
        return False
    places = {f.value for f in new.facets if f.subject == "i" and f.attribute == "job"}
    names = {e.text.lower() for e in new.doc.ents if e.label_ in ("ORG", "FAC", "GPE")}
    was_at = {f.value for f in old.facets if f.subject == "i" and f.attribute == "job"}
    return not (places | names) or bool((places | names) & was_at)


def _my_thing_changed(token: Token, verb: Token, old: Reading) -> bool:
    """ "The gym put the price up to £42", "the doctor upped my citalopram to 30mg",
    "Book club has moved to Kate's": a thing the older statement called mine, named as
    mine ("my", "our"), as the one known ("the") or bare, in a clause that gives it a
    new value (a number, a day, a name); someone else's ("Tom's gym") is not mine."""
    determiners = [
        c
        for c in token.children
        if c.dep_ in ("det", "poss") and not (c.i + 1 < len(c.doc) and c.doc[c.i + 1].text == "-")
    ]
    if not all(c.lower_ in ("the", "my", "our") for c in determiners):
        return False
    own = {t.i for t in token.subtree}
    values = [
        t
        for t in verb.subtree
        if t.i not in own
        and (t.like_num or t.pos_ == "PROPN" or t.ent_type_ in ("DATE", "TIME", "MONEY"))
    ]
    if _changing_verb(verb):
        # "moved to the library": a place it moved to, if a place was said of it before
        moved_to = verb.lemma_.lower() in MOVE_VERBS and "place" in value_kinds(verb.subtree)
        return bool(values) or (moved_to and "place" in value_kinds(old.doc))
    # "Tennis is Thursdays now" after "I play tennis on Tuesdays": a "be" of my thing
    # with "now", whose value is of the kind the older one's was (a day for a day)
    if verb.lemma_.lower() != "be" or token.dep_ != "nsubj" or token.head.i != verb.i:
        return False  # "Tom plays five-a-side on Thursdays now" changes nothing of mine
    if not _NOW.search(verb.sent.text):
        return False
    said = {
        t.i
        for c in verb.children
        if c.dep_ in ("attr", "acomp", "prep", "npadvmod")
        for t in c.subtree
    }  # what my thing is now, not a place it is said beside
    kinds = {_kind(t) for t in values if t.i in said}
    return bool(kinds & {_kind(t) for t in old.doc} - {""})


_NOW = re.compile(r"\b(?:now|these days|nowadays)\b", re.I)


def _kind(token: Token) -> str:
    """What kind of value a word is: a day or time, a sum or number, a name, or none."""
    if token.ent_type_ in ("DATE", "TIME"):
        return "when"
    if token.like_num or token.ent_type_ == "MONEY":
        return "figure"
    return "name" if token.pos_ == "PROPN" else ""


def _changing_verb(verb: Token) -> bool:
    """The clause's verb itself says the change ("moved", "upped", "put ... up to"),
    not just a "now" or "new" beside it."""
    said = [verb.lower_] + [
        f"{c.lower_} {c.doc[c.i + 1].lower_}"
        for c in verb.children
        if c.dep_ in ("prt", "prep", "advmod") and c.i + 1 < len(c.doc)
    ]
    # "put the rent up to £1,020": the parser hangs "up to" on the sum at times
    said += [
        " ".join(w.lower_ for w in c.children if w.dep_ in ("advmod", "quantmod"))
        for c in verb.children
        if c.like_num or c.ent_type_ == "MONEY"
    ]
    return any(
        (m := CHANGE.search(text)) is not None and m.group(0).lower() not in ("now", "new")
        for text in said
    )


def _not_pairs(reading: Reading) -> list[tuple[Token, Token]]:
    """ "Aoibhe not Aoife", "14B, not 41B": (what is said, what it is said in place of)
    for each "not" between two names or figures."""

    def value(token: Token) -> bool:
        return token.text[:1].isupper() or any(c.isdigit() for c in token.text)

    pairs = []
    for t in reading.doc:
        if t.lower_ != "not" or t.i == 0:
            continue
        before = next((u for u in reversed(reading.doc[: t.i]) if not u.is_punct), None)
        after = next((u for u in reading.doc[t.i + 1 :] if not u.is_punct), None)
        if before is not None and after is not None and value(before) and value(after):
            pairs.append((before, after))
    return pairs


def _figure_not_figure(reading: Reading) -> bool:
    """ "it's 14B, not 41B": one figure said in place of another is a correction without
    a correction word."""
    return any(any(c.isdigit() for c in said.text) for said, _ in _not_pairs(reading))


def renamed(new: Reading, old: Reading) -> tuple[str, str] | None:
    """ "Her name is Aoibhe not Aoife" after "My daughter Aoife starts in the Gaelscoil":
    (the name as it was written, the name it is) when the older statement wrote the
    denied name and not the new one; the rest of what it says still holds."""
    for said, denied in _not_pairs(new):
        if not said.is_alpha or not denied.is_alpha or not looks_alike(said.text, denied.text):
            continue  # ("Priya, not Anika, is coming": another person, not a spelling)
        words = {t.text for t in old.doc}
        if denied.text in words and said.text not in words:
            return denied.text, said.text
    return None


def _denies(new: Reading, old: Reading) -> bool:
    """A correction that says "not X" of a thing (or figure) the older statement said:
    "turns out it's dogs I'm allergic to, not cats", "I meant Leeds, not Leicester"."""
    said = _things(old) | {t.text for t in old.doc if any(c.isdigit() for c in t.text)}
    for t in new.doc:
        if t.lower_ != "not":
            continue
        after = [u for u in new.doc[t.i + 1 : t.i + 4] if not (u.is_punct or u.pos_ == "DET")]
        if after and (after[0].lemma_.lower() in said or after[0].text in said):
            return True
    return False


def _figure_of(reading: Reading) -> tuple[str, str, str] | None:
    """ "Rent is 28k", "our mortgage is £1,100 a month": (the thing, the kind of its
    figure, the figure) of a statement whose main verb is "be", with a singular thing of
    mine (or a bare one) as its subject and a number as what it is."""
    root = next((t for t in reading.doc if t.dep_ == "ROOT"), None)
    if root is None or root.lemma_ != "be":
        return None
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    value = next((c for c in root.children if c.dep_ in ("attr", "acomp")), None)
    if subject is None or value is None or subject.tag_ not in ("NN", "NNP"):
        return None
    owners = [c.lower_ for c in subject.children if c.dep_ in ("poss", "det")]
    if owners and not set(owners) <= {"my", "our"}:
        return None
    figure = [t for t in value.subtree if t.like_num or any(ch.isdigit() for ch in t.text)]
    if not figure:
        return None
    # the kind of figure, by its entity and the noun it counts: "£450" is no "5 years"
    first = figure[0]
    kind = first.ent_type_ + (first.head.lemma_.lower() if first.head.pos_ == "NOUN" else "")
    return subject.lemma_.lower(), kind, " ".join(t.lower_ for t in figure)


def _new_figure(new: Reading, old: Reading) -> bool:
    """ "Rent is 35k but worth it" after "Rent is 28k": a new figure of the same kind for
    the same thing of mine is its current one, with or without a change word."""
    before, after = _figure_of(old), _figure_of(new)
    return (
        before is not None
        and after is not None
        and before[:2] == after[:2]
        and before[2] != after[2]
    )


def _amount_changed(new: Reading, old: Reading) -> bool:
    """ "Down to 77kg now!" after "I weigh 82 kilos": a new amount, said without what it
    is of, of the kind (its entity, or the noun it counts) a statement of mine gave."""
    if _measure_changed(new, old):
        return True
    first = new_amount(list(new.doc))
    if first is None or not _first_person(old):
        return False
    kind = _amount_kind(first)
    return any(t.like_num and t.text != first.text and _amount_kind(t) & kind for t in old.doc)


def _measure_changed(new: Reading, old: Reading) -> bool:
    """ "I'm 13 stone these days" after "I weigh 14 stone", "I've gone up to 3 days a
    week" after "I volunteer 2 days a week": both mine, the new one said with "now" or
    as gone up or down, a measure of the same unit and per the same period, and the new
    verb a light one ("be", "go") or the old one's ("I run 15 miles a week now" is no new
    measure of "I cycle 40 miles a week")."""
    if not (_first_person(new) and _first_person(old)):
        return False
    if not (_NOW.search(new.text) or _UP_OR_DOWN.search(new.text)):
        return False
    # (unit, period) -> the numbers and verbs the older statement said it with
    before: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for (unit, period, number), verb in _measures(old.doc):
        before.setdefault((unit, period), []).append((number, verb))
    return any(
        (unit, period) in before
        and number not in {n for n, _ in before[(unit, period)]}
        and (verb in _LIGHT_VERBS or verb in {v for _, v in before[(unit, period)]})
        for (unit, period, number), verb in _measures(new.doc)
    )


_UP_OR_DOWN = re.compile(r"\b(?:up|down)\s+to\b", re.I)
_LIGHT_VERBS = frozenset(("be", "go", "get", "come", "cut", "drop", "move", "up"))


def _measures(doc) -> list[tuple[tuple[str, str, str], str]]:
    """Each number of a measure ("14 stone", "3 days a week"): (unit, period, number),
    and the verb it is said with."""
    found = []
    for token in doc:
        unit = token.head
        # (the small tagger reads the unit of "82kg" as a name: a unit is typed lower case)
        if not (unit.pos_ == "NOUN" or unit.pos_ == "PROPN" and unit.text.islower()):
            continue
        if not token.like_num or token.dep_ != "nummod":
            continue
        if token.ent_type_ == "MONEY":
            continue  # a sum is a thing's price, said of many things: left to the thing
        after = doc[unit.i + 1 : unit.i + 3]
        period = (
            after[1].lemma_.lower()
            if len(after) == 2 and after[0].lower_ in ("a", "an", "per", "each", "every")
            else ""
        )
        verb = unit
        while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
            verb = verb.head
        found.append(((unit.lemma_.lower(), period, token.text), verb.lemma_.lower()))
    return found


def _amount_kind(token: Token) -> set[str]:
    kind = {token.ent_type_} & {"QUANTITY", "MONEY", "PERCENT"}
    unit = token.head if token.dep_ == "nummod" else None
    if unit is not None and (unit.pos_ == "NOUN" or unit.text.islower()):
        kind.add(unit.lemma_.lower())
    return kind


def _moves_the_day(new: Reading, old: Reading) -> bool:
    """ "they've moved thursday to 5:15" after "physio thursday at 4:30": the day
    moved is one the older statement was set for, so what it said then is over."""
    said = {t.lower_ for t in old.doc if t.ent_type_ in ("DATE", "TIME") or t.lower_ in WEEKDAYS}
    return any(
        t.lemma_.lower() in MOVE_VERBS
        and any(
            c.dep_ in ("dobj", "nsubjpass", "npadvmod") and c.lower_ in WEEKDAYS & said
            for c in t.children
        )
        for t in new.doc
    )


def _retyped(new: Reading, old: Reading) -> bool:
    """ "wait typo, I meant #08-121" after "... unit #08-112": a figure of the same
    shape as one the older statement said, and none of its own figures the same."""

    def figures(reading: Reading) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for t in reading.doc:
            if (
                any(c.isdigit() for c in t.text)
                and len(t.text) >= 3
                and t.ent_type_
                not in (
                    "DATE",
                    "TIME",
                )
            ):
                found.setdefault(t.shape_, set()).add(t.text)
        return found

    mine, theirs = figures(new), figures(old)
    return bool(mine) and all(
        shape in theirs and not (texts & theirs[shape]) for shape, texts in mine.items()
    )


def _said_of_mine(verb: Token, lemma: str) -> bool:
    """The clause is the speaker's: its subject is "I" or "we", or the thing itself
    ("my commute is 40 minutes now"); "my sister got a new job" is my sister's, and so
    is "my parents' house needs a new roof"."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None:
        return True  # "switched to oat milk": the speaker, unsaid
    return subject.lower_ in ("i", "we") or (
        subject.lemma_.lower() == lemma
        and all(c.lower_ in ("my", "our") for c in subject.children if c.dep_ == "poss")
    )


_ROLES = frozenset(("nsubj", "nsubjpass", "dobj", "attr", "pobj"))


def _clause(token: Token) -> int:
    """The verb whose clause ``token`` is in (its index)."""
    while token.head.i != token.i and not (
        token.pos_ in ("VERB", "AUX") and token.dep_ in ("ROOT", "conj", "ccomp", "advcl", "relcl")
    ):
        token = token.head
    return token.i


def _marked_clauses(reading: Reading) -> set[int]:
    found = set()
    for match in CHANGE.finditer(reading.text):
        span = reading.doc.char_span(match.start(), match.end(), alignment_mode="expand")
        if span is not None:
            found |= {_clause(t) for t in span}
    return found


def _first_person(reading: Reading) -> bool:
    """Said of the speaker: "I", "we", "my", "our", a statement whose verb has no
    subject at all ("Cut down to 1 coffee a day": the "I" left out), or one whose
    subject is a bare thing ("Rent is 35k now")."""
    if any(t.lower_ in ("i", "we", "my", "our") for t in reading.doc):
        return True
    if any(t.dep_ == "poss" and t.lemma_.lower() in ("kid", "child") for t in reading.doc):
        return True  # "the kids' football training": the speaker's household's
    root = next((t for t in reading.doc if t.dep_ == "ROOT"), None)
    if (
        root is not None
        and root.pos_ == "VERB"
        and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in root.children)
    ):
        return True
    # "Rent is 35k now", "parking is 55 quid now, they put it up": a bare thing as a
    # clause's subject, the "my" left out ("the rent", "his rent", "rents" are not)
    return any(
        t.dep_ == "nsubj"
        and t.tag_ == "NN"
        and t.ent_type_ == ""
        and not any(c.dep_ in ("det", "poss", "compound", "amod") for c in t.children)
        for t in reading.doc
    )


def _role_tokens(reading: Reading) -> list[tuple[Token, str, int]]:
    """(token, lemma, clause) of each distinguishing thing named in a role."""
    named = heads(reading)
    return [
        (t, t.lemma_.lower(), _clause(t))
        for t in reading.doc
        if t.dep_ in _ROLES and t.lemma_.lower() in named and not _gone_to(t)
    ]


# where one goes every day: "to work" names no thing a change replaces ("I start work at
# 8 now" is no new way of "I drive to work"; _route_changed reads a new way there)
_ROUTINE_PLACES = frozenset(("work", "school", "uni", "college", "office", "nursery", "home"))


def _gone_to(token: Token) -> bool:
    """ "to work", "to the office": bare, no name of its own ("to Little Acorns nursery"
    names one)."""
    return (
        token.lemma_.lower() in _ROUTINE_PLACES
        and token.dep_ == "pobj"
        and token.head.lower_ in ("to", "at", "from")
        and not any(c.dep_ in ("compound", "amod", "poss", "nmod") for c in token.children)
    )


def _roles(reading: Reading) -> list[tuple[str, str, int]]:
    """(lemma, role, clause) of each distinguishing thing the statement names as a
    subject, object or complement."""
    named = heads(reading)
    return [
        (t.lemma_.lower(), "subject" if t.dep_.startswith("nsubj") else "object", _clause(t))
        for t in reading.doc
        if t.dep_ in _ROLES and t.lemma_.lower() in named
    ]


def heads(reading: Reading) -> set[str]:
    """The distinguishing things a statement names: the heads of its noun phrases and
    its names, not dates, sums, people's roles as speakers, or words naming nothing."""
    found = set()
    for chunk in reading.doc.noun_chunks:
        root = chunk.root
        if (
            root.pos_ in ("NOUN", "PROPN")
            and root.ent_type_ not in ("DATE", "TIME", "MONEY", "CARDINAL", "ORDINAL", "PERCENT")
            and root.lemma_.lower() not in VAGUE_NOUNS
            and root.lemma_.lower() not in _NOT_A_SUBJECT
            and root.lemma_.lower() not in STOPWORDS
            and not CORRECTION.fullmatch(root.lower_)
            # ("GP", "TV", "EE": two capitals name a thing as well as a word does)
            and (len(root.text) > 2 or (len(root.text) == 2 and root.text.isupper()))
        ):
            found.add(root.lemma_.lower())
    return found


def correction(new: Reading, old: Reading) -> Facet | None:
    """The facet of ``old`` that ``new`` gives a new value for, if exactly one. A new
    role ("I'm a senior designer now") counts only when nothing else changed and both
    name the same workplace ("still at Pentagram"): "I'm a vegetarian" is no new job."""
    return _changed(new, old, roles=False) or (
        _changed(new, old, roles=True) if names(new) & names(old) else None
    )


def _changed(new: Reading, old: Reading, *, roles: bool) -> Facet | None:
    found = []
    for facet in new.facets:
        for before in old.facets:
            if facet.attribute != before.attribute or (facet.attribute == "role") != roles:
                continue
            if facet.attribute in _REPLACED_WHOLE:
                continue  # ``changes``: what else the old one said was of the old diet
            if facet.subject != before.subject and not (
                facet.subject == PRONOUN
                and len(_of(old, facet.attribute)) == 1
                and _same_subject(new, old, before)
            ):
                continue  # "it" is the one thing the old memory gives this attribute for
            if facet.value == before.value:
                continue
            if facet.attribute in _MARKED_ATTRIBUTES and not new.marked:
                continue
            if before not in found:
                found.append(before)
    # two readings of one value ("my favourite colour is green": an identity and a
    # colour) are one correction; two different values are ambiguous
    values = {tuple(f.tokens) for f in found}
    if len(values) != 1:
        return None
    return next((f for f in found if f.exact), found[0])


_NOT_A_SUBJECT = frozenset(
    ("correction", "mistake", "typo", "price", "cost", "total", "bit", "update", "one")
)


def _things(reading: Reading) -> set[str]:
    """The things a statement names, by lemma: its nouns and names, not its numbers or
    the words that announce a correction."""
    return {
        t.lemma_.lower()
        for t in reading.doc
        if t.pos_ in ("NOUN", "PROPN")
        and not t.like_num
        and t.lemma_.lower() not in _NOT_A_SUBJECT
        and not CORRECTION.fullmatch(t.lower_)
        and t.lemma_.lower() not in VAGUE_NOUNS
    }


def _same_subject(new: Reading, old: Reading, before: Facet) -> bool:
    """ "Correction on the Dyson: it was £499, not £549" is about the memory that names
    the Dyson (or says £549), never about another memory that has a price: when the
    new statement says what "it" is (a heading before a colon, "on/about/for the ..."),
    the old one must name it or hold the value it denies."""
    named = _topic(new)
    if not named:
        return True
    if named & _things(old):
        return True
    old_value = " ".join(old.doc[i].text for i in before.tokens if old.doc[i].like_num)
    return bool(old_value) and old_value in {t.text for t in new.doc if t.like_num}


_TOPIC_PREPS = frozenset(("on", "about", "re", "for", "regarding"))


def _topic(reading: Reading) -> set[str]:
    """What a statement about "it" says "it" is: the nouns of a heading before a colon
    ("Correction on the Dyson: it was ..."), or of "on/about/for the ..." hung on a
    correction word or a sum ("it was £499 for the Dyson")."""
    things = _things(reading)
    found: set[str] = set()
    for sent in reading.doc.sents:
        colon = next((t for t in sent if t.text in (":", "—") and t.i > sent.start), None)
        if colon is not None:
            found |= {t.lemma_.lower() for t in sent.doc[sent.start : colon.i]}
        for prep in sent:
            if (
                prep.dep_ == "prep"
                and prep.lower_ in _TOPIC_PREPS
                and (
                    prep.head.like_num or prep.head.ent_type_ == "MONEY" or prep.head.pos_ == "NOUN"
                )
            ):
                found |= {t.lemma_.lower() for t in prep.subtree}
    return found & things


def corrected_body(old: Reading, facet: Facet, news: Sequence[str]) -> str:
    """The new statements, then the old one's uncontradicted words in brackets, then the
    old memory's other sentences."""
    doc = old.doc
    sentence = doc[facet.tokens[0]].sent
    removed = set(facet.tokens) | _contradicted(doc[facet.tokens[0]], facet)
    removed |= _resolved_note(doc, max(facet.tokens))
    removed |= _bare_clauses(sentence, removed)
    # the new statements' words and their lemmas: "Party's moved" says "party"
    new_words = {
        form for text in news for t in parse(text) for form in (t.lower_, t.lemma_.lower())
    }
    pieces: list[list[Token]] = [[]]
    for token in sentence:
        if token.i in removed:
            if pieces[-1]:
                pieces.append([])
            continue
        pieces[-1].append(token)
    # a piece with a bracket it does not close ("(the hospital is") is not quoted, nor a
    # last one that ends open; "I have a … beagle named Biscuit" reads on over the gap
    kept = [words for piece in pieces if (words := _strip(piece)) and not _opened(words)]
    while kept and kept[-1][-1].pos_ in _OPEN_ENDS:
        kept.pop()
    fresh = [
        t
        for words in kept
        for t in words
        if t.pos_ in ("NOUN", "PROPN", "NUM")
        and t.lower_ not in new_words
        and t.lemma_.lower() not in new_words
    ]
    # the old statement, quoted without what the new one contradicts; nothing when the
    # new one already says all of its names and nouns
    kept = ["".join(t.text_with_ws for t in words).strip() for words in kept] if fresh else []
    head = news[0].rstrip()
    rest = [_without_prefix(text) for text in news[1:]]
    body = " ".join([head, *rest])
    if kept:
        end = body[-1] if body[-1] in ".!" else ""
        body = f"{body[:-1] if end else body} ({' … '.join(kept)}){end or '.'}"
    others = [s.text.strip() for s in doc.sents if s.start != sentence.start and s.text.strip()]
    return "\n\n".join([body, *others]) if others else body


def _contradicted(value: Token, facet: Facet) -> set[int]:
    """Words of the old sentence that go with the old value: a new home's details are
    not the old home's ("in a terrace house near the viaduct"), a new job's role is not
    the old one's; an identity or a liking is replaced whole."""
    sentence = value.sent
    if facet.attribute == "is" or facet.attribute.startswith("like:"):
        return {t.i for t in sentence}
    if facet.attribute == "job":
        if work_said_bare(list(sentence)) is not None:
            return {t.i for t in sentence}  # "Nurse at the Royal Infirmary": all of it the job
        attr = next((t for t in sentence if t.dep_ == "attr"), None)
        out = {t.i for t in attr.subtree} if attr is not None else set()
        for token in sentence:  # the old role: "as a designer"
            if token.dep_ == "prep" and token.lower_ == "as":
                out |= {t.i for t in token.subtree}
        return out
    if facet.attribute == "count":
        # "3 hens, Dolly, Marge and Peggy": who was counted goes with how many
        noun = value.head
        out = {t.i for c in noun.children if c.dep_ in ("appos", "conj") for t in c.subtree}
        listed = []
        for token in sentence[noun.i + 1 - sentence.start :]:
            if token.pos_ not in ("PROPN", "PUNCT", "CCONJ") or token.text in (".", "!"):
                break
            listed.append(token.i)
        if any(sentence.doc[i].pos_ == "PROPN" for i in listed):
            out |= set(listed)
        return out
    if facet.attribute == "home":
        # the value's first word is its preposition ("in Headingley") or its name
        verb = value.head if value.dep_ == "prep" else value.head.head
        if verb.lower_ in DWELLINGS and verb.dep_ in ("pobj", "dobj"):
            # "We live in a flat in Hackney": the flat was the old home too
            verb = verb.head.head if verb.dep_ == "pobj" else verb.head
        out = {
            t.i
            for c in verb.children
            if c.dep_ == "dobj" and c.lower_ in DWELLINGS
            for t in c.subtree
        }
        for prep in (c for c in verb.children if c.dep_ == "prep" and c.lower_ != "with"):
            out |= {t.i for t in prep.subtree}
        # "in Durham, in a terrace house": the appositive places hang off the first
        for token in sentence:
            if (
                token.dep_ == "prep"
                and token.lower_ in ("in", "near", "at", "on")
                and token.i > value.i
            ) and not any(a.lower_ == "with" for a in token.ancestors):
                out |= {t.i for t in token.subtree}
        return out
    return set()


_BARE = frozenset(("nsubj", "nsubjpass", "aux", "auxpass", "neg", "cc", "punct", "advmod"))
_OPEN_ENDS = frozenset(("AUX", "ADP", "DET", "CCONJ", "SCONJ", "PART"))


def _bare_clauses(sentence: Span, removed: set[int]) -> set[int]:
    """The clauses left with a subject and a verb only once the old value is gone: "and I
    live" of "... and I live in Headingley", with the "and" that joined them."""
    out: set[int] = set()
    for verb in {sentence.doc[i].head for i in removed} - {sentence.doc[i] for i in removed}:
        if verb.pos_ not in ("VERB", "AUX") or verb.dep_ != "conj":
            continue
        if all(c.i in removed or c.dep_ in _BARE for c in verb.children):
            out |= {t.i for t in verb.subtree}
            out |= {c.i for c in verb.head.children if c.dep_ == "cc" and c.i < verb.i}
    return out


def _resolved_note(doc, after: int) -> set[int]:
    """The "(2026-06-06)" written beside an old date goes with it."""
    if after + 1 < len(doc) and doc[after + 1].text == "(":
        for token in doc[after + 1 : after + 12]:
            if token.text == ")":
                return set(range(after + 1, token.i + 1))
    return set()


def _strip(tokens: list[Token]) -> list[Token]:
    start, end = 0, len(tokens)
    while start < end and (tokens[start].is_punct or tokens[start].dep_ == "cc"):
        start += 1
    while end > start and (tokens[end - 1].is_punct or tokens[end - 1].dep_ == "cc"):
        # a resolved date's note keeps its closing bracket: "June 3rd (2026-06-03)"
        if tokens[end - 1].text == ")" and _opened(tokens[start : end - 1]):
            break
        end -= 1
    return tokens[start:end]


def _opened(tokens: list[Token]) -> bool:
    return sum(t.text == "(" for t in tokens) > sum(t.text == ")" for t in tokens)


def _restates(new: Reading, old: Reading) -> bool:
    """The new statement says nothing the old one does not: its names and numbers are
    the old one's, and it adds no wish, plan or ending ("Ravi wants to quit Kumon" is
    news beside "Ravi goes to Kumon")."""
    words = {t.lemma_.lower() for t in new.doc if t.pos_ in ("NOUN", "PROPN", "NUM")}
    have = {t.lemma_.lower() for t in old.doc if t.pos_ in ("NOUN", "PROPN", "NUM", "VERB")}
    news = {
        t.lemma_.lower()
        for t in new.doc
        if t.pos_ == "VERB" and t.lemma_.lower() in UNREALISED | ENDING_VERBS
    }
    return len(words) >= 2 and words <= have and not news - have


def _speaker(text: str) -> str:
    """The ``Name: `` a named speaker's memory starts with ("" for the user's own)."""
    body = speaker_free(text)
    return text[: len(text) - len(body)].removesuffix(": ") if body != text else ""


def _without_prefix(text: str) -> str:
    speaker = _speaker(text)
    return text[len(speaker) + 2 :] if speaker else text
