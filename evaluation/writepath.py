"""The write-path scenario evaluation behind ``manage.py eval_writepath``.

A harness at the management-command level, and a user of the public HTTP API only: each
scenario gets a fresh namespace (``POST /v1/namespaces``), its sessions are posted in
order (``POST /v1/memories``, one request per session) and each job is awaited
(``GET /v1/jobs/<id>``); then every check's question is asked (``GET /v1/retrieve``,
limit 10) and the namespace's memories are read (``GET /v1/memories``, every page, and
``GET /v1/memories/<path>`` for each body) to measure the store as a whole. The scenario
format and the measures are described in docs/EVAL.md.

Two ways to reach the API (:class:`InProcessApi`, :class:`RemoteApi`):

in process (the default)
    Django's test ``Client`` against this project's URLs, with an API key of the
    account ``eval-writepath`` made for the run. The namespace's queue is drained in
    this process, the way ``eval_locomo --mode pipeline`` does it (``drains_inline``:
    the accepted job's on-commit drain runs at once, before the answer is sent; inside
    an outer transaction, as in a test, the harness drains the namespace itself). No
    worker cluster or server is needed, and the timing is the write path's own.
against a server (``--url`` and ``--key``)
    plain HTTP with that key; the server's own workers run the jobs, which are polled.

Pieces: :func:`load_scenarios` and the rebase (``writepath_rebase``), :func:`run_scenario`
(the API calls), :func:`score_scenario` (the per-scenario measures on what came back),
:func:`figures` (the totals, also per category).
"""

from __future__ import annotations

import json
import random
import re
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

from evaluation.grounding import said_of, ungrounded

ACCOUNT_ID = "eval-writepath"
JOB_TIMEOUT = 600.0  # seconds a job may take before the run gives up on it
FINISHED = ("done", "failed")
QUESTION_WORDS = frozenset(
    {"who", "what", "where", "when", "which", "how", "why", "do", "does", "did"}
    | {"is", "are", "am", "was", "can", "have", "has"}
)


# English function words (and chat filler) that say nothing about a fact: our own short
# list, so the figures do not depend on which NLP package happens to be installed.
_STOP_TEXT = """a about above after again against all also am an and any are aren't as at be
    because been before being below between both but by can can't could couldn't did
    didn't do does doesn't doing don't down during each even ever every few for from
    further get gets getting got had hadn't has hasn't have haven't having he he'd he'll
    he's her here here's hers herself him himself his how how's however i i'd i'll i'm
    i've if in into is isn't it it's its itself just let's like lol made make many may
    me might more most much must mustn't my myself never no nor not now of off often on
    once one only or other ought our ours ourselves out over own pretty quite rather
    really said same say says shall shan't she she'd she'll she's should shouldn't since
    so some something still such than that that's the their theirs them themselves then
    there there's these they they'd they'll they're they've thing things this those
    though through thanks to too under until up upon us very was wasn't we we'd we'll
    we're we've well were weren't what what's when when's where where's whether which
    while who who's whom whose why why's will with within without won't would wouldn't
    yeah yes yet you you'd you'll you're you've your yours yourself yourselves"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


class ApiError(RuntimeError):
    pass


# --- the API, in process or over HTTP -----------------------------------------------


class InProcessApi:
    """The project's own URLs through Django's test client, with a Bearer key."""

    def __init__(self) -> None:
        from django.test import Client

        from accounts.models import Account
        from accounts.services import account_create, api_key_create

        self.account = Account.objects.filter(id=ACCOUNT_ID).first() or account_create(
            account_id=ACCOUNT_ID
        )
        self.key, secret = api_key_create(account=self.account, name="eval_writepath")
        self.client = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")

    def call(self, method: str, path: str, *, params=None, body=None) -> tuple[int, dict]:
        if method == "GET":
            response = self.client.get(path, params or {})
        elif method == "POST":
            response = self.client.post(path, body or {}, content_type="application/json")
        else:
            response = self.client.delete(path)
        return response.status_code, (response.json() if response.content else {})

    def post_session(self, body: dict) -> tuple[int, dict]:
        from memories.jobs import drains_inline

        with drains_inline():
            return self.call("POST", "/v1/memories", body=body)

    def run_pending(self, namespace: str) -> None:
        """Inside an outer transaction (a test) the on-commit drain waits: drain now."""
        from memories.jobs import drain_namespace, drains_inline
        from namespaces.models import Namespace

        ns = Namespace.objects.get(account=self.account, name=namespace)
        with drains_inline():
            drain_namespace(ns.pk)

    def close(self) -> None:
        from accounts.services import api_key_revoke

        api_key_revoke(account=self.account, key_id=self.key.pk)


class RemoteApi:
    """A running GitLoom at ``url``; its workers run the jobs."""

    def __init__(self, *, url: str, key: str) -> None:
        import httpx

        self.client = httpx.Client(
            base_url=url.rstrip("/"), headers={"Authorization": f"Bearer {key}"}, timeout=60
        )

    def call(self, method: str, path: str, *, params=None, body=None) -> tuple[int, dict]:
        response = self.client.request(method, path, params=params, json=body)
        return response.status_code, (response.json() if response.content else {})

    def post_session(self, body: dict) -> tuple[int, dict]:
        return self.call("POST", "/v1/memories", body=body)

    def run_pending(self, namespace: str) -> None:
        time.sleep(0.25)

    def close(self) -> None:
        self.client.close()


def _ok(answer: tuple[int, dict], what: str) -> dict:
    status, body = answer
    if status >= 300:
        raise ApiError(f"{what}: {status} {body.get('error', body)}")
    return body


# --- scenarios ---------------------------------------------------------------------


def load_scenarios(
    path: Path, *, only: Iterable[str] = (), category: str | None = None
) -> list[dict]:
    scenarios = json.loads(Path(path).read_text())["scenarios"]
    wanted = {i.strip() for item in only for i in item.split(",") if i.strip()}
    return [
        s
        for s in scenarios
        if (not wanted or s["id"] in wanted) and (category is None or s["category"] == category)
    ]


def namespace_name(scenario_id: str) -> str:
    return ("wp-" + re.sub(r"[^a-z0-9-]+", "-", scenario_id.lower())).strip("-")[:64]


@dataclass
class Memory:
    path: str
    body: str
    cues: list[str]
    sources: list[str] = field(default_factory=list)


@dataclass
class Run:
    """What the API answered for one scenario."""

    scenario: dict
    weeks: int = 0
    seconds: list[float] = field(default_factory=list)
    failed_jobs: list[str] = field(default_factory=list)
    extractors: set[str] = field(default_factory=set)
    rewrites: list[Memory] = field(default_factory=list)  # bodies as each job left them
    answers: list[list[str]] = field(default_factory=list)  # per check, result contents
    memories: list[Memory] = field(default_factory=list)


def _await_job(api, namespace: str, job: dict) -> dict:
    deadline = time.monotonic() + JOB_TIMEOUT
    while job["status"] not in FINISHED:
        if time.monotonic() > deadline:
            raise ApiError(f"job {job['id']} still {job['status']} after {JOB_TIMEOUT:.0f}s")
        api.run_pending(namespace)
        job = _ok(api.call("GET", f"/v1/jobs/{job['id']}"), "GET /v1/jobs")["job"]
    return job


def _memory(api, namespace: str, path: str) -> Memory | None:
    status, body = api.call("GET", f"/v1/memories/{quote(path)}", params={"namespace": namespace})
    if status == 404:
        return None
    body = _ok((status, body), "GET /v1/memories/<path>")
    return Memory(
        path=path,
        body=body["body"],
        cues=list(body.get("cues") or []),
        sources=list(body.get("sources") or []),
    )


def session_messages(number: int, session: dict) -> list[dict]:
    """A session's messages as posted: each with its id (``s<session>-m<index>`` when
    the scenario gives none), which memories cite as their sources."""
    return [
        {**message, "id": message.get("id") or f"s{number}-m{i}"}
        for i, message in enumerate(session["messages"])
    ]


def run_scenario(api, scenario: dict, *, weeks: int = 0) -> Run:
    """Post the scenario's sessions into a fresh namespace, ask its checks, read its
    memories. The namespace is kept afterwards so its memories can be looked at."""
    run = Run(scenario=scenario, weeks=weeks)
    namespace = namespace_name(scenario["id"])
    status, _ = api.call("DELETE", f"/v1/namespaces/{namespace}")
    if status not in (204, 404):
        raise ApiError(f"DELETE /v1/namespaces/{namespace}: {status}")
    _ok(api.call("POST", "/v1/namespaces", body={"name": namespace}), "POST /v1/namespaces")

    for number, session in enumerate(scenario["sessions"]):
        messages = session_messages(number, session)
        started = time.perf_counter()
        job = _ok(
            api.post_session(
                {
                    "namespace": namespace,
                    "session_id": f"{scenario['id']}-s{number}"[:128],
                    "messages": messages,
                }
            ),
            "POST /v1/memories",
        )["job"]
        job = _await_job(api, namespace, job)
        run.seconds.append(time.perf_counter() - started)
        if job.get("extractor"):
            run.extractors.add(job["extractor"])
        if job["status"] != "done":
            run.failed_jobs.append(f"session {number}: {job.get('error')}")
            continue
        for path in (job.get("result") or {}).get("rewritten", []):
            memory = _memory(api, namespace, path)
            if memory is not None:
                run.rewrites.append(memory)

    for check in scenario.get("checks", []):
        answer = _ok(
            api.call(
                "GET",
                "/v1/retrieve",
                params={"namespace": namespace, "query": check["query"], "limit": 10},
            ),
            "GET /v1/retrieve",
        )
        run.answers.append([r["content"] for r in answer["results"]])

    cursor = None
    while True:
        params = {"namespace": namespace, "limit": 200, **({"cursor": cursor} if cursor else {})}
        page = _ok(api.call("GET", "/v1/memories", params=params), "GET /v1/memories")
        for item in page["memories"]:
            memory = _memory(api, namespace, item["path"])
            if memory is not None:
                run.memories.append(memory)
        cursor = page.get("next_cursor")
        if not cursor:
            break
    return run


# --- text matching -----------------------------------------------------------------


def _fold(text: str) -> str:
    return text.casefold()


def item_in(item, text: str) -> bool:
    """An expect/forbid item (a string, or a list of alternatives) in ``text``."""
    if isinstance(item, list):
        return any(item_in(i, text) for i in item)
    return _fold(item) in _fold(text)


def _alternatives(items) -> list[str]:
    out: list[str] = []
    for item in items:
        out += _alternatives(item) if isinstance(item, list) else [item]
    return out


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")
_ISO_PAREN = re.compile(r"\(\s*\d{4}(?:-\d{2}){1,2}(?:\s*[–-]\s*\d{4}-\d{2}-\d{2})?\s*\)")
# A rewrite quotes the old statement's uncontradicted words in brackets, pieces apart
# joined by " … ": each piece is a quote of its own, never a sequence across the marks.
_QUOTE_BREAK = re.compile(r"[()…]")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?")
_SPEAKER = re.compile(r"^\s*[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}:\s+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold().replace("\u2019", "'"))


def _runs(text: str) -> list[list[str]]:
    """The word runs of ``text`` for 4-grams: lowercased, punctuation dropped, a
    parenthesised resolved date removed, a bare ISO date, a bracket and an ellipsis
    a break between runs."""
    text = _ISO_PAREN.sub(" ", text)
    return [
        words(part)
        for quote in _QUOTE_BREAK.split(text.casefold())
        for part in _ISO_DATE.split(quote)
    ]


def grams(text: str, n: int = 4) -> set[tuple[str, ...]]:
    return {tuple(run[i : i + n]) for run in _runs(text) for i in range(len(run) - n + 1)}


def unsaid_grams(body: str, messages: Iterable[str]) -> list[str]:
    """Word 4-grams of a memory ``body`` that no message holds (a leading ``Name:``
    speaker prefix of the body is not counted)."""
    said: set[tuple[str, ...]] = set()
    for message in messages:
        said |= grams(message)
    return sorted(" ".join(g) for g in grams(_SPEAKER.sub("", body, count=1)) - said)


def content_words(text: str) -> set[str]:
    out = set()
    for word in words(text):
        word = word.removesuffix("'s")
        if len(word) > 3 and word not in STOP_WORDS:
            out.add(word[:-1] if len(word) > 4 and word.endswith("s") else word)
    return out


def question_shaped(cue: str) -> bool:
    first = words(cue)[:1]
    return cue.rstrip().endswith("?") or bool(first and first[0] in QUESTION_WORDS)


def distinguishing(cue: str, body: str) -> bool:
    """A capitalised word past the first (not "I"), a digit, or a word of the memory's
    body of five letters or more that is not a stopword."""
    if any(ch.isdigit() for ch in cue):
        return True
    tokens = cue.split()
    if any(t[:1].isupper() and not re.fullmatch(r"I(?:'\w+)?", t) for t in tokens[1:]):
        return True
    body_words = {w for w in words(body) if len(w) >= 5 and w not in STOP_WORDS}
    return any(w in body_words for w in words(cue))


# --- per-scenario measures ---------------------------------------------------------


def _within(check: dict) -> int:
    match = re.fullmatch(r"top(\d+)", check.get("within", "top1"))
    return int(match[1]) if match else 1


def _answers(check: dict, body: str) -> bool:
    """Would this memory pass the check as the top 1 (every expect item, no forbid)?"""
    return all(item_in(i, body) for i in check.get("expect", [])) and not any(
        item_in(i, body) for i in check.get("forbid", [])
    )


@dataclass
class CheckResult:
    query: str
    passed: bool
    top1: str
    answer_stored: bool  # a stored memory would pass as the top 1 (so: ranking)
    stale_top1: bool  # a correction's top 1 holds a forbid item


@dataclass
class Score:
    id: str
    category: str
    checks: list[CheckResult]
    memories: list[Memory]
    seconds: list[float]
    failed_jobs: list[str]
    extractors: set[str]
    weeks: int
    stale_in_store: list[str] = field(default_factory=list)
    unsaid: list[tuple[str, str, list[str]]] = field(default_factory=list)  # path, body, grams
    rewritten: int = 0
    two_facts: list[str] = field(default_factory=list)
    atomic_groups: int = 0
    atomic_missing: list[list[str]] = field(default_factory=list)
    attribution: list[tuple[str, str]] = field(default_factory=list)  # path, term
    bounds: str = ""  # "3 > max 2" when the count is out of bounds
    # path, body, the names/numbers/dates no message said (``grounding``)
    ungrounded: list[tuple[str, str, list[str]]] = field(default_factory=list)
    off_topic: list[Memory] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.checks)

    @property
    def all_passed(self) -> bool:
        return self.passed == len(self.checks)

    @property
    def clean(self) -> bool:
        """Every check passed and no store rule (atomic, attribution, bounds) broken."""
        return (
            self.all_passed
            and not self.two_facts
            and not self.atomic_missing
            and not self.attribution
            and not self.bounds
        )


def score_scenario(run: Run) -> Score:
    scenario = run.scenario
    correction = scenario["category"] == "correction"
    bodies = [m.body for m in run.memories]
    score = Score(
        id=scenario["id"],
        category=scenario["category"],
        checks=[],
        memories=run.memories,
        seconds=run.seconds,
        failed_jobs=run.failed_jobs,
        extractors=run.extractors,
        weeks=run.weeks,
    )
    checks = scenario.get("checks", [])
    for check, contents in zip(checks, run.answers, strict=True):
        expect, forbid = check.get("expect", []), check.get("forbid", [])
        top1 = contents[0] if contents else ""
        found = not expect or any(
            all(item_in(i, c) for i in expect) for c in contents[: _within(check)]
        )
        stale = any(item_in(i, top1) for i in forbid)
        score.checks.append(
            CheckResult(
                query=check["query"],
                passed=found and not stale,
                top1=top1,
                answer_stored=bool(expect) and any(_answers(check, b) for b in bodies),
                stale_top1=correction and stale,
            )
        )

    if correction:
        forbids = [i for c in checks for i in c.get("forbid", [])]
        score.stale_in_store = [
            m.path for m in run.memories if any(item_in(i, m.body) for i in forbids)
        ]

    said = [m["content"] for s in scenario["sessions"] for m in s["messages"]]
    score.rewritten = len({m.path for m in run.rewrites})
    flagged: dict[str, tuple[str, str, list[str]]] = {}
    for memory in run.rewrites:
        unsaid = unsaid_grams(memory.body, said)
        if unsaid and memory.path not in flagged:
            flagged[memory.path] = (memory.path, memory.body, unsaid)
    score.unsaid = list(flagged.values())

    posted = [
        message
        for number, session in enumerate(scenario["sessions"])
        for message in session_messages(number, session)
    ]
    by_id = {message["id"]: said_of(message) for message in posted}
    conversation = list(by_id.values())
    for memory in run.memories:
        sources = [by_id[s] for s in memory.sources if s in by_id]
        missing = ungrounded(memory.body, sources=sources, conversation=conversation)
        if missing:
            score.ungrounded.append((memory.path, memory.body, missing))

    groups = scenario.get("atomic") or []
    score.atomic_groups = len(groups)
    holds = [[all(_fold(k) in _fold(m.body) for k in g) for g in groups] for m in run.memories]
    score.two_facts = [m.path for m, row in zip(run.memories, holds, strict=True) if sum(row) > 1]
    score.atomic_missing = [g for j, g in enumerate(groups) if not any(r[j] for r in holds)]

    for rule in scenario.get("attribution") or []:
        for memory in run.memories:
            if item_in(rule["term"], memory.body) and not item_in(rule["owner"], memory.body):
                score.attribution.append((memory.path, rule["term"]))

    bounds = scenario.get("memories") or {}
    n = len(run.memories)
    if "min" in bounds and n < bounds["min"]:
        score.bounds = f"{n} < min {bounds['min']}"
    elif "max" in bounds and n > bounds["max"]:
        score.bounds = f"{n} > max {bounds['max']}"

    markers = [
        *_alternatives(i for c in checks for i in c.get("expect", [])),
        *(k for g in groups for k in g),
        *(r["term"] for r in scenario.get("attribution") or []),
    ]
    asked: set[str] = set()
    for check in checks:
        asked |= content_words(check["query"])
        for item in _alternatives([*check.get("expect", []), *check.get("forbid", [])]):
            asked |= content_words(item)
    score.off_topic = [
        m
        for m in run.memories
        if not any(item_in(k, m.body) for k in markers) and not content_words(m.body) & asked
    ]
    return score


# --- totals ------------------------------------------------------------------------


def _share(n: int, d: int) -> float:
    return round(n / d, 3) if d else 0.0


def figures(scores: list[Score]) -> dict:
    """Every measure over ``scores`` (counts, and shares where a share is the measure)."""
    memories = [m for s in scores for m in s.memories]
    cues = [(cue, m.body) for m in memories for cue in m.cues]
    seconds = [t for s in scores for t in s.seconds]
    checks = [c for s in scores for c in s.checks]
    return {
        "scenarios": len(scores),
        "scenarios_passed": sum(s.all_passed for s in scores),
        "scenarios_clean": sum(s.clean for s in scores),
        "checks_passed": sum(c.passed for c in checks),
        "checks": len(checks),
        "ranking_failures": sum(not c.passed and c.answer_stored for c in checks),
        "stale_top1": sum(c.stale_top1 for c in checks),
        "stale_in_store": sum(len(s.stale_in_store) for s in scores),
        "rewritten": sum(s.rewritten for s in scores),
        "unsaid_rewrites": sum(len(s.unsaid) for s in scores),
        "ungrounded_memories": sum(len(s.ungrounded) for s in scores),
        "ungrounded_terms": sum(len(terms) for s in scores for _, _, terms in s.ungrounded),
        "two_fact_memories": sum(len(s.two_facts) for s in scores),
        "atomic_groups": sum(s.atomic_groups for s in scores),
        "atomic_missing": sum(len(s.atomic_missing) for s in scores),
        "attribution_violations": sum(len(s.attribution) for s in scores),
        "bounds_violations": sum(bool(s.bounds) for s in scores),
        "memories": len(memories),
        "off_topic": sum(len(s.off_topic) for s in scores),
        "off_topic_share": _share(sum(len(s.off_topic) for s in scores), len(memories)),
        "cues": len(cues),
        "cues_question_share": _share(sum(question_shaped(c) for c, _ in cues), len(cues)),
        "cues_distinguishing_share": _share(sum(distinguishing(c, b) for c, b in cues), len(cues)),
        "sessions": len(seconds),
        "failed_jobs": sum(len(s.failed_jobs) for s in scores),
        "seconds_per_session": round(sum(seconds) / len(seconds), 3) if seconds else 0.0,
        "seconds_per_session_median": round(statistics.median(seconds), 3) if seconds else 0.0,
    }


def report(scores: list[Score], *, now: datetime, rebase: bool) -> dict:
    categories = sorted({s.category for s in scores})
    return {
        **figures(scores),
        "by_category": {c: figures([s for s in scores if s.category == c]) for c in categories},
        "per_scenario": [
            {
                "id": s.id,
                "category": s.category,
                "checks_passed": s.passed,
                "checks": len(s.checks),
                "failed": [c.query for c in s.checks if not c.passed],
                "memories": len(s.memories),
                "ungrounded": [{"path": path, "terms": terms} for path, _, terms in s.ungrounded],
                "weeks": s.weeks,
                "clean": s.clean,
            }
            for s in scores
        ],
        "extractor": ", ".join(sorted({e for s in scores for e in s.extractors})),
        "rebase": rebase,
        "now": now.isoformat(timespec="seconds"),
    }


def cue_sample(scores: list[Score], *, n: int, seed: int) -> list[tuple[str, str]]:
    cues = [(cue, m.body) for s in scores for m in s.memories for cue in m.cues]
    return random.Random(seed).sample(cues, min(n, len(cues)))
