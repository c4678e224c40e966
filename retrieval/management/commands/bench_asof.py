"""Benchmark retrieval as of a past commit against the head, on a namespace with history.

    GITLOOM_DATA_DIR=/tmp/gl-asof python manage.py bench_asof \\
        [--memories 10000] [--queries 200] [--json] [--verbose]

What it builds (once; kept under the account ``bench-asof`` in a scratch
GITLOOM_DATA_DIR, which it migrates first; ``--reset`` rebuilds): one namespace written
through the real repository and indexer, as writers do: ``--memories`` memories in ten
commits of a tenth each, then ``--rewrites`` commits that each rewrite 50 memories,
forget 10 and add 10, so the index holds a history (every rewritten or forgotten
version). Memories are synthetic (a Zipf-distributed vocabulary of 4,000 made-up words,
a named entity per memory, bodies of 12-40 words, two cues, a ``related`` link to an
earlier memory), generated from ``--seed``, so two checkouts build the same data. Cue
vectors are drawn around real embeddings of 500 sentences (the configured embedder,
plus Gaussian noise; cosine ~0.85 to their base), as ``bench_retrieve`` does, so the
load takes a minute, not the hour embedding 20,000 cues one by one would.

What it measures, alternating query by query over the same queries and query vectors:
the wall time of ``fused_search`` at the head and, where this checkout has
``retrieval.asof``, of resolving ``as_of`` plus ``fused_search`` as of three commits
(the one that completed the initial load, the middle of the load, and the head
itself, which reads every history row); p50/p95 and the ratio to the head. And the
storage history costs: rows and bytes (``pg_total_relation_size``, indexes and TOAST
included) of the history tables, per history version of a memory. A checkout without
``retrieval.asof`` (or ``--head-only``) measures the head alone, which is how the head
is compared before and after: run the two checkouts alternately, each with its own
data dir, with ``--head-only`` on this one.
"""

from __future__ import annotations

import json
import math
import statistics
import time
import zlib
from datetime import UTC, datetime

import numpy as np
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connection

from accounts.models import Account
from namespaces.memory_format import Link, Memory, render_memory
from namespaces.models import Namespace
from namespaces.repository import repository_commit, repository_log
from retrieval import indexer
from retrieval.embeddings import embed_texts
from retrieval.query import fused_search
from retrieval.scope import namespace_scope
from retrieval.services import after_repository_change, cue_partition_drop

try:  # absent on checkouts from before retrieval as of a commit
    from retrieval.asof import as_of_resolve
except ImportError:  # pragma: no cover - the baseline checkout
    as_of_resolve = None

ACCOUNT = "bench-asof"
NAME = "history"
TIERS = ("facts", "facts", "facts", "preferences", "events", "working")
SYLLABLES = [a + b for a in "bdfgklmnprstvz" for b in ("a", "e", "i", "o", "u", "ai", "ou")]
HISTORY_TABLES = (
    "retrieval_document_history",
    "retrieval_posting_history",
    "retrieval_term_stat_history",
    "retrieval_cue_history",
    "retrieval_edge_history",
    "retrieval_commit",
)
HEAD_TABLES = (
    "retrieval_document",
    "retrieval_posting",
    "retrieval_term_stat",
    "retrieval_cue",
    "retrieval_edge",
)
SENTENCES = (
    "I bought a new {0} from the shop in {1}.",
    "My sister {1} visited us with her {0}.",
    "We planned a trip to {1} to see the {0}.",
    "The doctor said my {0} needs rest until {1}.",
    "At work the {0} project moved to {1}.",
    "I prefer my {0} with {1} on Sundays.",
    "{1} recommended a {0} restaurant downtown.",
    "Our {0} broke and {1} fixed it.",
    "I started learning {0} with {1}.",
    "The {0} concert in {1} was sold out.",
)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


class Command(BaseCommand):
    help = "Benchmark retrieval as of a past commit against the head (latency, storage)."

    def add_arguments(self, parser):
        parser.add_argument("--memories", type=int, default=10_000)
        parser.add_argument("--rewrites", type=int, default=20, help="commits after the load")
        parser.add_argument("--queries", type=int, default=200)
        parser.add_argument("--seed", type=int, default=11)
        parser.add_argument("--reset", action="store_true", help="rebuild the bench data")
        parser.add_argument(
            "--head-only",
            action="store_true",
            help="time the head query alone (to compare checkouts: as-of queries in between"
            " churn the caches the head query reads)",
        )
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--verbose", action="store_true")

    def handle(self, *args, **opts):
        self.opts = opts
        self.rng = np.random.default_rng(opts["seed"])
        call_command("migrate", verbosity=0)
        self.words = self._vocabulary()
        namespace, commits = self._ensure_data()
        queries = self._queries(opts["queries"])
        vectors = embed_texts(queries)
        report: dict = {"memories": opts["memories"], "commits": len(commits)}
        report.update(self._measure(namespace, commits, queries, vectors))
        if as_of_resolve is not None and not opts["head_only"]:
            report["storage"] = self._storage(namespace)
        report["load_average"] = [round(x, 2) for x in _loadavg()]
        self.stdout.write(f"load average {report['load_average']} (2 cores, shared)")
        if opts["json"]:
            self.stdout.write(json.dumps(report))

    # --- data -------------------------------------------------------------------------

    def _vocabulary(self) -> list[str]:
        rng = np.random.default_rng(self.opts["seed"])
        words: list[str] = []
        seen: set[str] = set()
        while len(words) < 4000:
            word = "".join(rng.choice(SYLLABLES, size=int(rng.integers(2, 4))))
            if word not in seen:
                seen.add(word)
                words.append(word)
        return words

    def _word(self) -> str:
        rank = min(int(self.rng.zipf(1.3)), len(self.words)) - 1
        return self.words[rank]

    def _memory(self, i: int, version: int, link_to: str | None) -> tuple[str, bytes]:
        entity = self.words[(i * 7919) % len(self.words)].capitalize()
        topic = self.words[(i * 104729 + 13) % 600]
        words = [self._word() for _ in range(int(self.rng.integers(12, 40)))]
        body = SENTENCES[i % len(SENTENCES)].format(topic, entity) + " " + " ".join(words) + "."
        if version:
            body = f"Update {version}: " + body
        when = datetime(2026, 1, 1, tzinfo=UTC).replace(day=1 + i % 28, month=1 + i % 12)
        memory = Memory(
            tier=TIERS[i % len(TIERS)],
            tags=[topic],
            created=when,
            updated=when,
            confidence=0.9,
            cues=[f"what about {entity} and the {topic}", f"{topic} {self._word()} {entity}"],
            related=[Link(type="related", path=link_to)] if link_to else [],
            sources=[f"msg-{i}"],
            body=body,
        )
        return self._path(i), render_memory(memory)

    def _path(self, i: int) -> str:
        return f"{TIERS[i % len(TIERS)]}/bench-{i // 500}/m-{i:06d}-{i * 2654435761 % 2**32:08x}.md"

    def _ensure_data(self) -> tuple[Namespace, list[str]]:
        account, _ = Account.objects.get_or_create(id=ACCOUNT)
        namespace = Namespace.objects.filter(account=account, name=NAME).first()
        if namespace is not None and (self.opts["reset"] or not self._complete(namespace)):
            namespace_id = namespace.pk
            namespace.delete()
            cue_partition_drop(namespace_id)
            namespace = None
        if namespace is None:
            namespace = self._load(account)
        # The writes, oldest first (the namespace's root commit left out).
        return namespace, self._writes(namespace)

    def _writes(self, namespace: Namespace) -> list[str]:
        log = list(repository_log(prefix=namespace.storage_prefix))
        return [entry.commit for entry in reversed(log)][1:]

    def _complete(self, namespace: Namespace) -> bool:
        # Same shape: ten load commits, then the rewrites (a changed --memories or
        # --seed needs --reset).
        return len(self._writes(namespace)) == 10 + self.opts["rewrites"]

    def _load(self, account: Account) -> Namespace:
        from namespaces.services import namespace_create

        started = time.perf_counter()
        self._patch_embedder()
        namespace = namespace_create(account=account, name=NAME)
        total = self.opts["memories"]
        batch = math.ceil(total / 10)
        commits: list[str] = []
        alive: list[int] = []
        for start in range(0, total, batch):
            files = {}
            for i in range(start, min(total, start + batch)):
                link = self._path(int(self.rng.integers(0, i))) if i and i % 3 == 0 else None
                path, data = self._memory(i, 0, link)
                files[path] = data
                alive.append(i)
            commits.append(self._commit(namespace, files))
            self.stdout.write(
                f"  loaded {len(alive):,} memories ({time.perf_counter() - started:.0f}s)"
            )
        next_id = total
        for version in range(1, self.opts["rewrites"] + 1):
            picked = self.rng.choice(len(alive), size=min(60, len(alive)), replace=False)
            files: dict[str, bytes | None] = {}
            for index in picked[:50]:
                path, data = self._memory(alive[index], version, None)
                files[path] = data
            gone = {alive[index] for index in picked[50:]}
            for i in gone:
                files[self._path(i)] = None
            alive = [i for i in alive if i not in gone]
            for _ in range(len(gone)):
                path, data = self._memory(next_id, 0, None)
                files[path] = data
                alive.append(next_id)
                next_id += 1
            commits.append(self._commit(namespace, files))
        with connection.cursor() as cursor:
            for table in (*HEAD_TABLES, *(HISTORY_TABLES if as_of_resolve else ())):
                cursor.execute(f"VACUUM ANALYZE {table}")
        self.stdout.write(
            f"loaded {len(commits)} commits in {time.perf_counter() - started:.0f}s (kept)"
        )
        return namespace

    def _commit(self, namespace: Namespace, files: dict[str, bytes | None]) -> str:
        result = repository_commit(
            prefix=namespace.storage_prefix, apply=lambda snapshot: files, message="bench write"
        )
        after_repository_change(namespace=namespace, commit=result.commit)
        return result.commit

    def _patch_embedder(self) -> None:
        """Cue vectors around real embeddings of a few hundred sentences (see the module
        docstring): the indexer's embedder is replaced for this process only."""
        base_texts = [
            SENTENCES[i % len(SENTENCES)].format(self.words[i], self.words[-i - 1].capitalize())
            for i in range(500)
        ]
        base = np.asarray(embed_texts(base_texts), dtype=np.float32)

        def embed(texts):
            out = []
            for text in texts:
                seed = zlib.crc32(text.encode())
                rng = np.random.default_rng(seed)
                vector = base[seed % len(base)] + rng.normal(0.0, 0.032, base.shape[1])
                out.append((vector / np.linalg.norm(vector)).astype(np.float32).tolist())
            return out

        indexer.embed_texts = embed

    def _queries(self, count: int) -> list[str]:
        rng = np.random.default_rng(self.opts["seed"] + 1)
        queries = []
        for _ in range(count):
            i = int(rng.integers(0, self.opts["memories"]))
            entity = self.words[(i * 7919) % len(self.words)].capitalize()
            topic = self.words[(i * 104729 + 13) % 600]
            extra = " ".join(self.words[int(rng.integers(0, 300))] for _ in range(2))
            queries.append(f"what did {entity} say about the {topic} {extra}")
        return queries

    # --- measuring --------------------------------------------------------------------

    def _measure(self, namespace, commits, queries, vectors) -> dict:
        points = {}
        if as_of_resolve is not None and not self.opts["head_only"]:
            loaded = commits[9] if len(commits) > 9 else commits[-1]
            points = {
                "as_of_loaded": loaded,  # all memories, before any rewrite
                "as_of_half": commits[min(4, len(commits) - 1)],  # half of them
                "as_of_head": commits[-1],  # the head, through the history tables
            }
        times: dict[str, list[float]] = {"head": [], **{name: [] for name in points}}
        for round_ in range(2):  # the first round warms up and is not counted
            for query, vector in zip(queries, vectors, strict=True):
                for name in times:
                    started = time.perf_counter()
                    if name == "head":
                        fused_search(namespace=namespace, query=query, embedding=vector)
                    else:
                        past = as_of_resolve(namespace=namespace, value=points[name])
                        fused_search(namespace=namespace, query=query, embedding=vector, as_of=past)
                    if round_:
                        times[name].append((time.perf_counter() - started) * 1000.0)
        report: dict = {}
        head_p50 = statistics.median(times["head"])
        head_p95 = _percentile(times["head"], 0.95)
        for name, values in times.items():
            p50, p95 = statistics.median(values), _percentile(values, 0.95)
            report[name] = {"p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}
            line = f"{name:>13}: p50 {p50:6.2f} ms  p95 {p95:6.2f} ms"
            if name != "head":
                report[name]["ratio_p50"] = round(p50 / head_p50, 2)
                report[name]["ratio_p95"] = round(p95 / head_p95, 2)
                line += f"  ({p50 / head_p50:.2f}x / {p95 / head_p95:.2f}x the head)"
            self.stdout.write(line)
        if self.opts["verbose"] and points:
            past = as_of_resolve(namespace=namespace, value=points["as_of_loaded"])
            found = fused_search(
                namespace=namespace,
                query=queries[0],
                embedding=vectors[0],
                as_of=past,
                explain=True,
            )
            self.stdout.write(found.plan or "")
        return report

    def _storage(self, namespace) -> dict:
        rows = {}
        with namespace_scope(namespace), connection.cursor() as cursor:
            for table in (*HISTORY_TABLES, *HEAD_TABLES):
                cursor.execute(f"SELECT count(*) FROM {table}")  # noqa: S608 - constant names
                rows[table] = cursor.fetchone()[0]
        sizes = {}
        with connection.cursor() as cursor:
            for table in (*HISTORY_TABLES, *HEAD_TABLES):
                # (a partitioned table's size is its partitions')
                cursor.execute(
                    "SELECT coalesce((SELECT sum(pg_total_relation_size(relid))"
                    " FROM pg_partition_tree(%(t)s::regclass)),"
                    " pg_total_relation_size(%(t)s::regclass))",
                    {"t": table},
                )
                sizes[table] = int(cursor.fetchone()[0])
        versions = rows["retrieval_document_history"] or 1
        heads = rows["retrieval_document"] or 1
        history_bytes = sum(sizes[t] for t in HISTORY_TABLES if t != "retrieval_commit")
        head_bytes = sum(sizes[t] for t in HEAD_TABLES)
        report = {
            "history_versions": rows["retrieval_document_history"],
            "commits": rows["retrieval_commit"],
            "rows": rows,
            "bytes": sizes,
            "history_bytes_per_version": round(history_bytes / versions),
            "head_bytes_per_memory": round(head_bytes / heads),
            "commit_bytes_per_commit": round(
                sizes["retrieval_commit"] / (rows["retrieval_commit"] or 1)
            ),
            "history_rows_per_version": {
                t: round(rows[t] / versions, 1)
                for t in HISTORY_TABLES
                if t not in ("retrieval_commit", "retrieval_document_history")
            },
        }
        self.stdout.write(
            f"history: {report['history_versions']:,} versions over {report['commits']} commits,"
            f" {history_bytes / 1e6:.1f} MB ({report['history_bytes_per_version']:,} bytes a"
            f" version: {report['history_rows_per_version']} rows); head"
            f" {report['head_bytes_per_memory']:,} bytes a memory; a commit row"
            f" {report['commit_bytes_per_commit']} bytes"
        )
        return report


def _loadavg() -> tuple[float, float, float]:
    import os

    return os.getloadavg()
