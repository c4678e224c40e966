"""Reverting one job: one new commit that undoes exactly what the job's commit did.

What the job did is read from its commit, not from the job row: the diff of the job's
commit against its first parent (``repository.repository_revert_plan``). Files it
created are removed, and every ``related`` link to them is dropped from the other
memories (as forgetting does); files it rewrote get back their content from before the
job (dropping any link in it to a file that no longer exists).

A file is *in the way* when its content at the head is not what the job left: a later
commit rewrote or removed it, and putting the old content back would undo that too.
Then nothing is written and the answer is ``revert_conflict``, naming each such file
and the later commits that changed it; ``force`` reverts the other files and reports
the skipped ones. A file changed and changed back is not in the way.

The revert commit carries ``Gitloom-Action: revert`` and ``Gitloom-Reverts: <job id>``;
asked again, the history is searched for that trailer and the answer is the earlier
revert, rebuilt from the head it was made on, with nothing written.

Why not a queued job like ``POST /v1/memories``: a revert makes no model call and takes
milliseconds, and its caller needs the conflict answer (which files, which commits) to
decide what to do next, not a job to poll. But it must not land under a running job's
feet (that job's commit, computed before the revert, would put the reverted content
back), so it takes the namespace's queue lock, the one a drain holds while it runs a
job (``memories.jobs.namespace_queue_held``), and so lands between two jobs; jobs
accepted meanwhile run after it and reconcile against the reverted state. Inside the
lock the commit is still a compare-and-swap on the exact head the plan was made at
(forgetting and small imports do not take the lock): if the head moved, the plan is
made again.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from accounts.webhooks.events import webhook_emit
from memories.errors import (
    JobNotFinished,
    JobNotRevertible,
    NothingToRevert,
    RevertConflict,
)
from memories.jobs import namespace_queue_held
from memories.models import Job
from namespaces import repository
from namespaces.errors import InvalidMemory, WriteConflict
from namespaces.memory_format import parse_memory, render_memory
from retrieval.services import after_repository_change

REVERTS_TRAILER = "Gitloom-Reverts"
# How long a revert waits for the namespace's running job to finish before answering
# `write_conflict` (try again): an offline job takes well under a second, a model's
# seconds to a minute.
REVERT_WAIT_SECONDS = 15.0
# Skipped files named in the revert commit's message, at most.
MESSAGE_SKIPPED_LINES = 50


@dataclass(frozen=True)
class LaterCommit:
    """A commit after the job's that changed one of its files."""

    commit: str
    time: datetime
    message: str  # its first line
    action: str  # what made it: ingest (a job), forget, import, revert, or other
    job: str | None  # the job that made it, if a job did

    @classmethod
    def of(cls, entry: repository.LogEntry) -> LaterCommit:
        job = entry.trailers.get("Gitloom-Job")
        return cls(
            commit=entry.commit,
            time=entry.time,
            message=entry.message.split("\n", 1)[0],
            action="ingest" if job else entry.trailers.get("Gitloom-Action", "other"),
            job=job,
        )


@dataclass(frozen=True)
class InTheWay:
    """A file the job wrote that a later commit changed or removed."""

    path: str
    change: str  # what the job did to it: add, modify or delete
    now: str  # "changed" or "removed"
    commits: list[LaterCommit]  # the later commits that changed it, newest first

    def as_dict(self) -> dict:
        """As the API shows it (``skipped`` there, ``details.conflicts`` of the error)."""
        return {
            "path": self.path,
            "change": self.change,
            "now": self.now,
            "commits": [
                {
                    **dataclasses.asdict(commit),
                    "time": commit.time.isoformat().replace("+00:00", "Z"),
                }
                for commit in self.commits
            ],
        }


@dataclass(frozen=True)
class Revert:
    """What a revert did (or, asked again, had done)."""

    job: Job
    commit: str  # the revert commit
    reverted_commit: str  # the job's commit
    removed: list[str]  # files the job created, now gone
    restored: list[str]  # files the job rewrote, back to their content before it
    unlinked: list[str]  # other memories whose links to removed files were dropped
    skipped: list[InTheWay]  # with force: files left alone because they are in the way
    created: bool  # False: the job had been reverted before, nothing was written now


class _HeadMoved(Exception):
    """The head is no longer the one the plan was made at: plan again."""


def _check_revertible(job: Job) -> None:
    if job.status in (Job.Status.QUEUED, Job.Status.RUNNING):
        raise JobNotFinished(f"The job is still {job.status}; it can be reverted once it is done.")
    if job.status == Job.Status.FAILED:
        raise NothingToRevert("The job failed and wrote nothing: there is nothing to revert.")
    if not job.commit:
        raise NothingToRevert(
            "The job found nothing worth keeping and made no commit: there is nothing to revert."
        )
    if (job.payload.get("import") or {}).get("format") == "bundle":
        raise JobNotRevertible()


def job_revert(*, job: Job, force: bool = False) -> Revert:
    """Undo what ``job`` wrote, in one new commit (or answer the earlier revert)."""
    _check_revertible(job)
    namespace = job.namespace
    prefix = namespace.storage_prefix
    marker = (REVERTS_TRAILER, str(job.public_id))
    with namespace_queue_held(namespace_id=namespace.pk, wait=REVERT_WAIT_SECONDS):
        for _ in range(repository.MAX_WRITE_ATTEMPTS):
            plan = repository.repository_revert_plan(
                prefix=prefix, commit=job.commit, marker=marker
            )
            if plan.marked:
                return _earlier(job, plan, prefix=prefix)
            if not plan.files:
                # Its commit changes nothing (any more): a purge erased what it wrote and
                # kept the commit, empty, so the job still has one. A revert commit of
                # nothing would be noise in the history.
                raise NothingToRevert(
                    "The job's commit changes no file (a purge erased what it wrote): "
                    "there is nothing to revert."
                )
            outcome, files = _undo(job, plan, force=force)
            try:
                result = repository.repository_commit(
                    prefix=prefix,
                    apply=_on_head(plan.head.commit, files),
                    message=_message(job, outcome),
                    trailers=_trailers(job, outcome),
                )
            except _HeadMoved:
                continue  # a forget or an import landed meanwhile
            after_repository_change(
                namespace=namespace,
                commit=result.commit,
                announce=functools.partial(_announce, job, files, commit=result.commit),
            )
            return dataclasses.replace(outcome, commit=result.commit, created=True)
    raise WriteConflict()


def job_revert_preview(*, job: Job) -> Revert:
    """What ``job_revert`` would do now, writing nothing: the files it would remove and
    restore and the other memories whose links it would drop (``skipped`` empty). Raises
    what the revert would raise (``RevertConflict`` naming what is in the way)."""
    _check_revertible(job)
    plan = repository.repository_revert_plan(
        prefix=job.namespace.storage_prefix,
        commit=job.commit,
        marker=(REVERTS_TRAILER, str(job.public_id)),
    )
    if plan.marked:
        return _earlier(job, plan, prefix=job.namespace.storage_prefix)
    return _undo(job, plan, force=False)[0]


def job_reverted_in(*, job: Job) -> Revert | None:
    """The revert that already undid ``job`` (its commit and what it removed and
    restored), or None when none did; for the job page, which then offers no revert."""
    if job.status != Job.Status.DONE or not job.commit:
        return None
    plan = repository.repository_revert_plan(
        prefix=job.namespace.storage_prefix,
        commit=job.commit,
        marker=(REVERTS_TRAILER, str(job.public_id)),
    )
    return _earlier(job, plan, prefix=job.namespace.storage_prefix) if plan.marked else None


def _announce(job: Job, files: dict[str, bytes | None], *, commit: str) -> None:
    """A revert removes what the job created and puts back what it rewrote."""
    namespace = job.namespace
    removed = sorted(path for path, content in files.items() if content is None)
    restored = sorted(path for path, content in files.items() if content is not None)
    for type, paths in (("memory.forgotten", removed), ("memory.rewritten", restored)):  # noqa: A001
        if paths:
            webhook_emit(
                account_id=namespace.account_id,
                type=type,
                namespace=namespace.name,
                job=str(job.public_id),
                commit=commit,
                paths=paths,
                revert=True,
            )


def _on_head(head: str | None, files: dict[str, bytes | None]) -> Callable:
    def apply(snapshot: repository.Snapshot) -> dict[str, bytes | None]:
        if snapshot.commit != head:
            raise _HeadMoved()
        return files

    return apply


def _split(plan: repository.RevertPlan) -> tuple[list[repository.RevertFile], list[InTheWay]]:
    """The files to undo and the ones in the way. A later change that only dropped
    ``related`` links to memories gone since (what a forget, a revert or a purge does to
    the memories linking to what they remove) is seen through: the revert drops those
    links anyway. A file the job created that is gone since is already undone."""
    todo, in_the_way = [], []
    for file in plan.files:
        if not file.in_the_way or _seen_through(plan.head, file):
            todo.append(file)
            continue
        now = "removed" if file.now is None else "changed"
        commits = [LaterCommit.of(entry) for entry in file.changed_by]
        in_the_way.append(InTheWay(file.path, file.kind, now, commits))
    return todo, in_the_way


def _seen_through(head: repository.Snapshot, file: repository.RevertFile) -> bool:
    if file.now is None:
        return file.before is None  # created by the job, removed since: nothing to undo
    if file.after is None:
        return False  # the job removed it and something wrote it again
    left = head.read_blob(file.after)
    return _without_links(left, file.path, head.exists) == head.read_blob(file.now)


def _undo(
    job: Job, plan: repository.RevertPlan, *, force: bool
) -> tuple[Revert, dict[str, bytes | None]]:
    """The revert's outcome and the change that makes it; raises ``RevertConflict``
    (``NothingToRevert`` when everything the job wrote is already undone)."""
    todo, in_the_way = _split(plan)
    # A created file gone since needs no write: it is already undone.
    todo = [file for file in todo if not (file.before is None and file.now is None)]
    if not todo and not in_the_way:
        raise NothingToRevert(
            "Every memory the job wrote is gone since (forgotten or reverted): there is "
            "nothing left to revert."
        )
    if in_the_way and (not force or not todo):
        conflicts = [item.as_dict() for item in in_the_way]
        raise RevertConflict(
            conflict_message(in_the_way, total=len(plan.files), revertible=len(todo)),
            conflicts=conflicts,
            revertible=len(todo),
        )
    files: dict[str, bytes | None] = {
        file.path: None if file.before is None else plan.head.read_blob(file.before)
        for file in todo
    }
    unlinked = _drop_links(plan.head, files)
    outcome = Revert(
        job=job,
        commit="",
        reverted_commit=job.commit,
        removed=sorted(file.path for file in todo if file.before is None),
        restored=sorted(file.path for file in todo if file.before is not None),
        unlinked=unlinked,
        skipped=in_the_way,
        created=False,
    )
    return outcome, files


def conflict_message(in_the_way: list[InTheWay], *, total: int, revertible: int) -> str:
    """Why nothing was reverted, ending in what the caller can do: revert the later jobs
    (named, newest first), or send force to revert the rest and keep the others as
    they are now; a forget or an import in the way is named as what it is."""
    jobs: list[str] = []
    others: set[str] = set()
    for item in in_the_way:
        for commit in item.commits:
            if commit.job:
                if commit.job not in jobs:
                    jobs.append(commit.job)
            else:
                others.add(commit.action)
    what = (
        f"{len(in_the_way)} of the {total} files the job wrote were changed or removed "
        "since, so nothing was reverted."
        if revertible
        else "Every file the job wrote was changed or removed since, so nothing was reverted."
    )
    steps = []
    if jobs:
        steps.append(
            "revert the later job"
            + ("s " if len(jobs) > 1 else " ")
            + ", ".join(jobs)
            + (" (newest first)" if len(jobs) > 1 else "")
            + " first, then this one"
        )
    if others:
        kinds = " and ".join(sorted(f"a{'n' if k[0] in 'aeiou' else ''} {k}" for k in others))
        steps.append(
            f"send force to revert the other {revertible} and keep what {kinds} left"
            if revertible
            else f"leave it as it is: nothing of this job is left to undo without undoing "
            f"{kinds} (each file's history shows what changed)"
        )
    elif revertible:
        steps.append(f"send force to revert the other {revertible} and skip these")
    return f"{what} To go on: {'; or '.join(steps)}."


def _earlier(job: Job, plan: repository.RevertPlan, *, prefix: str) -> Revert:
    """The revert made before, as it answered then: the plan is made at its parent,
    the head it was made on."""
    todo, in_the_way = _split(plan)
    job_paths = {file.path for file in plan.files}
    changed = repository.repository_diff(prefix=prefix, old=plan.head.commit, new=plan.marked)
    return Revert(
        job=job,
        commit=plan.marked or "",
        reverted_commit=job.commit,
        removed=sorted(file.path for file in todo if file.before is None),
        restored=sorted(file.path for file in todo if file.before is not None),
        unlinked=sorted(change.path for change in changed if change.path not in job_paths),
        skipped=in_the_way,
        created=False,
    )


def _without_links(data: bytes, path: str, keep: Callable[[str], bool]) -> bytes:
    """``data`` without the ``related`` links whose target ``keep`` refuses."""
    try:
        memory = parse_memory(data, path=path)
    except InvalidMemory:
        return data  # not a memory file: it holds no links to drop
    kept = [link for link in memory.related if keep(link.path)]
    if len(kept) == len(memory.related):
        return data
    memory.related = kept
    return render_memory(memory)


def _drop_links(snapshot: repository.Snapshot, files: dict[str, bytes | None]) -> list[str]:
    """Make ``files`` (the revert's change) leave no ``related`` link to a missing file:
    restored files drop links to what no longer exists, and every other memory that
    links to a removed file is rewritten without that link (scanning blobs for the
    path's bytes first, as forgetting does). Returns the other memories rewritten."""

    def exists(path: str) -> bool:
        return files[path] is not None if path in files else snapshot.exists(path)

    for path, data in files.items():
        if data is not None:
            files[path] = _without_links(data, path, exists)
    gone = {path for path, data in files.items() if data is None}
    if not gone:
        return []
    needles = [path.encode() for path in gone]
    unlinked = []
    for path, blob in snapshot.walk():
        if path in files:
            continue
        data = snapshot.read_blob(blob)
        if not any(needle in data for needle in needles):
            continue
        rewritten = _without_links(data, path, lambda target: target not in gone)
        if rewritten is not data:
            files[path] = rewritten
            unlinked.append(path)
    return sorted(unlinked)


def _message(job: Job, outcome: Revert) -> str:
    parts = [f"{len(outcome.removed)} removed", f"{len(outcome.restored)} restored"]
    if outcome.unlinked:
        parts.append(f"{len(outcome.unlinked)} unlinked")
    if outcome.skipped:
        parts.append(f"{len(outcome.skipped)} skipped")
    text = f"Revert job {job.public_id}: {', '.join(parts)}"
    if outcome.skipped:
        lines = [
            f"- {item.path} ({item.now} by {', '.join(e.commit[:10] for e in item.commits)})"
            for item in outcome.skipped[:MESSAGE_SKIPPED_LINES]
        ]
        if len(outcome.skipped) > MESSAGE_SKIPPED_LINES:
            lines.append(f"- and {len(outcome.skipped) - MESSAGE_SKIPPED_LINES} more")
        text += "\n\nSkipped (changed since the job; forced):\n" + "\n".join(lines)
    return text


def _trailers(job: Job, outcome: Revert) -> dict[str, str]:
    trailers = {
        "Gitloom-Action": "revert",
        REVERTS_TRAILER: str(job.public_id),
        "Gitloom-Reverts-Commit": job.commit,
    }
    if outcome.skipped:
        trailers["Gitloom-Skipped"] = str(len(outcome.skipped))
    return trailers
