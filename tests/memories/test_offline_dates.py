"""The offline extractor never writes a date or a correction nobody said.

A resolved date is written beside a phrase only where the phrase names one day or range
without doubt; a correction touches only the memory that names what it corrects. Each
conversation is our own, through POST /v1/memories; jobs run inline.
"""

import re

from tests.memories.test_offline_extractor import all_cues, bodies, memory, top

# 2026-03-10 is a Tuesday
TUESDAY = "2026-03-10T18:00:00Z"


def superseding(api, paths: list[str]) -> list[tuple[str, str]]:
    """(new body, old body) of each supersedes link the memories at ``paths`` hold."""
    return [
        (memory(api, p)["body"], memory(api, r["path"])["body"])
        for p in paths
        for r in memory(api, p)["related"]
        if r["type"] == "supersedes"
    ]


def dates_in(text: str) -> list[str]:
    return re.findall(r"\((\d{4}-\d{2}(?:-\d{2})?)", text)


def test_a_weekday_with_its_day_number_resolves_to_that_number(api, say):
    # Friday the 20th is 2026-03-20; the next Friday would be the 13th
    say("The garage moved my MOT to Friday the 20th, same time.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-03-20"], body
    assert "the 20th (2026-03-20)" in body


def test_a_weekday_whose_number_does_not_fit_gets_no_date(api, say):
    # no Friday the 21st in March or April 2026: in doubt, the words stay as said
    say("My haircut is on Friday the 21st.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == [], body


def test_a_weekly_rota_gets_no_dates(api, say):
    say(
        "Mondays and Wednesdays my husband Luis does the school run.",
        "Great.",
        "Tuesday and Thursday it's Grandma who picks them up.",
        when=TUESDAY,
    )
    text = " ".join(bodies(api))
    assert "Grandma" in text and "Luis" in text
    assert dates_in(text) == [], text


def test_a_month_booked_in_the_past_is_not_dated_in_the_past(api, say):
    # said in December: "in September" could be next September's race; no date
    say("I signed up for the Cardiff half marathon in September.", when="2026-12-02T10:00:00Z")
    [body] = bodies(api)
    assert "2026-09" not in body, body


def test_years_or_months_ago_name_a_year_or_a_month_not_a_day(api, say):
    # "3 years ago" is no day three years back: the year, as "in two years" is
    say(
        "We moved here 3 years ago.",
        "Nice.",
        "I quit smoking about 5 years ago.",
        "Well done!",
        "Started my job 2 months ago.",
        when="2026-03-11T10:00:00Z",
    )
    stored = bodies(api)
    assert "We moved here 3 years ago (2023)." in stored, stored
    assert any("5 years ago (2021)" in b for b in stored), stored
    assert any("2 months ago (2026-01)" in b for b in stored), stored


def test_a_plan_in_a_month_without_a_year_is_its_next_occurrence(api, say):
    say("My daughter Ines starts nursery in February.", when="2026-12-02T10:00:00Z")
    [body] = bodies(api)
    assert "February (2027-02)" in body, body


def test_a_past_event_in_a_month_without_a_year_is_its_last_occurrence(api, say):
    say("We went to Lisbon in October, loved it.", when="2026-03-10T10:00:00Z")
    text = " ".join(bodies(api))
    assert "October (2025-10)" in text, text


def test_a_day_and_month_next_year_is_next_years(api, say):
    say(
        "My brother Kwame is getting married on 9 May next year in Accra.",
        when="2026-03-10T10:00:00Z",
    )
    text = " ".join(bodies(api))
    assert "2027-05-09" in text and "2026-05-09" not in text, text


def test_a_day_and_month_without_a_year_is_the_next_one_for_a_plan(api, say):
    # said in December: the coming 9 August, not the one four months back
    say("My dad's birthday is on August 9th.", when="2026-12-02T10:00:00Z")
    [body] = bodies(api)
    assert "2026-08-09" not in body, body


def test_a_correction_touches_only_the_memory_that_names_its_subject(api, say):
    first = say(
        "I got a Dyson vacuum for £549 in the sale.",
        "Nice.",
        "Luna's new dog bed cost £65.",
        "Cute.",
        "And the train tickets to York came to £186.",
    )
    created = first["result"]["created"]
    assert len(created) == 3, [memory(api, p)["body"] for p in created]
    second = say("Correction on the Dyson: it was actually £499, not £549.", when=TUESDAY)
    touched = set(second["result"]["rewritten"]) | {
        r["path"]
        for p in second["result"]["created"]
        for r in memory(api, p)["related"]
        if r["type"] == "supersedes"
    }
    dyson = [p for p in created if "Dyson" in memory(api, p)["body"]]
    assert touched == set(dyson), touched
    assert "£499" in top(api, "how much was the Dyson")
    assert "£65" in top(api, "how much was Luna's dog bed")
    assert "£186" in top(api, "how much were the train tickets to York")


def test_a_bare_correction_with_several_prices_before_supersedes_none(api, say):
    say("I got a Dyson vacuum for £549.", "Nice.", "Luna's new dog bed cost £65.")
    second = say("Actually it was £499.", when=TUESDAY)
    assert second["result"]["rewritten"] == []
    related = [r for p in second["result"]["created"] for r in memory(api, p)["related"]]
    assert not any(r["type"] == "supersedes" for r in related), related


def test_relative_days_count_on_the_speakers_own_clock(api, say):
    # Tuesday 21:30 in Chicago is Wednesday 03:30 in UTC: "tomorrow" is Wednesday the 11th
    say("My dentist appointment is tomorrow at 9.", when="2026-03-10T21:30:00-06:00")
    [body] = bodies(api)
    assert dates_in(body) == ["2026-03-11"], body


# 2026-11-20 is a Friday
NOVEMBER = "2026-11-20T10:00:00Z"


def test_a_past_said_without_its_subject_is_dated_in_the_past(api, say):
    # casual typing drops the "I": the participle still says it is done
    say("Started at Octopus Energy in March as a tester. Moved to Frome in May.", when=NOVEMBER)
    dated = sorted(d for body in bodies(api) for d in dates_in(body))
    assert dated == ["2026-03", "2026-05"], bodies(api)


def test_a_verb_that_could_point_either_way_leaves_the_date_as_said(api, say):
    # "Quit" is a past or a base form; the verb after "and" belongs to another clause:
    # in doubt, no date (the old code wrote next year's month)
    say("Quit sugar in February and I've felt better ever since.", when=NOVEMBER)
    stored = bodies(api)
    assert stored and all(dates_in(body) == [] for body in stored), stored
    assert any("in February" in body for body in stored), stored


def test_a_past_form_opening_a_sentence_dates_its_month_in_the_past(api, say):
    # "Got" can only be a past: said in November, its October is this year's
    say("Got my residence permit in October.", when=NOVEMBER)
    [body] = bodies(api)
    assert "October (2026-10)" in body, body


def test_a_day_of_the_month_alone_is_this_months_or_the_next(api, say):
    # said on Tuesday 10 March: the 18th ahead is 18 March; the 4th ahead is 4 April
    say("Parents' evening is on the 18th.", "Noted.", "The boiler service is on the 4th.")
    text = " ".join(bodies(api))
    assert "the 18th (2026-03-18)" in text, text
    assert "the 4th (2026-04-04)" in text, text


def test_a_day_of_the_month_in_the_past_is_this_months_or_the_last(api, say):
    say("We paid the deposit on the 2nd.", "Good.", "I posted the forms on the 27th.")
    text = " ".join(bodies(api))
    assert "the 2nd (2026-03-02)" in text, text
    assert "the 27th (2026-02-27)" in text, text


def test_a_floor_named_by_its_number_is_no_date(api, say):
    say("I live on the 5th floor of a walk-up in Leith.")
    [body] = bodies(api)
    assert dates_in(body) == [], body


def test_a_span_from_today_is_dated_ahead(api, say):
    say("My driving theory test is three weeks from today.")  # said Tuesday 10 March
    [body] = bodies(api)
    assert "three weeks from today (2026-03-31)" in body, body


def test_a_timetable_of_weekdays_and_hours_gets_no_dates(api, say):
    say(
        "My timetable: Monday 09:00 Organic Chemistry; Wednesday 11:30 Statistics; Friday 14:00 Lab."
    )
    say("And my dentist is on Thursday and my haircut on Saturday.")
    text = " ".join(bodies(api))
    assert "Monday 09:00 Organic Chemistry" in text, text
    assert "Wednesday (20" not in text and "Friday (20" not in text and "Monday (20" not in text, (
        text
    )
    assert "Thursday (2026-03-12)" in text and "Saturday (2026-03-14)" in text, text


def test_a_day_of_the_month_said_of_every_month_gets_no_date(api, say):
    say("My council tax goes out on the 15th.", "Noted.", "I get paid on the 28th.")
    text = " ".join(bodies(api))
    assert "the 15th" in text and "the 28th" in text, text
    assert dates_in(text) == [], text


def test_a_bare_weekday_of_a_habit_in_the_present_gets_no_date(api, say):
    # "the recycling goes out on Thursday": every Thursday, or this one? No date; but
    # a one-off in the present ("my train leaves Friday") keeps its day
    say("The recycling goes out on Thursday.", "Noted.", "My train to Leeds leaves Friday.")
    text = " ".join(bodies(api))
    assert "Thursday." in text or "Thursday " in text, text
    assert dates_in(text) == ["2026-03-13"], text


def test_a_week_typed_a_day_per_line_is_one_list_without_dates(api, say):
    say(
        "here's the kids' week so you know\n"
        "monday Noor has gymnastics at 5\n"
        "wednesday Sami goes to his dad's\n"
        "fri both have swimming with coach Dara",
        when=TUESDAY,
    )
    listed = [b for b in bodies(api) if "gymnastics" in b]
    assert len(listed) == 1 and "Sami" in listed[0] and "Dara" in listed[0], bodies(api)
    assert dates_in(" ".join(bodies(api))) == [], bodies(api)


def test_in_some_months_names_a_month_not_a_day(api, say):
    say("My knee operation is in 3 months.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-06"], body


def test_a_week_from_a_weekday_counts_on_from_that_day(api, say):
    # this Saturday is the 14th; a week from it is the 21st
    say("Our housewarming is a week from this Saturday.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-03-21"], body


def test_for_a_week_on_a_weekday_is_how_long_from_that_day(api, say):
    # said on Tuesday the 10th: the trip starts this Saturday, the 14th, and lasts a week
    say("We're off to Crete for a week on Saturday.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-03-14"], body


def test_an_ending_only_wanted_supersedes_nothing(api, say):
    first = say("My son Ravi goes to Kumon maths every Monday.")
    second = say("Ravi wants to quit Kumon, he says it's boring.", when="2026-03-17T09:00:00Z")
    related = [r for p in second["result"]["created"] for r in memory(api, p)["related"]]
    assert not any(r["type"] == "supersedes" for r in related), related
    assert second["result"]["rewritten"] == []
    assert "wants to quit Kumon" in " ".join(bodies(api))
    assert first["result"]["created"][0] in {
        m["path"] for m in api.get("/v1/memories?namespace=default").json()["memories"]
    }


def test_a_birthday_said_as_its_day_is_every_years(api, say):
    # said in December: the words stay as said; a 60th is one day, dated
    say(
        "Our wedding anniversary is on 3 May.",
        "Lovely.",
        "We're throwing a party for Dad's 60th birthday on March 14th.",
        when="2026-12-02T10:00:00Z",
    )
    text = " ".join(bodies(api))
    assert "3 May." in text, text
    assert dates_in(text) == ["2027-03-14"], text


def test_the_same_weekday_as_usual_gets_no_date(api, say):
    say("Changed gyms to PureGym Leith, same Thursday yoga class though.", when=TUESDAY)
    [body] = bodies(api)
    assert "same Thursday yoga" in body and dates_in(body) == [], body


def test_a_retyped_figure_supersedes_the_statement_it_corrects(api, say):
    first = say(
        "Need to give couriers my address every time, pls remember: Flat 3B, unit 14-207",
        "Noted, unit 14-207.",
        "wait typo, I meant 14-270",
    )
    [(new, old)] = superseding(api, first["result"]["created"])
    assert "14-270" in new and "14-207" in old
    assert "14-270" in top(api, "what's my unit number")


def test_a_switch_after_an_ending_takes_the_ended_ones_place(api, say):
    first = say("I go to PureGym Leith for spin every Thursday.")
    second = say(
        "cancelled PureGym, too pricey. switched to Anytime Fitness in Stockbridge",
        when="2026-03-17T09:00:00Z",
    )
    old = first["result"]["created"][0]
    switch = [p for p in second["result"]["created"] if "Anytime" in memory(api, p)["body"]]
    assert switch, second["result"]
    assert {"type": "supersedes", "path": old} in memory(api, switch[0])["related"]
    assert "Anytime Fitness" in top(api, "which gym do I go to now")


def test_moving_the_day_of_an_appointment_supersedes_it(api, say):
    first = say(
        "got the osteo friday at 9:40 with Marek at Back in Balance",
        "Good luck!",
        "oh wait just got a text, they've moved friday to 11:20",
    )
    linked = superseding(api, first["result"]["created"])
    assert len(linked) == 1 and "11:20" in linked[0][0] and "9:40" in linked[0][1], linked
    assert "11:20" in top(api, "what time is my osteo on friday")


def test_a_week_of_activities_said_as_sentences_gets_no_dates(api, say):
    say(
        "Amara has ballet tuesday at 5 in the church hall. Kofi has football wednesday "
        "and friday at half 6. Efe has tutoring thursday at 4",
        when=TUESDAY,
    )
    text = " ".join(bodies(api))
    assert "ballet" in text and "tutoring" in text, text
    assert dates_in(text) == [], text


def test_got_with_a_bare_weekday_could_point_either_way(api, say):
    # "got physio thursday" is "I've got it" (ahead), "got my visa in May" is done
    say("Got physio thursday at 4:30 with Jess.", when="2026-03-16T09:00:00Z")
    [body] = bodies(api)
    assert dates_in(body) == [], body


def test_getting_something_done_on_a_day_is_dated_by_getting(api, say):
    # said on Tuesday 10 March: "getting ... serviced on Friday" is the 13th, ahead
    say("I'm getting my Corsa serviced on Friday at Kwik Fit.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-03-13"], body


def test_a_month_said_of_a_place_or_a_habit_gets_no_date(api, say):
    say(
        "Oslo in February is brutal. It always rains in April here.",
        "Sounds grim!",
        "We usually visit my parents in August. My exam is in June though.",
        when="2026-12-05T10:00:00Z",
    )
    stored = " ".join(bodies(api))
    assert "(2027-02)" not in stored and "(2027-04)" not in stored and "(2027-08)" not in stored, (
        stored
    )
    assert "in June (2027-06)" in stored, stored


def test_a_weekday_with_plural_nights_is_every_week(api, say):
    say("My spin class is thursday nights at the Y.", when="2026-12-05T10:00:00Z")
    [body] = bodies(api)
    assert "(2026-" not in body, body


def test_a_weekday_of_next_week_is_that_one_day(api, say):
    # 2026-03-10 is a Tuesday: next week's Friday is the 20th, its Thursday the 19th
    say(
        "My appraisal is friday next week.",
        "Good luck!",
        "We fly to Oslo next week on thursday.",
        when=TUESDAY,
    )
    stored = bodies(api)
    assert "My appraisal is friday next week (2026-03-20)." in stored, stored
    assert any("thursday (2026-03-19)" in b for b in stored), stored
    assert not any("2026-03-12" in b or "2026-03-16 –" in b for b in stored), stored


def test_a_thing_and_its_day_in_a_list_of_plans_is_a_note_of_its_own(api, say):
    say("dentist this thursday at 4, then my appraisal is friday next week", when=TUESDAY)
    stored = bodies(api)
    assert "Dentist this thursday (2026-03-12) at 4." in stored, stored
    assert "2026-03-12" in top(api, "when is my dentist appointment")


def test_a_weekday_then_next_week_tagged_apart_is_one_day(api, say):
    # the tagger splits "thursday" from "next week" after a long lead-in: one day still
    say(
        "mad week coming, physio this tuesday at 2 (finally sorting my shoulder), then my "
        "appraisal is thursday next week",
        when=TUESDAY,
    )
    stored = " ".join(bodies(api))
    assert "thursday next week (2026-03-19)" in stored, stored
    assert "2026-03-12" not in stored and "2026-03-16 –" not in stored, stored


def test_a_range_of_days_in_a_month_is_that_range_not_its_last_day(api, say):
    say(
        "Booked it! Tokyo first, then kyoto 6-9 april at a ryokan near nanzenji, then osaka "
        "9-11 april.",
        when="2026-12-05T10:00:00Z",
    )
    stored = " ".join(bodies(api))
    assert "9-11 april (2027-04-09 – 2027-04-11)" in stored, stored
    assert "(2027-04-09)" not in stored and "(2027-04-11)" not in stored, stored


def test_a_month_after_since_is_the_one_gone(api, say):
    say("been learning the harp since september", when="2026-03-10T18:00:00Z")
    [body] = bodies(api)
    assert dates_in(body) == ["2025-09"], body


def test_a_range_of_days_said_with_to_is_that_range(api, say):
    say("We're in Padstow from 4 to 11 June, cottage by the harbour.", when="2026-03-10T18:00:00Z")
    [body] = bodies(api)
    assert "from 4 to 11 June (2026-06-04 – 2026-06-11)" in body, body


def test_years_completed_in_a_month_is_the_coming_one(api, say):
    say("We'll have been together 20 years in October!", when="2026-03-10T18:00:00Z")
    say("I've been at the library 12 years in September.", when="2026-03-10T18:00:00Z")
    stored = " ".join(bodies(api))
    assert sorted(dates_in(stored)) == ["2026-09", "2026-10"], stored


def test_a_wedding_that_is_coming_is_dated_ahead_and_kept(api, say):
    # said on 2026-03-10: the June ahead; "getting married" is what is going on
    say("My cousin Anika is getting married in June.", "Lovely!", "I'm getting engaged in May!")
    stored = bodies(api)
    assert "My cousin Anika is getting married in June (2026-06)." in stored, stored
    assert "I'm getting engaged in May (2026-05)!" in stored, stored


def test_a_day_chosen_in_the_past_is_not_dated_as_past(api, say):
    # said in March: the June chosen may be this year's, not the June gone
    say("We finally chose a date in June for the christening.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == [], body


def test_this_weekend_in_the_past_tense_is_the_weekend_just_gone(api, say):
    # said on Tuesday 2026-03-10: the weekend gone is 7-8 March
    say("We saw Hamnet at the Everyman this weekend.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-03-07"], body


def test_this_coming_weekend_is_the_next_weekend(api, say):
    say("This coming weekend we're camping at Gower.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-03-14"], body


def test_a_weekday_after_next_is_the_one_after_the_next(api, say):
    # said on Tuesday 10 March: the next Thursday is the 12th, the one after it the 19th
    say(
        "Sports day is the Thursday after next.",
        "Noted!",
        "The fair is the weekend after next.",
        when=TUESDAY,
    )
    stored = bodies(api)
    [sports] = [b for b in stored if b.startswith("Sports day")]
    assert dates_in(sports) == ["2026-03-19"], sports
    assert all("2026-03-12" not in b for b in stored), stored
    assert not any(dates_in(b) for b in stored if "weekend after next" in b), stored


def test_a_day_of_a_named_month_is_that_months_day(api, say):
    # the tagger reads "the 5th" and "May" as two phrases: never the 5th of April
    say("The christening is on the 5th of May at St Anne's.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-05-05"], body
    say("Her birthday is on the 9th of June.", when=TUESDAY)
    birthday = next(b for b in bodies(api) if "birthday" in b)
    assert dates_in(birthday) == [], birthday  # every year's day, no one year's


def test_a_span_of_weekdays_is_every_weeks_unless_a_week_is_named(api, say):
    say("My shift pattern is Monday to Thursday.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == [], body  # it was "Monday (2026-03-16) to Thursday (2026-03-12)"
    say("The office is shut from Monday to Wednesday next week.", when=TUESDAY)
    shut = next(b for b in bodies(api) if "shut" in b)
    assert dates_in(shut) == ["2026-03-16"], shut


def test_a_day_moved_to_lies_ahead_and_the_day_moved_from_is_in_doubt(api, say):
    # said on Tuesday 10 March: the 9th has gone, so April's; the 3rd, March's or April's?
    job = say("My appointment got moved from the 3rd to the 9th.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-04-09"], body
    assert not any("live" in c for c in all_cues(api, job))  # an appointment lives nowhere


def test_a_day_number_before_a_month_is_that_day(api, say):
    # the tagger tags "May" alone and "20" a count: the checkup is on the 20th
    say("Dentist is Dr Patel at Smile Dental, next checkup 20 May.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-05-20"], body


def test_the_day_of_coming_back_follows_the_day_of_going(api, say):
    say("Flying out 3 July, back the 17th.", when=TUESDAY)
    [body] = bodies(api)
    assert dates_in(body) == ["2026-07-03", "2026-07-17"], body  # not March's 17th


def test_a_month_typed_short_with_its_stop_gets_its_date_before_the_stop(api, say):
    say("got the job!! start 1st Feb.", "Congrats!", "Moving on 3 Sept.", when=TUESDAY)
    stored = bodies(api)
    assert "Start 1st Feb (2027-02-01)." in stored, stored  # not "Feb. (2027-02-01)."
    assert "Moving on 3 Sept (2026-09-03)." in stored, stored


def test_a_present_passive_on_a_weekday_is_never_a_day_gone(api, say):
    # said on Tuesday: "is closed on Sunday" was dated last Sunday
    say("The shop is closed on Sunday.", "Ok.", "The party is planned for Saturday.", when=TUESDAY)
    stored = bodies(api)
    assert "The shop is closed on Sunday." in stored, stored  # this Sunday or every one
    assert "The party is planned for Saturday (2026-03-14)." in stored, stored


def test_a_doing_stopped_in_a_month_is_the_month_gone(api, say):
    # the nearest verb, "drinking", said nothing of when: it was dated next January
    say(
        "I stopped drinking in January.",
        "Good for you!",
        "I love going to Spain in June.",
        when=TUESDAY,
    )
    stored = bodies(api)
    assert "I stopped drinking in January (2026-01)." in stored, stored
    assert "I love going to Spain in June." in stored, stored  # any June of a liking


def test_a_weekday_said_for_which_of_a_kind_gets_no_date(api, say):
    say(
        "What time is the spin class?",
        "6:30pm, but the Friday one is at 7",
        first="assistant",
        when="2026-03-10T18:00:00Z",
    )
    [body] = bodies(api)
    assert "Friday one is at 7" in body and "(2026-" not in body, body
