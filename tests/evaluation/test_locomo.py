"""`manage.py eval_locomo` end to end on a tiny LoCoMo-format file built here."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from evaluation.locomo import (
    ACCOUNT_ID,
    Conversation,
    Session,
    Turn,
    load_conversations,
    parse_evidence,
    session_recall_at,
    session_time,
    turn_cues,
    turn_memories,
)

TINY = [
    {
        "sample_id": "conv-t1",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! What did you do?"},
                {
                    "speaker": "Melanie",
                    "dia_id": "D1:2",
                    "text": "I adopted a beagle named Biscuit from the Oakwood shelter. "
                    "He loves long walks in Riverside Park.",
                },
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:3",
                    "text": "I painted a sunset over Lake Tahoe for my pottery class.",
                    "img_url": ["https://example.invalid/x.jpg"],
                    "blip_caption": "a painting of a sunset over a lake",
                },
            ],
            "session_2_date_time": "7:30 pm on 20 June, 2023",
            "session_2": [
                {
                    "speaker": "Melanie",
                    "dia_id": "D2:1",
                    "text": "I started working as a nurse at Mercy Hospital in Boston.",
                },
                {
                    "speaker": "Caroline",
                    "dia_id": "D2:2",
                    "text": "My brother Julian moved to Lisbon to study architecture.",
                },
            ],
            "session_3_date_time": "9:00 am on 1 July, 2023",
            "session_3": [],
        },
        "qa": [
            {"question": "What breed is Biscuit?", "answer": "beagle", "evidence": ["D1:2"],
             "category": 4},
            {"question": "What did Caroline paint?", "answer": "a sunset",
             "evidence": ["D1:3; D9:9"], "category": 1},
            {"question": "Where does Melanie work?", "answer": "Mercy Hospital",
             "evidence": ["D:2:1"], "category": 2},
            {"question": "Where did Julian move?", "answer": "Lisbon", "evidence": ["D2:2"],
             "category": 3},
            {"question": "Who is Julian?", "answer": "?", "evidence": ["D"], "category": 4},
            {"question": "Does Melanie own a cat?", "adversarial_answer": "yes",
             "evidence": ["D1:2"], "category": 5},
        ],
    }
]  # fmt: skip


@pytest.fixture
def tiny_file(tmp_path):
    path = tmp_path / "tiny-locomo.json"
    path.write_text(json.dumps(TINY))
    return path


def run(*args: str) -> tuple[list[str], dict]:
    out = io.StringIO()
    call_command("eval_locomo", *args, stdout=out)
    lines = out.getvalue().strip().splitlines()
    return lines, json.loads(lines[-1])


def test_eval_locomo_imports_asks_and_ends_with_the_json_figures(db, tiny_file):
    from namespaces.models import Namespace

    lines, result = run("--data", str(tiny_file), "--mode", "both", "--json")

    # Categories 1-4 only; the question whose evidence is just "D" is skipped, not fatal.
    assert result["questions"] == 4
    assert result["skipped_questions"] == 1
    assert result["mode"] == "both"
    assert "Speaker" in result["cues"]
    for k in ("recall@5", "recall@10"):
        assert set(result[k]) == {"lexical", "semantic", "fused"}
        assert set(result["pipeline"][k]) == {"lexical", "semantic", "fused"}
    assert set(result["by_category"]) == {"1", "2", "3", "4"}
    assert set(result["by_category"]["1"]) == {
        "questions",
        "recall@5",
        "recall@10",
        "session_recall@10",
    }
    # Five memories, fewer than ten: the semantic arm (and so the fused list) returns
    # every one, so recall@10 is exact. The multi-hop question names a turn that does not
    # exist ("D9:9"), which stays a miss: 1/2 for it, 1 for the other three.
    assert result["turn_memories"] == 5
    assert result["sources_per_result@10"] == 1.0  # one turn per memory
    assert result["recall@10"]["semantic"] == pytest.approx(3.5 / 4)
    assert result["recall@10"]["fused"] == pytest.approx(3.5 / 4)
    assert result["by_category"]["1"]["recall@10"]["fused"] == pytest.approx(0.5)
    assert result["by_category"]["4"]["recall@10"]["lexical"] == pytest.approx(1.0)
    # Session level: every question has evidence in a session some result comes from
    # (the multi-hop one through D1:3), so each counts as found.
    assert result["session_recall@10"]["fused"] == pytest.approx(1.0)
    assert result["by_category"]["1"]["session_recall@10"]["fused"] == pytest.approx(1.0)
    # All five memories are returned for every question: words@10 is their bodies' words.
    (conversation,) = load_conversations(path=tiny_file)
    bodies = turn_memories(conversation=conversation).values()
    assert result["words@10"] == pytest.approx(sum(len(m.body.split()) for m in bodies), abs=0.1)

    # Through the write path: the offline extractor kept the statements, with sources.
    pipeline = result["pipeline"]
    assert pipeline["extractor"] == "offline"
    assert pipeline["sessions"] == 2  # the empty session posts nothing
    assert pipeline["failed_jobs"] == 0
    assert result["memories"] == pipeline["memories"] >= 4
    assert result["seconds_per_session"] == pipeline["seconds_per_session"] > 0
    assert pipeline["recall@10"]["fused"] > 0

    names = set(Namespace.objects.filter(account_id=ACCOUNT_ID).values_list("name", flat=True))
    assert names == {"locomo-conv-t1", "locomo-conv-t1-pipeline"}
    assert any(line.startswith("all ") for line in lines)  # the printed table


def test_a_second_run_replaces_the_namespace_instead_of_adding_to_it(db, tiny_file):
    from namespaces.models import Namespace
    from retrieval.selectors import retrieve

    def namespace_id():
        return Namespace.objects.get(account_id=ACCOUNT_ID, name="locomo-conv-t1").pk

    _, first = run("--data", str(tiny_file), "--mode", "turns", "--json")
    first_id = namespace_id()
    _, second = run("--data", str(tiny_file), "--mode", "turns", "--json")
    assert second["recall@10"] == first["recall@10"]
    assert namespace_id() != first_id  # deleted and made again
    second_id = namespace_id()
    _, reused = run("--data", str(tiny_file), "--mode", "turns", "--reuse", "--json")
    assert reused["recall@10"] == first["recall@10"]
    assert namespace_id() == second_id  # --reuse kept it
    found = retrieve(
        namespace=Namespace.objects.get(account_id=ACCOUNT_ID, name="locomo-conv-t1"),
        query="beagle named Biscuit",
        limit=20,
    )
    assert len(found.results) == 5  # not ten: the old namespace went first
    assert found.results[0].memory.sources == ["D1:2"]


def test_fusion_params_can_be_overridden_and_bad_ones_are_refused(db, tiny_file):
    _, result = run("--data", str(tiny_file), "--mode", "turns", "--param", "rrf_k=10", "--json")
    assert result["params"]["rrf_k"] == 10.0
    with pytest.raises(CommandError, match="--param"):
        call_command("eval_locomo", "--data", str(tiny_file), "--param", "nonsense=1")


def test_evidence_ids_are_parsed_leniently():
    assert parse_evidence(values=["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert parse_evidence(values=["D:11:26", "D11:26"]) == ["D11:26"]
    assert parse_evidence(values=["D"]) == []


def test_turn_cues_follow_the_recipe():
    previous = Turn(dia_id="D1:1", speaker="Caroline", text="Hi! What did you paint?", caption="")
    turn = Turn(
        dia_id="D1:2",
        speaker="Melanie",
        text="I painted a lake at dawn. It took me three weekends.",
        caption="a painting of a lake",
    )
    assert turn_cues(turn=turn, previous=previous) == [
        "Melanie: I painted a lake at dawn. It took me three weekends."
        " [Melanie shared a photo: a painting of a lake]",
        "Melanie: I painted a lake at dawn.",
        "Melanie: It took me three weekends.",
        "Melanie shared a photo of a painting of a lake",
        "What did you paint? Melanie: I painted a lake at dawn. It took me three weekends.",
    ]


def test_turn_memories_carry_the_session_date_sources_and_neighbour_links():
    session = Session(
        number=1,
        date_text="1:56 pm on 8 May, 2023",
        when=session_time(text="1:56 pm on 8 May, 2023"),
        turns=(
            Turn(dia_id="D1:1", speaker="A", text="one " * 200, caption=""),
            Turn(dia_id="D1:2", speaker="B", text="two", caption=""),
        ),
    )
    memories = turn_memories(
        conversation=Conversation(
            sample_id="c", sessions=(session,), questions=(), skipped_questions=0
        )
    )
    first, second = memories.values()
    assert first.body.startswith("8 May, 2023. A: one")
    assert first.created.isoformat() == "2023-05-08T13:56:00+00:00"
    assert all(len(cue) <= 300 for cue in first.cues)  # the format's limit per cue
    assert first.sources == ["D1:1"]
    assert [link.type for link in first.related] == ["followed-by"]
    assert [link.type for link in second.related] == ["follows"]
    assert second.related[0].path == next(iter(memories))


@pytest.mark.parametrize("command", ["eval_locomo", "bench_retrieve"])
def test_a_missing_data_file_says_where_to_get_locomo(command, tmp_path):
    missing = tmp_path / "nowhere" / "locomo10.json"
    with pytest.raises(CommandError) as refused:
        call_command(command, "--data", str(missing))
    message = str(refused.value)
    assert str(missing) in message
    assert "snap-research/locomo" in message and "data/locomo10.json" in message
    assert "--data" in message


@pytest.mark.parametrize(
    ("content", "says"),
    [("not json", "Cannot read"), ('{"a": 1}', "expected a JSON list of conversations")],
)
def test_an_unreadable_data_file_is_a_command_error(tmp_path, content, says):
    bad = tmp_path / "locomo10.json"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError, match=says):
        call_command("eval_locomo", "--data", str(bad))


@pytest.mark.slow
def test_eval_locomo_on_a_fresh_data_dir_migrates_first(tiny_file, tmp_path):
    """A new user's first run: no tables yet (was: relation "accounts_account" does not
    exist)."""
    fresh = tmp_path / "fresh"
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(GITLOOM_DATA_DIR=str(fresh), DJANGO_SETTINGS_MODULE="server.settings")
    try:
        run = subprocess.run(
            [sys.executable, "manage.py", "eval_locomo", "--data", str(tiny_file)]
            + ["--mode", "turns", "--json"],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        # The embedded Postgres it started outlives it; stop it (postmaster.pid's pid).
        pid_file = fresh / "postgres" / "postmaster.pid"
        if pid_file.exists():
            os.kill(int(pid_file.read_text().split()[0]), signal.SIGTERM)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1])["questions"] == 4


def test_session_recall_counts_a_result_from_a_session_holding_evidence():
    evidence = ["D3:7", "D5:1"]
    assert session_recall_at(evidence=evidence, sources=[["D1:1"], ["D5:9"]], k=10) == 1.0
    assert session_recall_at(evidence=evidence, sources=[["D1:1"], ["D2:9"]], k=10) == 0.0
    # only the first k results count; a source that is no dialogue id is no session
    assert session_recall_at(evidence=evidence, sources=[["D1:1"], ["D3:1"]], k=1) == 0.0
    assert session_recall_at(evidence=evidence, sources=[["msg-3"]], k=10) == 0.0


def test_questions_are_asked_as_of_the_conversations_last_session_unless_told_now(db, tiny_file):
    (conversation,) = load_conversations(path=tiny_file)
    # Session 3 is empty: the conversation ended with session 2.
    assert conversation.ended == session_time(text="7:30 pm on 20 June, 2023")
    lines, result = run("--data", str(tiny_file), "--mode", "turns", "--json")
    assert result["clock"] == "conversation"
    assert "questions asked as of: each conversation end" in lines
    _, wall = run("--data", str(tiny_file), "--mode", "turns", "--clock", "wall", "--json")
    assert wall["clock"] == "wall"
    with pytest.raises(CommandError, match="--clock"):
        call_command("eval_locomo", "--data", str(tiny_file), "--clock", "yesterday")
