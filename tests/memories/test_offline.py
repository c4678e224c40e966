"""The offline extractor: all four stages without a model, deterministic."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from memories.offline import OfflineExtractor, resolve_relative_dates
from memories.pipeline import run_pipeline
from memories.pipeline_types import ExistingMemory, Message
from namespaces.memory_format import parse_memory, render_memory

# A Monday.
MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)

CONVERSATION = [
    Message(
        id="d1:1", role="user", name="Caroline", timestamp=MAY_8, content="Hey Mel! How are you?"
    ),
    Message(
        id="d1:2",
        role="user",
        name="Melanie",
        timestamp=MAY_8,
        content="Good! I love painting sunsets with my kids. My kids are:\n- Ana\n- Raj\n- Lee",
    ),
    Message(
        id="d1:3",
        role="user",
        name="Caroline",
        timestamp=MAY_8,
        content=(
            "I went to the LGBTQ support group yesterday. It was really powerful. "
            "I'm also researching adoption agencies in Boston."
        ),
    ),
    Message(id="d1:4", role="assistant", content="Noted! Anything else I can help with?"),
    Message(
        id="d1:5",
        role="user",
        name="Melanie",
        timestamp=MAY_8,
        content="We camped at Lake Tahoe last week.",
    ),
    Message(
        id="d1:6",
        role="user",
        name="Melanie",
        timestamp=MAY_8,
        content="Lake Tahoe was freezing at night.",
    ),
]


def nothing(texts, limit):
    return [[] for _ in texts]


def ingest(messages, existing=nothing):
    return run_pipeline(
        messages=messages, session_id="s1", existing=existing, extractor=OfflineExtractor()
    )


@pytest.fixture(scope="module")
def result():
    return ingest(CONVERSATION)


def body_with(result, text):
    matches = [(p, m) for p, m in result.created.items() if text in m.body]
    assert len(matches) == 1, [m.body for m in result.created.values()]
    return matches[0]


def test_the_offline_extractor_says_it_is_the_offline_one(result):
    assert result.extractor == "offline"
    assert result.usage.calls == 0 and result.usage.total_tokens == 0


def test_each_statement_becomes_a_memory_and_small_talk_does_not(result):
    bodies = sorted(m.body for m in result.created.values())
    assert bodies == sorted(
        [
            "Melanie: I love painting sunsets with my kids.",
            "Melanie: My kids are:\n- Ana\n- Raj\n- Lee",
            # one turn's statements stay together, the past happening among them
            "Caroline: I went to the LGBTQ support group on 2023-05-07. It was really powerful. "
            "I'm also researching adoption agencies in Boston.",
            "Melanie: We camped at Lake Tahoe in the week before 2023-05-08.",
            "Melanie: Lake Tahoe was freezing at night.",
        ]
    )
    # Greetings, questions and the unnamed assistant's reply are not memories.
    assert all("How are you" not in b and "Noted" not in b for b in bodies)


def test_every_memory_cites_the_message_it_came_from(result):
    path, _ = body_with(result, "support group")
    assert result.sources[path] == ["d1:3"]
    assert result.created[path].sources == ["d1:3"]
    path, _ = body_with(result, "My kids are")
    assert result.sources[path] == ["d1:2"]


def test_a_roster_stays_one_memory(result):
    _, roster = body_with(result, "My kids are")
    assert roster.body.splitlines()[1:] == ["- Ana", "- Raj", "- Lee"]
    assert roster.tier == "facts"


def test_tiers_follow_the_wording(result):
    assert body_with(result, "I love painting")[1].tier == "preferences"
    # a dated happening already past stays true: a fact, which does not fade
    assert body_with(result, "support group")[1].tier == "facts"
    assert body_with(result, "adoption agencies")[1].tier == "facts"
    for path, memory in result.created.items():
        assert path.startswith(f"{memory.tier}/")


@pytest.mark.parametrize(
    ("text", "tier"),
    [
        ("I have a dentist appointment tomorrow at 3.", "events"),
        ("The party is next weekend at Ana's place.", "events"),
        ("Our flight to Lisbon leaves on June 12.", "events"),
        ("I will meet Tom at the gym today.", "events"),
        ("I went to the gym with Tom today.", "facts"),
        ("I went to Paris on April 2 with my sister.", "facts"),
        ("I adopted a puppy from a shelter last week.", "facts"),
    ],
)
def test_something_upcoming_is_an_event_and_a_past_happening_a_fact(text, tier):
    message = Message(id="m", role="user", timestamp=MAY_8, content=text)
    ((memory),) = ingest([message]).created.values()
    assert memory.tier == tier, memory.body


def test_every_cue_carries_a_distinguishing_term(result):
    _, memory = body_with(result, "support group")
    assert 3 <= len(memory.cues) <= 8
    for cue in memory.cues:
        assert re.search(r"LGBTQ|2023-05-07|Boston", cue), cue
    assert all(len(cue) <= 300 and "\n" not in cue for cue in memory.cues)


def test_each_sentence_that_states_something_is_a_cue_as_said(result):
    _, memory = body_with(result, "support group")
    assert "Caroline: I'm also researching adoption agencies in Boston." in memory.cues
    assert memory.body in memory.cues  # the whole statement, for a question about all of it
    assert not any(cue.endswith("It was really powerful.") for cue in memory.cues[2:])
    _, memory = body_with(result, "camped at Lake Tahoe")
    assert "caroline" not in memory.tags and "melanie" in memory.tags  # who said it


def test_memories_sharing_a_proper_noun_are_linked_but_a_shared_speaker_is_not(result):
    camp, _ = body_with(result, "camped at Lake Tahoe")
    cold, _ = body_with(result, "freezing at night")
    painting, _ = body_with(result, "painting sunsets")
    linked = {frozenset((link.source, link.target)): link.type for link in result.links}
    assert linked[frozenset((camp, cold))] == "same-entity"  # "Lake Tahoe"
    assert frozenset((painting, camp)) not in linked  # they share only "Melanie"
    entities = [link.path for link in result.created[camp].related if link.type == "same-entity"]
    assert entities == [cold]


def test_a_reply_follows_the_message_before_it(result):
    camp, _ = body_with(result, "camped at Lake Tahoe")
    roster, _ = body_with(result, "My kids are")
    painting, _ = body_with(result, "painting sunsets")
    group, _ = body_with(result, "support group")
    follows = {(link.source, link.target) for link in result.links if link.type == "follows"}
    # the assistant's message between them makes no memory: the reply still follows
    assert (camp, group) in follows and (group, roster) in follows
    assert not any(painting in pair and roster in pair for pair in follows)  # one message


def test_statements_from_one_message_are_linked_as_one_context(result):
    # a stated liking is a memory of its own (its own tier), beside the rest of the turn
    painting, _ = body_with(result, "painting sunsets")
    roster, _ = body_with(result, "My kids are")
    related = result.created[painting].related
    assert [(link.type, link.path) for link in related if link.type != "follows"] == [
        ("same-context", roster)
    ]


def test_every_memory_is_a_valid_file(result):
    for path, memory in result.created.items():
        assert parse_memory(render_memory(memory), path=path) == memory
    assert result.created[body_with(result, "support group")[0]].created == MAY_8


def test_the_same_run_twice_gives_the_same_files():
    assert ingest(CONVERSATION).created == ingest(CONVERSATION).created


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went hiking yesterday.", "I went hiking on 2023-05-07."),
        ("We met last Friday.", "We met on Friday 2023-05-05."),
        ("I moved here 3 days ago.", "I moved here on 2023-05-05."),
        ("I started two weeks ago.", "I started in the week of 2023-04-24."),
        ("I quit last month.", "I quit in April 2023."),
        ("We married last year.", "We married in 2022."),
        ("I have been sick since yesterday.", "I have been sick since 2023-05-07."),
        ("The party is next weekend.", "The party is on the weekend of 2023-05-20."),
        ("I slept badly last night.", "I slept badly on the night of 2023-05-07."),
    ],
)
def test_relative_dates_are_resolved_against_the_message_time(text, expected):
    resolved, dated = resolve_relative_dates(text, date(2023, 5, 8))
    assert (resolved, dated) == (expected, True)


def test_text_without_relative_dates_is_left_alone():
    assert resolve_relative_dates("I like tea.", date(2023, 5, 8)) == ("I like tea.", False)


def as_existing(path, memory):
    return ExistingMemory(path=path, text=memory.body, header=memory)


def test_a_restated_fact_rewrites_the_existing_file_keeping_its_earlier_specifics():
    first = ingest(
        [
            Message(
                id="a1",
                role="user",
                name="Caroline",
                timestamp=MAY_8,
                content="My camera is a Sony A7III, bought at Fotocentre.",
            )
        ]
    )
    ((old_path, old),) = first.created.items()

    later = datetime(2023, 6, 1, tzinfo=UTC)
    second = ingest(
        [
            Message(
                id="b7",
                role="user",
                name="Caroline",
                timestamp=later,
                content="My camera is a Sony A7III with a 28-70 lens.",
            )
        ],
        existing=lambda texts, limit: [[as_existing(old_path, old)] for _ in texts],
    )

    assert second.created == {}
    rewritten = second.rewritten[old_path]
    assert rewritten.body == (
        "Caroline: My camera is a Sony A7III, bought at Fotocentre. "
        "Caroline: My camera is a Sony A7III with a 28-70 lens."
    )
    assert rewritten.sources == ["a1", "b7"] and second.sources == {old_path: ["b7"]}
    assert rewritten.created == MAY_8 and rewritten.updated == later
    assert parse_memory(render_memory(rewritten), path=old_path) == rewritten


def test_a_fact_restated_in_full_replaces_the_old_sentence():
    first = ingest(
        [Message(id="a1", role="user", content="My sister Ana lives in Berlin.", timestamp=MAY_8)]
    )
    ((old_path, old),) = first.created.items()

    second = ingest(
        [
            Message(
                id="a2",
                role="user",
                content="My sister Ana lives in Berlin with her husband Tom.",
                timestamp=MAY_8,
            )
        ],
        existing=lambda texts, limit: [[as_existing(old_path, old)] for _ in texts],
    )

    assert second.rewritten[old_path].body == "My sister Ana lives in Berlin with her husband Tom."


def test_an_unrelated_fact_is_created_as_a_new_file_and_linked_by_shared_name():
    first = ingest(
        [Message(id="a1", role="user", content="My sister Ana lives in Berlin.", timestamp=MAY_8)]
    )
    ((old_path, old),) = first.created.items()

    second = ingest(
        [
            Message(
                id="a2", role="user", content="Ana works as a nurse at Charité.", timestamp=MAY_8
            )
        ],
        existing=lambda texts, limit: [[as_existing(old_path, old)] for _ in texts],
    )

    assert second.rewritten == {}
    ((new_path, new),) = second.created.items()
    assert new_path != old_path
    assert [(link.type, link.path) for link in new.related] == [("same-entity", old_path)]


def test_the_same_statement_twice_is_one_memory_citing_both_messages():
    said = "I own a Sony A7III camera."
    result = ingest(
        [
            Message(id="x1", role="user", content=said, timestamp=MAY_8),
            Message(id="x2", role="user", content=said, timestamp=MAY_8),
        ]
    )

    ((path, memory),) = result.created.items()
    assert memory.sources == ["x1", "x2"] and result.sources[path] == ["x1", "x2"]


def test_reactions_are_not_memories_but_statements_are():
    result = ingest(
        [
            Message(id="r1", role="user", name="Caroline", content="That's great, Melanie!"),
            Message(id="r2", role="user", name="Melanie", content="Totally agree, Caroline."),
            Message(id="r3", role="user", name="Melanie", content="Long time no talk!"),
            Message(id="r4", role="user", name="Melanie", content="I ran 10 km today."),
        ]
    )

    assert [m.sources for m in result.created.values()] == [["r4"]]


def test_one_speakers_statement_never_rewrites_anothers():
    first = ingest(
        [Message(id="a1", role="user", name="Caroline", content="My dog Bailey loves the beach.")]
    )
    ((old_path, old),) = first.created.items()

    second = ingest(
        [Message(id="b1", role="user", name="Melanie", content="My dog Bailey loves the beach.")],
        existing=lambda texts, limit: [[as_existing(old_path, old)] for _ in texts],
    )

    assert second.rewritten == {} and len(second.created) == 1
