"""eval_writepath's paraphrase-tolerant measure: every name, number and date a memory
states was said, or is a resolved date consistent with when its messages were sent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evaluation.grounding import Said, said_of, ungrounded

TUESDAY = datetime(2026, 3, 10, 21, 30, tzinfo=UTC)


def check(body, *texts, when=TUESDAY, earlier=()):
    sources = [Said(text=t, when=when) for t in texts]
    conversation = [*sources, *(Said(text=t, when=when) for t in earlier)]
    return ungrounded(body, sources=sources, conversation=conversation)


@pytest.mark.parametrize(
    ("body", "said"),
    [
        # a paraphrase keeps every specific: grounded though no 4 words are shared
        ("Rosa drives a silver 2015 Honda Jazz.", "Rosa here - my car's a 2015 honda jazz, silver"),
        # a relative date resolved against the message time
        ("Rosa has a driving lesson on 2026-03-11.", "Rosa: lesson tomorrow!"),
        # a month without its year: the year comes from the message's time
        ("Rosa plans to visit Lisbon in October 2026.", "Rosa: thinking Lisbon in October"),
        # number words said, digits written
        ("Rosa works 4 nights a week.", "Rosa: I do four nights a week"),
        # a weekend as a date range
        (
            "Rosa is camping in the Peak District from 2026-03-14 to 2026-03-15.",
            "Rosa: camping in the peak district this weekend",
        ),
        # a thousands separator either way
        ("Rosa's rent is £1,250 a month.", "Rosa: rent's 1250 a month now"),
    ],
)
def test_what_was_said_or_resolved_is_grounded(body, said):
    assert check(body, said) == []


@pytest.mark.parametrize(
    ("body", "said", "missing"),
    [
        ("Rosa drives a 2017 Honda Jazz.", "Rosa: I drive a Honda Jazz", ["2017"]),
        ("Rosa's landlady is Mrs Adeyemi.", "Rosa: the new landlady seems nice", ["Adeyemi"]),
        # a date nobody pointed at: no day, month, weekday or relative word said
        ("Rosa's check-up is on 2026-05-21.", "Rosa: need to book a check-up", ["2026-05-21"]),
        ("Rosa pays 850 a month.", "Rosa: the rent went up", ["850"]),
    ],
)
def test_a_specific_nobody_said_is_reported(body, said, missing):
    assert check(body, said) == missing


def test_a_reference_resolved_from_an_earlier_session_is_grounded():
    body = "Rosa sold her Honda Jazz on 2026-03-09."
    assert check(body, "Rosa: sold the car yesterday") == ["Honda", "Jazz"]
    assert check(body, "Rosa: sold the car yesterday", earlier=["I drive a Honda Jazz"]) == []


def test_a_scenario_message_is_read_with_its_speaker_and_offset():
    said = said_of(
        {"role": "user", "name": "Rosa", "content": "hi", "timestamp": "2026-03-10T21:30:00-05:00"}
    )
    assert said.text == "Rosa hi" and said.when.utcoffset().total_seconds() == -5 * 3600


def test_a_date_another_message_resolved_is_grounded_for_a_memory_citing_none_of_it():
    # A retired memory keeps its old source; the date came from the message that retired it.
    old = Said(text="Rosa: I drive a Honda Jazz", when=datetime(2026, 9, 1, tzinfo=UTC))
    new = Said(text="Rosa: sold the Jazz yesterday", when=datetime(2026, 9, 15, tzinfo=UTC))
    body = "Rosa drove a Honda Jazz until she sold it on 2026-09-14."
    assert ungrounded(body, sources=[old], conversation=[old, new]) == []
    # "yesterday" points only at days near it, not at any date of the year
    far = "Rosa drove a Honda Jazz until she sold it on 2026-05-02."
    assert ungrounded(far, sources=[old], conversation=[old, new]) == ["2026-05-02"]


def test_the_day_a_statement_was_made_is_grounded_only_as_when_it_was_said():
    # "as of <the day the message was sent>" dates the statement, not an event
    said = "Rosa: been nursing about six years now"
    assert check("Rosa has been a nurse for about six years as of 2026-03-10.", said) == []
    assert check("Rosa has been a nurse for about six years (as of March 2026).", said) == []
    # the same day stated as when something happened was not said
    bought = "Rosa: finally got a kettle that works"
    assert check("Rosa bought a kettle on 2026-03-10.", bought) == ["2026-03-10"]
    # "as of" another day than any message's is still reported
    assert check("Rosa has been a nurse for six years as of 2026-02-01.", said) == ["2026-02-01"]


def test_a_month_counted_from_the_message_and_a_clock_time_are_grounded():
    # "last month" said on 2026-03-10 is February 2026; "in three months" is June
    assert (
        check("Rosa started Korean lessons in February 2026.", "Rosa: started korean last month")
        == []
    )
    assert check("Rosa's move is planned for June 2026.", "Rosa: moving in three months") == []
    # a month nothing counts to is still reported
    assert check("Rosa's move is planned for June 2026.", "Rosa: moving soon") == ["June 2026"]
    # a time's minutes go with its hour: "7:00" is grounded by "7am", "9:00" is not
    assert check("Rosa's shift starts at 7:00.", "Rosa: shift starts at 7am") == []
    assert check("Rosa's shift starts at 9:00.", "Rosa: shift starts at 7am") == ["9"]
