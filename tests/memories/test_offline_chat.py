"""Facts typed the way people chat, one short message after another, without the "I" or
the "my" (memories/extraction/offline/statements.py, language.py, extractor.py):
each is kept, and a message that goes on about the one before carries it as context.
Our own sentences, through POST /v1/memories and GET /v1/retrieve; jobs run inline.
"""

from tests.memories.test_offline_extractor import bodies, top


def test_a_thing_of_mine_said_without_my_is_kept(api, say):
    say("Boiler broke down on Sunday.", "Oh no.", "Laptop died this morning.")
    stored = " ".join(bodies(api))
    assert "Boiler broke down on Sunday" in stored, stored
    assert "Laptop died this morning." in stored, stored


def test_a_message_going_on_about_the_one_before_is_kept_with_it_as_context(api, say):
    say("got a new allotment, plot 9 at Fen Road", "Lovely!", "costs £38 a year, bargain")
    stored = bodies(api)
    assert 'Costs £38 a year, bargain. — after "Got a new allotment, plot 9 at Fen Road."' in (
        stored
    ), stored
    assert "£38" in top(api, "how much does my allotment cost")


def test_what_someone_told_me_goes_on_from_the_message_before(api, say):
    say("the vet says Biscuit is overweight", "Oh dear.", "told me to cut his food by a third")
    stored = bodies(api)
    assert any(
        b.startswith("Told me to cut his food by a third.") and "Biscuit is overweight" in b
        for b in stored
    ), stored


def test_what_i_do_there_is_kept_after_the_statement_that_named_the_place(api, say):
    say(
        "my brother has a pool so we swim there most weekends",
        "Nice!",
        "my aunt runs a cafe in Whitby so I work there in the summer",
    )
    stored = bodies(api)
    assert 'We swim there most weekends. — after "My brother has a pool."' in stored, stored
    assert 'I work there in the summer. — after "My aunt runs a cafe in Whitby."' in stored
    assert "I work there" in top(api, "where do I work in the summer")


def test_there_after_a_thing_of_this_message_is_not_a_place_said_before(api, say):
    say("Flying to Lisbon on Friday.", "Enjoy!", "my mum has 2 pugs so I get my dog fix there")
    stored = bodies(api)
    assert not any("(Lisbon)" in b for b in stored), stored


def test_it_after_a_thing_named_without_a_verb_is_all_of_its_name(api, say):
    # the small tagger reads a word of such a name as a verb or a thing of its own
    say("I finally bought a new hoover", "Which one?", "dyson v15 detect. got it for £499")
    stored = bodies(api)
    assert "Got it (Dyson v15 detect) for £499." in stored, stored


def test_a_reaction_after_a_fact_is_no_fact(api, say):
    say("got a new allotment, plot 9 at Fen Road", "Lovely!", "sounds good, looks amazing tbh")
    assert len(bodies(api)) == 1


def test_a_habit_with_its_hour_said_without_i_is_kept(api, say):
    say("leave the house at 7:15 most mornings")
    assert "7:15" in top(api, "what time do I leave the house")


def test_things_i_am_growing_or_making_said_without_i_are_kept(api, say):
    say("planting tomatoes, chillies and basil this year", "Nice.", "baking sourdough and focaccia")
    stored = " ".join(bodies(api))
    assert "Planting tomatoes, chillies and basil" in stored, stored
    assert "Baking sourdough and focaccia" in stored, stored


def test_a_trip_to_a_place_typed_in_lower_case_is_kept_with_its_dates(api, say):
    say("im off to porto next week")
    [body] = bodies(api)
    assert body.startswith("Im off to porto next week (2026-03-16"), body


def test_someone_described_after_what_i_need_for_them_is_kept_whole(api, say):
    say("need a present for my niece, she's 12 and obsessed with Taylor Swift")
    assert bodies(api) == ["Need a present for my niece, she's 12 and obsessed with Taylor Swift."]


def test_items_typed_as_a_label_and_who_are_one_list_under_their_heading(api, say):
    say(
        "chores this week: dishes - Sam. laundry - me. bins - Ola.",
        "Fair split!",
        "Gym - was great.",
    )
    stored = bodies(api)
    assert any(b.startswith("Chores this week") and "Laundry - me" in b for b in stored), stored
    assert not any("Gym" in b for b in stored), stored
    assert "Ola" in top(api, "who is doing the bins")


def test_a_he_in_the_next_messages_is_asked_after_by_the_name_it_means(api, say):
    say(
        "my flatmate Kasia is Polish, from Gdansk",
        "Cool.",
        "she works nights as a midwife",
        "Tough job.",
        "she's allergic to nuts so I keep them in my room",
    )
    stored = bodies(api)
    assert "She (Kasia)'s allergic to nuts." in stored, stored
    assert "midwife" in top(api, "what does Kasia do for work")
    assert "Kasia" in top(api, "who is allergic to nuts")


def test_a_plan_typed_without_i_is_asked_after_as_mine(api, say):
    say(
        "booked the peak district for easter",
        "Lovely.",
        "staying in a barn near Bakewell, 4 nights",
    )
    assert "Bakewell" in top(api, "where do I stay")


def test_an_adopted_animal_named_next_is_the_one_his_name_and_he_mean(api, say):
    say(
        "we adopted a rescue lurcher on saturday",
        "Aww!",
        "his name is Bodhi",
        "Lovely name.",
        "he's 3 and scared of bikes",
    )
    stored = bodies(api)
    assert "His (the lurcher's) name is Bodhi." in stored, stored
    assert "He (Bodhi)'s 3 and scared of bikes." in stored, stored
    assert "Bodhi" in top(api, "what is my lurcher called")


def test_a_date_then_what_it_means_i_need_is_kept(api, say):
    say("my driving licence expires in june so need to renew")
    assert "june" in top(api, "when does my driving licence expire")


def test_it_is_the_thing_the_message_before_named_not_a_detail_or_a_doing(api, say):
    say(
        "we've got a hedgehog visiting the patio most nights",
        "Aww.",
        "my son named it Spike",
        "Cute!",
        "need someone to feed the cat next week, my sister usually does it but she's away",
    )
    stored = bodies(api)
    assert "My son named it (a hedgehog) Spike." in stored, stored
    assert not any("does it (" in b for b in stored), stored


def test_a_question_asking_how_long_or_what_kind_without_its_mark_is_no_fact(api, say):
    say(
        "how long does a passport renewal usually take",
        "About three weeks.",
        "what kind of lead is best for a whippet",
    )
    assert bodies(api) == []


def test_a_pet_of_any_kind_is_the_one_her_name_means(api, say):
    say("got a leopard gecko last month", "Fun!", "her name is Pierogi, shes about 4")
    assert "Her (the gecko's) name is Pierogi, shes about 4." in bodies(api)


def test_a_she_later_in_the_sentence_is_asked_after_as_the_person_it_opened_with(api, say):
    say(
        "my mum says hi by the way",
        "Hi to her!",
        "my gran's 92 next month, she lives in Tenby",
        "Lovely!",
        "gran's having her hip done on the 3rd",
    )
    stored = " ".join(bodies(api))
    assert "(my mum)" not in stored and "(Tenby" not in stored, stored  # no one else's "she"
    assert "Tenby" in top(api, "where does my gran live")


def test_things_i_did_listed_without_i_are_a_memory_each(api, say):
    say(
        "Productive week. Joined a climbing gym called Depot Leeds, signed up for the "
        "York 10k in June, bought Hoka Clifton 9s for £115.",
        "Busy!",
        "also booked flights to Oslo for March and renewed the Halifax travel insurance",
    )
    stored = bodies(api)
    assert "Bought Hoka Clifton 9s for £115." in stored, stored
    assert any(b.startswith("Signed up for the York 10k in June") for b in stored), stored
    assert any(b.startswith("Renewed the Halifax travel insurance") for b in stored), stored
    assert "Hoka" in top(api, "what running shoes did I buy")
    assert "York 10k" in top(api, "what race did I sign up for")


def test_two_doings_without_a_name_or_number_each_stay_one_memory(api, say):
    say("Got home from Leeds, made a brew and went to bed.", "Sleep well!")
    assert bodies(api) == ["Got home from Leeds, made a brew and went to bed."]


def test_a_state_of_mine_said_without_im_is_kept(api, say):
    say("Intolerant to gluten btw.", "Noted.", "Fluent in Welsh and Breton.", "Okay!", "So tired.")
    stored = bodies(api)
    assert "Intolerant to gluten." in stored, stored  # "btw" is how it is told
    assert "Fluent in Welsh and Breton." in stored, stored
    assert not any("tired" in b for b in stored), stored
    assert "Welsh" in top(api, "what languages do I speak")


def test_a_weekly_time_of_a_thing_said_without_my_is_kept(api, say):
    say("Rehearsals are Wednesday evenings.", "Nice.", "Bin collection is Monday mornings.")
    stored = bodies(api)
    assert "Rehearsals are Wednesday evenings." in stored, stored
    assert "Bin collection is Monday mornings." in stored, stored
    assert "Monday" in top(api, "when are the bins collected")


def test_when_a_group_meets_said_without_my_is_kept(api, say):
    say(
        "Running club meets on the first Sunday of the month.",
        "Nice.",
        "Bell ringing practice runs every Tuesday at the church.",
    )
    stored = bodies(api)
    assert "Running club meets on the first Sunday of the month." in stored, stored
    assert "Bell ringing practice runs every Tuesday at the church." in stored, stored


def test_what_someone_else_wants_is_a_fact_not_a_request(api, say):
    say("Our builder wants the deposit by Monday.", "Ok.", "My son needs new football boots.")
    stored = bodies(api)
    assert [b for b in stored if "deposit by Monday" in b], stored
    assert "My son needs new football boots." in stored, stored
    assert "deposit" in top(api, "when does the builder want the deposit")


def test_the_details_after_an_announcement_carry_what_was_announced(api, say):
    say(
        "Trip is booked!! 12 to 15 May at Hillside Barn near Hay-on-Wye.",
        "Lovely!",
        "The leaving do is sorted. Friday 20th at the Red Lion, 6pm.",
    )
    stored = bodies(api)
    assert any(b.startswith("Trip is booked!! 12 to 15 May") for b in stored), stored
    assert any(
        b.startswith("The leaving do is sorted. Friday 20th") and "Red Lion" in b for b in stored
    ), stored
    assert len(stored) == 2, stored
    assert "Hillside Barn" in top(api, "where is the trip")


def test_a_second_doing_that_leans_on_the_first_stays_with_it(api, say):
    say(
        "Finally signed with Magnet for the kitchen units, went for the navy shaker ones at £3,200.",
        "Nice!",
        "I popped into Currys and bought a Bosch dishwasher for £429.",
    )
    stored = bodies(api)
    assert (
        "Finally signed with Magnet for the kitchen units, went for the navy shaker ones at £3,200."
        in stored
    ), stored
    assert "I popped into Currys and bought a Bosch dishwasher for £429." in stored, stored


def test_someones_job_said_with_s_a_is_kept(api, say):
    # the small tagger reads "'s" as a possessive, which left no verb in the sentence
    say("My husband's a plumber in Grimsby.", "Handy!", "Deaf in one ear since birth.")
    stored = bodies(api)
    assert "My husband's a plumber in Grimsby." in stored, stored
    assert "Deaf in one ear since birth." in stored, stored
    assert "plumber" in top(api, "what does my husband do")


def test_a_trip_said_as_off_to_a_place_is_kept(api, say):
    say("Off to Whitby 2 to 5 May, caravan on the cliff", "Enjoy!", "off to bed now")
    stored = bodies(api)
    assert len(stored) == 1 and stored[0].startswith("Off to Whitby 2 to 5 May"), stored


def test_an_answer_to_a_one_word_question_carries_what_it_was_asked_about(api, say):
    say("I got a reconditioned Vespa.", "Ooh, what colour?", "Mint green, it's lush.")
    stored = bodies(api)
    assert (
        'Mint green, it\'s lush. — answering "What colour?" after "I got a reconditioned Vespa."'
        in stored
    ), stored


def test_a_figure_before_its_comma_answers_the_question_it_was_asked(api, say):
    say("How long have you been in Dundee?", "nearly 5 years, came for the job", first="assistant")
    stored = bodies(api)
    assert stored == [
        'Nearly 5 years, came for the job. — answering "How long have you been in Dundee?"'
    ], stored


def test_instead_in_the_next_message_carries_what_it_replaced(api, say):
    say(
        "We were going to do Paris for my birthday.",
        "Sounds fun!",
        "Doing Seville instead.",
        "Nice.",
        "Cancelled Netflix and got Disney+ instead.",
    )
    stored = bodies(api)
    # (two doings, each its own memory: the second goes on from the first)
    assert 'Got Disney+ instead. — after "Cancelled Netflix."' in stored, stored
    assert 'Doing Seville instead. — after "We were going to do Paris for my birthday."' in (
        stored
    ), stored


def test_a_doing_or_a_having_said_without_i_is_no_question(api, say):
    say(
        "Did a half marathon in Cardiff on Sunday, 1:58.",
        "Congrats!",
        "Have a mortgage with Halifax, fixed till 2029.",
        "Nice.",
        "have a look at Argos for me",
    )
    stored = " ".join(bodies(api))
    assert "Did a half marathon in Cardiff on Sunday" in stored, stored
    assert "Have a mortgage with Halifax, fixed till 2029" in stored, stored
    assert "Argos" not in stored, stored


def test_that_opening_a_reply_carries_what_it_points_at(api, say):
    say(
        "I could put the barbecue on Saturday then.",
        "That's choir and curry night.",
        "Fair enough.",
        "The library is shut on Mondays, that's my only day off.",
        first="assistant",
    )
    assert bodies(api) == [
        'That\'s choir and curry night. — after "I could put the barbecue on Saturday then."',
        "The library is shut on Mondays, that's my only day off.",
    ]


def test_it_is_what_the_statement_before_was_about_when_it_named_no_object(api, say):
    # its subject, not where it is ("at the garage in Headingley")
    say(
        "The van is at the garage in Headingley. Dave is fixing it for 200 quid.",
        "Ah.",
        "the printer is jammed again 🙄. will take it to the shop on friday",
    )
    stored = bodies(api)
    assert "Dave is fixing it (the van) for 200 quid." in stored, stored
    assert any(b.startswith("Will take it (the printer) to the shop") for b in stored), stored
    assert not any("(Headingley)" in b for b in stored), stored


def test_it_after_words_without_a_verb_is_the_thing_they_name_first(api, say):
    say(
        "Booked our anniversary weekend!",
        "Lovely! Where are you staying?",
        "A tiny cottage near Keswick. My husband found it on Airbnb.",
    )
    stored = bodies(api)
    assert "My husband found it (a tiny cottage) on Airbnb." in stored, stored


def test_an_emoji_is_never_what_it_is(api, say):
    say("Generator don start to misbehave again 😩. I go take it to my mechanic on Friday.")
    stored = bodies(api)
    assert any("take it" in b for b in stored), stored
    assert not any("😩)" in b for b in stored), stored


def test_it_opening_a_statement_after_a_sentence_that_was_no_fact_says_what_it_is(api, say):
    say(
        "Could you help me with a speech? It is for my best mate Tom, his wedding is in June.",
        "Of course!",
        "My thesis is nearly done. It's on medieval trade routes.",
        "Sure.",
        "Ugh. It's a 2015 Astra by the way.",
    )
    stored = bodies(api)
    assert "It (a speech) is for my best mate Tom." in stored, stored
    assert "It (my thesis)'s on medieval trade routes." in stored, stored
    assert not any("(Ugh)" in b for b in stored), stored


def test_it_is_what_a_sentence_just_before_named_though_no_fact_of_its_own(api, say):
    # nearer than what an earlier message said, and one thing, not the plural hung on it
    say(
        "I live in Hove.",
        "Nice!",
        "Started a blog about vegan cakes haha. I update it every Friday with my sister.",
    )
    stored = bodies(api)
    assert "I update it (a blog) every Friday with my sister." in stored, stored
    assert not any("(Hove)" in b for b in stored), stored


def test_a_state_said_without_i_before_a_comma_is_no_opener(api, say):
    say("Allergic to latex fyi, found out at the dentist years ago.")
    assert "latex" in top(api, "what am I allergic to")


def test_an_emoji_is_no_thing_said(api, say):
    say("Booked a cottage in Dingle for Easter!!", "Amazing!", "cant wait 🌞")
    stored = bodies(api)
    assert len(stored) == 1 and "Dingle" in stored[0], stored


def test_a_noun_phrase_the_parser_took_for_a_clause_is_no_fact(api, say):
    # "drinks" read as the verb of "work": a fragment about the moment, not a fact
    say("Work drinks later. I work at a recruitment agency in Bath.")
    assert bodies(api) == ["I work at a recruitment agency in Bath."]


def test_its_typed_for_it_is_after_a_sentence_that_was_no_fact_says_what_it_is(api, say):
    say("stupid printer jammed again, third time today. its a 2016 hp envy.")
    assert bodies(api) == ["Its (stupid printer) a 2016 hp envy."]


def test_ta_is_thanks_not_a_thing_or_a_name(api, say):
    say("no ill be fine ta", "Okay!", "im good ta", "Great.", "I'm Tanya btw.")
    assert bodies(api) == ["I'm Tanya."]


def test_it_is_the_thing_named_before_its_own_it_never_a_time_or_a_verdict(api, say):
    say(
        "metformin 500mg, i take it every morning before work",
        "Best with food.",
        "a morning without tea is a war crime",
        "Ha! Try it with breakfast.",
        "ok i'll take it at 7 after breakfast then",
    )
    stored = bodies(api)
    assert any(b.startswith("I'll take it (Metformin 500mg) at 7") for b in stored), stored
    assert not any("war crime" in b or "(work)" in b for b in stored), stored


def test_a_hyphenated_thing_is_whole(api, say):
    say("the blue sit-on-top, an old ocean kayak. had it since 2019")
    assert "Had it (sit-on-top) since 2019." in bodies(api)


def test_she_after_a_name_the_statement_made_its_subject_is_not_someone_said_before(api, say):
    say(
        "My aunt lands on Friday.",
        "Lovely!",
        "Chiamaka is already planning the party, she is scary organised.",
        "Ha.",
        "Hosting Deepak and his wife on Saturday. He is vegan and hates mushrooms.",
    )
    stored = bodies(api)
    assert not any("(my aunt)" in b for b in stored), stored
    assert "He (Deepak) is vegan and hates mushrooms." in stored, stored


def test_it_after_a_thing_doing_a_thing_is_left_unsaid(api, say):
    # which of the two "it" is, the words do not say: no note rather than a wrong one
    say("The kettle's making a weird clicking sound. Taking it back to Currys on Monday.")
    stored = bodies(api)
    assert any(b.startswith("Taking it back to Currys") for b in stored), stored
    assert not any("it (a weird clicking sound)" in b for b in stored), stored


def test_she_after_a_subject_that_is_no_name_is_the_person_said_before(api, say):
    say(
        "My friend Odile is coming for dinner.",
        "Lovely!",
        "Everything has to be gluten free, and she's obsessed with Aperol.",
    )
    assert "Everything has to be gluten free, and she (Odile)'s obsessed with Aperol." in bodies(
        api
    )


def test_mine_after_a_question_naming_a_thing_is_that_thing_never_what_is_asked(api, say):
    say(
        "how often should i service a 2015 fabia? mine is at 140k km",
        "Every 10,000 miles or so.",
        "what oil does a 2012 civic take? mine is at 200k km",
    )
    stored = bodies(api)
    assert "Mine (a 2015 fabia) is at 140k km." in stored, stored
    assert not any("(what oil)" in b for b in stored), stored


def test_an_it_opening_a_message_is_kept_with_what_the_speaker_said_before(api, say):
    say("my sister just had her baby!", "Congrats!", "it's a boy, 8lb 2oz")
    stored = bodies(api)
    assert 'It\'s a boy, 8lb 2oz. — after "My sister just had her baby!"' in stored, stored
    assert "boy" in top(api, "was my sister's baby a boy or a girl")


def test_an_it_after_a_reply_that_names_something_is_not_given_my_message_before(api, say):
    # "it" may be what the reply named: never put beside what I said before that
    say(
        "My brother moved to Lisbon last month.",
        "Oh nice, I spent a summer in Porto years ago.",
        "It's only 3 hours from Lisbon by train.",
    )
    stored = bodies(api)
    assert "It's only 3 hours from Lisbon by train." in stored, stored
    assert not any("after" in b for b in stored), stored
