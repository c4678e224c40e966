"""Benchmark and check the local query embedder: ONNX against torch.

    python manage.py bench_embed [--data PATH] [--queries 300] [--threads 1,2]
        [--torch-threads 1] [--json]

It reads the questions of a LoCoMo-format file (``--data``, default
``data/locomo10.json`` in the project: the file of that name from
https://github.com/snap-research/locomo, not shipped; read in place) and reports:

agreement
    every question embedded by the ONNX runtime (one at a time, and in batches of 64,
    as indexing does) and by the int8 query copy (one at a time, as ``/v1/retrieve``
    does) against sentence-transformers on torch: min and mean cosine, and the share of
    questions whose token ids the ONNX runtime's tokenizer reproduces exactly;
latency
    one question embedded at a time, p50/p95 in ms, for torch at ``--torch-threads``
    and ONNX (float and the int8 query copy) at each of ``--threads``, the runtimes
    taking turns question by question so a busy machine slows them alike; and a repeated
    question answered from the query cache;
cue batches
    the questions in batches of 64 (as the indexer embeds cues), ms per batch, torch and
    the float ONNX graph taking turns batch by batch;
imports
    the seconds (wall and CPU) a fresh interpreter spends importing each runtime's
    libraries: torch + sentence-transformers, or onnxruntime + tokenizers.

torch and sentence-transformers come with ``requirements-dev.txt`` only; without them
the figures that need torch are left out (and said to be). The first run builds the
ONNX graph under ``GITLOOM_DATA_DIR/models`` if it is not there yet. ``--json`` ends
with one JSON line of all the figures, with the machine's load average.
"""

from __future__ import annotations

import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError

from evaluation.locomo import DEFAULT_DATA, locomo_missing
from retrieval import embeddings

IMPORTS = {
    "torch": "import torch, sentence_transformers",
    "onnx": "import onnxruntime, tokenizers",
}


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(values), 2),
        "p95_ms": round(_percentile(values, 0.95), 2),
    }


class Command(BaseCommand):
    help = "Query embedding: ONNX vs torch agreement (cosine) and latency, import time."

    def add_arguments(self, parser):
        parser.add_argument(
            "--data",
            type=Path,
            default=DEFAULT_DATA,
            help=f"LoCoMo-format JSON, for real questions (default {DEFAULT_DATA})",
        )
        parser.add_argument("--queries", type=int, default=300, help="questions timed")
        parser.add_argument(
            "--threads",
            default=str(settings.GITLOOM_EMBEDDING_THREADS),
            help="comma-separated ONNX intra-op thread counts to time",
        )
        parser.add_argument("--torch-threads", type=int, default=1)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, data: Path, queries: int, threads: str, torch_threads: int, **opts):
        try:
            thread_counts = [int(t) for t in threads.split(",") if t.strip()]
        except ValueError:
            raise CommandError("--threads takes comma-separated integers") from None
        if not data.is_file():
            raise CommandError(locomo_missing(path=data))
        questions = _questions(data)
        if not questions:
            raise CommandError(f"{data} holds no questions.")
        report: dict = {"questions": len(questions)}

        try:
            torch = embeddings.local_encoder(runtime_name="torch", threads=torch_threads)
        except ImproperlyConfigured:
            torch = None
            self.stdout.write("torch and sentence-transformers are not installed: no torch figures")
        imports = IMPORTS if torch else {"onnx": IMPORTS["onnx"]}
        report["imports"] = {name: _import_seconds(code) for name, code in imports.items()}
        for name, figures in report["imports"].items():
            self.stdout.write(
                f"import {name:5}: {figures['wall_s']:.2f} s wall, {figures['cpu_s']:.2f} s CPU"
            )

        started = time.perf_counter()
        path = embeddings.onnx_model_file()
        existed = path.is_file()
        onnx = {n: embeddings.local_encoder(runtime_name="onnx", threads=n) for n in thread_counts}
        int8 = {
            n: embeddings.local_encoder(runtime_name="onnx-int8", threads=n) for n in thread_counts
        }
        report["onnx_file"] = str(path)
        self.stdout.write(
            f"ONNX graph {path} ({'cached' if existed else 'built'}); runtimes ready in "
            f"{time.perf_counter() - started:.1f} s"
        )

        report["onnx_int8_file"] = str(embeddings.onnx_query_model_file())
        if torch:
            report["agreement"] = self._agreement(
                questions, onnx[thread_counts[0]], torch, int8[thread_counts[0]]
            )

        timed = questions[:queries]
        runners = (
            ({f"torch_{torch_threads}t": torch} if torch else {})
            | {f"onnx_{n}t": f for n, f in onnx.items()}
            | {f"onnx_int8_{n}t": f for n, f in int8.items()}
        )
        for runner in runners.values():  # warm: first calls allocate
            for question in timed[:10]:
                runner([question])
        latencies: dict[str, list[float]] = {name: [] for name in runners}
        for question in timed:
            for name, runner in runners.items():
                began = time.perf_counter()
                runner([question])
                latencies[name].append((time.perf_counter() - began) * 1000)
        report["latency"] = {name: _summary(values) for name, values in latencies.items()}
        report["latency"]["cache_hit"] = _summary(_cache_hits(timed))
        for name, figures in report["latency"].items():
            self.stdout.write(
                f"query embedding {name:12}: p50 {figures['p50_ms']:6.2f} ms  "
                f"p95 {figures['p95_ms']:6.2f} ms  ({len(timed)} questions)"
            )
        batchers = ({f"torch_{torch_threads}t": torch} if torch else {}) | {
            f"onnx_{n}t": f for n, f in onnx.items()
        }
        batches = [timed[start : start + 64] for start in range(0, len(timed) - 63, 64)]
        batch_ms: dict[str, list[float]] = {name: [] for name in batchers}
        for batch in batches:
            for name, runner in batchers.items():
                began = time.perf_counter()
                runner(batch)
                batch_ms[name].append((time.perf_counter() - began) * 1000)
        report["cue_batch_64"] = {name: _summary(v) for name, v in batch_ms.items() if v}
        for name, figures in report["cue_batch_64"].items():
            self.stdout.write(
                f"cue batch of 64 {name:12}: p50 {figures['p50_ms']:6.1f} ms  "
                f"p95 {figures['p95_ms']:6.1f} ms  ({len(batches)} batches)"
            )
        report["load_average"] = [round(x, 2) for x in os.getloadavg()]
        report["cpus"] = len(os.sched_getaffinity(0))
        self.stdout.write(
            f"load average {' '.join(str(x) for x in report['load_average'])} "
            f"({report['cpus']} cores, shared)"
        )
        if opts["json"]:
            self.stdout.write(json.dumps(report))

    def _agreement(self, questions, onnx, torch, int8) -> dict:
        reference = np.asarray(torch(questions))
        single = np.asarray([onnx([question])[0] for question in questions])
        queries = np.asarray([int8([question])[0] for question in questions])
        batched = np.asarray(
            [
                v
                for start in range(0, len(questions), 64)
                for v in onnx(questions[start : start + 64])
            ]
        )
        result = {}
        for name, vectors in (("single", single), ("batch", batched), ("int8", queries)):
            cosines = (vectors * reference).sum(axis=1)
            result[name] = {
                "min_cosine": round(float(cosines.min()), 7),
                "mean_cosine": round(float(cosines.mean()), 7),
            }
            self.stdout.write(
                f"cosine ONNX vs torch, {name:6}: min {cosines.min():.7f}  "
                f"mean {cosines.mean():.7f}  ({len(questions)} LoCoMo questions)"
            )
        result["same_token_ids"] = round(_same_token_ids(questions), 4)
        self.stdout.write(
            f"token ids identical to torch's tokenizer: {result['same_token_ids']:.4f}"
        )
        return result


def _questions(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    found = [str(qa["question"]) for sample in data for qa in sample["qa"] if qa.get("question")]
    return list(dict.fromkeys(found))


def _same_token_ids(questions: list[str]) -> float:
    ours = embeddings._onnx_tokenizer()
    theirs = embeddings._local_model().tokenizer
    same = 0
    for question in questions:
        expected = theirs(question, truncation=True, max_length=ours.truncation["max_length"])
        same += ours.encode(question).ids == expected["input_ids"]
    return same / len(questions)


def _cache_hits(questions: list[str]) -> list[float]:
    """embed_query of a question asked just before (the per-process LRU cache)."""
    times = []
    for question in questions:
        embeddings.embed_query(question)
        began = time.perf_counter()
        embeddings.embed_query(question)
        times.append((time.perf_counter() - began) * 1000)
    return times


def _import_seconds(code: str) -> dict[str, float]:
    """Wall and CPU seconds of a fresh interpreter that imports ``code`` (less an empty one)."""

    def run(statement: str) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], check=True)  # noqa: S603
        wall = time.perf_counter() - began
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu

    base_wall, base_cpu = run("pass")
    wall, cpu = run(code)
    return {"wall_s": round(wall - base_wall, 2), "cpu_s": round(cpu - base_cpu, 2)}
