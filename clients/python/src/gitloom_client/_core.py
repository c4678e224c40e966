"""What the sync and async clients share: one ``Call`` per API operation (method, path,
parameters, body, how to read the answer), the error mapping and the retry policy.
The two clients differ only in how they send a ``Call`` and how they wait."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any, Generic, TypeVar
from urllib.parse import quote

import httpx

from gitloom_client import models
from gitloom_client.errors import APIConnectionError, UnexpectedResponseError, error_class

__version__ = "0.1.0"

T = TypeVar("T")

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2
# A Retry-After longer than this is not waited out; the error is raised instead.
MAX_RETRY_WAIT = 30.0
RETRY_STATUSES = (429, 503)

MessageLike = models.Message | Mapping[str, Any]
Messages = str | Sequence[MessageLike]
Filter = str | Sequence[str] | None


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request to the API and how to read its answer."""

    method: str
    path: str
    parse: Callable[[httpx.Response], T]
    params: list[tuple[str, str]] = field(default_factory=list)
    json: Any = None
    content: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    # Safe to send again after a lost answer, a 429 or a 503 (reads, and writes that
    # carry an Idempotency-Key).
    retry: bool = False


def base_url(url: str) -> str:
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def default_headers(api_key: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
    headers = {"User-Agent": f"gitloom-client-python/{__version__}"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    headers.update(extra or {})
    return headers


def request_kwargs(call: Call[Any], headers: Mapping[str, str]) -> dict[str, Any]:
    """httpx's keyword arguments for ``call``, on top of the client's ``headers``."""
    headers = {**headers, "Accept": "application/json", **call.headers}
    kwargs: dict[str, Any] = {"params": call.params, "headers": headers}
    if call.json is not None:
        kwargs["json"] = call.json
    if call.content is not None:
        kwargs["content"] = call.content
    return kwargs


def connection_error(exc: httpx.TransportError) -> APIConnectionError:
    return APIConnectionError(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)


def retry_wait(call: Call[Any], response: httpx.Response | None, attempt: int) -> float | None:
    """Seconds to wait before sending ``call`` again, or None not to.

    ``response`` None means the connection failed. Backoff is exponential from 0.5 s;
    a ``Retry-After`` header wins when the service sends one.
    """
    if not call.retry:
        return None
    backoff = min(0.5 * 2**attempt, 8.0)
    if response is None:
        return backoff
    if response.status_code not in RETRY_STATUSES:
        return None
    after = _retry_after(response)
    if after is None:
        return backoff
    return after if after <= MAX_RETRY_WAIT else None


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return max(0.0, float(response.headers["Retry-After"]))
    except (KeyError, ValueError):
        return None


def raise_for_error(response: httpx.Response) -> None:
    """Turn an error answer into the exception for its status, with the envelope's code."""
    status = response.status_code
    if status < 400:
        return
    cls = error_class(status)
    try:
        envelope = response.json()["error"]
        code = str(envelope["code"])
        message = str(envelope.get("message") or code)
        details = envelope.get("details")
    except (ValueError, KeyError, TypeError):
        code = "unexpected_response"
        message = f"HTTP {status} without GitLoom's error envelope: {response.text[:200]!r}"
        details = None
    raise cls(
        message,
        code=code,
        status=status,
        details=details,
        retry_after=_retry_after(response),
        response=response,
    )


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        raise UnexpectedResponseError(
            f"HTTP {response.status_code} answer is not JSON: {response.text[:200]!r}"
        ) from None


def _reader(build: Callable[[Any], T], key: str | None = None) -> Callable[[httpx.Response], T]:
    def parse(response: httpx.Response) -> T:
        data = _json(response)
        return build(data[key] if key else data)

    return parse


def _segment(value: str) -> str:
    return quote(value, safe="")


def _memory_path(path: str) -> str:
    """A memory's path goes into the URL as it is, slashes included; a `.` or `..`
    segment is percent-encoded so that no HTTP library resolves it into another route
    (the service then refuses the path itself, ``invalid_path``)."""
    segments = [quote(segment, safe="") for segment in path.split("/")]
    return "/".join(
        segment.replace(".", "%2E") if segment in (".", "..") else segment for segment in segments
    )


def _namespace_param(namespace: str | None) -> list[tuple[str, str]]:
    return [] if namespace is None else [("namespace", namespace)]


def _filter(name: str, values: Filter) -> list[tuple[str, str]]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    return [(name, value) for value in values]


def messages_payload(messages: Messages) -> list[dict[str, Any]]:
    """A transcript as the API takes it. A plain string is one user message."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    payload = []
    for message in messages:
        if isinstance(message, models.Message):
            payload.append(message.to_dict())
        elif isinstance(message, Mapping):
            payload.append(dict(message))
        else:
            raise TypeError(
                f"A message is a gitloom_client.Message or a mapping, not {type(message).__name__}."
            )
    return payload


def read_upload(data: bytes | str | IO[bytes]) -> bytes:
    """An import's body: bytes, a file path, or a binary file object."""
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    if isinstance(data, str) or hasattr(data, "__fspath__"):
        with open(data, "rb") as handle:  # noqa: PTH123
            return handle.read()
    return data.read()


# --- the operations of /v1 ---------------------------------------------------------


def whoami() -> Call[models.WhoAmI]:
    return Call("GET", "/v1/whoami", _reader(models.WhoAmI.from_dict), retry=True)


def namespace_list() -> Call[list[models.Namespace]]:
    return Call(
        "GET",
        "/v1/namespaces",
        _reader(lambda items: [models.Namespace.from_dict(item) for item in items], "namespaces"),
        retry=True,
    )


def namespace_create(name: str) -> Call[models.Namespace]:
    return Call("POST", "/v1/namespaces", _reader(models.Namespace.from_dict), json={"name": name})


def namespace_get(name: str) -> Call[models.Namespace]:
    return Call(
        "GET", f"/v1/namespaces/{_segment(name)}", _reader(models.Namespace.from_dict), retry=True
    )


def namespace_delete(name: str) -> Call[None]:
    return Call("DELETE", f"/v1/namespaces/{_segment(name)}", lambda response: None)


def namespace_export(name: str, fmt: str) -> Call[bytes]:
    return Call(
        "GET",
        f"/v1/namespaces/{_segment(name)}/export",
        lambda response: response.content,
        params=[("format", fmt)],
        headers={"Accept": "*/*"},
        retry=True,
    )


def _import_outcome(response: httpx.Response) -> models.ImportResult | models.Job:
    # A big import is queued: 202 with its job, which ends done (committed and indexed)
    # or failed (nothing committed).
    data = _json(response)
    if response.status_code == 202:
        return models.Job.from_dict(data["job"])
    return models.ImportResult.from_dict(data)


def namespace_import(
    name: str, data: bytes, fmt: str | None, *, replace: bool = False
) -> Call[models.ImportResult | models.Job]:
    content_type = {"bundle": "application/x-git-bundle"}.get(fmt or "", "application/gzip")
    params = [("format", fmt)] if fmt else []
    if replace:
        params.append(("replace", "true"))
    return Call(
        "POST",
        f"/v1/namespaces/{_segment(name)}/import",
        _import_outcome,
        params=params,
        content=data,
        headers={"Content-Type": content_type},
    )


def memory_add(
    *,
    messages: Messages,
    namespace: str | None,
    session_id: str | None,
    metadata: Mapping[str, Any] | None,
    idempotency_key: str | None,
) -> Call[models.Job]:
    body: dict[str, Any] = {"messages": messages_payload(messages)}
    if namespace is not None:
        body["namespace"] = namespace
    if session_id is not None:
        body["session_id"] = session_id
    if metadata is not None:
        body["metadata"] = dict(metadata)
    return Call(
        "POST",
        "/v1/memories",
        _reader(models.Job.from_dict, "job"),
        json=body,
        # Always a key, so a retry after a lost answer returns the same job, never a
        # second one.
        headers={"Idempotency-Key": idempotency_key or f"gitloom-client-{uuid.uuid4()}"},
        retry=True,
    )


def memory_list_page(
    *,
    namespace: str | None,
    tier: str | None,
    tag: str | None,
    cursor: str | None,
    limit: int | None,
) -> Call[models.MemoryPage]:
    params = _namespace_param(namespace)
    for name, value in (("tier", tier), ("tag", tag), ("cursor", cursor), ("limit", limit)):
        if value is not None:
            params.append((name, str(value)))
    return Call(
        "GET", "/v1/memories", _reader(models.MemoryPage.from_dict), params=params, retry=True
    )


def memory_get(path: str, namespace: str | None) -> Call[models.Memory]:
    return Call(
        "GET",
        f"/v1/memories/{_memory_path(path)}",
        _reader(models.Memory.from_dict),
        params=_namespace_param(namespace),
        retry=True,
    )


def memory_delete(path: str, namespace: str | None) -> Call[models.Forgotten]:
    return Call(
        "DELETE",
        f"/v1/memories/{_memory_path(path)}",
        _reader(models.Forgotten.from_dict),
        params=_namespace_param(namespace),
    )


def memory_history(path: str, namespace: str | None) -> Call[models.MemoryHistory]:
    return Call(
        "GET",
        f"/v1/memories/{_memory_path(path)}/history",
        _reader(models.MemoryHistory.from_dict),
        params=_namespace_param(namespace),
        retry=True,
    )


def memory_blame(path: str, namespace: str | None) -> Call[models.MemoryBlame]:
    return Call(
        "GET",
        f"/v1/memories/{_memory_path(path)}/blame",
        _reader(models.MemoryBlame.from_dict),
        params=_namespace_param(namespace),
        retry=True,
    )


def namespace_changes_page(
    name: str, *, since: str | None, cursor: str | None, limit: int | None
) -> Call[models.ChangesPage]:
    params = []
    for key, value in (("since", since), ("cursor", cursor), ("limit", limit)):
        if value is not None:
            params.append((key, str(value)))
    return Call(
        "GET",
        f"/v1/namespaces/{_segment(name)}/changes",
        _reader(models.ChangesPage.from_dict),
        params=params,
        retry=True,
    )


def memory_purge(path: str, namespace: str | None) -> Call[models.Purge]:
    # Not retried: a purge repeated after a lost answer would find nothing (404).
    return Call(
        "POST",
        f"/v1/memories/{_memory_path(path)}/purge",
        _reader(models.Purge.from_dict),
        json={"namespace": namespace} if namespace is not None else {},
    )


def namespace_purge(name: str, match: str) -> Call[models.Purge]:
    return Call(
        "POST",
        f"/v1/namespaces/{_segment(name)}/purge",
        _reader(models.Purge.from_dict),
        json={"match": match},
    )


def job_get(job_id: str) -> Call[models.Job]:
    return Call(
        "GET", f"/v1/jobs/{_segment(str(job_id))}", _reader(models.Job.from_dict, "job"), retry=True
    )


def job_revert(job_id: str, *, force: bool, namespace: str | None) -> Call[models.Revert]:
    body: dict[str, Any] = {"force": force}
    if namespace is not None:
        body["namespace"] = namespace
    return Call(
        "POST",
        f"/v1/jobs/{_segment(str(job_id))}/revert",
        _reader(models.Revert.from_dict),
        json=body,
        # Safe to send again: a second revert of the same job answers the first one.
        retry=True,
    )


def job_list_page(
    *, namespace: str | None, limit: int | None, cursor: str | None
) -> Call[models.JobPage]:
    params = _namespace_param(namespace)
    if limit is not None:
        params.append(("limit", str(limit)))
    if cursor is not None:
        params.append(("cursor", cursor))
    return Call("GET", "/v1/jobs", _reader(models.JobPage.from_dict), params=params, retry=True)


def retrieve(
    *,
    query: str,
    namespace: str | None,
    limit: int | None,
    tier: Filter,
    tag: Filter,
    arms: Iterable[str] | None,
    min_similarity: float | None = None,
    as_of: str | datetime | None = None,
    as_of_by: str | None = None,
) -> Call[models.Retrieval]:
    params = [("query", query), *_namespace_param(namespace)]
    if limit is not None:
        params.append(("limit", str(limit)))
    params += _filter("tier", tier) + _filter("tag", tag)
    if arms is not None:
        params.append(("arms", ",".join(arms)))
    if min_similarity is not None:
        params.append(("min_similarity", repr(float(min_similarity))))
    if as_of is not None:
        params.append(("as_of", as_of.isoformat() if isinstance(as_of, datetime) else as_of))
    if as_of_by is not None:
        params.append(("as_of_by", as_of_by))
    return Call(
        "GET", "/v1/retrieve", _reader(models.Retrieval.from_dict), params=params, retry=True
    )


# --- waiting for a job -------------------------------------------------------------

DEFAULT_WAIT_TIMEOUT = 120.0


def poll_interval(attempt: int) -> float:
    """0.1 s, then longer, up to 1 s: a job of the offline extractor ends in well under a
    second, one of a model in seconds to minutes."""
    return min(0.1 * 1.5**attempt, 1.0)
