"""`manage.py bench_import` imports archives of the given sizes and reports files/s."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memories.selectors import memory_list
from namespaces.models import Namespace


def test_bench_import_commits_and_indexes_every_file_and_reports_files_per_second(
    transactional_db,
):
    out = io.StringIO()
    call_command("bench_import", "--sizes", "5,20", "--json", stdout=out)
    report = json.loads(out.getvalue().strip().splitlines()[-1])
    assert set(report["sizes"]) == {"5", "20"}
    assert all(row["files_per_s"] > 0 for row in report["sizes"].values())
    namespace = Namespace.objects.get(name="n20")
    assert len(memory_list(namespace=namespace, limit=100).items) == 20


def test_bench_import_refuses_sizes_it_cannot_read():
    with pytest.raises(CommandError, match="--sizes"):
        call_command("bench_import", "--sizes", "ten")


def test_bench_import_through_the_job_reports_its_runs(transactional_db, settings):
    # Every run may index one step of 8 files before its time is up.
    settings.GITLOOM_JOB_TIMEOUT = 0
    settings.GITLOOM_INDEX_STEP_FILES = 8
    out = io.StringIO()
    call_command("bench_import", "--sizes", "20", "--job", "--json", stdout=out)
    row = json.loads(out.getvalue().strip().splitlines()[-1])["sizes"]["20"]
    assert row["job_runs"] == 3 and row["longest_run_s"] >= 0
    namespace = Namespace.objects.get(name="n20")
    assert len(memory_list(namespace=namespace, limit=100).items) == 20
