"""Warm a service process before it takes work, and tell ``serve`` it is ready.

``serve`` waits for every web and queue worker to report ready before it says it
listens, so the first request and the first job cost what later ones do. It names a
directory with :func:`report_ready_to` before it forks them; a worker reports by
creating a file there. Outside ``serve`` (a bare gunicorn or qcluster) the workers warm
up the same way and report nowhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from django.db import connection

from gitloom.core.tracing import tracing_start

_ready_dir: Path | None = None


def report_ready_to(path: Path) -> None:
    global _ready_dir
    _ready_dir = path


def process_warm_up(*, role: str, warm: Callable[[], None]) -> None:
    """Open the database connection, run ``warm`` (what the process's first request or
    job would otherwise pay for: embedding once), then report ``role`` ready. The caller
    names ``warm``: the core imports no app above it."""
    tracing_start()  # after the fork: an exporter's thread would not survive it
    connection.ensure_connection()
    warm()
    if _ready_dir is not None:
        (_ready_dir / f"{role}-{os.getpid()}").touch()
