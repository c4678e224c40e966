"""Prometheus metrics: the samples every layer records, in one place.

The metric objects live in the core so any layer can count without importing upward;
the shell (``server.operations``) serves them at ``/metrics`` together with the job
queue's state, read from the database at scrape time. When metrics are on
(``GITLOOM_METRICS_TOKEN``), settings point ``PROMETHEUS_MULTIPROC_DIR`` at
``<data dir>/metrics`` before this module is imported, so every web and queue process
writes its samples to its own file there and a scrape sums them. Labels are routes,
methods, statuses, stages, arms and outcomes: never an account, a namespace or text.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import REGISTRY

from gitloom.core.tracing import span_done

# Seconds: from a cached retrieval (~2 ms) to a slow import request.
_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
# Seconds: a job's stages, from an offline extraction to a model's long answer.
_SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)

HTTP_REQUEST_SECONDS = Histogram(
    "gitloom_http_request_duration_seconds",
    "Time from the request reaching Django to its response, by URL pattern.",
    ["route", "method", "status"],
    buckets=_FAST,
)
RETRIEVAL_SECONDS = Histogram(
    "gitloom_retrieval_duration_seconds",
    "Server-side time of one retrieval (took_ms: query embedding plus the fused query), "
    "by the arms asked for.",
    ["arms"],
    buckets=_FAST,
)
RETRIEVAL_HITS = Counter(
    "gitloom_retrieval_hits",
    "Results returned by retrievals, by each arm that found them (a result two arms "
    "found counts for both).",
    ["arm"],
)
JOB_SECONDS = Histogram(
    "gitloom_job_duration_seconds",
    "Time of one job attempt, from its start to done or failed.",
    ["status"],
    buckets=_SLOW,
)
JOB_STAGE_SECONDS = Histogram(
    "gitloom_job_stage_duration_seconds",
    "Time of one stage of a job: pipeline (extract, cue, relate, reconcile), commit "
    "(the git commit to object storage), index (the tree diff into Postgres).",
    ["stage"],
    buckets=_SLOW,
)
JOBS_FINISHED = Counter(
    "gitloom_jobs_finished",
    "Jobs that ended, by status and error code (empty when done).",
    ["status", "error_code"],
)
MODEL_CALLS = Counter(
    "gitloom_model_calls",
    "Chat completion requests to the model endpoint, by what was asked (the schema "
    "name) and outcome: ok, invalid_output (answered, not the JSON asked for), error.",
    ["schema", "outcome"],
)
MODEL_CALL_SECONDS = Histogram(
    "gitloom_model_call_duration_seconds",
    "Time of one chat completion request, retries included.",
    ["schema"],
    buckets=_SLOW,
)
MODEL_TOKENS = Counter(
    "gitloom_model_tokens",
    "Tokens the model endpoint reported, by schema and kind (prompt, completion).",
    ["schema", "kind"],
)
MODEL_ERRORS = Counter(
    "gitloom_model_errors",
    "Failed model requests, each retry counted: timeout, connection, or the HTTP status.",
    ["kind"],
)
WEBHOOK_DELIVERIES = Counter(
    "gitloom_webhook_delivery_attempts",
    "Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), "
    "failed (failed for good).",
    ["outcome"],
)


def job_stage_observe(stage: str, started: float) -> None:
    """A job stage that began at ``started`` (``time.perf_counter()``) has ended: its
    duration, and its span under the job's."""
    seconds = time.perf_counter() - started
    JOB_STAGE_SECONDS.labels(stage).observe(seconds)
    span_done(f"gitloom.job.{stage}", seconds=seconds, attributes={"gitloom.job.stage": stage})


def multiprocess_dir() -> Path | None:
    value = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(value) if value else None


def metrics_reset_dir() -> None:
    """Empty the multiprocess directory: a new service starts its counters at zero,
    as Prometheus expects of a restarted target. ``serve`` calls it before it forks."""
    directory = multiprocess_dir()
    if directory is None:
        return
    directory.mkdir(parents=True, exist_ok=True)
    for path in directory.glob("*.db"):
        path.unlink(missing_ok=True)


def metrics_text(*extra) -> bytes:
    """The exposition text: this process's samples (or, under several processes, every
    process's summed from the directory) and the ``extra`` collectors'."""
    directory = multiprocess_dir()
    if directory is None:
        registry = REGISTRY
        head = generate_latest(registry)
    else:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(directory))
        head = generate_latest(registry)
    tail = CollectorRegistry(auto_describe=False)
    for collector in extra:
        tail.register(collector)
    return head + generate_latest(tail)
