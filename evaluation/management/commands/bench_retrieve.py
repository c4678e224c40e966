"""Benchmark the fused retrieval query at scale.

    GITLOOM_DATA_DIR=/tmp/gl-bench python manage.py bench_retrieve \\
        [--sizes 1000,10000,100000] [--total-cues 1000000] [--json] [--verbose]

What it builds (once; kept between runs under the account ``bench-retrieval``, so use
a scratch GITLOOM_DATA_DIR, which it migrates first; ``--reset`` rebuilds):

- one namespace per size in ``--sizes`` (memories), plus a small one (``--small``,
  100 memories), plus filler namespaces of ``--filler-size`` memories until the cue
  table holds ``--total-cues`` rows across all namespaces;
- every memory has ``--cues-per-memory`` cues and a body. Bodies are real sentences
  (LoCoMo dialogue turns, ``--data``, default ``data/locomo10.json`` in the project: the
  file of that name from https://github.com/snap-research/locomo, not shipped), so BM25
  sees real term statistics. Cue vectors
  are drawn around REAL MiniLM embeddings of those sentences (the base embedding plus
  Gaussian noise, cosine ~0.85 to its base; a memory's second cue mixes in another
  sentence), never uniform random: on uniform random 384-d vectors HNSW recall is
  near zero and the figures would mean nothing;
- rows are loaded in bulk: documents and postings with INSERT .. SELECT inside each
  namespace's scope (RLS refuses COPY), cue rows with binary COPY into a plain table
  that is then attached as the namespace's partition, so its HNSW index is built once
  over the loaded rows rather than row by row.

What it measures, per namespace size: the wall time of ``fused_search`` (scope, plan
settings and the one fused statement; three arms, default parameters) over real LoCoMo
questions with their real embeddings, p50/p95; the same plus embedding the question
with the configured model, as ``/v1/retrieve`` does it (the lexical arm runs on the
server while the question is embedded); and the recall of the semantic arm (its
memories) against the same query ordered so that no index can serve it, i.e. an exact
scan; and how close the lexical arm (which reads a budget of postings) stays to
exhaustive BM25: the share of exhaustive BM25's top 10 (ties at the 10th score count)
in its own top 10, ageing off. ``--verbose`` prints
``EXPLAIN (ANALYZE, BUFFERS)`` of one query per size. ``--json`` ends with one JSON
line: p50_ms, p95_ms, p95_ms_with_embedding, semantic_recall, lexical_recall_at_10
(keyed by size) and cue_rows, plus the server's shared_buffers and the machine's load
average, since the figures depend on both: the 100,000-memory namespace's cue
partition and its HNSW graph are ~780 MB, which Postgres's default 128 MB of shared
buffers cannot hold (every query then re-reads pages from the OS cache); the embedded
server runs with GITLOOM_POSTGRES_SHARED_BUFFERS (1GB).
"""

from __future__ import annotations

import functools
import json
import math
import statistics
import time
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.test import override_settings

from accounts.models import Account
from evaluation.locomo import DEFAULT_DATA, locomo_missing
from namespaces.memory_format import TIERS as MEMORY_TIERS
from namespaces.models import Namespace
from retrieval.embeddings import embed_query, embed_texts
from retrieval.indexer import derive_postings, document_terms_sql
from retrieval.models import cue_partition
from retrieval.query import FusionParams, fused_search
from retrieval.scope import namespace_scope
from retrieval.services import cue_partition_drop

ACCOUNT = "bench-retrieval"
TIERS = ("facts", "facts", "facts", "preferences", "events", "working")
# Questions asked of each namespace before the timed ones (ten, before): at 100,000
# memories the timed loop's p95 came out about twice that of the loop with embeddings
# that ran after it on the same questions, as if still reading pages in. A hundred
# did not end such runs on a noisy machine (32.9 ms once, 13.6-14.8 ms in others).
WARM_UP_QUERIES = 100
TAGS = ("work", "family", "travel", "health", "hobby", "food", "money", "home")

_INSERT_BENCH_DOCUMENTS = f"""
INSERT INTO retrieval_document (
    namespace_id, path, blob_sha, tier, tags, cues, created, updated, confidence,
    sources, related, body, tsv, cue_length, body_length
)
SELECT %(ns)s,
       r.tier || '/bench-' || (r.i / 200) || '/m' || r.i || '.md',
       md5(r.i::text || r.body)::varchar(40),
       r.tier, ARRAY[r.tag], ARRAY[r.cue1, r.cue2],
       now() - make_interval(days => (r.i %% 400)::int),
       now() - make_interval(days => (r.i %% 400)::int),
       NULL, ARRAY['msg-' || r.i], '[]'::jsonb, r.body, v.tsv, lengths.cues, lengths.body
FROM unnest(%(bodies)s::text[], %(cue1)s::text[], %(cue2)s::text[], %(tiers)s::text[],
            %(tags)s::text[]) WITH ORDINALITY AS r(body, cue1, cue2, tier, tag, i)
{document_terms_sql(cue_text="r.cue1 || ' ' || r.cue2", body="r.body")}
RETURNING id, path
"""  # noqa: S608 - only constant SQL is interpolated

_INSERT_BENCH_EDGES = """
INSERT INTO retrieval_edge (
    namespace_id, src_document_id, src_path, dst_path, dst_document_id, type
)
SELECT %(ns)s, s.id, s.path, d.path, d.id, 'related'
FROM unnest(%(src)s::bigint[], %(dst)s::bigint[]) AS pair(src, dst)
JOIN retrieval_document s ON s.id = pair.src
JOIN retrieval_document d ON d.id = pair.dst
ON CONFLICT DO NOTHING
"""


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


class Command(BaseCommand):
    help = "Benchmark the fused retrieval query (latency, semantic recall) at scale."

    def add_arguments(self, parser):
        parser.add_argument(
            "--sizes",
            default="1000,10000,100000",
            help="namespace sizes to measure (sizes the data already holds are kept)",
        )
        parser.add_argument("--small", type=int, default=100, help="small namespace size")
        parser.add_argument("--total-cues", type=int, default=1_000_000)
        parser.add_argument("--cues-per-memory", type=int, default=2, choices=[1, 2])
        parser.add_argument("--filler-size", type=int, default=2000)
        parser.add_argument("--queries", type=int, default=200)
        parser.add_argument("--recall-queries", type=int, default=200)
        parser.add_argument(
            "--data",
            default=str(DEFAULT_DATA),
            help=f"LoCoMo-format JSON, for real sentences (default {DEFAULT_DATA})",
        )
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--reset", action="store_true", help="rebuild the bench data")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--verbose", action="store_true")

    # --- entry ------------------------------------------------------------------------

    def handle(self, *args, **opts):
        try:
            sizes = [int(s) for s in opts["sizes"].split(",") if s.strip()]
        except ValueError:
            raise CommandError("--sizes takes comma-separated integers") from None
        self.opts = opts
        texts, questions = self._load_texts(Path(opts["data"]))
        call_command("migrate", verbosity=0)  # a fresh GITLOOM_DATA_DIR has no tables yet
        self.texts = texts
        self.base = self._base_embeddings(texts)
        measured = [("small", opts["small"])] + [(f"size-{n}", n) for n in sizes]
        # The sizes the data already holds stay in it whatever is measured: a run with
        # fewer --sizes used to drop the namespaces it did not list and re-plan the
        # fillers, and the next full run then measured rebuilt data.
        held = sorted(set(sizes) | (set() if opts["reset"] else self._held_sizes()))
        plan = [("small", opts["small"])] + [(f"size-{n}", n) for n in held]
        used = sum(n for _, n in plan) * opts["cues_per_memory"]
        remaining = max(0, opts["total_cues"] - used)
        per_filler = opts["filler_size"] * opts["cues_per_memory"]
        for index in range(math.ceil(remaining / per_filler) if remaining else 0):
            cues = min(per_filler, remaining - index * per_filler)
            plan.append((f"filler-{index:04d}", math.ceil(cues / opts["cues_per_memory"])))
        namespaces = self._ensure_data(plan)
        cue_rows = self._cue_rows()
        self.stdout.write(f"cue rows across {len(plan)} namespaces: {cue_rows:,}")

        # The questions have their own generator: drawn from the one that made the
        # data, they changed whenever a run had loaded something first.
        asking = np.random.default_rng([opts["seed"], 1])
        picked = asking.choice(len(questions), size=min(opts["queries"], len(questions)))
        queries = [questions[i] for i in picked]
        # Caches are warmed with other questions than the timed ones: a service's hot
        # namespace is in memory, but not the very pages of the questions it is asked.
        chosen = set(picked.tolist())
        others = [q for i, q in enumerate(questions) if i not in chosen]
        warm_up = [others[i] for i in asking.permutation(len(others))[:WARM_UP_QUERIES]]
        self.warm_up = list(zip(warm_up, embed_texts(warm_up), strict=True))
        vectors = embed_texts(queries)
        report = {
            "p50_ms": {},
            "p95_ms": {},
            "p95_ms_with_embedding": {},
            "p50_ms_with_embedding": {},
            "semantic_recall": {},
            "lexical_recall_at_10": {},
            "cue_rows": cue_rows,
        }
        for name, size in measured:
            self._measure(namespaces[name], str(size), queries, vectors, report)
        report["load_average"] = [round(x, 2) for x in _loadavg()]
        with connection.cursor() as cursor:
            cursor.execute("SHOW shared_buffers")
            report["shared_buffers"] = cursor.fetchone()[0]
        self.stdout.write(
            f"shared_buffers {report['shared_buffers']}, load average "
            f"{' '.join(str(x) for x in report['load_average'])} (2 cores, shared)"
        )
        if opts["json"]:
            self.stdout.write(json.dumps(report))

    # --- inputs -----------------------------------------------------------------------

    def _load_texts(self, path: Path) -> tuple[list[str], list[str]]:
        if not path.is_file():
            raise CommandError(locomo_missing(path=path))
        data = json.loads(path.read_text())
        texts, questions = [], []
        for sample in data:
            for key, turns in sample["conversation"].items():
                if key.startswith("session_") and isinstance(turns, list):
                    texts.extend(t["text"] for t in turns if t.get("text"))
            questions.extend(str(qa["question"]) for qa in sample["qa"] if qa.get("question"))
        return list(dict.fromkeys(texts)), questions

    def _base_embeddings(self, texts: list[str]) -> np.ndarray:
        cache = Path(settings.GITLOOM_DATA_DIR) / "bench" / "retrieve-base.npy"
        if cache.exists():
            base = np.load(cache)
            if base.shape[0] == len(texts):
                return base
        started = time.perf_counter()
        base = np.asarray(embed_texts(texts), dtype=np.float32)
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, base)
        self.stdout.write(
            f"embedded {len(texts)} real sentences in {time.perf_counter() - started:.0f}s"
        )
        return base

    # --- data -------------------------------------------------------------------------

    def _ensure_data(self, plan: list[tuple[str, int]]) -> dict[str, Namespace]:
        account, _ = Account.objects.get_or_create(id=ACCOUNT)
        wanted = dict(plan)
        existing = {ns.name: ns for ns in Namespace.objects.filter(account=account)}
        for name, namespace in list(existing.items()):
            if self.opts["reset"] or name not in wanted or self._size(namespace) != wanted[name]:
                self._drop(namespace)
                del existing[name]
        missing = [(name, size) for name, size in plan if name not in existing]
        if missing:
            self.stdout.write(f"loading {len(missing)} namespaces (kept for later runs)...")
            started = time.perf_counter()
            for count, (name, size) in enumerate(missing, 1):
                existing[name] = self._load(account, name, size)
                if count % 10 == 0 or size >= 10000:
                    self.stdout.write(
                        f"  {count}/{len(missing)} loaded ({time.perf_counter() - started:.0f}s)"
                    )
            with connection.cursor() as cursor:
                for table in ("retrieval_document", "retrieval_posting", "retrieval_term_stat",
                              "retrieval_edge", "retrieval_cue"):  # fmt: skip
                    cursor.execute(f"VACUUM ANALYZE {table}")
            self.stdout.write(f"loaded in {time.perf_counter() - started:.0f}s")
        return existing

    def _held_sizes(self) -> set[int]:
        names = Namespace.objects.filter(account_id=ACCOUNT, name__startswith="size-")
        return {
            int(name[5:]) for name in names.values_list("name", flat=True) if name[5:].isdigit()
        }

    def _size(self, namespace: Namespace) -> int | None:
        with namespace_scope(namespace), connection.cursor() as cursor:
            cursor.execute("SELECT doc_count FROM retrieval_index_state")
            row = cursor.fetchone()
            cursor.execute(
                "SELECT count(*) FROM pg_inherits WHERE inhrelid = to_regclass(%s)",
                [cue_partition(namespace.pk)],
            )
            attached = cursor.fetchone()[0] == 1
        return row[0] if row and attached else None

    def _drop(self, namespace: Namespace) -> None:
        namespace_id = namespace.pk
        namespace.delete()  # the retrieval_namespace_forget trigger empties its rows
        cue_partition_drop(namespace_id)

    def _vectors(self, centers: np.ndarray, mix: np.ndarray | None) -> np.ndarray:
        # Per-dimension noise 0.032 gives a perturbation of norm ~0.62, i.e. a cosine of
        # ~0.85 to the real embedding it is drawn around.
        vectors = self.base[centers].copy()
        if mix is not None:
            vectors = 0.75 * vectors + 0.35 * self.base[mix]
        vectors += self.rng.normal(0.0, 0.032, size=vectors.shape).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors.astype(np.float32)

    def _load(self, account: Account, name: str, size: int) -> Namespace:
        # Each namespace's own generator: the same name and size make the same data in
        # whatever order namespaces are (re)loaded.
        self.rng = np.random.default_rng([self.opts["seed"], zlib.crc32(name.encode())])
        namespace = Namespace.objects.create(account=account, name=name)
        ns = namespace.pk
        count = len(self.texts)
        centers = self.rng.integers(0, count, size=size)
        seconds = self.rng.integers(0, count, size=size)
        bodies = [self.texts[i] for i in centers]
        cue1 = [f"{self.texts[i][:80]} ({n})" for n, i in enumerate(centers)]
        cue2 = [f"{self.texts[i][:60]} / {n}" for n, i in enumerate(seconds)]
        tiers = [TIERS[i % len(TIERS)] for i in range(size)]
        tags = [TAGS[i % len(TAGS)] for i in self.rng.integers(0, len(TAGS), size=size)]
        with namespace_scope(namespace), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO retrieval_index_state (namespace_id, indexed_commit)"
                " VALUES (%s, 'bench')",
                [ns],
            )
            cursor.execute(
                _INSERT_BENCH_DOCUMENTS,
                {
                    "ns": ns,
                    "bodies": bodies,
                    "cue1": cue1,
                    "cue2": cue2,
                    "tiers": tiers,
                    "tags": tags,
                },  # fmt: skip
            )
            by_index = {int(path.rsplit("/m", 1)[1][:-3]): doc for doc, path in cursor.fetchall()}
            ids = [by_index[i + 1] for i in range(size)]
            derive_postings(namespace_id=ns, document_ids=ids)
            linked = self.rng.random(size) < 0.3
            src = [ids[i] for i in np.flatnonzero(linked)]
            dst = [ids[i] for i in self.rng.integers(0, size, size=len(src))]
            cursor.execute(_INSERT_BENCH_EDGES, {"ns": ns, "src": src, "dst": dst})
        self._load_cues(namespace, ids, tiers, tags, cue1, cue2, centers, seconds)
        return namespace

    def _load_cues(self, namespace, ids, tiers, tags, cue1, cue2, centers, seconds) -> None:
        from pgvector.psycopg import register_vector

        ns = namespace.pk
        table = cue_partition(ns)
        first = self._vectors(centers, None)
        second = self._vectors(centers, seconds) if self.opts["cues_per_memory"] == 2 else None
        connection.ensure_connection()
        raw = connection.connection
        register_vector(raw)
        with connection.cursor() as cursor:
            # A plain table first: no RLS (so COPY is allowed), no indexes (so the HNSW
            # graph is built once, by ATTACH, over all rows).
            cursor.execute(f'CREATE TABLE "{table}" (LIKE retrieval_cue INCLUDING DEFAULTS)')
        with (
            raw.cursor() as cur,
            cur.copy(
                f'COPY "{table}" (namespace_id, document_id, cue, tier, tags, embedding)'
                " FROM STDIN WITH (FORMAT BINARY)"
            ) as copy,
        ):
            copy.set_types(["int8", "int8", "text", "varchar", "text[]", "vector"])
            for i, doc in enumerate(ids):
                copy.write_row((ns, doc, cue1[i], tiers[i], [tags[i]], first[i]))
                if second is not None:
                    copy.write_row((ns, doc, cue2[i], tiers[i], [tags[i]], second[i]))
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '1GB'")
            cursor.execute("SELECT retrieval_cue_partition_create(%s)", [ns])
            cursor.execute("RESET maintenance_work_mem")

    def _cue_rows(self) -> int:
        with connection.cursor() as cursor:
            # Planner statistics of every partition (RLS hides the rows themselves).
            cursor.execute(
                "SELECT coalesce(sum(c.reltuples), 0)::bigint FROM pg_inherits i"
                " JOIN pg_class c ON c.oid = i.inhrelid"
                " WHERE i.inhparent = 'retrieval_cue'::regclass"
            )
            return cursor.fetchone()[0]

    # --- measuring --------------------------------------------------------------------

    def _measure(self, namespace, key, queries, vectors, report) -> None:
        for query, vector in self.warm_up:
            fused_search(namespace=namespace, query=query, embedding=vector)
        plain, with_embedding = [], []
        for query, vector in zip(queries, vectors, strict=True):
            started = time.perf_counter()
            fused_search(namespace=namespace, query=query, embedding=vector)
            plain.append((time.perf_counter() - started) * 1000)
        # Every query is embedded afresh: the per-process query cache would otherwise
        # answer the repeats (the same questions at every size) without the model. As
        # /v1/retrieve does it: embedded while the server runs the lexical arm.
        with override_settings(GITLOOM_EMBEDDING_QUERY_CACHE=0):
            for query in queries:
                started = time.perf_counter()
                fused_search(namespace=namespace, query=query, embedding=None,
                             embed=functools.partial(embed_query, query))  # fmt: skip
                with_embedding.append((time.perf_counter() - started) * 1000)
        recalls = []
        count = self.opts["recall_queries"]
        for query, vector in zip(queries[:count], vectors[:count], strict=True):
            args = {"namespace": namespace, "query": query, "embedding": vector,
                    "arms": ("semantic",), "limit": 100}  # fmt: skip
            approx = {hit.path for hit in fused_search(**args).hits}
            exact = {hit.path for hit in fused_search(**args, exact=True).hits}
            recalls.append(len(approx & exact) / len(exact) if exact else 1.0)
        lexical = [self._lexical_recall(namespace, query) for query in queries[:count]]
        report["p50_ms"][key] = round(statistics.median(plain), 2)
        report["p95_ms"][key] = round(_percentile(plain, 0.95), 2)
        report["p50_ms_with_embedding"][key] = round(statistics.median(with_embedding), 2)
        report["p95_ms_with_embedding"][key] = round(_percentile(with_embedding, 0.95), 2)
        report["semantic_recall"][key] = round(sum(recalls) / len(recalls), 4)
        report["lexical_recall_at_10"][key] = round(sum(lexical) / len(lexical), 4)
        self.stdout.write(
            f"{int(key):>7} memories: p50 {report['p50_ms'][key]:6.2f} ms  "
            f"p95 {report['p95_ms'][key]:6.2f} ms  | with embedding p50 "
            f"{report['p50_ms_with_embedding'][key]:6.2f} p95 "
            f"{report['p95_ms_with_embedding'][key]:6.2f} ms  | semantic recall "
            f"{report['semantic_recall'][key]:.4f} ({len(recalls)} queries) | BM25 top 10 "
            f"{report['lexical_recall_at_10'][key]:.4f}"
        )
        if self.opts["verbose"]:
            plan = fused_search(
                namespace=namespace, query=queries[0], embedding=vectors[0], explain=True
            ).plan
            self.stdout.write(f"EXPLAIN (ANALYZE, BUFFERS), {key} memories, {queries[0]!r}:")
            self.stdout.write(_shorten_vectors(plan))

    def _lexical_recall(self, namespace, query: str, k: int = 10) -> float:
        """The share of exact BM25's top k (ties at the k-th score count) that the
        lexical arm, which reads a budget of postings per term, returns in its top k.
        Ageing is off for both: this compares the arm's order, not the fusion's."""
        timeless = dict.fromkeys(MEMORY_TIERS)
        exhaustive = replace(
            FusionParams(),
            lexical_postings=10**9,
            lexical_term_postings_min=10**9,
            lexical_idf_power=0.0,
            lexical_rescore=10**9,
            lexical_depth=k * 10,
        )
        exact = fused_search(namespace=namespace, query=query, embedding=None,
                             arms=("lexical",), limit=k * 10, params=exhaustive,
                             half_life_days=timeless).hits  # fmt: skip
        if not exact:
            return 1.0
        scores = {hit.path: hit.arms["lexical"]["score"] for hit in exact}
        kth = sorted(scores.values(), reverse=True)[min(k, len(scores)) - 1]
        found = fused_search(namespace=namespace, query=query, embedding=None,
                             arms=("lexical",), limit=k, half_life_days=timeless).hits  # fmt: skip
        good = sum(1 for hit in found if scores.get(hit.path, -1.0) >= kth - 1e-9)
        return good / min(k, len(scores))


def _shorten_vectors(plan: str) -> str:
    """The query vector is 384 numbers; print its first few."""
    import re

    return re.sub(r"'\[([^\]]{60})[^\]]*\]'::vector", r"'[\1...]'::vector", plan)


def _loadavg() -> tuple[float, float, float]:
    import os

    return os.getloadavg()
