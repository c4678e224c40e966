"""Every claim of the README's "Without a model" section, with the README's own
examples, through POST /v1/memories and GET /v1/retrieve (jobs inline). A claim that
fails here is taken out of the README, not papered over. Claims added since are tested
with the README's sentences beside their rules (test_offline_keeps.py,
test_offline_questions.py)."""

from tests.memories.test_offline_extractor import all_cues, bodies, memory, top

WEDNESDAY = "2026-03-11T10:00:00Z"  # "on Friday" is 2026-03-13


def test_one_fact_per_memory(api, say):
    say("I'm a pharmacist at Walgreens and I rent a flat in Tucson")
    stored = bodies(api)
    assert len(stored) == 2, stored
    assert any("Walgreens" in b and "Tucson" not in b for b in stored)


def test_a_schedule_stays_one_memory(api, say):
    say("Swim rota:\n- Monday: Leo\n- Wednesday: Ada\n- Friday: Leo")
    assert len(bodies(api)) == 1


def test_greetings_reactions_questions_and_suggestions_are_not_kept(api, say):
    say(
        "Hi! Wow, that's great.",
        "You could try the Thai place on Hope Street.",
        "is it normal for a cat to sleep 16 hours",
    )
    assert bodies(api) == []


def test_a_counterfactual_a_joke_and_sarcasm_are_not_kept(api, say):
    say(
        "If I won the lottery I'd buy a castle in Fife.",
        "Ha!",
        "My brother says he'll pay me back, ha, sure he will.",
        "Lol.",
        "What if we got a third dog? Nah, Tom would kill me.",
    )
    assert bodies(api) == []


def test_small_talk_of_the_moment_or_the_chat_is_not_kept(api, say):
    # one message of the user's, each sentence small talk
    say(
        "I'm typing this on the bus. The weather looks grim. Your answer helped. You're a lifesaver."
    )
    assert bodies(api) == []


def test_a_liking_said_without_its_i_is_kept_but_not_a_reaction(api, say):
    say("Hate flying, always take the train if I can.", "Got it.", "Love it.")
    say("Not a big fan of mushrooms tbh. Love that idea!")
    stored = bodies(api)
    assert len(stored) == 2, stored
    assert "flying" in top(api, "do I like flying")
    assert "mushrooms" in top(api, "do I like mushrooms")


def test_a_hedge_is_kept_with_its_hedge(api, say):
    say("I might buy a Peloton.")
    assert bodies(api) == ["I might buy a Peloton."]


def test_a_friends_fact_names_the_friend(api, say):
    say("My friend Carla is vegan.")
    assert "Carla" in bodies(api)[0]


def test_casual_typing_and_laughter_on_a_real_fact(api, say):
    say("i FINALLY passed my test, third attempt lol", "they are not lol")
    stored = bodies(api)
    assert len(stored) == 1 and "third attempt" in stored[0], stored
    say("I hate coriander lol")
    assert "coriander" in top(api, "do I like coriander")


def test_hyperbole_is_not_kept(api, say):
    say("I've spent a million hours on this spreadsheet.")
    assert bodies(api) == []


def test_a_detail_without_a_verb_joins_the_statement_before(api, say):
    say("Booked flights to Oaxaca. Volaris, $412 each")
    [body] = bodies(api)
    assert "Oaxaca" in body and "$412" in body


def test_a_short_answer_is_kept_with_its_question(api, say):
    say("Which bank are you with?", "Monzo.", first="assistant")
    [body] = bodies(api)
    assert body == 'Monzo. — answering "Which bank are you with?"'
    assert "Monzo" in top(api, "which bank am I with")


def test_her_gets_the_one_person_named_before_it_in_the_same_message(api, say):
    say("Mum lives in Galway, I visit her every Easter.")
    assert "I visit her (Mum) every Easter." in bodies(api), bodies(api)


def test_a_habit_said_without_its_i_is_kept_but_not_a_request(api, say):
    say("Work from home Mondays and Fridays.", "Nice.", "Drive a 2015 Yaris.")
    say("Teach me Spanish verbs.")
    assert sorted(bodies(api)) == ["Drive a 2015 Yaris.", "Work from home Mondays and Fridays."]
    assert "Yaris" in top(api, "what car do I drive")


def test_a_resolved_date_is_written_beside_its_phrase(api, say):
    say("My dentist appointment is on Friday.", when=WEDNESDAY)
    assert "on Friday (2026-03-13)" in bodies(api)[0]


def test_a_weekday_with_its_number_and_a_rota(api, say):
    say(
        "The dentist moved my appointment to Thursday the 19th, same time.",
        "OK.",
        "Tuesday and Thursday it's Tom who walks the dog.",
        when=WEDNESDAY,
    )
    text = " ".join(bodies(api))
    assert "the 19th (2026-03-19)" in text
    assert "Tuesday and Thursday it's Tom" in text and "Tuesday (" not in text


def test_a_correction_rewrites_the_one_memory_it_names(api, say):
    first = say("I paid £900 for a Brompton bike from Evans Cycles.")
    say("My dog's bed was £65.")
    second = say("Correction on the bike: it was £850.", when=WEDNESDAY)
    # the file follows its fact: the £900 file moves to a name saying £850
    [old] = first["result"]["created"]
    [new] = second["result"]["rewritten"]
    assert second["result"]["moved"] == {old: new} and "850" in new
    body = memory(api, new)["body"]
    assert body.startswith("Correction on the bike: it was £850") and "Evans Cycles" in body
    assert "£65" in top(api, "how much was my dog's bed")


def test_an_ending_supersedes_and_ranks_below(api, say):
    say("I work at Unilever.")
    second = say("I left Unilever last month.", when=WEDNESDAY)
    [new] = second["result"]["created"]
    assert any(r["type"] == "supersedes" for r in memory(api, new)["related"])
    assert "left Unilever" in top(api, "where do I work")


def test_question_cues(api, say):
    job = say("I work at Ocado. I got a Kindle for $149. We have three goldfish.")
    cues = all_cues(api, job)
    for cue in ("where do I work", "how much did the Kindle cost", "how many goldfish do we have"):
        assert cue in cues, cues
    job = say("I work as a paramedic. Our cat is named Miso.")
    cues = all_cues(api, job)
    assert {"what do I do for work", "what is our cat called"} <= set(cues), cues


def test_the_question_a_reply_answers_is_a_cue_and_a_source(api, say):
    job = say("Do you have any pets?", "Yes, a tortoise called Fred.", first="assistant")
    assert "do I have any pets" in all_cues(api, job)
    [path] = job["result"]["created"]
    assert len(memory(api, path)["sources"]) == 2


def test_a_change_word_naming_the_same_thing_supersedes(api, say):
    venue = say("We booked the Old Barn for the wedding reception.")
    commute = say("My commute is an hour each way.")
    later = say(
        "We went with Thornfield Hall for the reception instead.",
        "OK!",
        "My commute is 40 minutes now.",
        when=WEDNESDAY,
    )
    replaced = {
        r["path"]
        for p in later["result"]["created"]
        for r in memory(api, p)["related"]
        if r["type"] == "supersedes"
    }
    assert replaced == set(venue["result"]["created"])
    # "my commute is ..." is a facet: the one old file is rewritten rather than superseded
    assert later["result"]["rewritten"] == commute["result"]["created"]
    assert "Thornfield" in top(api, "where is the wedding reception")
    assert "40 minutes" in top(api, "how long is my commute")


def test_the_rule_behind_a_dropped_sentence_is_logged(api, say, caplog):
    caplog.set_level("DEBUG", logger="gitloom.memories.rules")
    say("If I won the lottery I'd buy a castle in Fife.")
    assert any(
        "rule=hypothetical-if-would action=drop" in r.getMessage()
        for r in caplog.records
        if r.name == "gitloom.memories.rules"
    )


def test_typing_without_apostrophes_is_read_and_stored_as_typed(api, say):
    say("im a nurse at Mallow General, nights mostly")
    [body] = bodies(api)
    assert body.startswith("Im a nurse at Mallow General"), body
    assert "Mallow General" in top(api, "where do I work")


def test_a_sentence_opening_on_a_past_verb_is_the_speakers(api, say):
    say("I go to PureGym on Mill Lane.")
    say("Cancelled PureGym, joined the climbing wall instead.")
    say("I work at Deliveroo as a rider.")
    say("Quit Deliveroo in March.")
    assert top(api, "which gym do I go to").startswith("Cancelled PureGym")
    assert top(api, "where do I work").startswith("Quit Deliveroo")


def test_a_note_without_a_verb_is_kept(api, say):
    say("reminder for me: dentist next tuesday at 3:30", when=WEDNESDAY)
    [body] = bodies(api)
    assert body.startswith("Dentist next tuesday (2026-03-17) at 3:30"), body


def test_a_yes_to_a_question_naming_someone_is_kept_with_it(api, say):
    say("kez is making me a fry up lol", "Sounds perfect. Is Kez your partner?", "yeah")
    assert 'Yeah. — answering "Is Kez your partner?"' in bodies(api)
    assert "Kez" in top(api, "what's my partner called")


def test_a_day_of_the_month_and_a_timetable(api, say):
    say("The boiler service is on the 19th.", when=WEDNESDAY)
    say("Monday 10:00 Thermodynamics; Wednesday 11:30 Statistics; Friday 14:00 Lab", when=WEDNESDAY)
    text = " ".join(bodies(api))
    assert "the 19th (2026-03-19)" in text, text
    assert "Monday (" not in text and "Friday (" not in text, text


def test_asking_for_advice_is_a_request(api, say):
    say("I would like some advice on repotting a fiddle-leaf fig.")
    assert bodies(api) == []


def test_two_weeks_from_today_and_a_day_of_every_month(api, say):
    say("My driving test is two weeks from today.", when=WEDNESDAY)
    say("My council tax goes out on the 15th.", when=WEDNESDAY)
    text = " ".join(bodies(api))
    assert "two weeks from today (2026-03-25)" in text, text
    assert "the 15th." in text and "the 15th (" not in text, text


def test_a_reaction_and_accepting_an_offer_are_not_kept(api, say):
    say(
        "Any ideas for dinner?",
        "A chili, or a stir-fry.",
        "Chili sounds good.",
        "Should I update the address I have for you?",
        "Ja please.",
    )
    assert bodies(api) == []


def test_those_there_and_a_group_get_their_context(api, say):
    say(
        "We got a kitten!",
        "Congratulations! Mochi, Tofu or Miso are popular. Any favourites?",
        "My husband hates all of those.",
    )
    say("flying to Osaka tomorrow", "Want restaurant ideas?", "no, my sister lives there")
    say("My two dogs are a nightmare. Toto keeps digging up the lawn.")
    say("WE GOT A KITTEN.", "Have you picked a name?", "We argued for days, she's called Pickle.")
    text = " ".join(bodies(api))
    assert "she (the kitten)'s called Pickle" in text, text
    assert 'My husband hates all of those. — answering "Any favourites?"' in text, text
    assert "My sister lives there (Osaka)" in text, text
    assert 'Toto keeps digging up the lawn. — after "My two dogs are a nightmare."' in text, text


def test_habits_weeks_and_birthdays_get_no_dates_and_counted_spans_do(api, say):
    say(
        "The recycling goes out on Thursday.",
        "Noted.",
        "Changed gyms, same Thursday yoga class though.",
        "Ok.",
        "Our wedding anniversary is on 3 May.",
        "Nice.",
        "Mo has ballet tuesday. Ife has football wednesday. Ada has tutoring friday.",
        when=WEDNESDAY,
    )
    assert "(20" not in " ".join(bodies(api)), bodies(api)
    say(
        "My knee operation is in 3 months.",
        "Ok.",
        "Our housewarming is a week from this Saturday.",
        when=WEDNESDAY,
    )
    text = " ".join(bodies(api))
    assert "3 months (2026-06)" in text and "this Saturday (2026-03-21)" in text, text


def test_switches_retyped_figures_and_moved_days_supersede_and_wishes_do_not(api, say):
    say("I go to PureGym Leith for spin every Thursday.", "My son Ravi goes to Kumon every Monday.")
    second = say(
        "cancelled PureGym, too pricey. switched to Anytime Fitness",
        "Ok.",
        "Ravi wants to quit Kumon.",
        when="2026-03-17T09:00:00Z",
    )
    say(
        "pls remember: unit 14-207",
        "Noted.",
        "wait typo, I meant 14-270",
        when="2026-03-18T09:00:00Z",
    )
    say(
        "got the osteo friday at 9:40 with Marek at Back in Balance",
        "Ok!",
        "they've moved friday to 11:20",
        when="2026-03-18T10:00:00Z",
    )
    links = {
        memory(api, p)["body"].split(".")[0]
        for p in (m["path"] for m in api.get("/v1/memories?namespace=default").json()["memories"])
        if any(r["type"] == "supersedes" for r in memory(api, p)["related"])
    }
    assert any("Anytime Fitness" in b for b in links), links
    assert any("14-270" in b for b in links), links
    assert any("11:20" in b for b in links), links
    assert not any("Kumon" in b for b in links), links
    assert second["result"]["rewritten"] == []


def test_small_talk_of_the_moment_a_request_and_a_chance_are_not_kept(api, say):
    say(
        "absolutely chucking it down, stuck in traffic on the N40",
        "Oh no!",
        "I'm shattered. I'm looking for a weeknight dinner idea without cream.",
        "Happy to help.",
        "if I win the lottery I'm buying a boat",
    )
    assert bodies(api) == []


def test_what_follows_a_request_is_kept(api, say):
    say("Can you suggest a quick lunch, I'm vegan and I work nights.")
    assert sorted(bodies(api)) == ["I work nights.", "I'm vegan."]


def test_clauses_after_a_heading_and_a_reason_are_one_memory_each(api, say):
    say(
        "so you have the context: I just moved into a flat in Hackney, rent is £1,400 which "
        "hurts, I drive a 2019 Fiesta, and on Sundays I play five-a-side.",
        "Thanks!",
        "We're selling the car because we're moving to Leeds in March.",
        when="2026-12-06T10:00:00Z",
    )
    stored = bodies(api)
    for fact in (
        "I just moved into a flat in Hackney.",
        "I drive a 2019 Fiesta.",
        "On Sundays I play five-a-side.",
        "We're selling the car.",
        "We're moving to Leeds in March (2027-03).",
    ):
        assert fact in stored, stored


def test_plain_facts_the_small_parser_used_to_lose_are_kept(api, say):
    say(
        "Mum's in hospital again. oh and flights to Lisbon booked, £186 return with TAP",
        "Noted.",
        "Tomasz is coeliac. remind me — passport expires in August",
        when="2026-03-10T18:00:00Z",
    )
    stored = " ".join(bodies(api))
    for said in ("Mum's in hospital again", "£186 return with TAP", "Tomasz is coeliac", "August"):
        assert said in stored, stored


def test_since_answering_how_long_is_kept_with_its_question(api, say):
    say("How long have you been making bread at home?", "since lockdown", first="assistant")
    assert bodies(api) == [
        'Since lockdown. — answering "How long have you been making bread at home?"'
    ]


def test_a_pick_a_later_it_a_reaction_and_it_stand_read_on_their_own(api, say):
    say(
        "For your porridge you could try oat, soy or almond milk.",
        "Oat is good.",
        "How's the van, did the garage sort the brakes?",
        "yep £410 at Halfords. It's a 2012 Transit so it's getting on.",
        "Does Pip cope with long walks?",
        "good shout on the harness, I walk her twice a day anyway",
        "Anything else?",
        "my friend Hana is obsessed with matcha, I can't stand it",
        first="assistant",
    )
    stored = bodies(api)
    assert (
        'Oat is good. — after "For your porridge you could try oat, soy or almond milk."' in stored
    )
    assert any(
        b.startswith("It's a 2012 Transit") and "answering \"How's the van" in b for b in stored
    )
    assert "I walk her twice a day anyway." in stored, stored
    assert "I can't stand it (matcha)." in stored, stored


def test_a_month_of_a_place_or_habit_and_plural_nights_get_no_date(api, say):
    say(
        "Oslo in February is brutal. it always rains in April. My spin class is thursday nights.",
        when="2026-12-05T10:00:00Z",
    )
    assert "(202" not in " ".join(bodies(api))


def test_someone_elses_ending_leaves_my_statement(api, say):
    job = say(
        "I play bass in a band called Lowtide with my flatmate Sam.",
        "Cool!",
        "Sam is leaving the band next month",
    )
    for path in job["result"]["created"]:
        assert not [r for r in memory(api, path)["related"] if r["type"] == "supersedes"]


def test_cues_for_work_figures_people_and_places(api, say):
    job = say(
        "I teach Portuguese online. I drive for Uber. I run a small bakery. Rent is £1,150. "
        "Pickup is 7:40. Orla has speech therapy on thursday. I volunteer at the Meadow Lane "
        "food bank. I'm doing the cool box and all the food."
    )
    cues = all_cues(api, job)
    for cue in (
        "what do I do for work",
        "how much is my rent",
        "what time is my pickup",
        "when does Orla have speech therapy",
        "where do I volunteer",
        "what am I doing",
    ):
        assert cue in cues, (cue, cues)
    assert "what cool box do I do" not in cues
