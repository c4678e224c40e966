"""Loaded with ``-p tests.data_dir`` (pyproject's addopts), before pytest-django reads
the settings: the suite's state lives in a fresh temporary data directory.

A ``conftest.py`` is imported only after pytest-django has loaded the settings, so an
environment variable set there came too late: the suite ran on the clone's own
``.gitloom/`` and stopped the Postgres that ``serve`` had running there. The suite
also ignores a ``GITLOOM_DATA_DIR`` exported for ``serve`` in the same shell; set
``GITLOOM_TEST_DATA_DIR`` to keep a test data directory between runs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

# made here (and removed at the end), unless GITLOOM_TEST_DATA_DIR keeps one between runs
_MADE = (
    None if os.environ.get("GITLOOM_TEST_DATA_DIR") else tempfile.mkdtemp(prefix="gitloom-test-")
)
os.environ["GITLOOM_DATA_DIR"] = os.environ.get("GITLOOM_TEST_DATA_DIR") or _MADE
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def pytest_unconfigure(config) -> None:
    """Stop the suite's embedded server, unless another process still uses it, and
    remove the data directory this process made once no server runs in it: each
    process of a run (and each xdist worker) makes its own, a few hundred MB."""
    from django.conf import settings

    if settings.configured and getattr(settings, "EMBEDDED_POSTGRES", False):
        from server.embedded_postgres import embedded_stop

        embedded_stop(settings.GITLOOM_DATA_DIR)
    if _MADE and not (Path(_MADE) / "postgres" / "postmaster.pid").exists():
        shutil.rmtree(_MADE, ignore_errors=True)
