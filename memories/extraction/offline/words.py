"""Word lists the offline extractor judges statements with, and the helpers on them.

Small closed classes only (function words, interjections, reactions, feelings, joke
and hedge markers): what a statement says is read from the parse, not from these.
"""

from __future__ import annotations

import re

from memories.extraction.stopwords import STOPWORDS


def word_set(text: str) -> frozenset[str]:
    """The words of a whitespace-separated list (a closed class, kept readable)."""
    return frozenset(text.split())


# Nouns that carry no fact of their own ("a big deal", "good call", "the nervous one").
VAGUE_NOUNS = word_set(
    """thing things stuff lot lots bit deal call idea point one ones way time times day
    days week weeks moment kind sort type part fun luck chance news story question
    something anything everything nothing someone anyone everyone reason sense hell god
    lol haha wow man dude guy guys folks mind luck pair couple"""
)

# Whom (or which animal) a person's "my ..." names: a relation, not a thing.
RELATIONS = word_set(
    """wife husband partner boyfriend girlfriend fiance fiancee manager boss mother father
    mom mum dad sister brother son daughter friend coworker colleague cousin aunt uncle
    grandmother grandfather grandma grandpa gran granny nan nana grandad granddad niece
    nephew neighbour neighbor flatmate
    roommate housemate dog cat kitten puppy pet"""
)
# what one counts among one's family, pets and kids ("Two kids, Maya 7 and Leo 4")
FAMILY = RELATIONS | word_set("kid child grandkid grandchild twin chicken chook hen rabbit")

# Verbs whose passive says a person's standing changed ("I got promoted", "we got
# engaged", "I was laid off"): a life event, whole without an object.
STATUS_CHANGES = word_set(
    """promote engage marry divorce fire sack hire lay accept admit diagnose discharge
    elect appoint adopt baptise baptize ordain dump offer shortlist headhunt demote
    furlough knight naturalise naturalize"""
)

# What "I'm a ..." says that is no job: a diet, a habit, a condition, or a kind of
# person by habit or taste ("a night owl", "a dog person", "a huge Arsenal fan").
NO_JOBS = word_set(
    """vegan vegetarian veggie pescatarian smoker nonsmoker vaper drinker teetotaller twin
    diabetic coeliac celiac insomniac person owl bird lark fan lover nerd geek foodie
    fanatic enthusiast addict newbie beginner member regular
    bridesmaid groomsman usher godmother godfather godparent witness guest host
    kid child teenager teen toddler baby boy girl"""
)

# Trades and posts people say they hold, general knowledge: "Nurse at the Royal
# Infirmary", "Part-time barista at Costa" (a job said without "I'm a"). Words ending as
# a doer does ("-er", "-ist", "-ian") count too (language.ROLE_ENDINGS).
TRADES = word_set(
    """nurse doctor gp surgeon dentist vet midwife paramedic physio physiotherapist
    pharmacist therapist carer caregiver teacher lecturer tutor professor headteacher
    ta assistant engineer developer dev programmer analyst architect accountant
    auditor actuary lawyer solicitor barrister paralegal clerk consultant manager
    director ceo cto founder intern apprentice trainee associate receptionist
    secretary administrator admin cashier barista chef cook waiter waitress bartender
    baker butcher plumber electrician joiner carpenter builder labourer mechanic
    technician driver courier postman postwoman postie firefighter officer soldier
    pilot steward stewardess cleaner housekeeper nanny childminder librarian
    journalist editor writer designer artist photographer musician producer scientist
    researcher chemist biologist economist postdoc registrar
    rep salesman saleswoman recruiter buyer merchandiser pharmacist optician optometrist
    radiographer sonographer dietitian nutritionist counsellor psychologist
    psychiatrist coach instructor trainer lifeguard
    porter warden janitor caretaker gardener landscaper florist hairdresser barber
    stylist beautician tattooist agent broker banker trader teller"""
)
# What says a post is held at a place without naming it: "Part-time at Boots".
WORK_HOURS = word_set("part-time full-time parttime fulltime freelance contract locum temping")

# What one studies for, general knowledge: "Halfway through my PhD", "Doing a
# part-time MA in history" (a course said without "studying").
COURSES = word_set(
    """phd dphil doctorate masters master's ma msc mba mphil llm ba bsc beng meng llb
    degree apprenticeship diploma pgce gcses gcse a-levels alevels igcse ib hnd nvq
    btec access foundation"""
)
# years of a course: "Second year of nursing at Salford uni", "final year at Exeter"
STUDY_YEARS = word_set("first second third fourth fifth final 1st 2nd 3rd 4th")

# Breeds of the pets people keep, general knowledge, by the word that ends their name
# ("border collie", "Maine Coon"): what kind of animal a pet named only by its breed is.
DOG_BREEDS = word_set(
    """labrador retriever spaniel cockapoo cavapoo labradoodle goldendoodle cavachon
    poodle beagle terrier staffie staffy westie yorkie schnauzer dachshund collie
    sheepdog husky malamute greyhound whippet lurcher pug bulldog frenchie rottweiler
    doberman alsatian corgi chihuahua bichon maltese pomeranian dalmatian vizsla
    weimaraner mastiff newfoundland samoyed akita shiba springador jackahuahua
    puggle cockerpoo sprocker"""
)
CAT_BREEDS = word_set("siamese persian ragdoll bengal sphynx burmese coon shorthair moggy tabby")

# Languages people learn, general knowledge (typed in any case: "learning spanish").
LANGUAGES = word_set(
    """english spanish french german italian portuguese japanese mandarin chinese
    cantonese korean arabic hindi urdu welsh gaelic irish dutch swedish norwegian danish
    finnish icelandic polish russian ukrainian czech greek turkish hebrew swahili
    tagalog vietnamese thai indonesian malay bengali punjabi tamil telugu marathi
    gujarati persian farsi latin esperanto catalan basque romanian hungarian croatian
    serbian bsl asl yoruba igbo zulu afrikaans"""
)

# Lasting states of a person said with what they are about ("allergic to", "fluent in"),
# whole without "I'm": "Allergic to ibuprofen too".
STATES = word_set(
    """allergic intolerant fluent sensitive obsessed addicted hooked terrified phobic
    immune vaccinated qualified certified trained deaf blind"""
)

# Kin by the pronoun they take ("my sister Eilidh": she), and the kin words said as a
# name ("Mum's in hospital").
FEMALE_KIN = word_set(
    "wife girlfriend fiancee mother mom mum mam sister daughter aunt grandmother grandma "
    "niece nan nana gran granny"
)
MALE_KIN = word_set(
    "husband boyfriend fiance father dad brother son uncle grandfather grandpa nephew "
    "grandad granddad"
)

# Adjectives of a passing state or a reaction ("I'm so nervous", "my ears are done").
FEELINGS = word_set(
    """nervous tired exhausted shattered done busy excited happy glad sad sorry upset
    stressed anxious worried scared afraid bored hungry full sick ill fine okay ok good
    great bad awful terrible amazing awesome cool nice lovely perfect sure right true
    wrong hooked thrilled proud grateful thankful curious confused lucky jealous annoyed
    angry mad relieved ready late early free sore crazy fantastic wonderful brilliant
    interesting funny weird strange hard tough easy intense real honest serious cute
    gorgeous adorable stunning impressive inspiring touching powerful special"""
)

# Hyperbole, sarcasm, hypotheticals, hedges and requests are rules with examples in
# memories.extraction.offline.rules. Laughter ("..., ha.", "lol", 😂) is tone: it makes a sentence a joke only when the
# sentence names nothing specific ("they are not lol"); "passed my test, third attempt
# lol" is still a fact.
LAUGHTER = re.compile(
    r"(?:^|[\s,(])(?:ha|haha+|hah|hehe+|lol+|lmao|lmfao|rofl)\b[.!]*|[\U0001F602\U0001F923]",
    re.IGNORECASE,
)
# Words that say a statement replaces an earlier one.
CORRECTION = re.compile(
    r"\b(?:actually|correction|misremembered|mistake|typo|i meant|not\s+\w+\s+anymore|"
    r"no longer|any ?more|changed my mind|instead|now|new|update|switched|got pushed|"
    r"moved|moving|rescheduled|postponed|pushed back|turns out|wait no|no wait|sorry,? (?:it|i)|"
    r"i was wrong|my bad|scratch that)\b",
    re.IGNORECASE,
)
# Parts of a day or week said as when something is done ("on Sundays", "at weekends",
# "thursday nights"); singular, so a plural is checked without its "s".
# What a heading before a colon calls the message itself ("Big news:", "Some background
# before my question:", "Quick one before the recipe:"): it says nothing of the speaker.
MESSAGE_NOUNS = word_set(
    """update updates news intro introduction background context info information basics
    facts things stuff recap summary overview heads fyi one bit catchup rundown"""
)
# Verbs that open a liking said without its "I" ("Hate flying", "Love a good curry");
# not "like", which opens "Like I said, ..."
LIKING_OPENERS = word_set("hate love enjoy adore prefer detest dislike loathe")
# words of a span of time: "for ages", "for a while", "6 months" say how long, no thing
SPANS_OF_TIME = word_set("while age ages time bit moment minute hour day week month year")
# verbs whose "for" names an aim: what one trains, signs up, saves or studies for
GOAL_VERBS = word_set(
    "train sign register enter enrol enroll save study revise prepare apply audition"
)
PARTS_OF_DAY = word_set("morning afternoon evening night weekend weekday lunchtime")
# Verbs that move a date or a time ("pushed the dinner to Friday", "moved thursday to 5:15").
MOVE_VERBS = word_set("move push reschedule postpone bump change shift")
# what one eats, said as what one is: "I'm vegetarian", "pescatarian now"
DIETS = word_set("vegetarian veggie vegan pescatarian pescetarian flexitarian carnivore keto paleo")
# "Switched dentists, ...", "changed banks, ...": one of a kind swapped for another
SWITCHED_FORMS = word_set("switched changed swapped moved switching changing swapping moving")
# the homes one lives in, rents or owns: "a flat in Hackney" says where home is
DWELLINGS = word_set(
    "flat apartment house home studio condo bungalow cottage bedsit one-bedroom bedroom"
    " terrace houseshare flatshare"
)
# Endings: the relation or membership named in the statement is over.
# ("traded in the Corsa", "someone nicked my bike", "the van got scrapped")
# "Doing Seville instead": what it replaces was said before it
INSTEAD = re.compile(r"\binstead\b", re.IGNORECASE)
ENDING_VERBS = word_set(
    "leave quit resign divorce sell lose split break retire withdraw cancel trade nick steal scrap"
    " ditch dump"
)
# Verbs under which an ending is only wanted, planned or tried ("Zoe wants to quit
# judo", "I'm thinking of selling the van"): nothing has ended yet.
UNREALISED = word_set(
    "want wish hope plan consider think intend tempt threaten like love try mean need"
)
# Endings only with their particle: "broke up", "pulled out of", "gave up on".
ENDING_PARTICLES = {
    "break": "up", "split": "up", "pull": "out", "drop": "out", "back": "out", "give": "up",
    "hand": "in",  # "handed my notice in at Margo's"
}  # fmt: skip

INTERJECTIONS = word_set(
    """hi hey hello hiya morning evening yes yeah yep yup no nope nah ok okay sure right
    thanks thank cheers wow ooh oh ah aw aww hmm hm um uh well so anyway anyways btw
    also plus ugh oops whoa lol haha ha honestly realistically funny story update
    basically yay sorry wait fyi god gosh lmao lmfao rofl hehe tbh tbf imo imho ngl idk
    omg smh fwiw ta thx ty"""
)

_WORD = re.compile(r"[\w’'&-]+", re.UNICODE)


# what thanks or good wishes are said with ("Thanks so much!", "Congrats!", "Good luck")
COURTESIES = word_set("thank thanks cheers congrats congratulations problem pleasure luck")


def interjection(word: str) -> bool:
    """ "soooo", "yesss", "ooooh": an interjection however long it is drawn out."""
    key = word.casefold()
    return key in INTERJECTIONS or re.sub(r"(\w)\1+", r"\1", key) in _SHORT_INTERJECTIONS


_SHORT_INTERJECTIONS = {re.sub(r"(\w)\1+", r"\1", w) for w in INTERJECTIONS} | {"yes"}


def content_words(text: str) -> set[str]:
    """Lower-case words that are not function words (what two statements share)."""
    return {
        w
        for w in (m.group(0).casefold().strip("'’-") for m in _WORD.finditer(text))
        if w and w not in STOPWORDS and len(w) > 1 and not w.isdigit()
    }


def good_label(word: str) -> bool:
    """A folder or tag: a real word, not a stopword, a filler, a number or a contraction."""
    key = word.casefold()
    return (
        len(key) > 2
        and key.replace("-", "").isalpha()
        and "'" not in key
        and "’" not in key
        and key not in STOPWORDS
        and key not in VAGUE_NOUNS
        and key not in INTERJECTIONS
    )


# "-ed" words that are no past tense: "need", "feed" ("-eed"), "proceed", "embed", "bed"
_NOT_PAST = word_set("embed shed bed red wed shred sled breed exceed proceed succeed")


def past_form(token) -> bool:
    """ "booked the ferry ...", "packed in", typed in lower case, may be tagged a base
    form: its "-ed" says it is past ("need", "proceed", "embed" are not)."""
    word = token.lower_
    if word in _SAME_IN_THE_PAST:
        # "Cut down to 1 coffee a day", "Quit vaping in May": a change of habit, told
        particles = _SAME_IN_THE_PAST[word]
        return not particles or any(
            c.dep_ == "prt" and c.lower_ in particles for c in token.children
        )
    return (
        len(word) > 4 and word.endswith("ed") and not word.endswith("eed") and word not in _NOT_PAST
    )


# past forms that are their base form, and the particles that make them a change told
_SAME_IN_THE_PAST = {"quit": (), "cut": ("down", "back", "out")}

# built places said as plain nouns: "at the church hall", "outside the station"; one is
# never a "who" ("Our church is St Peter's")
BUILT_PLACES = word_set(
    "hall church school station office centre center house flat road street park "
    "hospital library pub cafe shop studio gym pool surgery clinic airport club"
)

# the words before "the 3rd" that make it a day of the month ("from the 3rd", "on the 9th")
DAY_PREPOSITIONS = word_set("on by until till from to before after since")


# Cars named by their make or model, not by the word "car" ("Picked up a secondhand
# Kia Niro EV", "my Corolla"): general knowledge no parser has, kept as a table. Makes
# count in any case; a model on its own only capitalised (a "golf", a "focus" and a
# "jazz" are other things), and a model of figures only after its make ("Peugeot 208").
CAR_MAKES = word_set(
    """toyota honda nissan mazda subaru mitsubishi suzuki lexus kia hyundai ford vauxhall
    opel chevrolet chevy dodge jeep chrysler cadillac buick tesla volkswagen vw audi bmw
    mercedes merc porsche skoda seat cupra renault peugeot citroen citroën dacia fiat alfa
    volvo saab mini jaguar tata mahindra maruti byd polestar holden infiniti acura genesis
    lancia smart"""
)
CAR_MODELS = word_set(
    """corolla yaris prius camry rav4 aygo auris avensis hilux chr civic jazz accord crv
    qashqai juke micra leaf navara mx5 cx5 cx3 outback forester impreza vitara ioniq kona
    tucson santa niro sportage ceed picanto sorento stonic fiesta focus puma kuga mondeo
    ranger mustang transit corsa astra insignia mokka zafira golf polo passat tiguan touran
    octavia fabia superb kodiaq karoq kamiq yeti ibiza leon arona ateca clio megane captur
    zoe twingo kadjar berlingo sandero duster logan jogger panda punto tipo nexon punch
    harrier safari creta baleno ertiga brezza innova fortuner xuv700 scorpio thar
    countryman clubman beetle caddy amarok outlander pajero swift corvette camaro wrangler
    cherokee"""
)
# Phones and laptops named by make or model ("got a Pixel 8", "Dell xps 15"), as above
PHONE_NAMES = word_set(
    """iphone pixel galaxy oneplus xperia motorola moto nokia huawei xiaomi redmi oppo
    realme samsung"""
)
LAPTOP_NAMES = word_set(
    "macbook thinkpad xps chromebook ideapad zenbook vivobook lenovo dell asus acer alienware"
)
