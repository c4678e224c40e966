"""Current truth without a model (memories/extraction/offline/reconcile.py), through
POST /v1/memories and GET /v1/retrieve: a later session that changes something said
before ranks first and links what it replaces; one that changes someone else's thing,
or nothing, links nothing. Sentences of our own, none from the write-path scenarios.
"""

import pytest

from tests.memories.test_offline_extractor import bodies, memory, top

LATER = "2026-04-20T09:00:00Z"


def superseded_by(api, job) -> list[str]:
    """The bodies the job's new memories supersede."""
    found = []
    for path in job["result"]["created"]:
        for link in memory(api, path)["related"]:
            if link["type"] == "supersedes":
                found.append(memory(api, link["path"])["body"])
    return found


# (said first, said later, what it supersedes, a question, what its top answer holds)
CHANGES = [
    pytest.param(
        "My car's a blue Corsa.",
        "Got rid of the Corsa, I've got a Yaris now.",
        ["My car's a blue Corsa.", "My car's a blue Corsa."],
        "what car do I have",
        "Yaris",  # what is current comes first, never "a blue Corsa"
        id="got-rid-of-a-thing-of-mine",
    ),
    pytest.param(
        "My gym is PureGym on Deansgate.",
        "Moved gyms, I'm at The Gym Group now.",
        ["My gym is PureGym on Deansgate."],
        "what gym do I go to",
        "Gym Group",
        id="moved-one-of-a-kind",
    ),
    pytest.param(
        "My physio is Ines at the Northside clinic.",
        "New physio, a guy called Jordi, much better.",
        ["My physio is Ines at the Northside clinic."],
        "who is my physio",
        "Jordi",
        id="a-new-one-named-without-a-verb",
    ),
    pytest.param(
        "My spin class is on Tuesdays at 6.",
        "Spin's on Thursdays now.",
        ["My spin class is on Tuesdays at 6."],
        "when is my spin class",
        "Thursdays",
        id="is-typed-as-s-after-the-word-that-told-it-apart",
    ),
    pytest.param(
        "Band practice is at the scout hut.",
        "Band's moved to the church hall now.",
        ["Band practice is at the scout hut."],
        "where is band practice",
        "church hall",
        id="has-typed-as-s-of-a-thing-said-bare",
    ),
    pytest.param(
        "I'm learning French on Babbel.",
        "Dropped French, doing German instead.",
        ["I'm learning French on Babbel."],
        "what language am I learning",
        "German",
        id="a-thing-of-mine-dropped",
    ),
    pytest.param(
        "Our book club meets at the Red Lion.",
        "Book club's moved to the library.",
        ["Our book club meets at the Red Lion."],
        "where does our book club meet",
        "library",
        id="a-thing-moved-to-a-built-place",
    ),
    pytest.param(
        "The kids' football training is on Tuesdays.",
        "Football got moved to Thursdays.",
        ["The kids' football training is on Tuesdays."],
        "when is the kids' football training",
        "Thursdays",
        id="a-thing-named-later-by-the-word-that-told-it-apart",
    ),
    pytest.param(
        "Our flat is number 41B.",
        "It's 14B, not 41B.",
        ["Our flat is number 41B."],
        "what number is our flat",
        "14B",
        id="one-figure-said-in-place-of-another",
    ),
    pytest.param(
        "My swimming club is £20 a month.",
        "The club upped the fee to £24.",
        ["My swimming club is £20 a month."],
        "how much is my swimming club",
        "£24",
        id="a-verb-changes-a-thing-i-called-mine",
    ),
    pytest.param(
        "I sing in a choir that meets on Wednesdays.",
        "Choir has moved to Mondays.",
        ["I sing in a choir that meets on Wednesdays."],
        "when does my choir meet",
        "Mondays",
        id="my-thing-moved-to-another-day",
    ),
    pytest.param(
        "I ride a Brompton to work.",
        "Someone stole my Brompton from outside the station, so I bought a Tern.",
        # the ending and what replaced it right after both take its place
        ["I ride a Brompton to work.", "I ride a Brompton to work."],
        "what bike do I ride",
        "Tern",
        id="my-thing-ended-by-someone-else",
    ),
    pytest.param(
        "I help out at the food bank on Sundays.",
        "Gave up the food bank, I'm at the animal shelter on Sundays now.",
        # the ending and the "now" said right after it both take its place
        ["I help out at the food bank on Sundays.", "I help out at the food bank on Sundays."],
        "where do I help out on Sundays",
        "animal shelter",
        id="an-ending-then-what-i-do-now",
    ),
    pytest.param(
        "My line manager is Helen.",
        "Helen left, my new boss is Omar Said.",
        ["My line manager is Helen.", "My line manager is Helen."],
        "who is my line manager",
        "Omar",
        id="someone-left-then-the-new-one",
    ),
    pytest.param(
        "I do pilates on Mondays.",
        "Pilates is Wednesdays now.",
        ["I do pilates on Mondays."],
        "when do I do pilates",
        "Wednesdays",
        id="my-thing-is-another-day-now",
    ),
    pytest.param(
        "My rent is £875 a month.",
        # (the parser hangs "up to" on the sum, not on "put")
        "Landlord put the rent up to £940.",
        ["My rent is £875 a month."],
        "how much is my rent",
        "£940",
        id="put-up-to-a-new-sum",
    ),
    pytest.param(
        "I drive a Ford Focus.",
        "Traded in the Focus for a Honda Civic.",
        ["I drive a Ford Focus."],
        "what car do I drive",
        "Civic",
        id="traded-in",
    ),
    pytest.param(
        "I'm allergic to penicillin.",
        "Actually it's amoxicillin I'm allergic to, not penicillin.",
        ["I'm allergic to penicillin."],
        "what am I allergic to",
        "amoxicillin",
        id="a-correction-says-not-the-old-thing",
    ),
    pytest.param(
        "I weigh 90 kilos.",
        "Down to 86kg!",
        ["I weigh 90 kilos."],
        "how much do I weigh",
        "86kg",
        id="a-new-amount-without-a-verb",
    ),
    pytest.param(
        "I work nights.",
        "I'm not on nights anymore.",
        ["I work nights."],
        "do I work nights",
        "anymore",
        id="no-longer-on-a-shift",
    ),
    pytest.param(
        "I weigh 14 stone.",
        "I'm 13 stone these days.",
        ["I weigh 14 stone."],
        "how much do I weigh",
        "13 stone",
        id="a-new-measure-of-mine-these-days",
    ),
    pytest.param(
        # (the small tagger reads the unit of "82kg" as a name)
        "I weigh 82kg.",
        "I'm 79kg these days.",
        ["I weigh 82kg."],
        "how much do I weigh",
        "79kg",
        id="a-new-measure-typed-against-its-unit",
    ),
    pytest.param(
        "My guitar teacher is Mr Okoro.",
        "Stopped lessons with Mr Okoro, teaching myself now.",
        ["My guitar teacher is Mr Okoro."],
        "who is my guitar teacher",
        "teaching myself",
        id="lessons-stopped-with-the-one-named",
    ),
    pytest.param(
        "I volunteer 2 days a week at the food bank.",
        "I've gone up to 3 days a week.",
        ["I volunteer 2 days a week at the food bank."],
        "how many days a week do I volunteer",
        "3 days",
        id="a-new-count-per-week-said-with-a-light-verb",
    ),
    pytest.param(
        "I'm a staff nurse at Leeds General.",
        "Just got promoted to charge nurse!",
        ["I'm a staff nurse at Leeds General."],
        "what is my job",
        "charge nurse",
        id="a-promotion-replaces-my-role",
    ),
    pytest.param(
        "I walk to work, it's about 25 minutes.",
        "I get the train to work now.",
        ["I walk to work, it's about 25 minutes."],
        "how do I get to work",
        "train",
        id="a-new-way-to-work",
    ),
    pytest.param(
        "My GP is Dr Shah at the Elm Street practice.",
        "I've got a new GP, Dr Okafor, she's lovely.",
        ["My GP is Dr Shah at the Elm Street practice."],
        "who is my GP",
        "Okafor",
        id="a-new-one-i-got-named-beside-it",
    ),
]


@pytest.mark.parametrize(("first", "later", "replaced", "query", "answer"), CHANGES)
def test_a_later_change_supersedes_what_it_replaces_and_ranks_first(
    api, say, first, later, replaced, query, answer
):
    say(first)
    job = say(later, when=LATER)
    assert superseded_by(api, job) == replaced
    assert answer in top(api, query)


def test_someone_elses_change_to_the_same_kind_of_thing_supersedes_nothing(api, say):
    say("I play five-a-side on Tuesdays.")
    job = say("My son plays five-a-side on Saturdays now.", when=LATER)
    assert superseded_by(api, job) == []
    other = say("Tom's gym put its price up to £50.", when=LATER)
    assert superseded_by(api, other) == []
    say("My dentist is Dr Patel.")
    hers = say("My sister got a new dentist, Dr Ama.", when=LATER)
    assert superseded_by(api, hers) == []


def test_a_new_thing_of_someone_elses_home_supersedes_nothing_of_mine(api, say):
    say("Our little house in Roath is freezing in winter.")
    job = say("My parents' house in Cork needs a new roof.", when=LATER)
    assert superseded_by(api, job) == []
    assert "Roath" in top(api, "where do I live")


def test_a_now_beside_my_place_is_no_new_value_of_it(api, say):
    say("I live in Didsbury with my partner Jo.")
    job = say("Still in Didsbury, the drive to Salford is much quicker now.", when=LATER)
    assert superseded_by(api, job) == []


def test_a_place_name_after_a_preposition_is_kept(api, say):
    job = say("I drive to Reading now.", "Nice.", "My parents live in Dorking.")
    bodies = [memory(api, p)["body"] for p in job["result"]["created"]]
    assert any("Reading" in b for b in bodies), bodies
    assert any("Dorking" in b for b in bodies), bodies


def test_a_quality_of_a_person_is_no_new_value_of_who_they_are(api, say):
    job = say(
        "My cousin Rhodri is a plumber in Bangor.", "Nice.", "my cousin is great, she said so"
    )
    assert superseded_by(api, job) == []


def test_a_new_measure_of_another_doing_supersedes_nothing(api, say):
    say("I cycle 40 miles a week.", "Nice.", "I sleep about 7 hours a night.")
    job = say("I run 15 miles a week now.", "Great!", "I work 9 hours a day now.", when=LATER)
    assert superseded_by(api, job) == []


def test_someone_elses_promotion_replaces_nothing_of_mine(api, say):
    say("I'm a staff nurse at Leeds General.")
    job = say("My sister got promoted to head of sales at Aviva.", when=LATER)
    assert superseded_by(api, job) == []


def test_a_time_at_work_or_someone_elses_way_there_is_no_new_way_of_mine(api, say):
    say("I drive to work.")
    job = say(
        "I start work at 8 now.",
        "Oh ok.",
        "I get to work by 8:30 these days.",
        "Right.",
        "My son cycles to school now.",
        when=LATER,
    )
    assert superseded_by(api, job) == []


def test_a_named_everyday_place_is_still_a_thing_that_changes(api, say):
    say("My son goes to Oakfield nursery.")
    job = say("We moved him to Rainbow nursery this week.", when=LATER)
    assert superseded_by(api, job) == ["My son goes to Oakfield nursery."]


def test_a_name_said_in_place_of_another_respells_what_was_said_with_it(api, say):
    say("My son Rhodri starts at Ysgol Bro Dinefwr in September.")
    say("His name is Rhydian not Rhodri, autocorrect.", when=LATER)
    stored = bodies(api)
    assert stored == ["My son Rhydian starts at Ysgol Bro Dinefwr in September (2026-09)."]
    assert "Rhydian" in top(api, "what is my son's name")


def test_a_name_put_right_in_the_same_conversation_respells_it(api, say):
    say("My niece Siân starts nursery in January.", "Aww.", "Her name is Sian not Siân, sorry.")
    assert bodies(api) == ["My niece Sian starts nursery in January (2027-01)."]


def test_another_person_said_with_not_respells_no_one(api, say):
    say(
        "My cousin Anika is getting married in June.",
        "Lovely!",
        "Priya, not Anika, is my bridesmaid.",
    )
    assert "My cousin Anika is getting married in June (2026-06)." in bodies(api)


def test_a_name_put_right_in_a_longer_message_respells_it_and_the_rest_is_kept(api, say):
    say(
        "My son Rhodri starts at Ysgol Bro Dinefwr in September.",
        "Exciting!",
        "sorry autocorrect - his name is Rhydian not Rhodri, my phone hates welsh names. "
        "He plays rugby for the under 7s.",
    )
    stored = bodies(api)
    assert "My son Rhydian starts at Ysgol Bro Dinefwr in September (2026-09)." in stored
    assert [b for b in stored if "rugby" in b], stored


def test_a_value_taken_back_in_its_own_sentence_is_never_stored(api, say):
    say(
        "My passport expires on 9 May - wait no, 19 May.", "Noted.", "Table's at 7:15, sorry, 7:45."
    )
    stored = bodies(api)
    assert "My passport expires on 19 May (2026-05-19)." in stored, stored
    assert not [b for b in stored if "9 May -" in b or "7:15" in b], stored
    assert "7:45" in top(api, "what time is the table")


def test_a_thing_moved_changes_only_what_said_the_same_kind_of_value(api, say):
    # a day for a day, a place for a place: the boots' make and the books read stay
    say("My football boots are Nike.", "Nice.", "Our book club reads a novel a month.")
    job = say(
        "Football got moved to Thursdays.", "Ok.", "Book club's moved to the library.", when=LATER
    )
    assert superseded_by(api, job) == []


def test_a_thing_dropped_somewhere_or_a_fall_is_no_ending(api, say):
    say("My phone is an iPhone 12.", "Nice.", "I drive a Golf.")
    job = say(
        "I dropped my phone and cracked the screen.",
        "Oh no.",
        "Dropped the Golf off at the garage for its MOT.",
        when=LATER,
    )
    assert superseded_by(api, job) == []


def test_a_stay_somewhere_for_a_named_time_is_no_new_home(api, say):
    # it rewrote the home: "We're in Paris this weekend (…) (I live … with my partner)."
    say("I live in Leeds with my partner.")
    job = say("We're in Paris this weekend.", "Nice!", "I'm in Glasgow till Sunday.", when=LATER)
    assert job["result"]["rewritten"] == [] and superseded_by(api, job) == []
    assert "Leeds" in top(api, "where do I live")


def test_a_value_put_right_in_the_next_message_replaces_it_and_says_what_it_corrects(api, say):
    job = say("my rent is £950", "Got it.", "sorry £975, it went up in January")
    stored = bodies(api)
    fixed = '£975, it went up in January (2026-01). — correcting "My rent is …"'
    assert fixed in stored, stored
    assert "£975" in top(api, "how much is my rent")
    assert not any("£950" in b and "£975" in b for b in stored), stored  # the old value once
    assert superseded_by(api, job) == ["My rent is £950."]


def test_an_actually_that_adds_a_thing_corrects_nothing(api, say):
    job = say("I have a dog called Rex", "Cute!", "Actually I also have a cat called Tom.")
    assert superseded_by(api, job) == []
    assert not any("correcting" in b for b in bodies(api)), bodies(api)


def test_a_typo_put_right_in_an_address_respells_no_name(api, say):
    # "4D" holds no name: "Rd" of the address must stay as said
    say(
        "Need to give couriers my address, pls remember: 12 Hill Rd, flat 4B",
        "Noted! 12 Hill Rd, flat 4B.",
        "wait typo, I meant flat 4D",
    )
    stored = bodies(api)
    assert not any("Hill D," in b for b in stored), stored
    assert "I meant flat 4D." in stored and "wait typo." not in stored, stored
    assert "4D" in top(api, "what is my flat number")


def test_a_provider_ditched_is_ended(api, say):
    say("My broadband is with Sky, about £45 a month.")
    job = say("Ditched Sky last week, way too pricey.", when=LATER)
    assert superseded_by(api, job) == ["My broadband is with Sky, about £45 a month."]
    theirs = say("My sister ditched Vodafone.", when=LATER)
    assert superseded_by(api, theirs) == []


def test_a_name_in_capitals_the_tagger_takes_for_a_modifier_is_ended_too(api, say):
    say("My car insurance is with RACV, £90 a month.")
    job = say("I ditched RACV.", when=LATER)
    assert superseded_by(api, job) == ["My car insurance is with RACV, £90 a month."]


def test_a_value_then_actually_puts_right_what_was_just_said(api, say):
    job = say("My daughter is 5.", "Lovely age!", "6 actually, she had her birthday last week")
    assert superseded_by(api, job) == ["My daughter is 5."]
    assert "6 actually" in top(api, "how old is my daughter")
    assert any('— correcting "My daughter is …"' in b for b in bodies(api)), bodies(api)
    other = say("I have 2 cats.", "Nice.", "Rex actually is the dog's name.", when=LATER)
    assert superseded_by(api, other) == []


def test_a_place_instead_takes_the_place_of_the_plan_before_it(api, say):
    # "Sicily" is read by the tagger as an "-ly" adverb: it was dropped as naming nothing
    job = say(
        "We were going to Crete in June", "Sounds lovely", "change of plan, doing Sicily instead"
    )
    assert superseded_by(api, job) == ["We were going to Crete in June (2026-06)."]
    assert any(b.startswith("Change of plan, doing Sicily instead.") for b in bodies(api))
    other = say(
        "My sister is coming for Christmas.",
        "Lovely",
        "we're doing a turkey crown instead",
        when=LATER,
    )
    assert superseded_by(api, other) == []  # what the crown replaces was never said


def test_a_new_figure_for_it_now_replaces_the_one_just_said(api, say):
    job = say("Gym membership is £35 a month at PureGym", "noted", "they put it up, it's £40 now")
    assert superseded_by(api, job) == ["Gym membership is £35 a month at PureGym."]
    assert "£40" in top(api, "how much is my gym membership")
    chat = say("I have 2 cats", "nice", "it's 9pm now, gotta go", when=LATER)
    assert superseded_by(api, chat) == []
    assert not any("9pm" in b for b in bodies(api)), bodies(api)  # the time, said in passing


def test_a_new_amount_said_bare_says_of_what_and_replaces_it_once_done(api, say):
    wish = say("I drink about 4 coffees a day", "That's a lot!", "trying to cut down to 2")
    assert 'Trying to cut down to 2. — after "I drink about 4 coffees a day."' in bodies(api)
    assert superseded_by(api, wish) == []  # tried, not done: still 4 a day
    done = say("I smoke 10 a day", "ok", "down to 3 a day now!", when=LATER)
    assert superseded_by(api, done) == ["I smoke 10 a day."]


def test_a_shop_named_by_a_plural_is_a_workplace_a_new_one_replaces(api, say):
    # "Boots" was read as a plural noun: no job, so nothing for "Superdrug now" to replace
    say("I work at Boots on the high street.")
    job = say("I work at Superdrug now.", when=LATER)
    answer = top(api, "where do I work")
    assert "Superdrug" in answer, answer
    assert job["result"]["rewritten"] or superseded_by(api, job), job["result"]


def test_an_instead_or_a_now_of_someone_else_replaces_nothing(api, say):
    rome = say(
        "My sister lives in Leeds.", "Nice.", "We're going to Rome instead of Paris this year."
    )
    assert superseded_by(api, rome) == []
    assert not any("— after" in b for b in bodies(api) if "Rome" in b), bodies(api)
    amy = say(
        "My daughter goes to St Mary's.",
        "ok",
        "Her friend Amy goes to Oakfield instead.",
        when=LATER,
    )
    assert superseded_by(api, amy) == []
    phone = say(
        "I pay £40 for my phone.",
        "ok",
        "my brother pays £20, it's cheaper now with Three",
        when=LATER,
    )
    assert superseded_by(api, phone) == []


def test_a_home_bought_and_moved_into_is_where_i_live_now(api, say):
    say("I rent a flat in Headingley.")
    say("We bought a house in Horsforth, moved in on Saturday.", when=LATER)
    assert "I rent a flat in Headingley." not in bodies(api), bodies(api)
    assert "Horsforth" in top(api, "where do I live")
    # a house my sister bought and moved into is no home of mine
    say("My sister bought a house in Otley and moved in on Friday.", when=LATER)
    assert any("Horsforth" in b for b in bodies(api)), bodies(api)
    assert any("Otley" in b for b in bodies(api)), bodies(api)


def test_a_stop_on_the_way_or_for_a_coffee_ends_nothing(api, say):
    say("I work at Tesco.", "Ok.", "My best friend is Jo.")
    job = say(
        "Stopped at Tesco on the way home.", "Ok.", "Stopped for a coffee with Jo.", when=LATER
    )
    assert superseded_by(api, job) == []


def test_a_home_left_in_the_past_supersedes_nothing(api, say):
    say("I live in York with my wife.")
    job = say("I lived in Leeds for ten years before that.", when=LATER)
    assert superseded_by(api, job) == []
    assert "York" in top(api, "where do I live")


def test_a_new_job_at_a_firm_typed_in_lower_case_replaces_the_old_one(api, say):
    say("I work at greggs on the high street.")
    say("Started at deloitte last month, so much better.", when=LATER)
    assert "deloitte" in top(api, "where do I work")
    assert not any("greggs" in body and "deloitte" not in body for body in bodies(api))
    # a word no table knows is no name when a table of ours knows it
    say("Asking for a coworker.", when=LATER)
    assert "Asking for a coworker." not in bodies(api)


def test_a_new_job_after_an_exclamation_replaces_the_old_one(api, say):
    say("I work at Greggs on the high street.")
    say("New job! started at Deloitte last month.", when=LATER)
    assert "Deloitte" in top(api, "where do I work")


def test_a_move_puts_right_a_home_said_in_passing(api, say):
    say("Our flat in Chorlton has no garden sadly.")
    job = say("We did it, moved to Stockport on the weekend!", when=LATER)
    assert superseded_by(api, job) == ["Our flat in Chorlton has no garden sadly."]
    assert "Stockport" in top(api, "where do I live")
    # and a home said in passing replaces nothing: it may name a part of the place
    say("We live in Ottawa, in the Glebe.")
    later = say("Our apartment in the Glebe has a big south window.", when=LATER)
    assert superseded_by(api, later) == []
