"""`manage.py bench_prompts`: a session costs one extract and one relate call, and its
prompts stay within the budget set when the prompts gained their rules (issue 41)."""

from __future__ import annotations

import io
import json

from django.core.management import call_command

BEFORE_RULES = (
    5689  # prompt characters per session before the prompts' rules (PROMPT_VERSION 2026-07-31.1)
)


def test_a_session_costs_two_calls_and_at_most_one_and_a_half_times_the_old_prompts():
    out = io.StringIO()
    call_command("bench_prompts", "--json", stdout=out)
    figures = json.loads(out.getvalue().strip().splitlines()[-1])

    assert [row["calls"] for row in figures["sessions"]] == [2] * 5
    assert figures["prompt_chars_per_session"] <= 1.5 * BEFORE_RULES
