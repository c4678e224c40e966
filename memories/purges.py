"""Purging: erasing a memory, or everything that mentions a string, from all history.

``memory_purge`` drops one path from every commit; ``namespace_purge`` drops every
version of every file whose text (header, body or path) contains a string, matched
case-insensitively. Both go through ``namespaces.repository.repository_purge`` (the
rewrite, the swap, the deletion of every pack that held what was dropped), then, in
order: the purge record and the old->new commit map (``namespaces.services``), job
rows moved to their commits' new ids, the index rebuilt from the repository, and for
a match purge the string redacted from the namespace's finished jobs' transcripts.

What survives a match purge, by decision: a file's versions that do not contain the
string (an earlier or later wording that never said it) stay; only the versions that
say it go. docs/API.md, "Purging", is the contract.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from django.db import transaction
from django.db.models import TextField
from django.db.models.functions import Cast, Concat

from memories.errors import InvalidMatch, MemoryNotFound
from memories.models import Job
from namespaces import repository
from namespaces.errors import InvalidMemory
from namespaces.memory_format import parse_memory, render_memory, validate_memory_path
from namespaces.models import Namespace, Purge
from namespaces.selectors import commit_current
from namespaces.services import purge_record
from retrieval.services import after_repository_change

MIN_MATCH_CHARS = 3
MAX_MATCH_CHARS = 200
REDACTED = "[purged]"
SESSION_ID_CHARS = Job._meta.get_field("session_id").max_length


def memory_purge(*, namespace: Namespace, path: str, by: str) -> Purge:
    """Erase every version of the memory at ``path`` from the namespace's history.

    ``404 memory_not_found`` if no commit ever held it (nothing changes). Files at the
    head that link to it lose those links in the purge commit, as forgetting does.
    ``by`` names the credential (``Credential.label``) for the record.
    """
    validate_memory_path(path)
    by = _one_line(by)
    purge_id = uuid.uuid4()
    result = repository.repository_purge(
        prefix=namespace.storage_prefix,
        drop=lambda candidate, _read: candidate == path,
        message=f"Purge {path}",
        trailers={
            "Gitloom-Action": "purge",
            "Gitloom-Purge": str(purge_id),
            "Gitloom-Path": path,
            "Gitloom-Credential": by,
        },
        finish=_unlink_dropped,
    )
    if result.noop:
        raise MemoryNotFound("No commit of this namespace ever held that memory.")
    return _after_purge(
        namespace=namespace, purge_id=purge_id, kind=Purge.Kind.PATH, by=by, result=result
    )


def namespace_purge(*, namespace: Namespace, match: object, by: str) -> Purge:
    """Erase every version of every file whose path or text contains ``match``
    (case-insensitive), and redact it from commit messages and finished jobs'
    transcripts. Nothing matched: nothing changes, and the answer is an unsaved
    ``Purge`` with no versions."""
    pattern = match_pattern(match)
    by = _one_line(by)
    purge_id = uuid.uuid4()

    def describe(dropped: list[tuple[str, str]]) -> str:
        paths = sorted({redact(pattern, path) for path, _blob in dropped})
        listing = "\n".join(f"- {path}" for path in paths)
        return f"Purge {len(dropped)} version(s) of {len(paths)} file(s)\n\n{listing}"

    result = repository.repository_purge(
        prefix=namespace.storage_prefix,
        drop=lambda path, read: _matches(pattern, path, read),
        message=describe,
        trailers={
            "Gitloom-Action": "purge",
            "Gitloom-Purge": str(purge_id),
            "Gitloom-Credential": by,
        },
        redact=lambda text: redact(pattern, text),
        finish=_unlink_dropped,
    )
    if result.noop:
        return Purge(
            public_id=None,
            namespace=namespace,
            kind=Purge.Kind.MATCH,
            credential=by,
            paths=[],
            versions=0,
            previous_commit=result.commit,
            commit=result.commit,
        )
    purge = _after_purge(
        namespace=namespace,
        purge_id=purge_id,
        kind=Purge.Kind.MATCH,
        by=by,
        result=result,
        show=lambda path: redact(pattern, path),
    )
    _redact_jobs(namespace, pattern, str(match).strip())
    return purge


def match_pattern(match: object) -> re.Pattern[str]:
    if not isinstance(match, str):
        raise InvalidMatch("`match` must be a string.")
    text = match.strip()
    if not MIN_MATCH_CHARS <= len(text) <= MAX_MATCH_CHARS:
        raise InvalidMatch(
            f"`match` must be {MIN_MATCH_CHARS} to {MAX_MATCH_CHARS} characters "
            "(leading and trailing spaces are not counted)."
        )
    if any(ord(ch) < 32 for ch in text):
        raise InvalidMatch("`match` must be one line of text.")
    return re.compile(re.escape(text), re.IGNORECASE)


def _one_line(text: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f]+", " ", text).strip()[:200] or "unknown"


def redact(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(REDACTED, text)


def _matches(pattern: re.Pattern[str], path: str, read: Callable[[], bytes]) -> bool:
    return bool(pattern.search(path) or pattern.search(read().decode("utf-8", errors="replace")))


def _unlink_dropped(
    snapshot: repository.Snapshot, dropped: list[tuple[str, str]]
) -> dict[str, bytes | None]:
    """The files at the rewritten head that link to a path the purge removed from it,
    without those links: the namespace's own export must import again."""
    gone = {path for path, _blob in dropped if not snapshot.exists(path)}
    needles = [path.encode() for path in gone]
    changed: dict[str, bytes | None] = {}
    for path, blob in snapshot.walk():
        data = snapshot.read_blob(blob)
        if not any(needle in data for needle in needles):
            continue
        try:
            memory = parse_memory(data, path=path)
        except InvalidMemory:
            continue  # not a memory file GitLoom can rewrite; left as it is
        kept = [link for link in memory.related if link.path not in gone]
        if len(kept) != len(memory.related):
            memory.related = kept
            changed[path] = render_memory(memory)
    return changed


def _after_purge(
    *,
    namespace: Namespace,
    purge_id: uuid.UUID,
    kind: str,
    by: str,
    result: repository.PurgeResult,
    show: Callable[[str], str] = str,
) -> Purge:
    """Record it, move job rows to their commits' new ids, rebuild the index."""
    purge = purge_record(
        namespace=namespace,
        public_id=purge_id,
        kind=kind,
        credential=by,
        paths=sorted({show(path) for path in result.paths}),
        result=result,
    )
    _remap_jobs(namespace, result.replaced)
    # Rebuilt from the rewritten history, head and as-of rows alike; a cue text that is
    # still there keeps its vector (a purged one changed or went, so is embedded anew).
    after_repository_change(
        namespace=namespace, commit=result.commit, rebuild=True, reuse_vectors=True
    )
    return purge


def _remap_jobs(namespace: Namespace, replaced: dict[str, str]) -> None:
    """Every job row naming a replaced commit names its new id (following earlier
    purges' rewrites too, so two purges in quick succession cannot leave one behind)."""
    if not replaced:
        return
    with transaction.atomic():
        jobs = list(
            Job.objects.select_for_update()
            .filter(namespace=namespace, commit__in=list(replaced))
            .only("seq", "commit")
        )
        for job in jobs:
            job.commit = commit_current(namespace=namespace, commit=job.commit)
        Job.objects.bulk_update(jobs, ["commit"], batch_size=500)


def _redact_jobs(namespace: Namespace, pattern: re.Pattern[str], text: str) -> None:
    """Take the string out of finished jobs' transcripts (values and keys, metadata
    included), session ids, results and error messages: all the API and the dashboard
    show of a job. Queued and running jobs are writes still to land after the purge;
    they are kept whole, as any write accepted after it would be."""
    finished = Job.objects.filter(
        namespace=namespace, status__in=[Job.Status.DONE, Job.Status.FAILED]
    )
    if '"' not in text and "\\" not in text:
        # Only rows whose JSON holds the text can change (a quote or backslash in the
        # string is escaped in JSON's text, so then every row is looked at).
        finished = finished.annotate(
            as_text=Concat(
                Cast("payload", TextField()),
                Cast("result", TextField()),
                "error_message",
                "session_id",
                output_field=TextField(),
            )
        ).filter(as_text__icontains=text)
    with transaction.atomic():
        fields = ("payload", "result", "error_message", "session_id")
        for job in finished.select_for_update().only("seq", *fields):
            before = {name: getattr(job, name) for name in fields}
            after = {
                "payload": _redact_json(pattern, job.payload),
                "result": _redact_json(pattern, job.result),
                "error_message": redact(pattern, job.error_message),
                # ("[purged]" is longer than a short match: kept within the column)
                "session_id": redact(pattern, job.session_id)[:SESSION_ID_CHARS],
            }
            if after != before:
                Job.objects.filter(pk=job.pk).update(**after)


def _redact_json(pattern: re.Pattern[str], value):
    if isinstance(value, str):
        return redact(pattern, value)
    if isinstance(value, list):
        return [_redact_json(pattern, item) for item in value]
    if isinstance(value, dict):
        # keys too: a transcript's metadata is the caller's own JSON, keys included
        return {redact(pattern, key): _redact_json(pattern, item) for key, item in value.items()}
    return value
