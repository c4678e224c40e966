"""The rules that recognise a kind of sentence, as data: spaCy ``Matcher`` patterns.

Each rule has a name (what the job's trace says when it drops a sentence), a kind
(``hypothetical``, ``joke``, ``hedge``, ``request``), its token patterns, a reason in a
line, and the sentences it must fire on (``fires``) and must not (``quiet``), written
for the rule, never taken from a scenario set it is scored on. ``tests/memories/
test_offline_rules.py`` runs every example without a database.

A rule is matched on the parse the statement splitter already made (a ``Span`` of the
message's one ``Doc``), never on a second parse. A ``start`` rule must begin at the
span's first word (a request is said first: "Can you ..."), others anywhere in it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from spacy.matcher import Matcher
from spacy.tokens import Span, Token

logger = logging.getLogger("gitloom.memories.rules")

_I_WE = {"LOWER": {"IN": ["i", "we"]}}
_WOULD = {"LOWER": {"IN": ["would", "'d", "’d"]}}
_ANY = {"OP": "*"}
_ASKED_FOR = ["advice", "help", "tips", "ideas", "suggestions", "recommendations", "recommendation"]
_IN_SENTENCE = {"TEXT": {"NOT_IN": [".", "!", "?"]}, "OP": "*"}
_BE_TOKEN = {"LEMMA": "be"}
_ASKED_LEMMAS = [
    "advice",
    "help",
    "tip",
    "idea",
    "suggestion",
    "recommendation",
    "recipe",
    "inspiration",
]


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str
    why: str
    patterns: tuple[tuple[dict, ...], ...]
    fires: tuple[str, ...]
    quiet: tuple[str, ...] = ()
    start: bool = False  # must match from the span's first word


def _words(*words: str) -> tuple[dict, ...]:
    return tuple({"LOWER": w} for w in words)


def _one_of(*words: str) -> tuple[dict, ...]:
    return ({"LOWER": {"IN": list(words)}},)


RULES: tuple[Rule, ...] = (
    # -- hypothetical: what would be, not what is ------------------------------------
    Rule(
        name="hypothetical-if-would",
        kind="hypothetical",
        why="a condition and what I would do under it states no fact",
        patterns=(
            ({"LOWER": "if"}, _I_WE, _ANY, {"LOWER": {"IN": ["would", "'d", "’d", "could"]}}),
            ({"LOWER": "if"}, _IN_SENTENCE, _I_WE, _WOULD),
            (_I_WE, _WOULD, _IN_SENTENCE, {"LOWER": "if"}),
            # "if I win the lottery I'm buying a boat", "if I ever get a dog ...": a
            # chance or a wish put as a condition, whatever the tense after it
            (
                {"LOWER": "if"},
                _I_WE,
                {"LOWER": {"IN": ["win", "won", "ever", "had", "were", "was"]}},
            ),
        ),
        fires=(
            "If I win the lottery I'm buying a boat lol.",
            "if I ever get a dog it's going to be a greyhound",
            "If we won the lottery we'd buy a boat in Mallorca.",
            "I'd move to Lisbon if the job allowed it.",
            "if money were no object I'd be driving a Tesla",
        ),
        quiet=(
            "If it rains we stay in.",
            "We moved to Bristol in May.",
            "I won a raffle at the school fair.",
        ),
    ),
    Rule(
        name="hypothetical-wish",
        kind="hypothetical",
        why="a wish, a dream or an imagined day is not what is",
        patterns=(
            _one_of("wish"),
            _one_of("imagine"),
            _words("in", "my", "dreams"),
            (*_words("one", "day"), {"LOWER": {"IN": ["id", "ill"]}}),
            (*_words("one", "day", "i"), {"LOWER": {"IN": ["'d", "'ll", "’d", "’ll"]}}),
        ),
        fires=(
            "I wish I had a dog.",
            "Imagine living in Kyoto.",
            "One day I'll own a vineyard.",
            "In my dreams I run a bakery.",
        ),
        quiet=("I have a dog called Rolo.", "I imagined it would be harder."),
    ),
    Rule(
        name="hypothetical-would-love-this",
        kind="hypothetical",
        why="a guess at how someone would take what was just said names nothing of theirs",
        start=True,  # "The Evil Dead boxset, she'd love that" names what she would love
        patterns=(
            (
                {"LOWER": {"IN": ["my", "our", "his", "her", "their"]}, "OP": "?"},
                {"POS": {"IN": ["NOUN", "PROPN", "PRON"]}},
                _WOULD,
                {"LOWER": {"IN": ["absolutely", "so", "totally"]}, "OP": "?"},
                {"LEMMA": {"IN": ["love", "hate", "like"]}},
                {"LOWER": {"IN": ["this", "that", "it"]}},
                {"IS_PUNCT": True},
            ),
        ),
        fires=("My nan would love this.", "Dad would absolutely hate that!"),
        quiet=(
            "My nan would love to visit Skye.",
            "The Lego Titanic, he'd love that.",
        ),
    ),
    Rule(
        name="hypothetical-what-if",
        kind="hypothetical",
        why="a supposition asked aloud ('what if ...') and what would follow from it",
        patterns=(_words("what", "if"),),
        fires=("What if we got a third dog?", "what if I quit my job"),
        quiet=("What is the plan for Friday?",),
    ),
    # -- jokes: hyperbole and sarcasm say what is not so -----------------------------
    Rule(
        name="joke-kidding",
        kind="joke",
        why="says itself it is a joke",
        patterns=(
            _one_of("jk", "kidding", "joking"),
            # "(looking at you, Dave)": a dig at someone, said in jest
            ({"LOWER": {"IN": ["looking", "lookin"]}}, *_words("at", "you")),
        ),
        fires=(
            "I'm moving to Mars, kidding.",
            "jk I love my job",
            "someone keeps eating my yoghurts (looking at you, Dave)",
        ),
        quiet=("My kid is six.", "The optician was looking at my left eye."),
    ),
    Rule(
        name="joke-hyperbole",
        kind="joke",
        why="a number or fate nobody means: a million, to death, gonna die",
        patterns=(
            (*_words("basically"), _ANY, *_words("at", "this", "point")),
            _words("killing", "me"),
            _words("literally", "dying"),
            _words("gon", "na", "die"),
            _words("going", "to", "die"),
            ({"LOWER": "a"}, {"LOWER": {"IN": ["million", "billion", "gazillion", "bazillion"]}}),
            # "like a thousand teas today": a count of the day nobody kept
            (
                {"LOWER": "like"},
                {"LOWER": "a"},
                {"LOWER": {"IN": ["thousand", "hundred", "zillion"]}},
                {"TAG": "NNS"},
                {"LOWER": {"IN": ["today", "already", "tonight", "this"]}},
            ),
            (*_words("i", "swear"), _ANY, {"LOWER": "just"}),
            # "I'd kill for a takeaway", "I could sleep for a week": a want nobody measures
            (
                _I_WE,
                {"LOWER": {"IN": ["could", "would", "'d", "’d"]}},
                {"LOWER": {"IN": ["kill", "murder", "die"]}},
                {"LOWER": "for"},
            ),
            (
                _I_WE,
                {"LOWER": "could"},
                {"LOWER": {"IN": ["eat", "sleep", "drink"]}},
                _IN_SENTENCE,
                {"LOWER": {"IN": ["horse", "week", "weight", "forever", "year", "days"]}},
            ),
            # "my landlord is literally the devil", "my boss is literally the worst":
            # "literally" before what someone or something is, not a number or a place
            # (not of the speaker: "I'm literally a nurse, I know" says it is true)
            (
                {"LOWER": {"NOT_IN": ["i", "we"]}},
                _BE_TOKEN,
                {"LOWER": "literally"},
                {"LOWER": {"IN": ["a", "an", "the"]}, "OP": "?"},
                {
                    "POS": {"IN": ["NOUN", "PROPN", "ADJ"]},
                    "LIKE_NUM": False,
                    "LOWER": {"NOT_IN": ["next", "close", "near", "right", "just", "opposite"]},
                },
            ),
            # "a Monday without coffee is a war crime": a verdict, no crime
            (
                _BE_TOKEN,
                {"LOWER": {"IN": ["a", "an"]}, "OP": "?"},
                {"LOWER": {"IN": ["human", "war"]}},
                {"LOWER": {"IN": ["rights", "crime", "crimes"]}},
            ),
            # "Sunday evenings should be illegal": a verdict on a day, not a law
            (
                {"LOWER": "should"},
                {"LOWER": "be"},
                {"LOWER": {"IN": ["illegal", "criminal", "outlawed"]}},
            ),
            (_WOULD, {"LOWER": "literally", "OP": "?"}, *_words("kill", "me")),
            # "office cake is dangerous for my waistline": a harm nobody fears
            (
                {"LOWER": {"IN": ["dangerous", "deadly", "lethal", "terrible", "bad"]}},
                *_words("for", "my"),
                {"LOWER": {"IN": ["waistline", "wallet", "sanity", "bank"]}},
            ),
            # "6 weeks without running, I'm going to cry": a grief nobody sheds
            (
                _I_WE,
                _BE_TOKEN,
                {"LOWER": {"IN": ["gon", "going"]}},
                {"LOWER": {"IN": ["na", "to"]}},
                {"LOWER": "cry"},
            ),
            # "Dave will forget the tickets, guaranteed": a prediction made for the joke
            ({"LOWER": "will"}, _IN_SENTENCE, {"LOWER": "guaranteed"}, {"IS_PUNCT": True}),
            # "my cooking could honestly kill a man": a harm nobody fears
            (
                {"LOWER": {"IN": ["could", "would"]}},
                {"POS": "ADV", "OP": "?"},
                {"LOWER": "kill"},
                {"LOWER": {"IN": ["a", "someone", "somebody", "anyone", "people"]}},
            ),
            # "if one more person says ... I'm throwing my laptop out": a last straw and
            # what it would drive the speaker to, nothing anyone will do
            _words("if", "one", "more"),
            (
                *_words("one", "more"),
                {"POS": "NOUN"},
                {"TEXT": {"NOT_IN": [".", "!", "?"]}, "OP": "{0,3}"},
                {"LOWER": "and"},
                _I_WE,
            ),
            # "practically a professional snacker": a trade nobody plies
            (
                {"LOWER": {"IN": ["basically", "practically", "literally", "officially"]}},
                {"LOWER": {"IN": ["a", "an"]}},
                {"LOWER": {"IN": ["professional", "pro", "full-time"]}},
            ),
        ),
        fires=(
            "My boss has sent a million emails today.",
            "I'm basically a barista at this point.",
            "this heat is killing me",
            "Nah, Tom would kill me.",
            "I swear I gained a stone just looking at that cake.",
            "Honestly I'm practically a professional snacker on weekends.",
            "I've had like a thousand teas today.",
            "I'd kill for a takeaway tonight.",
            "I could sleep for a week after that shift.",
            "Sunday evenings should be illegal.",
            "My landlord is literally the devil.",
            "This office is literally an oven today.",
            "My manager is literally the worst.",
            "If one more customer asks for a discount I'm going to scream.",
            "Her driving could literally kill someone.",
            "Office cake culture is dangerous for my waistline.",
            "6 weeks without running, I'm going to cry.",
            "Dave will forget the tickets, guaranteed.",
            "A Monday without coffee is a war crime.",
            "Two hours of spin is a human rights violation.",
            "One more email from IT and I'm moving to a cabin in the woods.",
        ),
        quiet=(
            "One more thing: my flight lands at 6.",
            "Carbon monoxide can kill people, so we fitted an alarm.",
            "My grandad wrote a book about war crimes in Bosnia.",
            "Smoking is bad for my asthma, so I quit in May.",
            "The baby is going to cry if we wake her.",
            "Delivery is guaranteed by Friday.",
            "I need one more shelf for the spare room.",
            "I could eat anything except mushrooms.",
            "Smoking should be banned near the school gates, I told the council.",
            "My flat is literally next to the station.",
            "My commute is literally 5 minutes.",
            "I'm literally a nurse so I know.",
            "The house cost a lot of money.",
            "I paid like a thousand quid for the sofa.",
            "I'm bored of my commute.",
            "I just moved.",
            "I'm a professional photographer.",
        ),
    ),
    Rule(
        # (statements.py keeps a sentence that names something or says a number beside
        # it: "My bike is an old Raleigh that squeaks like crazy" is still my bike)
        name="joke-intensifier",
        kind="joke",
        why="an exaggerated degree over nothing named: like crazy, to death, literally forever",
        patterns=(
            (
                {"LOWER": "like", "POS": {"NOT_IN": ["VERB"]}},
                {"LOWER": {"IN": ["crazy", "mad", "hell"]}},
            ),
            _words("to", "death"),
            _words("literally", "forever"),
        ),
        fires=(
            "The baby screamed like crazy all night.",
            "I'm bored to death at work.",
            "This queue is literally forever.",
        ),
        quiet=(
            "I like mad men.",
            "I'm allergic to peanuts.",
        ),
    ),
    Rule(
        name="joke-sarcasm",
        kind="joke",
        why="sarcasm says the opposite of its words",
        patterns=(
            (
                {"LOWER": "sure"},
                {"LOWER": {"IN": ["he", "she", "they", "you", "it"]}},
                {"LOWER": {"IN": ["will", "did", "does", "is", "can", "would", "'ll", "’ll"]}},
                {"IS_PUNCT": True},  # said as a retort: "sure he will." (not "sure he will call")
            ),
            ({"LOWER": "yeah"}, {"IS_PUNCT": True, "OP": "?"}, {"LOWER": "right"}),
        ),
        fires=(
            "He says he'll fix the fence this weekend, ha, sure he will.",
            "The landlord will fix it soon, yeah right.",
        ),
        quiet=("I'm sure he will call tomorrow about the flat.",),
    ),
    # -- hedges: kept only with the hedge, and only when they name something ---------
    Rule(
        name="hedge",
        kind="hedge",
        why="a plan or guess, not a fact: kept with its hedge when it names something",
        patterns=(
            _one_of("might", "maybe", "perhaps", "probably", "possibly", "considering"),
            _words("may", "be"),
            ({"LOWER": "thinking"}, {"LOWER": {"IN": ["about", "of"]}}),
            _words("not", "sure"),
            _words("wondering"),
            _words("hoping", "to"),
            ({"LOWER": {"IN": ["plan", "planning"]}}, {"LOWER": "to"}),
            _words("want", "to"),
            _words("would", "like", "to"),
        ),
        fires=(
            "I might buy a Peloton.",
            "We're thinking about moving to Hove.",
            "I want to learn the cello.",
        ),
        quiet=("I bought a Peloton in May.", "I have a plan for the garden."),
    ),
    # -- requests: asked of the assistant, not said of oneself -----------------------
    Rule(
        name="request-can-you",
        kind="request",
        why="a request to the assistant states no fact of the speaker's",
        start=True,
        patterns=(
            (
                {"LOWER": {"IN": ["can", "could", "would", "will"]}},
                {"LOWER": {"IN": ["you", "u"]}},
            ),
            _one_of("please"),
            _words("let", "me"),
            _words("let", "'s"),
            _words("tell", "me"),
            _words("give", "me"),
            _words("remind", "me"),
            _words("help", "me"),
            (
                {"LOWER": "any"},
                {"LOWER": {"IN": ["good", "ideas", "tips", "recommendations"]}},
            ),
            # "I'd like some advice on ...": asking for help, not saying what one likes
            (
                {"LOWER": "i"},
                {"LOWER": {"IN": ["would", "'d", "’d", "need", "want"]}},
                {"LOWER": "like", "OP": "?"},
                {"LOWER": {"IN": ["some", "a", "any", "your"]}, "OP": "?"},
                {"LOWER": {"IN": _ASKED_FOR}},
            ),
            # "I'm looking for a dinner idea that ...": asking, said as a statement
            (
                {"LOWER": "i"},
                _BE_TOKEN,
                {"LOWER": {"IN": ["looking", "hoping", "after"]}},
                {"LOWER": "for", "OP": "?"},
                {"POS": {"IN": ["DET", "ADJ", "NOUN", "NUM"]}, "OP": "*"},
                {"LEMMA": {"IN": _ASKED_LEMMAS}},
            ),
        ),
        fires=(
            "Can you suggest a gift for my dad",
            "please give me three dinner ideas",
            "remind me to call the plumber tomorrow",
            "any tips for Lisbon",
            "I would like some advice on keeping a sourdough starter alive.",
            "I need help choosing a laptop for university.",
            "I'm looking for a weeknight dinner idea without gluten.",
            "I'm after some gift ideas for my niece.",
        ),
        quiet=(
            "I can play the piano.",
            "My dad will call tomorrow.",
            "I would like a dog one day.",
            "I need a new passport by June.",
            "I'm looking for a new job in Bristol.",
            "I'm looking for a flat near the station.",
        ),
    ),
)

_BE = {"LEMMA": "be"}
_WEATHER = ["weather", "sun", "rain", "snow", "wind", "sky", "heat", "hail", "fog", "humidity"]
_CHAT_WORDS = ["answer", "suggestion", "help", "advice", "reply", "explanation", "tips", "idea"]
# -- small talk: said in passing, true for the moment or of the chat, no lasting fact --
SMALL_TALK: tuple[Rule, ...] = (
    Rule(
        name="smalltalk-of-the-chat",
        kind="smalltalk",
        why="what the speaker thinks of the chat or the assistant's answer is no fact of theirs",
        patterns=(
            # what follows the chat word ends or goes on about it ("your help means a
            # lot"), not "your help with my CV", which names what the speaker is doing
            (
                {"LOWER": "your"},
                {"LOWER": {"IN": _CHAT_WORDS}},
                {"POS": {"IN": ["VERB", "AUX", "CCONJ", "PUNCT"]}},
            ),
            ({"LOWER": {"IN": ["this", "the"]}}, {"LOWER": {"IN": ["chat", "conversation"]}}),
            # what the assistant is ("you're a lifesaver", "you are amazing at this")
            ({"LOWER": {"IN": ["you", "u"]}}, {"LOWER": {"IN": ["'re", "’re", "are", "r"]}}),
        ),
        fires=(
            "This conversation has been really useful.",
            "Your explanation was clearer than the manual.",
            "I appreciate your advice.",
            "I followed your tips and it worked.",
            "You're a lifesaver honestly.",
            "you are amazing at this",
        ),
        quiet=(
            "I'd appreciate your help with my CV for the Deloitte job.",
            "I work at the help desk of a bank.",
            "My sister gave me good advice about mortgages.",
            "I run a chat group for new parents.",
            "I know you from the climbing wall.",
        ),
    ),
    Rule(
        name="smalltalk-reaction",
        kind="smalltalk",
        why="how a suggestion sounds to the speaker answers the chat, not what is true of them",
        start=True,  # "the Airbnb in Alfama sounds perfect" names what it is said of: kept
        patterns=(
            (
                {"POS": {"NOT_IN": ["ADP", "VERB", "AUX", "NUM", "CCONJ"]}, "OP": "*"},
                {"LEMMA": "sound"},
                {"LOWER": {"IN": ["so", "really", "pretty"]}, "OP": "?"},
                {
                    "LOWER": {
                        "IN": [
                            "good",
                            "great",
                            "perfect",
                            "lovely",
                            "fun",
                            "nice",
                            "ideal",
                            "amazing",
                            "brilliant",
                            "delicious",
                            "fine",
                            "grand",
                            "ok",
                            "okay",
                            "right",
                            "fab",
                            "fantastic",
                            "wonderful",
                        ]
                    }
                },
            ),
            (
                {"POS": {"IN": ["DET", "PRON", "INTJ", "PUNCT"]}, "OP": "*"},
                {"LEMMA": "sound"},
                *_words("like", "a", "plan"),
            ),
        ),
        fires=(
            "Chili sounds good.",
            "That sounds like a plan.",
            "the second one sounds really fun",
        ),
        quiet=(
            "My band sounds like Radiohead.",
            "The new Polestar sounds quieter than my old Golf.",
            "The Airbnb in Alfama sounds perfect.",
        ),
    ),
    Rule(
        name="smalltalk-asking-leads",
        kind="smalltalk",
        why="announcing a question or a wondering says nothing of the speaker",
        patterns=(
            (
                _I_WE,
                {"LOWER": {"IN": ["have", "'ve", "’ve", "got"]}, "OP": "+"},
                {
                    "LOWER": {"IN": ["a", "another", "one", "some", "two", "few", "quick"]},
                    "OP": "*",
                },
                {"LEMMA": "question"},
            ),
            (
                _I_WE,
                {"LEMMA": "be"},
                {"LOWER": {"IN": ["just"]}, "OP": "?"},
                {"LOWER": "wondering"},
            ),
        ),
        fires=(
            "I have a quick question about my pension.",
            "I've got another question.",
            "I was wondering about hostels in Porto.",
        ),
        quiet=("I have a dog called Rolo.", "I question everything my boss says."),
    ),
    Rule(
        name="smalltalk-right-now",
        kind="smalltalk",
        why="what the speaker is doing this minute (typing, sitting, in a meeting) will not be true later",
        patterns=(
            (
                _I_WE,
                _BE,
                {"LOWER": {"IN": ["just", "currently", "still"]}, "OP": "?"},
                {"LOWER": {"IN": ["typing", "sitting", "lying", "chatting", "texting"]}},
                # "sitting in the garden", not "sitting my driving test"
                {"TAG": {"IN": ["IN", "DT", "RB", "RP", "."]}},
            ),
            (_I_WE, _BE, _IN_SENTENCE, *_words("in", "a"), {"LOWER": {"IN": ["meeting", "call"]}}),
            (_I_WE, _BE, _IN_SENTENCE, *_words("at", "my"), {"LOWER": {"IN": ["desk", "laptop"]}}),
            # "off to the pool now", "heading to the gym now": leaving the chat this minute
            (
                {"LOWER": {"IN": ["off", "heading", "headed"]}},
                {"LOWER": {"IN": ["to", "out"]}},
                {"TEXT": {"NOT_IN": [".", "!", "?", ","]}, "OP": "{0,3}"},
                {"LOWER": {"IN": ["now", "rn"]}},
            ),
        ),
        fires=(
            "off to the pool now",
            "heading to the gym now, chat later",
            "I'm sitting in the garden.",
            "I'm in a call until four.",
            "I'm at my desk now.",
        ),
        # "waiting for my visa" is a status that lasts, not this minute
        quiet=(
            "I'm sitting my driving test on 3 May.",
            "I work at a desk in Leeds.",
            "I'm waiting for my visa to come through.",
            "We're off to Porto for 5 days in April.",
        ),
    ),
    Rule(
        name="smalltalk-weather",
        kind="smalltalk",
        why="today's weather is no fact about anyone",
        patterns=(
            (
                {"LOWER": "the"},
                {"LOWER": {"IN": _WEATHER}},
                # this minute's weather: "the sky was clear" tells of a day that is kept
                {"LEMMA": {"IN": ["be", "look", "feel", "come"]}, "TAG": {"IN": ["VBZ", "VBP"]}},
            ),
            # the weather of a day just gone, said as that day's: "the rain today was
            # biblical", "the wind last night was insane"
            (
                {"LOWER": "the"},
                {"LOWER": {"IN": _WEATHER}},
                {"LOWER": {"IN": ["today", "yesterday", "tonight", "this", "last"]}},
                {"LOWER": {"IN": ["morning", "afternoon", "evening", "night"]}, "OP": "?"},
                {"LEMMA": {"IN": ["be", "look", "feel"]}},
            ),
            # "absolutely bucketing it down here", "it's roasting today", "freezing here"
            (
                {
                    "LOWER": {
                        "IN": ["bucketing", "lashing", "pouring", "chucking", "pissing", "tipping"]
                    }
                },
                {"LOWER": "it", "OP": "?"},
                {"LOWER": "down"},
            ),
            (
                {
                    "LOWER": {
                        "IN": [
                            "freezing",
                            "roasting",
                            "boiling",
                            "scorching",
                            "sweltering",
                            "baltic",
                            "muggy",
                            "raining",
                            "snowing",
                        ]
                    }
                },
                {"LOWER": {"IN": ["here", "today", "out", "outside", "again", "tonight"]}},
            ),
            (*_words("snowed", "in"),),
            ({"LIKE_NUM": True}, {"LOWER": "degrees"}, _one_of("here", "today", "out", "in")[0]),
            (_one_of("minus")[0], {"LIKE_NUM": True}),
        ),
        fires=(
            "The sun is out for once.",
            "The weather looks grim this weekend.",
            "absolutely bucketing it down here in Leeds",
            "It's roasting today.",
            "Freezing here, minus 8 in Ottawa.",
            "We're snowed in again.",
            "It's 31 degrees in Madrid.",
            "The hail this morning was mental.",
            "the heat today is something else",
        ),
        quiet=(
            "I love the rain.",
            "We moved to Spain for the sun.",
            "The sky was clear the night we camped at Loch Ness.",
            "I'm freezing the leftover chilli.",
            "I bake sourdough at 230 degrees.",
            "My basement flooded in March.",
            "The storm last night took our fence down.",
        ),
    ),
    Rule(
        name="smalltalk-commute",
        kind="smalltalk",
        why="this morning's traffic, a late train, being stuck on the way: over by the next chat",
        patterns=(
            # "the Northern line was stopped for like 30 min": a delay of the day
            (
                {"LOWER": {"IN": ["line", "train", "tube", "bus", "tram", "metro"]}},
                _BE_TOKEN,
                {"LOWER": {"IN": ["stopped", "delayed", "stuck", "held"]}},
                {"LOWER": {"IN": ["for", "up"]}},
                {"LOWER": "like", "OP": "?"},
                {"LIKE_NUM": True},
            ),
            (
                {"LOWER": "stuck"},
                _one_of("in", "on", "at")[0],
                {"POS": "DET", "OP": "?"},
                {
                    "LOWER": {
                        "IN": ["traffic", "train", "tube", "bus", "motorway", "platform", "queue"]
                    }
                },
            ),
            (
                {"LOWER": "traffic"},
                _IN_SENTENCE,
                {"LEMMA": "be"},
                {"LOWER": {"IN": ["a", "an", "absolute", "total", "so", "just"]}, "OP": "*"},
                {
                    "LOWER": {
                        "IN": [
                            "nightmare",
                            "awful",
                            "terrible",
                            "horrendous",
                            "insane",
                            "murder",
                            "hell",
                        ]
                    }
                },
            ),
            (
                {"LOWER": {"IN": ["train", "bus", "tube", "flight"]}},
                {"LEMMA": "be"},
                {"POS": "ADV", "OP": "*"},
                {"LOWER": {"IN": ["delayed", "late", "packed", "rammed"]}},
            ),
        ),
        fires=(
            "stuck on the tube again, signal failure at Bank",
            "Stuck in traffic on the A40.",
            "traffic on the ring road was a nightmare this morning",
            "My train is delayed again.",
            "The Northern line was stopped for like 30 min at Camden.",
        ),
        quiet=(
            "I take the tube to work in Holborn.",
            "The pool was closed for 3 weeks in May for repairs, so I swam at Ponds Forge.",
            "I got stuck into the garden this weekend.",
            "I drive a bus for Stagecoach.",
            "My flight to Lima is on the 3rd.",
        ),
    ),
    Rule(
        name="smalltalk-passing-state",
        kind="smalltalk",
        why="a thing's state this minute (cold, late, dead, flat) will not be true later",
        patterns=(
            (
                {"LOWER": {"IN": ["my", "our", "the"]}},
                {"POS": "NOUN"},
                {"LEMMA": {"IN": ["be", "go", "get"]}},
                {"POS": "ADV", "OP": "?"},  # "nearly", "already", "totally"
                {
                    "LOWER": {"IN": ["cold", "late", "dead", "flat", "empty", "burnt"]},
                    "DEP": {"IN": ["acomp", "oprd"]},  # "dead set on" is no state
                },
            ),
            # how things are around the speaker this minute: "it's chaos here"
            (
                {"LOWER": {"IN": ["it", "things"]}},
                {"LEMMA": "be"},
                {"LOWER": {"IN": ["been", "just", "so", "absolute", "total", "pure"]}, "OP": "*"},
                {"LOWER": {"IN": ["chaos", "mayhem", "madness", "bedlam", "carnage", "manic"]}},
            ),
            # how the speaker is this minute: "I'm knackered after the gym"
            (
                _I_WE,
                _BE,
                {"POS": "ADV", "OP": "*"},
                {
                    "LOWER": {
                        "IN": [
                            "knackered",
                            "exhausted",
                            "shattered",
                            "wrecked",
                            "starving",
                            "stuffed",
                            "hungover",
                            "wiped",
                            "zonked",
                        ]
                    }
                },
            ),
            # "I'm blanking on dinner ideas": a mind this minute
            (_I_WE, _BE, {"POS": "ADV", "OP": "?"}, {"LOWER": "blanking"}),
            # "the drummer was hammered": how someone was that night
            (
                {"POS": {"IN": ["NOUN", "PROPN"]}},
                _BE_TOKEN,
                {"POS": "ADV", "OP": "?"},
                {"LOWER": {"IN": ["drunk", "hammered", "wasted", "plastered", "sloshed", "tipsy"]}},
            ),
            # "my calves are on fire after spin": how a part of me feels this minute
            (
                {"LOWER": {"IN": ["my", "our"]}},
                {"POS": "NOUN"},
                {"LEMMA": "be"},
                {"POS": "ADV", "OP": "?"},
                *_words("on", "fire"),
            ),
            (
                {"LOWER": "driving"},
                {"LOWER": {"IN": ["me", "us"]}},
                {"LOWER": {"IN": ["up", "mad", "crazy", "nuts", "insane", "round", "bananas"]}},
            ),
        ),
        fires=(
            "My soup went cold.",
            "My laptop is almost flat.",
            "The bus is late.",
            "It's chaos here.",
            "it's been absolute mayhem at work",
            "I'm knackered after the gym.",
            "The kids are driving me up the wall today.",
            "My calves are on fire after that spin class.",
            "I'm blanking on dinner ideas.",
            "The drummer was hammered tho.",
        ),
        quiet=(
            "The barn was on fire last night, the fire brigade came at 2.",
            "My dad was hit by a drunk driver in 2019.",
            "My soup recipe uses cold water.",
            "My grandad is dead set on Cornwall.",
            "It's a Chaos Theory poster from my brother.",
            "I'm tired of my job at the bank.",
            "My husband is driving me to the airport on Friday.",
        ),
    ),
    Rule(
        name="smalltalk-verdict",
        kind="smalltalk",
        why="calling a thing or person a nightmare, a joke or a legend is a mood, not a fact of them",
        patterns=(
            # one thing or person (not "my two dogs are a nightmare", which says I have two)
            (
                {"TAG": {"IN": ["NN", "NNP"]}},
                {"LEMMA": "be"},
                {"LOWER": {"IN": ["a", "an"]}},
                {
                    "LOWER": {"IN": ["absolute", "total", "complete", "proper", "right", "bit"]},
                    "OP": "*",
                },
                {"LOWER": "of", "OP": "?"},
                {"LOWER": "a", "OP": "?"},
                {
                    "LOWER": {
                        "IN": [
                            "nightmare",
                            "joke",
                            "disaster",
                            "shambles",
                            "mess",
                            "zoo",
                            "circus",
                            "legend",
                            "lifesaver",
                            "godsend",
                            "saint",
                            "nightmare",
                        ]
                    }
                },
            ),
            # "this weather is doing my head in", "my brain is fried"
            _words("doing", "my", "head", "in"),
            # "Tesco was rammed this morning": how full a place was today
            (
                {"POS": {"IN": ["NOUN", "PROPN"]}},
                {"TAG": "POS", "OP": "?"},  # "Sainsbury's"
                {"LEMMA": "be"},
                {"POS": "ADV", "OP": "*"},
                {"LOWER": {"IN": ["rammed", "heaving", "mobbed", "chocka", "packed", "dead"]}},
                {
                    "LOWER": {
                        "IN": ["today", "tonight", "this", "again", "earlier", "yesterday", "last"]
                    }
                },
            ),
        ),
        fires=(
            "My landlord is an absolute nightmare.",
            "The car park at work is a joke.",
            "My desk is a bit of a disaster right now.",
            "Honestly my neighbour is a legend.",
            "This heat is doing my head in.",
            "The gym was rammed tonight.",
            "Aldi was heaving again.",
            "Morrison's was rammed today.",
        ),
        quiet=(
            "My sister is a nurse in Dundee.",
            "My three cats are a nightmare at 5am.",
            "My boss is Anita Shah.",
            "The venue is a barn near Totnes.",
            "My daughter is doing her GCSEs in May.",
            "The pub was packed with friends for my 40th in June.",
        ),
    ),
    Rule(
        name="smalltalk-frazzled",
        kind="smalltalk",
        why="a brain fried this minute is a mood; said after 'when', it is part of another fact",
        start=True,  # "... so I can ask you when my brain is fried" says why, kept with it
        patterns=(
            (
                {"LOWER": {"IN": ["my", "our"]}, "OP": "?"},
                {"LOWER": {"IN": ["brain", "head", "brains", "heads"]}},
                {"LEMMA": "be"},
                {"POS": "ADV", "OP": "*"},
                {"LOWER": {"IN": ["fried", "mush", "frazzled", "toast", "gone", "pickled"]}},
            ),
        ),
        fires=("My brain is totally fried.", "my head is mush after that meeting"),
        quiet=("I write it all down so I can check when my brain is fried.",),
    ),
    Rule(
        name="smalltalk-cannot-say",
        kind="smalltalk",
        why="a reply saying the speaker does not know or remember says nothing of them",
        start=True,  # "I don't know anyone in Leeds yet" goes on to say something: kept
        patterns=(
            # "no idea tbh", "not sure yet.", "no clue, sorry"
            (
                {"LOWER": {"IN": ["no", "not"]}},
                {"LOWER": {"IN": ["idea", "clue", "sure"]}},
                {
                    "LOWER": {"IN": ["tbh", "honestly", "yet", "sorry", "lol", "rn", "atm"]},
                    "OP": "*",
                },
                {"IS_PUNCT": True},
            ),
            ({"LOWER": {"IN": ["dunno", "idk"]}},),
            # "can't remember the name", "I don't remember exactly"
            (
                {"LOWER": "i", "OP": "?"},
                {"LOWER": {"IN": ["ca", "can", "do", "did", "could"]}},
                {"LOWER": {"IN": ["n't", "n’t", "nt", "not"]}},
                {"LEMMA": {"IN": ["remember", "recall", "know"]}},
                {
                    "LOWER": {"IN": ["the", "its", "exactly", "offhand", "tbh", "honestly"]},
                    "OP": "*",
                },
                {
                    "LOWER": {"IN": ["name", "number", "date", "time", "exactly", "offhand"]},
                    "OP": "?",
                },
                {"IS_PUNCT": True},
            ),
            # typed without a stop: what is not remembered is named last
            (
                {"LOWER": "i", "OP": "?"},
                {"LOWER": {"IN": ["ca", "can", "do", "did", "could"]}},
                {"LOWER": {"IN": ["n't", "n’t", "nt", "not"]}},
                {"LEMMA": {"IN": ["remember", "recall"]}},
                {"LOWER": {"IN": ["the", "its"]}, "OP": "?"},
                {"LOWER": {"IN": ["name", "exactly", "offhand"]}},
            ),
        ),
        fires=(
            "No idea tbh, will check later.",
            "not sure yet.",
            "dunno, whatever's cheapest",
            "Can't remember the name.",
            "cant remember the name tbh",
            "I don't remember exactly.",
        ),
        quiet=(
            "I don't know anyone in Leeds yet.",
            "Not sure if I told you but I got the job at Aldi.",
            "No idea why, but my cat only eats salmon.",
            "I can't remember my PIN so I keep it in my Monzo notes.",
            "My son doesn't know how to swim yet.",
        ),
    ),
)
RULES = RULES + SMALL_TALK

KINDS = frozenset(rule.kind for rule in RULES)


@lru_cache(maxsize=4)
def _matcher(vocab) -> Matcher:
    matcher = Matcher(vocab)
    for rule in RULES:
        matcher.add(rule.name, [list(p) for p in rule.patterns])
    return matcher


_BY_NAME = {rule.name: rule for rule in RULES}


def rule_for(span: Span | Iterable[Token], kind: str) -> Rule | None:
    """The first rule of ``kind`` that matches ``span`` (or only ``tokens``, which may
    skip some of the span's words: a match must lie within them), if any."""
    if isinstance(span, Span):
        tokens = list(span)
    else:
        tokens = list(span)
        if not tokens:
            return None
        span = tokens[0].doc[tokens[0].i : tokens[-1].i + 1]
    if not tokens:
        return None
    inside = {t.i for t in tokens}
    first = next((t.i for t in tokens if not t.is_punct and not t.is_space), span.start)
    # the match that starts first: the words the sentence opens with say what it is
    for match_id, start, end in sorted(_matcher(span.doc.vocab)(span), key=lambda m: m[1]):
        rule = _BY_NAME[span.doc.vocab.strings[match_id]]
        if rule.kind != kind:
            continue
        words = range(span.start + start, span.start + end)
        if rule.start and span.start + start != first:
            continue
        if all(i in inside for i in words):
            return rule
    return None


def trace(rule: str, action: str, text: str) -> None:
    """Say which rule kept or dropped a sentence: ``gitloom.memories.rules`` at DEBUG
    (``GITLOOM_LOG_LEVEL=DEBUG``), so a user can ask why a sentence is not a memory."""
    logger.debug("offline rule=%s action=%s sentence=%r", rule, action, " ".join(text.split()))
