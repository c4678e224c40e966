"""Benchmark: where a `GET /v1/retrieve`'s CPU goes, part by part.

Runs retrievals in this process through Django's WSGI handler (the whole middleware
stack, DRF, the view and the renderer; no HTTP server), one fresh question each (the
synthetic namespace's question shape, as ``bench_http`` asks, so the query-embedding
cache never answers), and times each part with the calling thread's CPU clock:

- auth: the API key with the namespace it names (``NamespaceScopedApi.key_lookup``, handed to the authentication);
- embedding: the query's vector (ONNX, the int8 query copy);
- database, client side: sending the pipelined statements and reading the rows
  (the retrieval's transaction, less the embedding computed inside it);
- retrieval's own Python: fusion parameters, building hits (``retrieve()`` less the two above);
- serialization: building the answer and encoding it as JSON;
- Django and DRF: everything else in the request (middleware, dispatch, validation);

and Postgres: the CPU its backend process spent per request (``/proc``). What an HTTP
server adds (gunicorn parsing the request, its threads, writing the answer) is not in
here: ``bench_http`` gives the API server's CPU per retrieval, and the difference is it.

Run it on a ``bench_load`` data directory (its key is read from there):
``GITLOOM_DATA_DIR=DIR manage.py bench_request_cpu``, or give ``--key``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from server.management.commands.bench_http import cpu_name, fresh_queries, load_average

PARTS = (
    "auth",
    "embedding",
    "database, client side",
    "retrieval's own Python",
    "serialization",
    "Django and DRF",
)


class _Clock:
    """Thread CPU seconds spent inside wrapped calls, by label (nested calls count in
    both: the parts are separated by subtraction afterwards)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    @contextlib.contextmanager
    def wrapping(self, wraps: list[tuple[object, str, str]]) -> Iterator[None]:
        originals = [(owner, name, getattr(owner, name)) for owner, name, _ in wraps]
        try:
            for (owner, name, label), (_, _, original) in zip(wraps, originals, strict=True):
                setattr(owner, name, self._timed(original, label))
            yield
        finally:
            for owner, name, original in originals:
                setattr(owner, name, original)

    def _timed(self, function, label: str):
        def timed(*args, **kwargs):
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[label] = self.spent.get(label, 0.0) + time.thread_time() - started

        return timed


def _backend_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Command(BaseCommand):
    help = "Per-part CPU of /v1/retrieve in-process: auth, embedding, database, serialization."

    def add_arguments(self, parser):
        parser.add_argument("--requests", type=int, default=500)
        parser.add_argument("--warmup", type=int, default=50)
        parser.add_argument("--limit", type=int, default=20)
        parser.add_argument("--namespace", default="default")
        parser.add_argument("--key", help="API key (default: the one bench_load saved here)")
        parser.add_argument("--seed", type=int, help="seed of the fresh queries (default: time)")
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, **options):
        from django.core.wsgi import get_wsgi_application

        import gitloom.core.renderers as renderers
        import namespaces.apis
        import retrieval.apis
        import retrieval.query
        import retrieval.selectors
        from retrieval.embeddings import embedder_load, embedder_warm_up

        key = options["key"]
        if not key:
            saved = Path(settings.GITLOOM_DATA_DIR) / "bench-load.json"
            if not saved.is_file():
                raise CommandError(f"No {saved}: run bench_load --data-dir here, or give --key.")
            key = json.loads(saved.read_text())["secret"]
        embedder_load()
        embedder_warm_up()
        app = get_wsgi_application()
        seed = options["seed"] if options["seed"] is not None else random.randrange(2**31)
        count, warmup = options["requests"], options["warmup"]
        queries = fresh_queries(count + warmup, seed, limit_number=100_000)

        def request(query: str) -> None:
            status: list[str] = []
            environ = {
                "REQUEST_METHOD": "GET",
                "PATH_INFO": "/v1/retrieve",
                "QUERY_STRING": urllib.parse.urlencode(
                    {"query": query, "limit": options["limit"], "namespace": options["namespace"]}
                ),
                "SERVER_NAME": "127.0.0.1",
                "SERVER_PORT": "8000",
                "SERVER_PROTOCOL": "HTTP/1.1",
                "HTTP_HOST": "127.0.0.1",
                "HTTP_AUTHORIZATION": f"Bearer {key}",
                "REMOTE_ADDR": "127.0.0.1",
                "wsgi.input": io.BytesIO(b""),
                "wsgi.errors": io.StringIO(),
                "wsgi.url_scheme": "http",
            }
            body = b"".join(app(environ, lambda line, headers: status.append(line)))
            if not status[0].startswith("200"):
                raise CommandError(f"/v1/retrieve answered {status[0]}: {body[:300]!r}")

        for query in queries[:warmup]:
            request(query)
        clock = _Clock()
        wraps = [
            (namespaces.apis.NamespaceScopedApi, "key_lookup", "auth"),
            (retrieval.selectors, "embed_query", "embedding"),
            (retrieval.query, "scoped_overlapped", "transaction"),
            (retrieval.apis, "retrieve", "retrieve"),
            (retrieval.apis, "retrieval_output", "build"),
            (renderers.JSONRenderer, "render", "json"),
        ]
        backend = connection.connection.info.backend_pid
        postgres_before = _backend_cpu_seconds(backend)
        wall_before, cpu_before = time.perf_counter(), time.thread_time()
        with clock.wrapping(wraps):
            for query in queries[warmup:]:
                request(query)
        whole = time.thread_time() - cpu_before
        wall = time.perf_counter() - wall_before
        if connection.connection.info.backend_pid != backend:
            raise CommandError("The database connection changed during the run.")
        postgres = _backend_cpu_seconds(backend) - postgres_before
        spent = clock.spent
        parts = {
            "auth": spent["auth"],
            "embedding": spent["embedding"],
            "database, client side": spent["transaction"] - spent["embedding"],
            "retrieval's own Python": spent["retrieve"] - spent["transaction"],
            "serialization": spent["build"] + spent["json"],
        }
        parts["Django and DRF"] = whole - sum(parts.values())
        per = {name: round(seconds / count * 1000, 3) for name, seconds in parts.items()}
        result = {
            "cpu": cpu_name(),
            "load_average": load_average(),
            "requests": count,
            "seed": seed,
            "web_process_ms": round(whole / count * 1000, 3),
            "wall_ms": round(wall / count * 1000, 3),
            "postgres_ms": round(postgres / count * 1000, 3),
            "parts_ms": per,
            # What each wrapped call took, whole (nested calls inside their callers'):
            # the parts above are these, separated by subtraction, plus the remainder.
            "calls_ms": {label: round(t / count * 1000, 3) for label, t in sorted(spent.items())},
        }
        self.stdout.write(
            f"CPU: {result['cpu']}; load average {result['load_average']}; {count} retrievals "
            f"(limit {options['limit']}), each a fresh question, seed {seed}"
        )
        self.stdout.write(
            f"  in the web process {result['web_process_ms']:.2f} ms CPU per request "
            f"(wall {result['wall_ms']:.2f} ms); its Postgres backend {result['postgres_ms']:.2f} ms"
        )
        for name in PARTS:
            share = per[name] / result["web_process_ms"] * 100 if result["web_process_ms"] else 0
            self.stdout.write(f"    {name:24s} {per[name]:6.3f} ms  {share:5.1f} %")
        if options["as_json"]:
            self.stdout.write(json.dumps(result))
