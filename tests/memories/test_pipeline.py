"""The ingestion pipeline with a model: Extract, Cue, Relate, Reconcile, driven through the
real openai client against the scripted model server."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memories.errors import ModelOutputInvalid
from memories.extraction.model import PROMPT_VERSION, ModelClient, ModelExtractor
from memories.extraction.pipeline import run_pipeline
from memories.extraction.types import ExistingMemory, Message
from namespaces.memory_format import Link, Memory, parse_memory, render_memory
from tests.support.model_server import ModelServer, Reply, pipeline_responder

JULY_31 = datetime(2026, 7, 31, 9, 30, tzinfo=UTC)


@pytest.fixture
def server():
    with ModelServer() as running:
        yield running


@pytest.fixture
def extractor(server):
    client = ModelClient(
        model="scripted-model", base_url=server.base_url, max_retries=2, backoff_scale=0
    )
    with client:
        yield ModelExtractor(client)


def nothing_existing(texts, limit: int) -> list[list[ExistingMemory]]:
    return [[] for _ in texts]


def memory(text, *, tier="facts", cues=None, sources=("m1",), **fields):
    item = {"tier": tier, "topic": "t", "title": text[:30], "text": text}
    item["cues"] = cues or [f"what about {text[:20]}"]
    item["sources"] = list(sources)
    item.update(fields)
    return item


def existing_memory(path: str, body: str, **fields) -> ExistingMemory:
    """An existing memory as the lead's index will hand it over: parsed from its file."""
    header = Memory(
        tier=path.split("/", 1)[0],
        created=datetime(2026, 1, 5, tzinfo=UTC),
        updated=datetime(2026, 1, 5, tzinfo=UTC),
        cues=fields.pop("cues", ["where does Ana live"]),
        sources=fields.pop("sources", ["old-1"]),
        body=body,
        **fields,
    )
    parsed = parse_memory(render_memory(header), path=path)
    return ExistingMemory(path=path, text=parsed.body, header=parsed)


def run(extractor, messages, existing=nothing_existing):
    return run_pipeline(
        messages=messages, session_id="sess-1", existing=existing, extractor=extractor
    )


def test_a_roster_is_extracted_as_one_memory_citing_its_message(server, extractor):
    roster = "Ana Ruiz, Raj Patel and Lee Chen are the members of the Tuesday book club."
    server.enqueue(
        Reply.chat(
            {
                "memories": [
                    memory(
                        roster,
                        topic="book club",
                        title="book club members",
                        tags=["Book Club"],
                        cues=["who is in the Tuesday book club", "book club members Ana Raj Lee"],
                        sources=["msg-7"],
                        confidence=0.9,
                    )
                ]
            },
            prompt_tokens=400,
            completion_tokens=80,
        )
    )
    messages = [
        Message(
            id="msg-7",
            role="user",
            name="Ana",
            content="Our book club: Ana Ruiz, Raj Patel and Lee Chen. We meet Tuesdays.",
            timestamp=JULY_31,
        )
    ]

    result = run(extractor, messages)

    ((path, created),) = result.created.items()
    assert path.startswith("facts/book-club/book-club-members-") and path.endswith(".md")
    assert created.body == roster
    assert created.sources == ["msg-7"] and result.sources == {path: ["msg-7"]}
    assert created.tags == ["book club"]
    assert created.created == created.updated == JULY_31  # the message's time
    assert created.confidence == 0.9
    assert parse_memory(render_memory(created), path=path) == created  # a valid file
    assert result.rewritten == {} and result.links == []
    assert result.extractor == "scripted-model"
    assert result.prompt_version == PROMPT_VERSION
    assert result.session_id == "sess-1"
    # One draft and nothing in the namespace: nothing to relate, so one model call.
    assert result.usage.calls == 1 and result.usage.total_tokens == 480
    assert len(server.requests) == 1
    # The model is given each message's id, speaker and time so it can resolve dates.
    sent = server.requests[0].user
    line = json.loads(sent.splitlines()[1])
    assert line == {
        "id": "msg-7",
        "role": "user",
        "name": "Ana",
        "time": "2026-07-31T09:30:00+00:00",
        "weekday": "Friday",
        "text": messages[0].content,
    }


def test_every_memory_gets_the_models_cue_set(server, extractor):
    cues_a = ["what camera does Ana own", "when did Ana buy the Sony A7III", "Sony A7III price"]
    cues_b = ["where did Ana buy her camera", "Fotocentre Bengaluru"]
    server.enqueue(
        Reply.chat(
            {
                "memories": [
                    memory("Ana bought a Sony A7III on 2026-07-30.", tier="events", cues=cues_a),
                    memory("Ana shops at Fotocentre in Bengaluru.", cues=cues_b),
                ]
            }
        ),
        Reply.chat({"links": [], "rewrites": []}),
    )

    result = run(extractor, [Message(id="m1", role="user", content="...", timestamp=JULY_31)])

    by_body = {m.body: m for m in result.created.values()}
    assert by_body["Ana bought a Sony A7III on 2026-07-30."].cues == cues_a
    assert by_body["Ana shops at Fotocentre in Bengaluru."].cues == cues_b
    assert {p.split("/", 1)[0] for p in result.created} == {"events", "facts"}


def test_related_memories_are_linked_new_to_new_and_new_to_existing(server, extractor):
    hotel = existing_memory(
        "facts/kyoto-trip/ryokan-booking-1a2b3c4d.md", "Ana booked the Ryokan Sawaya in Kyoto."
    )
    server.enqueue(
        Reply.chat(
            {
                "memories": [
                    memory("Ana flies to Kyoto on 2026-08-10.", tier="events"),
                    memory("Ana's Kyoto trip budget is 2,000 EUR."),
                ]
            }
        ),
        Reply.chat(
            {
                "links": [
                    {"from": "n1", "to": "n2", "type": "Same Trip"},
                    {"from": "e1", "to": "n1", "type": "same-trip"},
                    {"from": "n1", "to": "n1", "type": "self"},  # ignored
                ],
                "rewrites": [],
            }
        ),
    )

    def lookup(texts, limit):
        return [[hotel] if "Kyoto" in text else [] for text in texts]

    result = run(extractor, [Message(id="m1", role="user", content="...")], existing=lookup)

    flight = next(p for p, m in result.created.items() if "flies" in m.body)
    budget = next(p for p, m in result.created.items() if "budget" in m.body)
    assert result.created[flight].related == [
        Link(type="same-trip", path=budget),
        Link(type="same-trip", path=hotel.path),  # the old file is linked, not rewritten
    ]
    assert hotel.path not in result.rewritten
    assert len(result.links) == 2
    # The model saw the existing memory, keyed e1, as a candidate of both new ones.
    relate_prompt = server.requests[1].user
    assert "Ryokan Sawaya" in relate_prompt and '"similar_existing": ["e1"]' in relate_prompt


def test_reconcile_rewrites_the_existing_file_keeping_earlier_specifics(server, extractor):
    old = existing_memory(
        "facts/home/ana-lives-in-berlin-0badcafe.md",
        "Ana lives in Berlin-Kreuzberg with her cat Miso.",
        tags=["home"],
        related=[Link(type="same-person", path="facts/people/ana-1111aaaa.md")],
    )
    merged = "Ana lives in Munich since June 2026 (before: Berlin-Kreuzberg) with her cat Miso."
    server.enqueue(
        Reply.chat(
            {
                "memories": [
                    memory(
                        "Ana moved to Munich in June 2026.",
                        cues=["where does Ana live now", "Ana Munich move"],
                        sources=["m9"],
                        tags=["move"],
                    )
                ]
            }
        ),
        Reply.chat(
            {
                "links": [],
                "rewrites": [
                    {
                        "target": "e1",
                        "memories": ["n1"],
                        "text": merged,
                        "cues": ["where do I live now", "Ana's cat Miso"],
                    }
                ],
            }
        ),
    )
    asked = []

    def lookup(texts, limit):
        asked.extend((text, limit) for text in texts)
        return [[old] for _ in texts]

    result = run(
        extractor,
        [Message(id="m9", role="user", content="I moved to Munich last month!", timestamp=JULY_31)],
        existing=lookup,
    )

    # Extraction is shown the nearest memories of each message (two each), reconcile six
    # candidates per new fact.
    assert asked == [("I moved to Munich last month!", 2), ("Ana moved to Munich in June 2026.", 6)]
    assert "KNOWN memories" in server.requests[0].user
    assert old.text in server.requests[0].user
    assert result.created == {}
    # Berlin is still in the text, so the name still fits: rewritten in place.
    rewritten = result.rewritten[old.path]
    assert result.moved == {}
    assert rewritten.body == merged
    assert "Miso" in rewritten.body and "Kreuzberg" in rewritten.body
    # A model's rewrite gives the memory's whole new cue set: the old ones do not pile up.
    assert rewritten.cues == ["where do I live now", "Ana's cat Miso"]
    assert rewritten.sources == ["old-1", "m9"] and result.sources == {old.path: ["m9"]}
    assert rewritten.tags == ["home", "move"]
    assert rewritten.created == old.header.created and rewritten.updated == JULY_31
    assert rewritten.related == old.header.related  # earlier links survive the rewrite
    assert parse_memory(render_memory(rewritten), path=old.path) == rewritten


def test_malformed_model_output_fails_the_job_and_produces_nothing(server, extractor):
    server.enqueue(
        Reply.chat("Sure! Here are the memories: Ana likes tea.", prompt_tokens=50),
        Reply.chat({"memories": [{"tier": "facts", "text": "no cues or sources"}]}),
        Reply.chat({"memories": [memory("Ana likes tea.", tier="opinions")]}),
    )

    with pytest.raises(ModelOutputInvalid) as caught:
        run(extractor, [Message(id="m1", role="user", content="I like tea.")])

    assert caught.value.code == "model_output_invalid"
    assert "extract_memories" in caught.value.message
    assert caught.value.details["usage"]["calls"] == 3
    assert caught.value.details["usage"]["prompt_tokens"] == 250
    assert len(server.requests) == 3 and server.pending == 0


def test_malformed_relate_output_after_a_good_extract_also_fails_the_job(server, extractor):
    server.enqueue(
        Reply.chat({"memories": [memory("A is 1."), memory("B is 2.")]}),
        *[Reply.chat({"links": [{"from": "n1", "to": "n7", "type": "x"}], "rewrites": []})] * 3,
    )

    with pytest.raises(ModelOutputInvalid) as caught:
        run(extractor, [Message(id="m1", role="user", content="...")])

    assert "unknown key 'n7'" in caught.value.message
    assert caught.value.details["usage"]["calls"] == 4  # the extract call is counted too


def test_an_invented_source_id_is_sent_back_and_corrected(server, extractor):
    server.enqueue(
        Reply.chat({"memories": [memory("Ana likes tea.", sources=["msg-999"])]}),
        Reply.chat({"memories": [memory("Ana likes tea.", tier="preferences", sources=["m1"])]}),
    )

    result = run(extractor, [Message(id="m1", role="user", content="I like tea.")])

    assert [m.sources for m in result.created.values()] == [["m1"]]
    assert "msg-999" in server.requests[1].messages[3]["content"]


def test_a_rate_limited_job_still_completes(server, extractor):
    server.enqueue(
        Reply.error(429, retry_after=0),
        Reply.chat({"memories": [memory("Ana likes tea.", tier="preferences")]}),
    )

    result = run(extractor, [Message(id="m1", role="user", content="I like tea.")])

    assert len(result.created) == 1
    assert result.usage.calls == 1 and len(server.requests) == 2


@pytest.mark.parametrize("namespace_size", [10, 5000])
def test_model_calls_per_job_do_not_grow_with_the_namespace(server, extractor, namespace_size):
    namespace = [
        existing_memory(f"facts/misc/fact-{n}-00000000.md", f"Old fact number {n}.")
        for n in range(namespace_size)
    ]

    def lookup(texts, limit):
        # a real index returns the top few, whatever its size
        return [namespace[:limit] for _ in texts]

    server.responder = pipeline_responder
    messages = [Message(id=f"m{n}", role="user", content=f"Statement {n}.") for n in range(5)]

    result = run(extractor, messages, existing=lookup)

    assert sorted(m.body for m in result.created.values()) == [f"Statement {n}." for n in range(5)]
    assert len(server.requests) == 2  # one extract+cue call, one relate+reconcile call
    relate_prompt = server.requests[1].user
    assert relate_prompt.count('"key": "e') == 6  # candidates are bounded, and shared
