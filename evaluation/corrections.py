"""The correction corpus evaluation behind ``manage.py eval_corrections``.

A harness at the management-command level (it drives accounts, namespaces, the write
path and retrieval through their public services). Each case of the corpus
(``tests/evaluation/data/corrections.json`` by default) goes into a fresh namespace of the
account ``eval-corrections``: its earlier sessions are posted one job each through the
real queue path, then its update session. A **correction** case is right when the update
job rewrote exactly the file that held ``target`` (and created nothing that restates the
corrected value instead); a **distractor** case is right when it rewrote nothing. After a
correction, ``question`` is asked of the retrieval selector, and the case ranks when the
first result states ``new``.

Figures: recall (corrections that rewrote the right file), precision (rewrites that hit
the right file, over every rewrite made, distractors included), the distractors merged
wrongly, and the share of corrections whose question ranks the new value first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from accounts.models import Account
from accounts.services import account_create
from memories.jobs import drain_namespace, drains_inline
from memories.models import Job
from memories.services import job_accept
from namespaces.memory_format import parse_memory
from namespaces.models import Namespace
from namespaces.repository import repository_snapshot
from namespaces.services import namespace_create, namespace_delete
from retrieval.selectors import retrieve

ACCOUNT_ID = "eval-corrections"
DEFAULT_CORPUS = Path(settings.BASE_DIR) / "tests" / "evaluation" / "data" / "corrections.json"


@dataclass
class CaseResult:
    id: str
    kind: str
    expected: str | None  # the path that should be rewritten (corrections)
    rewritten: list[str]
    created: list[str]
    top: str = ""  # the first retrieval result's body (corrections)
    ranks: bool = False

    @property
    def right(self) -> bool:
        if self.kind == "correction":
            return self.expected is not None and self.rewritten == [self.expected]
        return not self.rewritten


@dataclass
class Report:
    cases: list[CaseResult] = field(default_factory=list)

    def figures(self) -> dict[str, float | int]:
        corrections = [c for c in self.cases if c.kind == "correction"]
        distractors = [c for c in self.cases if c.kind == "distractor"]
        rewrites = sum(len(c.rewritten) for c in self.cases)
        right_rewrites = sum(1 for c in corrections if c.expected in c.rewritten)
        return {
            "corrections": len(corrections),
            "distractors": len(distractors),
            "recall": _share(sum(c.right for c in corrections), len(corrections)),
            "precision": _share(right_rewrites, rewrites),
            "distractors_merged": _share(sum(not c.right for c in distractors), len(distractors)),
            "new_value_ranks_first": _share(sum(c.ranks for c in corrections), len(corrections)),
        }


def _share(n: int, d: int) -> float:
    return round(n / d, 3) if d else 0.0


def load_corpus(path: Path | None = None) -> list[dict]:
    return json.loads(Path(path or DEFAULT_CORPUS).read_text())["cases"]


def _account() -> Account:
    return Account.objects.filter(id=ACCOUNT_ID).first() or account_create(account_id=ACCOUNT_ID)


def _post(namespace: Namespace, texts: list[str], session: str, *, weeks_ago: int) -> Job:
    when = timezone.now() - timedelta(weeks=weeks_ago)
    messages = [
        {
            "id": f"{session}-m{i}",
            "role": "user",
            "content": text,
            # sessions a week apart, the update yesterday (events fade with age)
            "timestamp": (when - timedelta(days=1)).isoformat(),
        }
        for i, text in enumerate(texts)
    ]
    with drains_inline():
        job, _ = job_accept(namespace=namespace, messages=messages, session_id=session)
    job.refresh_from_db()
    if job.status == Job.Status.QUEUED:
        drain_namespace(namespace.pk)  # inside an outer transaction (a test)
        job.refresh_from_db()
    if job.status != Job.Status.DONE:
        raise RuntimeError(f"job {session} {job.status}: {job.error_code} {job.error_message}")
    return job


def run_case(*, account: Account, case: dict) -> CaseResult:
    name = f"corr-{case['id']}"[:64]
    old = Namespace.objects.filter(account=account, name=name).first()
    if old is not None:
        namespace_delete(namespace=old)
    namespace = namespace_create(account=account, name=name)
    try:
        for i, session in enumerate(case["sessions"]):
            _post(namespace, session, f"s-{i}", weeks_ago=len(case["sessions"]) - i)
        expected = None
        if case["kind"] == "correction":
            snapshot = repository_snapshot(prefix=namespace.storage_prefix)
            holding = [
                path
                for path in snapshot.paths()
                if case["target"] in parse_memory(snapshot.read(path) or b"", path=path).body
            ]
            expected = holding[-1] if holding else None
        job = _post(namespace, case["update"], f"s-{len(case['sessions'])}", weeks_ago=0)
        result = CaseResult(
            id=case["id"],
            kind=case["kind"],
            expected=expected,
            rewritten=sorted(job.result.get("rewritten", [])),
            created=sorted(job.result.get("created", [])),
        )
        if case["kind"] == "correction" and case.get("question"):
            hits = retrieve(namespace=namespace, query=case["question"], limit=5).results
            result.top = hits[0].memory.body if hits else ""
            result.ranks = case["new"].casefold() in result.top.casefold()
        return result
    finally:
        namespace_delete(namespace=namespace)


def evaluate(*, corpus: list[dict], only: str | None = None) -> Report:
    account = _account()
    report = Report()
    for case in corpus:
        if only and case["id"] != only:
            continue
        report.cases.append(run_case(account=account, case=case))
    return report
