"""`manage.py eval_writepath` end to end on a tiny scenario file of its own."""

from __future__ import annotations

import io
import json
from datetime import UTC, date, datetime

import pytest
from django.core.management import call_command

from evaluation.writepath import question_shaped, unsaid_grams
from evaluation.writepath_rebase import rebase_scenario, shift_text

TINY = {
    "version": 1,
    "scenarios": [
        {
            "id": "x01-tortoise",
            "category": "durable",
            "sessions": [
                {
                    "messages": [
                        {"role": "user", "content": "Hello there, grey skies again today.",
                         "timestamp": "2026-01-05T09:00:00Z"},
                        {"role": "assistant", "content": "Sorry to hear it! What's new?",
                         "timestamp": "2026-01-05T09:01:00Z"},
                        {"role": "user",
                         "content": "My tortoise Bartholomew turned forty on 2026-01-03.",
                         "timestamp": "2026-01-05T09:02:00Z"},
                    ]
                }
            ],
            "checks": [
                {"query": "what is my tortoise called", "within": "top1",
                 "expect": ["Bartholomew"], "forbid": []},
                {"query": "when did Bartholomew turn forty", "within": "top3",
                 "expect": [["2026-01-03", "January 3", "3 January"]], "forbid": []},
            ],
            "memories": {"min": 1, "max": 3},
        },
        {
            "id": "x02-van-colour",
            "category": "correction",
            "no_rebase": True,
            "sessions": [
                {"messages": [{"role": "user", "content": "I drive a yellow Ford Transit van.",
                               "timestamp": "2026-02-10T18:00:00Z"}]},
                {"messages": [{"role": "user",
                               "content": "Correction: the Transit is orange, not yellow.",
                               "timestamp": "2026-02-17T18:00:00Z"}]},
            ],
            "checks": [
                {"query": "what colour is my van", "within": "top1",
                 "expect": ["orange"], "forbid": ["yellow Ford"]},
            ],
            "atomic": [["Transit"]],
            "attribution": [{"term": "Transit", "owner": ["I drive", "the Transit"]}],
        },
    ],
}  # fmt: skip

NOW = "2026-06-10T12:00:00+00:00"


def run(tmp_path, *args: str) -> tuple[str, dict]:
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps(TINY))
    out = io.StringIO()
    call_command("eval_writepath", "--data", str(path), "--json", *args, stdout=out)
    text = out.getvalue()
    return text, json.loads(text.strip().splitlines()[-1])


def test_eval_writepath_posts_asks_and_ends_with_the_json_figures(db, tmp_path):
    text, figures = run(tmp_path, "--rebase", "--now", NOW, "--sample", "3")

    assert figures["scenarios"] == 2 and figures["checks"] == 3
    assert figures["sessions"] == 3 and figures["failed_jobs"] == 0
    assert figures["extractor"] == "offline"
    assert set(figures["by_category"]) == {"durable", "correction"}
    durable, correction = (figures["per_scenario"][i] for i in (0, 1))
    # A plain durable fact is stored and ranked first; its date moved with the
    # scenario (22 weeks: the last message, 2026-01-05, lands in the week before NOW),
    # so the second check only passes if the message's date and the expectation's
    # alternatives moved together.
    assert durable["weeks"] == 22
    assert durable["checks_passed"] == 2, text
    assert figures["by_category"]["durable"]["bounds_violations"] == 0
    assert correction["weeks"] == 0  # no_rebase
    assert figures["atomic_groups"] == 1
    assert figures["memories"] >= 2 and figures["cues"] >= 1
    for key in (
        "ranking_failures",
        "stale_top1",
        "stale_in_store",
        "unsaid_rewrites",
        "ungrounded_memories",
        "ungrounded_terms",
        "two_fact_memories",
        "atomic_missing",
        "attribution_violations",
        "off_topic",
    ):
        assert isinstance(figures[key], int), key
    assert 0 <= figures["off_topic_share"] <= 1
    assert 0 <= figures["cues_question_share"] <= 1
    assert 0 <= figures["cues_distinguishing_share"] <= 1
    assert figures["seconds_per_session"] > 0
    assert "x01-tortoise" in text and "(+22w)" in text and "cue sample (3" in text
    # The offline extractor quotes what was said: every name, number and date grounded.
    assert figures["ungrounded_memories"] == 0 and durable["ungrounded"] == []
    assert "memories naming a name/number/date nobody said" in text


def test_only_runs_the_named_scenarios(db, tmp_path):
    _, figures = run(tmp_path, "--only", "x02-van-colour")
    assert [s["id"] for s in figures["per_scenario"]] == ["x02-van-colour"]


def test_rebase_moves_every_full_date_by_whole_weeks():
    scenario = TINY["scenarios"][0]
    moved, weeks = rebase_scenario(scenario, now=datetime(2026, 6, 10, 12, tzinfo=UTC))
    assert weeks == 22
    messages = moved["sessions"][0]["messages"]
    assert messages[0]["timestamp"] == "2026-06-08T09:00:00Z"  # a Monday, as before
    assert "turned forty on 2026-06-06." in messages[2]["content"]
    assert moved["checks"][1]["expect"] == [["2026-06-06", "June 6", "6 June"]]
    assert scenario["sessions"][0]["messages"][0]["timestamp"] == "2026-01-05T09:00:00Z"


@pytest.mark.parametrize(
    ("text", "moved"),
    [
        ("the party is on March 13th", "the party is on March 27th"),
        ("13 March 2026, then Mar. 1", "27 March 2026, then Mar. 15"),
        ("the 30th of December", "the 13th of January"),
        ("back in September, in 2026-04", "back in September, in 2026-04"),
        ("we may 3 times", "we may 3 times"),
    ],
)
def test_written_dates_keep_their_form(text, moved):
    assert shift_text(text, weeks=2, reference=date(2026, 3, 9)) == moved


def test_unsaid_grams_ignore_resolved_dates_and_a_speaker_prefix():
    said = ["The quiz night is on Friday at the Crown."]
    assert unsaid_grams("Ama: The quiz night is on Friday (2026-03-13) at the Crown.", said) == []
    assert unsaid_grams("The quiz night is at the Anchor.", said) == [
        "is at the anchor",
        "night is at the",
        "quiz night is at",
    ]


def test_question_shaped_cues():
    assert question_shaped("where does Ama work")
    assert question_shaped("Ama's employer?")
    assert not question_shaped("Ama employer")


def test_docs_eval_md_runs_the_example_file_the_repository_ships(db):
    """docs/EVAL.md's "Try it" command names a file that is in the repository and runs
    as written: every scenario posted, every job done, every check asked."""
    import re
    import shlex

    from django.conf import settings

    root = settings.BASE_DIR
    text = (root / "docs" / "EVAL.md").read_text()
    block = re.search(r"## Try it on the example.*?```sh\n(.*?)```", text, re.S).group(1)
    words = shlex.split(block)
    assert words[0] == "GITLOOM_DATA_DIR=/tmp/gl-evalwp"
    assert words[1:4] == [".venv/bin/python", "manage.py", "eval_writepath"], words
    args = words[4:]
    data = root / args[args.index("--data") + 1]
    scenarios = json.loads(data.read_text())["scenarios"]

    out = io.StringIO()
    call_command("eval_writepath", *args[:1], str(data), *args[2:], "--json", stdout=out)
    figures = json.loads(out.getvalue().strip().splitlines()[-1])
    assert figures["scenarios"] == len(scenarios) == 3
    assert figures["checks"] == sum(len(s["checks"]) for s in scenarios)
    assert figures["failed_jobs"] == 0 and figures["extractor"] == "offline"
    assert [s["id"] for s in figures["per_scenario"]] == [s["id"] for s in scenarios]
