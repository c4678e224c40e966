"""What a service process writes to its log: time, level and logger on every line."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from django.conf import settings

# A process configured as the service's are (django.setup applies settings.LOGGING).
EMIT = """
import logging, django
django.setup()
logging.getLogger("memories.services").info("job j-1 finished")
logging.getLogger("gitloom.jobs").warning("job j-2 gave up")
logging.getLogger("sentence_transformers").info("a library's chatter")
"""

LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?P<level>[A-Z]+) (?P<logger>[\w.-]+): .+")


def emit(**env: str) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-c", EMIT],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "server.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stderr.splitlines()


def test_log_lines_carry_time_level_and_logger():
    lines = emit()

    assert len(lines) == 2, lines  # a library's INFO stays out of the service log
    first, second = (LINE.fullmatch(line) for line in lines)
    assert first and (first["level"], first["logger"]) == ("INFO", "memories.services")
    assert second and (second["level"], second["logger"]) == ("WARNING", "gitloom.jobs")
    assert lines[0].endswith(": job j-1 finished")


def test_gitloom_log_level_sets_one_level_for_everything():
    lines = emit(GITLOOM_LOG_LEVEL="warning")

    assert [LINE.fullmatch(line)["logger"] for line in lines] == ["gitloom.jobs"]
