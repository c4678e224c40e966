"""A date the query names and a tag it names lift the memories they fit."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from retrieval.dates import query_date_span
from retrieval.names import name_tags, query_names
from tests.retrieval.helpers import memory, write

MAY = "facts/music/concert-a-11111111.md"
JULY = "facts/music/concert-b-22222222.md"
CAROLINE = "facts/art/a-painting-33333333.md"
MELANIE = "facts/art/b-painting-44444444.md"


def retrieve(api, query, **params):
    response = api.get("/v1/retrieve", {"query": query, "namespace": "notes", **params})
    assert response.status_code == 200, response.json()
    return [r["path"] for r in response.json()["results"]]


@pytest.fixture
def concerts(notes):
    write(
        notes,
        {
            MAY: memory(
                tier="facts",
                cues=["went to a jazz concert at the Blue Note club"],
                body="Went to a jazz concert at the Blue Note club with Sam.",
                updated=datetime(2022, 5, 8, 20, tzinfo=UTC),
            ),
            JULY: memory(
                tier="facts",
                cues=["went to a jazz concert in the park"],
                body="Went to a jazz concert in the park.",
                updated=datetime(2022, 7, 9, 20, tzinfo=UTC),
            ),
        },
    )
    return notes


def test_a_date_in_the_query_lifts_the_memory_of_that_date(api, concerts):
    assert retrieve(api, "which jazz concert at a club did I go to")[0] == MAY
    assert retrieve(api, "which jazz concert at a club did I go to on 9 July, 2022")[0] == JULY
    assert retrieve(api, "which jazz concert at a club did I go to in July 2022")[0] == JULY
    assert retrieve(api, "which jazz concert at a club did I go to in May 2022")[0] == MAY


@pytest.fixture
def paintings(notes):
    write(
        notes,
        {
            CAROLINE: memory(
                cues=["painted a sunset over the lake"],
                body="Painted a sunset over the lake.",
                tags=["caroline", "painting"],
            ),
            MELANIE: memory(
                cues=["painted a sunrise over the lake"],
                body="Painted a sunrise over the lake.",
                tags=["melanie", "painting"],
            ),
        },
    )
    return notes


def test_a_tag_the_query_names_lifts_its_memories(api, paintings):
    assert retrieve(api, "What did Melanie paint over the lake?")[0] == MELANIE
    assert retrieve(api, "What did Caroline paint over the lake?")[0] == CAROLINE


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("What did John organize on May 8, 2022?", ((2022, 5, 8), (2022, 5, 9))),
        ("How did John relax on 9 July, 2022?", ((2022, 7, 9), (2022, 7, 10))),
        ("the 8th of May 2022", ((2022, 5, 8), (2022, 5, 9))),
        ("Which countries did James visit in July 2022?", ((2022, 7, 1), (2022, 8, 1))),
        ("plans for December 2022", ((2022, 12, 1), (2023, 1, 1))),
        ("Which country did James visit in 2021?", ((2021, 1, 1), (2022, 1, 1))),
    ],
)
def test_query_date_span_reads_absolute_dates(text, span):
    start, end = (datetime(*parts, tzinfo=UTC) for parts in span)
    assert query_date_span(text) == (start, end)


@pytest.mark.parametrize(
    "text",
    ["When did James try Cyberpunk 2077?", "What may I do?", "on 31 February, 2022", "last week"],
)
def test_query_date_span_ignores_what_is_no_absolute_date(text):
    assert query_date_span(text) is None


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Did Melanie visit New York?", ["melanie", "new", "new york", "york"]),
        ("What do Melanie's kids like?", ["melanie"]),
        ("What LGBTQ+ events has Caroline joined?", ["caroline"]),  # an acronym is a topic
        ("Did Jon, Gina go?", ["gina", "jon"]),
        ("where do I work", []),  # "I" and the first word are no names
    ],
)
def test_query_names_are_capitalised_words_and_their_runs(text, names):
    assert query_names(text) == names


def test_a_topic_tag_the_query_only_mentions_in_lower_case_is_left_to_the_arms(api, paintings):
    # "painting" is a tag of both; "melanie" in lower case is no name: no tag lifts either
    # memory, so the order is the arms' (the sunset memory sorts first on a tie).
    assert retrieve(api, "what did melanie paint over the lake")[0] == CAROLINE


def test_name_tags_are_the_forms_a_tag_naming_them_takes():
    tags = name_tags("Did Melanie visit New York?")
    assert {"melanie", "Melanie", "new york", "new-york", "New-York", "new_york"} <= set(tags)
    assert name_tags("where do I work") == []
