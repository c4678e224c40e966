"""The LoCoMo retrieval evaluation behind ``manage.py eval_locomo``.

A harness, not a domain module: it drives every app (accounts, namespaces, the write
path in memories, retrieval) through their public services, so it lives in an app of
its own above all of them (docs/design/README.md, "Layers"). Unreadable input is a
``CommandError``: the command line's error, not an API code.

LoCoMo (Maharana et al., ACL 2024) is a set of long two-person conversations, each split
into dated sessions of turns ``{speaker, dia_id: "D<session>:<turn>", text}`` (some with
a photo caption), and questions whose ``evidence`` names the turns that answer them.
Categories 1-4 are multi-hop, temporal, open-domain and single-hop; 5 (adversarial) is
left out, as most reports do.

Two ways in, each into its own namespace per conversation of the account ``eval-locomo``:

``turns`` (:func:`import_turns`)
    One memory per turn, built by :func:`turn_memories` (see ``CUES_DESCRIPTION``) and
    put in through the import service (a tar.gz, one commit, then the indexer), so the
    index rows are exactly the ones a user's import would produce.
``pipeline`` (:func:`ingest_pipeline`)
    Each session is posted as one transcript through the write path (``job_accept``,
    then the namespace's queue drained in this process), so the configured extractor
    (offline when no model is set) decides what the memories are.

Scoring (:func:`score_questions`): every question goes through the retrieval selector
three times: lexical arm only, semantic arm only, and all arms fused. A question's
recall@k is the share of its distinct evidence turns that appear in the ``sources`` of
the top k memories; the figures are means over questions, overall and by category.
Session-level recall@10 counts a question as found (1) when any of the top 10 lists a
source turn from a session that holds one of its evidence turns, else 0: the figure of
systems that retrieve whole sessions. ``words@10`` is the mean number of words in the
bodies of the fused top 10, what a model answering from them would read.
Evidence ids are parsed leniently ("D8:6; D9:17" is two ids, "D:11:26" is D11:26); a
question with no parseable id is skipped and counted, an id naming a turn that does not
exist stays in the denominator and counts as a miss.
"""

from __future__ import annotations

import io
import json
import re
import tarfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from hashlib import sha256
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from accounts.models import Account
from accounts.services import account_create
from gitloom.core.errors import GitLoomError
from memories.jobs import drain_namespace, drains_inline
from memories.models import Job
from memories.services import job_accept, memory_import
from namespaces.memory_format import MAX_FIELD_CHARS, Link, Memory, render_memory, slugify
from namespaces.models import Namespace
from namespaces.repository import repository_snapshot
from namespaces.services import namespace_create, namespace_delete
from retrieval.query import FusionParams
from retrieval.selectors import retrieve

ACCOUNT_ID = "eval-locomo"
# LoCoMo is not shipped with the project. Without --data, eval_locomo and bench_retrieve
# read the upstream file under its own name from the project's (git-ignored) data/.
LOCOMO_SOURCE = "https://github.com/snap-research/locomo"
DEFAULT_DATA = Path(settings.BASE_DIR) / "data" / "locomo10.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
# Which arms each figure asks the selector for; "fused" is what /v1/retrieve does.
ARM_SETS: dict[str, tuple[str, ...]] = {
    "lexical": ("lexical",),
    "semantic": ("semantic",),
    "fused": ("lexical", "semantic", "graph"),
}
KS = (5, 10)
TIER = "facts"

CUES_DESCRIPTION = (
    "one memory per turn, tier facts, created/updated = session date, tags: the speaker's "
    "name in lower case; body "
    "'<session day>. <Speaker>: <text>' plus ' [<Speaker> shared a photo: <caption>]'; "
    "cues: (1) the body without the date, (2) when the turn has 2+ sentences of 3+ words "
    "(split after . ! ?), each as '<Speaker>: <sentence>', (3) '<Speaker> shared a photo "
    "of <caption>', (4) when the previous turn of the session asks something, its "
    "question sentences followed by '<Speaker>: <text>'; whitespace collapsed, each cue "
    f"cut to {MAX_FIELD_CHARS} characters; related: follows/followed-by the "
    "previous/next turn of the same session"
)

_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+")
_SESSION_KEY_RE = re.compile(r"session_(\d+)")
_SESSION_TIME_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y")


# --- the data -------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str


@dataclass(frozen=True)
class Session:
    number: int
    date_text: str  # as the file gives it: "1:56 pm on 8 May, 2023"
    when: datetime
    turns: tuple[Turn, ...]

    @property
    def day(self) -> str:
        """The date part of ``date_text``: "8 May, 2023"."""
        return self.date_text.split(" on ", 1)[1] if " on " in self.date_text else self.date_text


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    skipped_questions: int  # categories 1-4 without a parseable evidence id

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)

    @property
    def ended(self) -> datetime:
        """When its last session with a turn began: the questions are asked as of then,
        as a user would ask about a conversation just held (ageing counts from here)."""
        return max((s.when for s in self.sessions if s.turns), default=self.sessions[-1].when)


def parse_evidence(*, values: object) -> list[str]:
    """Distinct ``D<s>:<t>`` ids in ``values``, in order; malformed entries yield what
    they hold ("D8:6; D9:17" -> two ids) or nothing ("D")."""
    if not isinstance(values, list):
        values = [values]
    found: list[str] = []
    for value in values:
        for session, turn in _EVIDENCE_RE.findall(str(value)):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id not in found:
                found.append(dia_id)
    return found


def session_time(*, text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware datetime (taken as UTC: LoCoMo gives no zone)."""
    cleaned = " ".join(str(text).split())
    for fmt in _SESSION_TIME_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise CommandError(f"Unreadable session date {text!r}.")


def locomo_missing(*, path: Path) -> str:
    """What to say when there is no LoCoMo file at ``path``: where to get one."""
    return (
        f"No LoCoMo data at {path}. Get the LoCoMo benchmark from the snap-research/locomo "
        f"repository ({LOCOMO_SOURCE}, file data/locomo10.json) and pass its path with "
        f"--data, or save it as {DEFAULT_DATA}."
    )


def load_conversations(*, path: Path, limit: int | None = None) -> list[Conversation]:
    """The conversations of a LoCoMo-format JSON file (the first ``limit`` of them)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CommandError(f"Cannot read {path}: {exc}") from None
    if not isinstance(data, list):
        raise CommandError(f"{path}: expected a JSON list of conversations.")
    conversations = []
    for item in data[:limit] if limit is not None else data:
        try:
            conversations.append(_conversation(item))
        except (KeyError, TypeError, AttributeError) as exc:
            sample = item.get("sample_id", "?") if isinstance(item, dict) else "?"
            raise CommandError(
                f"{path}: conversation {sample} is not in LoCoMo format ({exc!r}).",
            ) from None
    return conversations


def _conversation(item: dict) -> Conversation:
    body = item["conversation"]
    numbers = sorted(
        int(m.group(1)) for key in body if (m := _SESSION_KEY_RE.fullmatch(key)) and body[key]
    )
    sessions = []
    for number in numbers:
        date_text = body.get(f"session_{number}_date_time", "")
        turns = tuple(
            Turn(
                dia_id=str(turn["dia_id"]),
                speaker=str(turn["speaker"]),
                text=str(turn.get("text") or ""),
                caption=str(turn.get("blip_caption") or ""),
            )
            for turn in body[f"session_{number}"]
        )
        sessions.append(
            Session(
                number=number, date_text=date_text, when=session_time(text=date_text), turns=turns
            )
        )
    questions, skipped = [], 0
    for qa in item.get("qa", []):
        if qa.get("category") not in CATEGORIES:
            continue
        evidence = parse_evidence(values=qa.get("evidence", []))
        if not evidence:
            skipped += 1
            continue
        questions.append(
            Question(text=str(qa["question"]), category=qa["category"], evidence=tuple(evidence))
        )
    return Conversation(
        sample_id=str(item["sample_id"]),
        sessions=tuple(sessions),
        questions=tuple(questions),
        skipped_questions=skipped,
    )


# --- one memory per turn ------------------------------------------------------------


def _line(text: str) -> str:
    """One header line: whitespace collapsed, cut to the format's limit on a word."""
    text = " ".join(text.split())
    if len(text) <= MAX_FIELD_CHARS:
        return text
    cut = text[: MAX_FIELD_CHARS - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def turn_cues(*, turn: Turn, previous: Turn | None) -> list[str]:
    """The cues of one turn's memory (see ``CUES_DESCRIPTION``)."""
    spoken = f"{turn.speaker}: {turn.text}"
    photo = f" [{turn.speaker} shared a photo: {turn.caption}]" if turn.caption else ""
    cues = [spoken + photo]
    # Each sentence on its own: a question usually matches one sentence of a long turn,
    # and a whole-turn vector dilutes it.
    sentences = [s for s in _SENTENCE_RE.split(turn.text) if len(s.split()) >= 3]
    if len(sentences) > 1:
        cues += [f"{turn.speaker}: {s}" for s in sentences]
    if turn.caption:
        cues.append(f"{turn.speaker} shared a photo of {turn.caption}")
    # The question this turn answers: makes the answer reachable by the words of the
    # question that prompted it ("What did you paint?" -> "A sunset over the lake").
    if previous is not None and "?" in previous.text:
        asked = [s for s in _SENTENCE_RE.split(previous.text) if s.strip().endswith("?")]
        if asked:
            cues.append(f"{' '.join(asked)} {spoken}")
    return list(dict.fromkeys(c for c in (_line(c) for c in cues) if c))


def turn_body(*, turn: Turn, session: Session) -> str:
    photo = f" [{turn.speaker} shared a photo: {turn.caption}]" if turn.caption else ""
    return f"{session.day}. {turn.speaker}: {turn.text}{photo}"


def _turn_path(turn: Turn, session: Session, body: str) -> str:
    digest = sha256(body.encode("utf-8")).hexdigest()[:8]
    return f"{TIER}/session-{session.number}/{slugify(turn.dia_id, max_len=40)}-{digest}.md"


def turn_memories(*, conversation: Conversation) -> dict[str, Memory]:
    """path -> memory, one per turn, linked to the previous and next turn of its session."""
    memories: dict[str, Memory] = {}
    for session in conversation.sessions:
        paths = []
        for turn in session.turns:
            paths.append(_turn_path(turn, session, turn_body(turn=turn, session=session)))
        for index, turn in enumerate(session.turns):
            previous = session.turns[index - 1] if index else None
            related = []
            if index:
                related.append(Link(type="follows", path=paths[index - 1]))
            if index + 1 < len(paths):
                related.append(Link(type="followed-by", path=paths[index + 1]))
            memories[paths[index]] = Memory(
                tier=TIER,
                # who said it: a question naming a person favours what they said
                tags=[slugify(turn.speaker, max_len=60)],
                created=session.when,
                updated=session.when,
                cues=turn_cues(turn=turn, previous=previous),
                related=related,
                sources=[turn.dia_id],
                body=turn_body(turn=turn, session=session),
            )
    return memories


def memories_archive(*, memories: dict[str, Memory]) -> bytes:
    """A tar.gz of rendered memory files, as a user would upload to the import API."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for path, memory in memories.items():
            data = render_memory(memory)
            info = tarfile.TarInfo(path)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


# --- namespaces and ingestion ---------------------------------------------------------


def eval_account() -> Account:
    account = Account.objects.filter(id=ACCOUNT_ID).first()
    return account or account_create(account_id=ACCOUNT_ID)


def fresh_namespace(*, account: Account, name: str) -> Namespace:
    """An empty namespace ``name``; an earlier one of that name is deleted first."""
    old = Namespace.objects.filter(account=account, name=name).first()
    if old is not None:
        namespace_delete(namespace=old)
    return namespace_create(account=account, name=name)


def namespace_name(*, conversation: Conversation, suffix: str = "") -> str:
    return slugify(f"locomo-{conversation.sample_id}{suffix}", max_len=64)


@dataclass
class IngestStats:
    namespace: Namespace
    memories: int = 0
    cues: int = 0
    rewritten: int = 0
    sessions: int = 0
    seconds: float = 0.0
    failed_jobs: list[str] = field(default_factory=list)
    extractors: set[str] = field(default_factory=set)


def import_turns(
    *, account: Account, conversation: Conversation, reuse: bool = False
) -> IngestStats:
    """One memory per turn into a fresh namespace, through the import service.

    ``reuse=True`` keeps an existing namespace whose files are all among the ones this
    import writes and imports on top of it: unchanged files make an empty commit and the
    indexer embeds only cue texts it has not seen, so re-running with other fusion
    parameters does not re-embed a conversation. Any other file there means a fresh one.
    """
    name = namespace_name(conversation=conversation)
    memories = turn_memories(conversation=conversation)
    namespace = Namespace.objects.filter(account=account, name=name).first() if reuse else None
    if namespace is not None:
        present = {path for path, _ in repository_snapshot(prefix=namespace.storage_prefix).walk()}
        if not present <= memories.keys():
            namespace = None
    if namespace is None:
        namespace = fresh_namespace(account=account, name=name)
    started = time.perf_counter()
    memory_import(namespace=namespace, data=memories_archive(memories=memories), kind="tar")
    return IngestStats(
        namespace=namespace,
        memories=len(memories),
        cues=sum(len(m.cues) for m in memories.values()),
        sessions=len(conversation.sessions),
        seconds=time.perf_counter() - started,
    )


def session_messages(*, session: Session) -> list[dict]:
    """A session as a POST /v1/memories transcript: both people are users, told apart by
    ``name``; a shared photo is described by its caption, as a chat app would."""
    stamp = session.when.isoformat().replace("+00:00", "Z")
    messages = []
    for turn in session.turns:
        content = turn.text
        if turn.caption:
            content = f"{content} [shared a photo: {turn.caption}]".strip()
        if not content.strip():
            continue
        messages.append(
            {
                "role": "user",
                "content": content,
                "id": turn.dia_id,
                "name": turn.speaker,
                "timestamp": stamp,
            }
        )
    return messages


def ingest_pipeline(*, account: Account, conversation: Conversation) -> IngestStats:
    """Post each session, in order, through the write path into a fresh namespace."""
    namespace = fresh_namespace(
        account=account, name=namespace_name(conversation=conversation, suffix="-pipeline")
    )
    stats = IngestStats(namespace=namespace)
    for session in conversation.sessions:
        messages = session_messages(session=session)
        if not messages:
            continue
        started = time.perf_counter()
        # The real queue path, run in this process: the accepted job's on-commit drain
        # runs here and now, under the namespace's queue lock.
        try:
            with drains_inline():
                job, _ = job_accept(
                    namespace=namespace,
                    messages=messages,
                    session_id=f"{conversation.sample_id}-session-{session.number}",
                    metadata={"source": "locomo", "date": session.date_text},
                )
        except GitLoomError as exc:  # refused before queueing (a session over the limits)
            stats.failed_jobs.append(f"session {session.number}: refused {exc.code}: {exc}")
            continue
        job.refresh_from_db()
        if job.status == Job.Status.QUEUED:
            # Inside an outer transaction (a test) on-commit work waits: drain directly,
            # still under the queue's lock.
            drain_namespace(namespace.pk)
            job.refresh_from_db()
        stats.seconds += time.perf_counter() - started
        stats.sessions += 1
        if job.extractor:
            stats.extractors.add(job.extractor)
        if job.status != Job.Status.DONE:
            stats.failed_jobs.append(
                f"session {session.number}: {job.status} {job.error_code}: {job.error_message}"
            )
            continue
        stats.memories += len(job.result.get("created", []))
        stats.rewritten += len(job.result.get("rewritten", []))
    return stats


# --- scoring --------------------------------------------------------------------------


def recall_at(*, evidence: Sequence[str], sources: Sequence[Iterable[str]], k: int) -> float:
    """Share of ``evidence`` found among the sources of the first ``k`` results."""
    found = {source for result in sources[:k] for source in result}
    return sum(1 for dia_id in evidence if dia_id in found) / len(evidence)


def session_of(dia_id: str) -> int | None:
    """The session number of a dialogue id ("D3:7" -> 3), None for anything else."""
    match = _EVIDENCE_RE.fullmatch(str(dia_id))
    return int(match.group(1)) if match else None


def session_recall_at(
    *, evidence: Sequence[str], sources: Sequence[Iterable[str]], k: int
) -> float:
    """1.0 when one of the first ``k`` results comes from a session that holds evidence
    of the question (one of its sources is a turn of such a session), else 0.0: the
    session-level figure of systems that retrieve whole sessions."""
    wanted = {session_of(dia_id) for dia_id in evidence} - {None}
    found = {session_of(source) for result in sources[:k] for source in result}
    return 1.0 if wanted & found else 0.0


class Tally:
    """Recall values by arm, k and category; :meth:`summary` gives the means."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, int, int], list[float]] = defaultdict(list)
        self.questions: dict[int, int] = defaultdict(int)
        # Sources listed by each fused top-k result: recall through `sources` is only
        # comparable between ingestions when this is (a memory folding many turns
        # together "finds" them all).
        self.sources_per_result: list[float] = []
        # Words in the bodies of the fused top k (what a model would have to read).
        self.words: list[int] = []

    def add(
        self,
        *,
        category: int,
        recalls: dict[str, dict[int | str, float]],
        sources_per_result: float | None = None,
        words: int | None = None,
    ) -> None:
        self.questions[category] += 1
        if sources_per_result is not None:
            self.sources_per_result.append(sources_per_result)
        if words is not None:
            self.words.append(words)
        for arm, by_k in recalls.items():
            for k, value in by_k.items():
                self.values[(arm, k, category)].append(value)

    def merge(self, other: Tally) -> None:
        for key, values in other.values.items():
            self.values[key].extend(values)
        for category, n in other.questions.items():
            self.questions[category] += n
        self.sources_per_result.extend(other.sources_per_result)
        self.words.extend(other.words)

    def mean(self, arm: str, k: int | str, categories: Iterable[int] | None = None) -> float:
        """Mean recall of ``arm`` at ``k`` (an int: evidence turns; "session@10": the
        session-level figure)."""
        cats = list(categories) if categories is not None else list(CATEGORIES)
        values = [v for c in cats for v in self.values.get((arm, k, c), [])]
        return round(sum(values) / len(values), 4) if values else 0.0

    def summary(self) -> dict:
        arms = list(ARM_SETS)
        out: dict = {"questions": sum(self.questions.values())}
        for k in KS:
            out[f"recall@{k}"] = {arm: self.mean(arm, k) for arm in arms}
        top = max(KS)
        out[f"session_recall@{top}"] = {arm: self.mean(arm, f"session@{top}") for arm in arms}
        out["by_category"] = {
            str(category): {
                "questions": self.questions.get(category, 0),
                **{f"recall@{k}": {arm: self.mean(arm, k, [category]) for arm in arms} for k in KS},
                f"session_recall@{top}": {
                    arm: self.mean(arm, f"session@{top}", [category]) for arm in arms
                },
            }
            for category in CATEGORIES
        }
        out["fused_minus_best_single"] = {
            f"recall@{k}": round(
                out[f"recall@{k}"]["fused"]
                - max(out[f"recall@{k}"]["lexical"], out[f"recall@{k}"]["semantic"]),
                4,
            )
            for k in KS
        }
        per_result = self.sources_per_result
        out[f"sources_per_result@{max(KS)}"] = (
            round(sum(per_result) / len(per_result), 3) if per_result else 0.0
        )
        out[f"words@{top}"] = round(sum(self.words) / len(self.words), 1) if self.words else 0.0
        return out


def score_questions(
    *,
    account: Account,
    namespace: Namespace,
    questions: Sequence[Question],
    params: FusionParams | None = None,
    progress: Callable[[int], None] | None = None,
    now: datetime | None = None,
) -> Tally:
    """Ask every question through the retrieval selector, once per arm set, with
    memories aged as of ``now`` (``None``: the wall clock)."""
    tally = Tally()
    for index, question in enumerate(questions):
        recalls: dict[str, dict[int | str, float]] = {}
        per_result = words = None
        for label, arms in ARM_SETS.items():
            found = retrieve(
                namespace=namespace,
                query=question.text,
                limit=max(KS),
                arms=arms,
                params=params,
                now=now,
            )
            sources = [hit.memory.sources for hit in found.results]
            recalls[label] = {
                k: recall_at(evidence=question.evidence, sources=sources, k=k) for k in KS
            }
            recalls[label][f"session@{max(KS)}"] = session_recall_at(
                evidence=question.evidence, sources=sources, k=max(KS)
            )
            if label == "fused" and sources:
                top = sources[: max(KS)]
                per_result = sum(len(s) for s in top) / len(top)
                words = sum(len(hit.memory.body.split()) for hit in found.results[: max(KS)])
        tally.add(
            category=question.category,
            recalls=recalls,
            sources_per_result=per_result,
            words=words,
        )
        if progress is not None:
            progress(index + 1)
    return tally
