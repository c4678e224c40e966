"""Clean memories from the offline extractor (issue 12, item 4), with the issue's examples."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from memories.offline import STOPWORDS, OfflineExtractor
from memories.pipeline import run_pipeline
from memories.pipeline_types import Message

WHEN = datetime(2026, 3, 2, 9, tzinfo=UTC)


def _run(*texts: str):
    messages = [
        Message(id=f"m{i}", role="user", content=text, timestamp=WHEN)
        for i, text in enumerate(texts)
    ]
    return run_pipeline(
        messages=messages,
        session_id="s",
        existing=lambda queries, limit: [[] for _ in queries],
        extractor=OfflineExtractor(),
        now=WHEN,
    )


def _memories(result):
    return {memory.body: (path, memory) for path, memory in result.created.items()}


ISSUE_TRANSCRIPT = (
    "Hi! I'm Priya.",
    "Also, I just started a new job as a senior data scientist at a fintech startup "
    "called Monzo in London, which I love.",
    "Quick correction: the flight on Dec 19 leaves at 7:40 from Heathrow.",
    "And in March we fly to Lisbon for the 24 hour layover.",
    "I went to a concert in Berlin with Dev.",
    "My colleague Sara grew up in Berlin.",
)


def test_tags_are_never_only_digits_a_time_or_a_stopword():
    for _, memory in _memories(_run(*ISSUE_TRANSCRIPT)).values():
        for tag in memory.tags:
            assert re.search(r"[a-z]", tag), tag
            assert not re.fullmatch(r"[\d:.apm ]+", tag), tag
            assert tag not in STOPWORDS and tag not in ("quick", "also", "and"), tag


def test_topics_are_subjects_never_filler_words():
    for path in _run(*ISSUE_TRANSCRIPT).created:
        topic = path.split("/")[1]
        assert topic not in ("quick", "also", "and", "in", "hi", "19", "24"), path


def test_cues_are_complete_phrases():
    for _, memory in _memories(_run(*ISSUE_TRANSCRIPT)).values():
        for cue in memory.cues:
            assert not re.search(r"\bwhat happened with \d+$", cue), cue
            assert not re.search(r"\babout \d+$", cue), cue
            last = cue.split()[-1].casefold()
            assert last not in ("a", "an", "the", "at", "of", "in", "to", "data"), cue
    (path, job) = next(v for k, v in _memories(_run(*ISSUE_TRANSCRIPT)).items() if "Monzo" in k)
    assert job.cues[0] == "I just started a new job as a senior data scientist"


def test_a_self_introduction_is_kept_as_a_fact_about_the_user():
    memories = _memories(_run("Hi! I'm Priya.", "I have a beagle named Biscuit."))
    path, memory = memories["My name is Priya."]
    assert path.startswith("facts/priya/")
    assert "what is my name" in memory.cues and "name" in memory.tags
    assert "My name is Asha." in _memories(_run("My name is Asha."))
    assert not any("name" in body for body in _memories(_run("I'm so glad to hear that!")))


def test_fillers_are_trimmed_from_the_start_of_a_body():
    bodies = set(_memories(_run(*ISSUE_TRANSCRIPT)))
    assert (
        "I just started a new job as a senior data scientist at a fintech startup called "
        "Monzo in London, which I love." in bodies
    )
    assert "The flight on Dec 19 leaves at 7:40 from Heathrow." in bodies
    assert "In March we fly to Lisbon for the 24 hour layover." in bodies
    for body in bodies:
        assert not re.match(r"(?i)(also|and|quick correction)\b", body), body
        assert body[0].isupper(), body


def test_a_city_two_unrelated_facts_mention_in_passing_links_nothing():
    result = _run("I went to a concert in Berlin with Dev.", "My colleague Sara grew up in Berlin.")
    assert not [link for link in result.links if link.type == "same-entity"]
    linked = _run("Berlin is where I met my wife Nadia.", "I still have my flat in Berlin.")
    assert [link.type for link in linked.links] == ["same-entity"]


def test_a_short_turn_stays_one_memory_and_carries_the_question_it_answers():
    messages = [
        Message(id="a", role="user", name="Caroline", content="What got you into running?"),
        Message(
            id="b",
            role="user",
            name="Melanie",
            content="My doctor suggested it for stress. Now I run three times a week with my "
            "neighbour Ines.",
        ),
    ]
    result = run_pipeline(
        messages=messages,
        session_id="s",
        existing=lambda queries, limit: [[] for _ in queries],
        extractor=OfflineExtractor(),
        now=WHEN,
    )
    ((path, memory),) = result.created.items()
    assert memory.body == (
        "Melanie: My doctor suggested it for stress. Now I run three times a week with my "
        "neighbour Ines."
    )
    assert any(cue.startswith("What got you into running? Melanie:") for cue in memory.cues)
    assert len(memory.body.split()) <= 60
