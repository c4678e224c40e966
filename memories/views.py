"""Dashboard pages for a namespace's memories, their history, its jobs, and export and
import. Each page gets its namespace from ``namespace_page`` (resolved once, for the
signed-in person's account), then calls the same selector or service as the API view."""

from __future__ import annotations

import difflib
import re
import uuid
from collections import defaultdict
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from accounts.credentials import Credential
from accounts.models import Account
from gitloom.core.dashboard import error_page
from gitloom.core.errors import GitLoomError, InvalidInput, PayloadTooLarge
from memories.conversation_text import conversation_messages
from memories.errors import JobNotFound, MemoryNotFound, RevertConflict
from memories.forms import (
    ImportForm,
    MemoryFilterForm,
    PurgeMatchForm,
    PurgePathForm,
    RememberForm,
)
from memories.selectors import (
    job_get_for_account,
    job_links,
    job_list,
    job_messages,
    memories_linking_to,
    memory_blame,
    memory_get,
    memory_history,
    memory_list,
    namespace_export,
)
from memories.services import (
    import_accept,
    job_accept,
    job_revert,
    job_revert_preview,
    job_reverted_in,
    memory_delete,
    memory_import,
    memory_purge,
    namespace_purge,
)
from namespaces.dashboard import namespace_page
from namespaces.errors import UnrelatedHistory
from namespaces.memory_format import TIERS
from namespaces.models import Namespace

PAGE_SIZE = 200
JOBS_SHOWN = 50


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add", "del", "hunk", "meta" or "ctx"
    text: str
    # (text, changed) runs: for a removed line and the added line that replaces it, the
    # words that differ are marked, so one changed word in a long line stands out.
    parts: tuple[tuple[str, bool], ...] = ()


_WORDS = re.compile(r"(\s+)")


def diff_lines(diff_text: str) -> list[DiffLine]:
    """A unified diff as lines a template can colour, with word-level marks."""
    lines = []
    for line in diff_text.splitlines():
        if line.startswith(("+++", "---")):
            kind = "meta"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        elif line.startswith("@@"):
            kind = "hunk"
        else:
            kind = "ctx"
        lines.append(DiffLine(kind=kind, text=line))
    return _mark_words(lines)


def _mark_words(lines: list[DiffLine]) -> list[DiffLine]:
    """Pair each run of removed lines with the run of added lines after it, line by
    line, and mark the words each pair does not share (difflib, on words)."""
    out = list(lines)
    i = 0
    while i < len(out):
        if out[i].kind != "del":
            i += 1
            continue
        dels = i
        while i < len(out) and out[i].kind == "del":
            i += 1
        adds = i
        while i < len(out) and out[i].kind == "add":
            i += 1
        for old_at, new_at in zip(range(dels, adds), range(adds, i), strict=False):
            old, new = out[old_at], out[new_at]
            old_words = _WORDS.split(old.text[1:])
            new_words = _WORDS.split(new.text[1:])
            matcher = difflib.SequenceMatcher(a=old_words, b=new_words, autojunk=False)
            old_parts, new_parts = [(old.text[0], False)], [(new.text[0], False)]
            for tag, a1, a2, b1, b2 in matcher.get_opcodes():
                same = tag == "equal"
                if a2 > a1:
                    old_parts.append(("".join(old_words[a1:a2]), not same))
                if b2 > b1:
                    new_parts.append(("".join(new_words[b1:b2]), not same))
            out[old_at] = DiffLine(old.kind, old.text, tuple(old_parts))
            out[new_at] = DiffLine(new.kind, new.text, tuple(new_parts))
    return out


def _tree(items) -> list[tuple[str, list[tuple[str, list]]]]:
    """Memories grouped as [(tier, [(topic, [item, ...]), ...]), ...] from their paths."""
    grouped: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        tier, topic, _name = item.path.split("/", 2)
        grouped[tier][topic].append(item)
    # Tiers in the order they age (facts first), unknown ones last; topics by name.
    order = {tier: index for index, tier in enumerate(TIERS)}
    tiers = sorted(grouped, key=lambda tier: (order.get(tier, len(order)), tier))
    return [(tier, sorted(grouped[tier].items())) for tier in tiers]


# --- the memory browser ------------------------------------------------------------


@namespace_page
def memory_browser(request: HttpRequest, *, namespace: Namespace, account: Account) -> HttpResponse:
    return _browser(request, namespace, RememberForm(initial={"token": uuid.uuid4().hex}))


@require_http_methods(["POST"])
@namespace_page
def memory_remember(
    request: HttpRequest, *, namespace: Namespace, account: Account
) -> HttpResponse:
    """The namespace page's "remember a conversation" form: the same service as
    ``POST /v1/memories``, then the job's page, which follows it until it is done."""
    form = RememberForm(request.POST)
    if form.is_valid():
        try:
            job, _created = job_accept(
                namespace=namespace,
                messages=conversation_messages(form.cleaned_data["conversation"]),
                session_id=form.cleaned_data["session_id"].strip() or None,
                idempotency_key=form.cleaned_data["token"],
            )
        except GitLoomError as exc:  # an empty or too long transcript, a reused token
            form.add_error("conversation", exc.message)
        else:
            return redirect("dash-job", name=namespace.name, job_id=job.public_id)
    return _browser(request, namespace, form, status=400)


def _browser(request: HttpRequest, namespace, remember: RememberForm, *, status: int = 200):
    filters = MemoryFilterForm(request.GET or None)
    tier = tag = None
    if filters.is_valid():
        tier = filters.cleaned_data["tier"] or None
        tag = filters.cleaned_data["tag"].strip() or None
    elif filters.is_bound:
        return error_page(
            request,
            error=InvalidInput("That filter is not valid; pick a tier from the list."),
            back_url=request.path,
            back_label="Show all memories",
        )
    cursor = request.GET.get("after") or None
    page = memory_list(namespace=namespace, tier=tier, tag=tag, cursor=cursor, limit=PAGE_SIZE)
    context = {
        "section": "namespaces",
        "tab": "memories",
        "namespace": namespace,
        "filters": filters,
        "filtered": bool(tier or tag),
        "page": page,
        "tree": _tree(page.items),
        "cursor": cursor,
        "base_url": request.build_absolute_uri("/").rstrip("/"),
        "remember": remember,
    }
    return render(request, "memories/browser.html", context, status=status)


def _crumbs(path: str) -> tuple[str, str]:
    tier, topic, _name = path.split("/", 2)
    return tier, topic


@namespace_page
def memory_detail(
    request: HttpRequest, path: str, *, namespace: Namespace, account: Account
) -> HttpResponse:
    try:
        item = memory_get(namespace=namespace, path=path)
    except MemoryNotFound as exc:
        # A forgotten memory still has a history; say so rather than a bare 404.
        try:
            memory_history(namespace=namespace, path=path)
        except MemoryNotFound:
            raise exc from None
        return error_page(
            request,
            error=MemoryNotFound(
                "This memory was forgotten: it is no longer in the namespace, but its "
                "earlier versions are kept in the history."
            ),
            back_url=reverse("dash-memory-history", args=[namespace.name, path]),
            back_label="See its history",
        )
    tier, topic = _crumbs(item.path)
    context = {
        "section": "namespaces",
        "tab": "memories",
        "namespace": namespace,
        "item": item,
        "memory": item.memory,
        "raw": item.raw.decode("utf-8"),
        "tier": tier,
        "topic": topic,
        "blame": _blame_rows(memory_blame(namespace=namespace, path=path)),
    }
    return render(request, "memories/detail.html", context)


def _blame_rows(blame) -> list[dict]:
    """Blame as table rows: each run of lines with the commit, job and messages it came
    from (a commit's details repeat on each of its runs, so a row reads on its own)."""
    commits = {entry.commit: entry for entry in blame.commits}
    return [
        {
            "hunk": hunk,
            "end": hunk.start + len(hunk.lines) - 1,
            "text": "\n".join(hunk.lines),
            "source": commits[hunk.commit],
        }
        for hunk in blame.hunks
    ]


@namespace_page
def memory_history_page(
    request: HttpRequest, path: str, *, namespace: Namespace, account: Account
) -> HttpResponse:
    versions = memory_history(namespace=namespace, path=path)
    tier, topic = _crumbs(path)
    context = {
        "section": "namespaces",
        "tab": "memories",
        "namespace": namespace,
        "path": path,
        "tier": tier,
        "topic": topic,
        "versions": [
            {"version": version, "diff": diff_lines(version.diff_text)} for version in versions
        ],
        "exists": versions[0].kind != "delete",
    }
    return render(request, "memories/history.html", context)


@require_http_methods(["GET", "POST"])
@namespace_page
def memory_forget(
    request: HttpRequest, path: str, *, namespace: Namespace, account: Account
) -> HttpResponse:
    item = memory_get(namespace=namespace, path=path)
    if request.method == "POST":
        result = memory_delete(namespace=namespace, path=path)
        unlinked = (
            f" Links to it were dropped from {', '.join(result.modified)}."
            if (result.modified)
            else ""
        )
        messages.success(
            request,
            f"Forgot {path} in commit {result.commit[:10]}.{unlinked} Its history keeps the "
            "old versions.",
        )
        return redirect("dash-namespace", name=namespace.name)
    context = {
        "section": "namespaces",
        "tab": "memories",
        "namespace": namespace,
        "item": item,
        "linking": memories_linking_to(namespace=namespace, path=path),
    }
    return render(request, "memories/forget.html", context)


def _who(request: HttpRequest, account: Account) -> str:
    return Credential(account=account, user=request.user).label


@require_http_methods(["GET", "POST"])
@namespace_page
def memory_purge_page(
    request: HttpRequest, path: str, *, namespace: Namespace, account: Account
) -> HttpResponse:
    """Erase a memory from all history, behind its path typed out. Reached from the
    memory's page and from its history (a forgotten memory can be purged too)."""
    versions = memory_history(namespace=namespace, path=path)  # 404 if it never was
    form = PurgePathForm(request.POST or None, path=path)
    if request.method == "POST" and form.is_valid():
        purge = memory_purge(namespace=namespace, path=path, by=_who(request, account))
        messages.success(
            request,
            f"Purged {path}: {purge.versions} version(s) erased from all history and "
            f"from storage; {purge.commits_replaced} commit(s) got new ids "
            f"(purge commit {purge.commit[:10]}).",
        )
        return redirect("dash-namespace", name=namespace.name)
    tier, topic = _crumbs(path)
    context = {
        "section": "namespaces",
        "tab": "memories",
        "namespace": namespace,
        "path": path,
        "tier": tier,
        "topic": topic,
        "versions": len(versions),
        "exists": versions[0].kind != "delete",
        "form": form,
    }
    status = 400 if form.errors else 200
    return render(request, "memories/purge.html", context, status=status)


@require_http_methods(["GET", "POST"])
@namespace_page
def namespace_purge_page(
    request: HttpRequest, *, namespace: Namespace, account: Account
) -> HttpResponse:
    """The namespace's Purge tab: "purge everything about..." a text, typed twice. Its
    own tab: erasing from all history is no kind of export or import."""
    purge_form = PurgeMatchForm(request.POST or None)
    if request.method == "POST" and purge_form.is_valid():
        try:
            purge = namespace_purge(
                namespace=namespace,
                match=purge_form.cleaned_data["match"],
                by=_who(request, account),
            )
        except InvalidInput as exc:
            purge_form.add_error("match", exc.message)
        else:
            if purge.public_id is None:
                messages.info(
                    request, "Nothing in this namespace's history matched; nothing changed."
                )
            else:
                messages.success(
                    request,
                    f"Purged {purge.versions} version(s) of {len(purge.paths)} file(s) from "
                    f"all history and from storage (purge commit {purge.commit[:10]}).",
                )
            return redirect("dash-namespace-purge", name=namespace.name)
    context = {
        "section": "namespaces",
        "tab": "purge",
        "namespace": namespace,
        "purge_form": purge_form,
    }
    status = 400 if request.method == "POST" else 200
    return render(request, "memories/namespace_purge.html", context, status=status)


# --- jobs --------------------------------------------------------------------------


@namespace_page
def jobs(request: HttpRequest, *, namespace: Namespace, account: Account) -> HttpResponse:
    context = {
        "section": "namespaces",
        "tab": "jobs",
        "namespace": namespace,
        "jobs": list(job_list(namespace=namespace)[:JOBS_SHOWN]),
        "shown": JOBS_SHOWN,
    }
    return render(request, "memories/jobs.html", context)


def _job_of(namespace, account: Account, job_id: str):
    """The job, if it is this namespace's (another namespace's is the same 404)."""
    job = job_get_for_account(account=account, job_id=job_id)
    if job.namespace_id != namespace.pk:
        raise JobNotFound()
    return job


def _revertible(job) -> bool:
    """Whether the job page offers a revert (the service decides for real)."""
    bundle = (job.payload.get("import") or {}).get("format") == "bundle"
    return job.status == job.Status.DONE and bool(job.commit) and not bundle


@namespace_page
def job_detail(
    request: HttpRequest, job_id: str, *, namespace: Namespace, account: Account
) -> HttpResponse:
    job = _job_of(namespace, account, job_id)
    result = job.result or {}
    context = {
        "section": "namespaces",
        "tab": "jobs",
        "namespace": namespace,
        "job": job,
        "created_paths": result.get("created", []),
        "rewritten_paths": result.get("rewritten", []),
        "links": job_links(job=job),
        "messages_count": len((job.payload or {}).get("messages", [])),
        # The transcript, with the ids memories' `sources` cite (blame links here).
        "transcript": job_messages(job),
    }
    context["reverted"] = reverted = _reverted_in(job)
    context["revertible"] = _revertible(job) and reverted is None
    # The revert commit is shown in the history of a file it changed.
    context["reverted_path"] = (
        next(iter([*reverted.removed, *reverted.restored]), None) if reverted else None
    )
    return render(request, "memories/job.html", context)


def _reverted_in(job):
    """The revert that undid the job, if one did; a history the job's commit has left
    (an imported bundle replaced it) has none to show."""
    if not _revertible(job):
        return None
    try:
        return job_reverted_in(job=job)
    except GitLoomError:
        return None


@require_http_methods(["GET", "POST"])
@namespace_page
def job_revert_page(
    request: HttpRequest, job_id: str, *, namespace: Namespace, account: Account
) -> HttpResponse:
    """Asks first (GET), then reverts (POST). A conflict shows the files in the way and
    the commits that changed them, with a button to revert the rest (``force``)."""
    job = _job_of(namespace, account, job_id)
    conflict = None
    if request.method == "POST":
        try:
            revert = job_revert(job=job, force=request.POST.get("force") == "1")
        except RevertConflict as exc:
            conflict = exc
        else:
            _revert_message(request, revert)
            return redirect("dash-job", name=namespace.name, job_id=job.public_id)
    preview = None
    if conflict is None:
        try:  # what it would do now, links dropped included; a conflict shows at once
            preview = job_revert_preview(job=job)
        except RevertConflict as exc:
            conflict = exc
        except GitLoomError as exc:  # nothing to revert, still running, ...
            messages.info(request, exc.message)
            return redirect("dash-job", name=namespace.name, job_id=job.public_id)
    result = job.result or {}
    context = {
        "preview": preview,
        "section": "namespaces",
        "tab": "jobs",
        "namespace": namespace,
        "job": job,
        "created_paths": result.get("created", []),
        "rewritten_paths": result.get("rewritten", []),
        "conflict": conflict,
        "conflicts": conflict.details["conflicts"] if conflict else [],
        "can_force": bool(conflict and conflict.details["revertible"]),
    }
    status = 409 if conflict and request.method == "POST" else 200
    return render(request, "memories/job_revert.html", context, status=status)


def _revert_message(request: HttpRequest, revert) -> None:
    if not revert.created:
        messages.info(
            request,
            f"This job was already reverted, in commit {revert.commit[:10]}; nothing was "
            "written now.",
        )
        return
    text = (
        f"Reverted in commit {revert.commit[:10]}: {len(revert.removed)} removed, "
        f"{len(revert.restored)} restored"
    )
    if revert.unlinked:
        text += f", links dropped from {len(revert.unlinked)} other memories"
    if revert.skipped:
        skipped = ", ".join(item.path for item in revert.skipped)
        text += f"; skipped (changed since): {skipped}"
    messages.success(request, text + ".")


# --- export and import -------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@namespace_page
def export_import(request: HttpRequest, *, namespace: Namespace, account: Account) -> HttpResponse:
    fmt = request.GET.get("format")
    if request.method == "GET" and fmt:
        return _export(namespace, fmt)
    form = ImportForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            upload = form.cleaned_data["archive"]
            if upload.size > settings.GITLOOM_MAX_IMPORT_BYTES:
                form.add_error(
                    "archive",
                    PayloadTooLarge(
                        f"The file is over the {settings.GITLOOM_MAX_IMPORT_BYTES // (1024 * 1024)}"
                        " MiB import limit."
                    ).message,
                )
            else:
                data = upload.read()
                if len(data) > settings.GITLOOM_IMPORT_INLINE_BYTES:
                    # Too big for a request, as in the API: the queue imports it.
                    job = import_accept(
                        namespace=namespace,
                        data=data,
                        kind=form.cleaned_data["format"],
                        replace=form.cleaned_data["replace"],
                    )
                    messages.info(
                        request,
                        f"The import is queued as job {job.public_id}: it lands in one "
                        "commit, or nothing does if a file is invalid (the job says why).",
                    )
                    return redirect("dash-namespace", name=namespace.name)
                # A problem with the file goes beside the field; anything else (a
                # conflict, storage down) becomes an error page in dashboard_view.
                try:
                    result = memory_import(
                        namespace=namespace,
                        data=data,
                        kind=form.cleaned_data["format"],
                        replace=form.cleaned_data["replace"],
                    )
                except (InvalidInput, UnrelatedHistory) as exc:
                    form.add_error("archive", exc.message)
                else:
                    if result.noop:
                        messages.info(request, "Imported: every file was already there as-is.")
                    else:
                        messages.success(
                            request,
                            f"Imported into commit {result.commit[:10]}: "
                            f"{len(result.created)} new, {len(result.modified)} changed, "
                            f"{len(result.deleted)} removed.",
                        )
                    return redirect("dash-namespace", name=namespace.name)
        status = 400
    context = {
        "section": "namespaces",
        "tab": "data",
        "namespace": namespace,
        "form": form,
    }
    return render(request, "memories/export_import.html", context, status=status)


def _export(namespace, fmt: str) -> HttpResponse:
    export = namespace_export(namespace=namespace, fmt=fmt)
    response = HttpResponse(export.data, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response
