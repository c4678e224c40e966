"""``manage.py bench_request_cpu``: a retrieval's CPU by part, adding up to the whole."""

from __future__ import annotations

import io
import json

from django.core.management import call_command

from server.management.commands.bench_request_cpu import PARTS
from tests.test_list_query_counts import namespace_with_memories


def test_the_parts_add_up_to_the_web_process_cpu_and_postgres_is_counted(
    transactional_db, api, account
):
    namespace_with_memories(account, "default", 5)
    out = io.StringIO()
    call_command(
        "bench_request_cpu", requests=40, warmup=2, key=api.secret, seed=1, as_json=True, stdout=out
    )
    printed = out.getvalue()
    result = json.loads(printed.strip().splitlines()[-1])
    parts = result["parts_ms"]
    assert set(parts) == set(PARTS)
    # Every part took time, the remainder ("Django and DRF") too: the measured parts
    # together stay under the web process's whole CPU.
    assert all(value > 0 for value in parts.values()), parts
    assert parts["Django and DRF"] < result["web_process_ms"]
    # The measured parts split the calls the command times, none counted twice and none
    # left out: the key lookup, retrieve() (the transaction and the embedding run inside
    # it), building the answer and rendering it run one after another in a request.
    calls = result["calls_ms"]
    measured = sum(value for name, value in parts.items() if name != "Django and DRF")
    outer = calls["auth"] + calls["retrieve"] + calls["build"] + calls["json"]
    assert abs(measured - outer) <= 0.0005 * (len(parts) + 4), (parts, calls)  # rounding
    assert result["postgres_ms"] > 0 and result["requests"] == 40
    assert "embedding" in printed and "Postgres backend" in printed
