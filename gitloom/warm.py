"""Warm a service process before it takes work, and tell ``serve`` it is ready.

``serve`` waits for every web and queue worker to report ready before it says it
listens, so the first request and the first job cost what later ones do. It names a
directory with :func:`report_ready_to` before it forks them; a worker reports by
creating a file there. Outside ``serve`` (a bare gunicorn or qcluster) the workers warm
up the same way and report nowhere.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.db import connection

_ready_dir: Path | None = None


def report_ready_to(path: Path) -> None:
    global _ready_dir
    _ready_dir = path


def process_warm_up(*, role: str) -> None:
    """Open the database connection, embed once, then report ``role`` ready."""
    from retrieval.embeddings import embedder_warm_up

    connection.ensure_connection()
    embedder_warm_up()
    if _ready_dir is not None:
        (_ready_dir / f"{role}-{os.getpid()}").touch()
