"""Object storage: a local directory or any S3-compatible store, one interface.

This module is the only place that speaks to object storage (boto3 for S3). The
repository layer (``namespaces.repository``) builds git on top of it and never
touches files or buckets itself.

Two kinds of object live here:

- immutable objects (git packs and their indexes), written once under a
  content-addressed name, so a plain ``put`` is safe to repeat;
- one mutable object per namespace, its head manifest, changed only by
  compare-and-swap: ``put_if_absent`` to create it, ``put_if_match`` to replace
  exactly the version a writer read.  On S3 these are conditional writes
  (``If-None-Match: *`` / ``If-Match: <etag>``); the local directory gives the same
  guarantee with ``os.link`` (atomic create-if-absent) and a per-key ``fcntl`` lock
  around a version check and ``os.replace``.

Keys are ``/``-joined segments from a small charset.  Namespace data lives under
``namespace_prefix(account, namespace)`` = ``"<account>#<namespace>/"``, built from
validated slugs, so no account or namespace id can reach another's keys.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from django.conf import settings

from gitloom.core.errors import ServiceUnavailable
from gitloom.core.slugs import validate_slug
from namespaces.errors import InvalidStorageKey, StorageMisconfigured

__all__ = [
    "LocalObjectStore",
    "ObjectStore",
    "S3ObjectStore",
    "StoredObject",
    "data_dir",
    "namespace_prefix",
    "object_store",
    "using_object_store",
    "validate_key",
    "validate_prefix",
]

# One key segment: no '/', no '#' beyond what namespace_prefix puts there itself,
# nothing that a filesystem or an S3 console would read specially.
_SEGMENT_RE = re.compile(r"[A-Za-z0-9._#-]{1,200}")
_MAX_KEY_LENGTH = 900  # S3 allows 1024 bytes; leave room for GITLOOM_S3_PREFIX


# --------------------------------------------------------------------------- config


def data_dir() -> Path:
    """``GITLOOM_DATA_DIR``: where all local state lives (default ``.gitloom/``)."""
    return Path(settings.GITLOOM_DATA_DIR)


# --------------------------------------------------------------------------- keys


def namespace_prefix(account_id: str, namespace: str) -> str:
    """The key prefix of one namespace: ``"<account>#<namespace>/"``.

    Both parts are validated slugs (``[a-z0-9-]{1,64}``), so neither can hold the
    ``#`` or ``/`` that separate them: no id can address another's data.
    """
    validate_slug(account_id, what="account id")
    validate_slug(namespace, what="namespace name")
    return f"{account_id}#{namespace}/"


def validate_key(key: object) -> str:
    """Refuse anything that is not a plain relative key of safe segments."""
    if not isinstance(key, str) or not key or len(key) > _MAX_KEY_LENGTH:
        raise InvalidStorageKey("Invalid storage key.")
    for segment in key.split("/"):
        if segment in (".", "..") or not _SEGMENT_RE.fullmatch(segment):
            raise InvalidStorageKey("Invalid storage key.")
    return key


def validate_prefix(prefix: object) -> str:
    """A prefix is a key ending in ``/``; the empty prefix (everything) is refused."""
    if not isinstance(prefix, str) or not prefix.endswith("/"):
        raise InvalidStorageKey("Invalid storage prefix.")
    validate_key(prefix[:-1])
    return prefix


def _etag_of(data: bytes) -> str:
    # The same value S3 gives a single-part upload, so a version string means the
    # same thing on both backends.
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


# --------------------------------------------------------------------------- interface


@dataclasses.dataclass(frozen=True)
class StoredObject:
    key: str
    size: int
    last_modified: datetime


@dataclasses.dataclass
class StoreStats:
    """Byte and call counters, for the benchmark and for cost assertions in tests."""

    puts: int = 0
    bytes_uploaded: int = 0
    gets: int = 0
    bytes_downloaded: int = 0

    def snapshot(self) -> StoreStats:
        return dataclasses.replace(self)


class ObjectStore:
    """The operations the repository needs; both backends implement all of them.

    ``cache_dir`` is where readers keep local copies of immutable objects from this
    store (see ``namespaces.repository``); it is part of the store so that a store
    handed to another process carries it along.
    """

    cache_dir: Path

    def __init__(self) -> None:
        self.stats = StoreStats()
        self._stats_lock = threading.Lock()

    def _count_put(self, size: int) -> None:
        with self._stats_lock:
            self.stats.puts += 1
            self.stats.bytes_uploaded += size

    def _count_get(self, size: int) -> None:
        with self._stats_lock:
            self.stats.gets += 1
            self.stats.bytes_downloaded += size

    def get(self, key: str) -> bytes | None:
        found = self.get_versioned(key)
        return None if found is None else found[0]

    def get_versioned(self, key: str) -> tuple[bytes, str] | None:
        """The object and its version tag (etag), or ``None`` if absent."""
        raise NotImplementedError

    def fetch_to_file(self, key: str, path: Path) -> bool:
        """Copy an object into a local file (atomically); ``False`` if absent."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=".fetch-")
        os.close(fd)
        tmp = Path(name)
        try:
            if not self._fetch_into(key, tmp):
                return False
            self._count_get(tmp.stat().st_size)
            os.replace(tmp, path)
            return True
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    def _fetch_into(self, key: str, tmp: Path) -> bool:
        """Write the object's bytes to ``tmp`` (an empty file); ``False`` if absent."""
        raise NotImplementedError

    def put(self, key: str, data: bytes) -> None:
        """Write an immutable object. Repeating it with the same bytes is harmless."""
        raise NotImplementedError

    def put_many(self, items: Mapping[str, bytes]) -> None:
        """Write several immutable objects (a pack and its index) as one step."""
        for key, data in items.items():
            self.put(key, data)

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create the object only if no object has the key; ``False`` if one does."""
        raise NotImplementedError

    def put_if_match(self, key: str, data: bytes, etag: str) -> bool:
        """Replace the object only if its current version is ``etag``.

        ``False`` when someone else changed (or deleted) it first: the caller lost
        the race and must reload.
        """
        raise NotImplementedError

    def list(self, prefix: str) -> list[StoredObject]:
        raise NotImplementedError

    def delete(self, key: str) -> None:
        """Delete one object; deleting an absent object is not an error."""
        raise NotImplementedError

    def delete_prefix(self, prefix: str) -> int:
        """Delete every object under ``prefix``; returns how many were deleted."""
        raise NotImplementedError


# --------------------------------------------------------------------------- local


class LocalObjectStore(ObjectStore):
    """Objects as files under ``root``; as atomic as the S3 conditional writes.

    - ``put``: write a temp file, fsync, ``os.replace`` (readers see old or new).
    - ``put_if_absent``: temp file, then ``os.link`` — fails if the name exists.
    - ``put_if_match``: an exclusive ``fcntl`` lock per key, compare the current
      version, ``os.replace``. Readers take no lock: a replace is atomic.
    Temp and lock files live in ``root/.tmp`` and ``root/.locks``, outside every
    prefix (a prefix starts with an account slug, which cannot start with '.').
    """

    def __init__(self, root: Path | str, *, cache_dir: Path | str | None = None) -> None:
        super().__init__()
        self.root = Path(root).resolve()
        self.cache_dir = Path(cache_dir) if cache_dir else self.root.parent / "cache"
        self._tmp = self.root / ".tmp"
        self._locks = self.root / ".locks"

    def __repr__(self) -> str:
        return f"LocalObjectStore({str(self.root)!r})"

    def __getstate__(self) -> dict[str, Any]:
        # Stores travel to worker processes (multiprocessing, spawn); locks do not.
        return {"root": self.root, "cache_dir": self.cache_dir}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["root"], cache_dir=state["cache_dir"])  # type: ignore[misc]

    def _path(self, key: str) -> Path:
        validate_key(key)
        return self.root / key

    def _tempfile(self, data: bytes) -> Path:
        self._tmp.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=self._tmp, prefix="put-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fdatasync(f.fileno())
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
            raise
        return Path(name)

    @staticmethod
    def _fsync_dir(path: Path) -> None:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def _lock_path(self, key: str) -> Path:
        return self._locks / hashlib.sha256(key.encode()).hexdigest()

    @contextlib.contextmanager
    def _key_lock(self, key: str) -> Iterator[None]:
        self._locks.mkdir(parents=True, exist_ok=True)
        with open(self._lock_path(key), "a+b") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)

    def get_versioned(self, key: str) -> tuple[bytes, str] | None:
        try:
            data = self._path(key).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        self._count_get(len(data))
        return data, _etag_of(data)

    def _fetch_into(self, key: str, tmp: Path) -> bool:
        source = self._path(key)
        os.unlink(tmp)
        try:
            # Immutable objects are never rewritten in place, so a hard link is a
            # safe, free copy; fall back to copying across filesystems.
            os.link(source, tmp)
        except FileNotFoundError:
            return False
        except OSError:
            try:
                shutil.copyfile(source, tmp)
            except FileNotFoundError:
                return False
        return True

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._tempfile(data)
        os.replace(tmp, path)
        self._fsync_dir(path.parent)
        self._count_put(len(data))

    def put_many(self, items: Mapping[str, bytes]) -> None:
        # Sync every file, rename them all, then sync each directory once: the
        # same durability as separate puts with fewer (slow) syncs.
        for key in items:
            validate_key(key)
        temps = [(self._path(key), self._tempfile(data)) for key, data in items.items()]
        directories = set()
        for path, tmp in temps:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, path)
            directories.add(path.parent)
        for directory in directories:
            self._fsync_dir(directory)
        for data in items.values():
            self._count_put(len(data))

    def put_if_absent(self, key: str, data: bytes) -> bool:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._tempfile(data)
        try:
            with self._key_lock(key):
                os.link(tmp, path)
        except FileExistsError:
            return False
        finally:
            os.unlink(tmp)
        self._fsync_dir(path.parent)
        self._count_put(len(data))
        return True

    def put_if_match(self, key: str, data: bytes, etag: str) -> bool:
        path = self._path(key)
        tmp = self._tempfile(data)
        try:
            with self._key_lock(key):
                try:
                    current = path.read_bytes()
                except FileNotFoundError:
                    return False
                if _etag_of(current) != etag:
                    return False
                os.replace(tmp, path)
                self._fsync_dir(path.parent)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        self._count_put(len(data))
        return True

    def list(self, prefix: str) -> list[StoredObject]:
        validate_prefix(prefix)
        base = self.root / prefix
        found: list[StoredObject] = []
        if not base.is_dir():
            return found
        for dirpath, _dirnames, filenames in os.walk(base):
            for filename in filenames:
                full = Path(dirpath) / filename
                try:
                    st = full.stat()
                except FileNotFoundError:
                    continue  # deleted while we walked
                key = full.relative_to(self.root).as_posix()
                found.append(
                    StoredObject(key, st.st_size, datetime.fromtimestamp(st.st_mtime, tz=UTC))
                )
        found.sort(key=lambda o: o.key)
        return found

    def delete(self, key: str) -> None:
        path = self._path(key)
        # Only keys written conditionally (the head) have a lock file; an immutable
        # pack deleted by gc needs none, and taking one would leave a file behind.
        locked = self._key_lock(key) if self._lock_path(key).exists() else contextlib.nullcontext()
        with locked, contextlib.suppress(FileNotFoundError):
            path.unlink()

    def delete_prefix(self, prefix: str) -> int:
        objects = self.list(prefix)
        for obj in objects:
            self.delete(obj.key)
        base = self.root / prefix
        if base.is_dir():
            shutil.rmtree(base, ignore_errors=True)
        return len(objects)


# --------------------------------------------------------------------------- S3


class S3ObjectStore(ObjectStore):
    """Any S3-compatible store through boto3, with conditional writes for CAS."""

    def __init__(
        self,
        *,
        bucket: str,
        endpoint_url: str | None = None,
        key_prefix: str = "",
        region_name: str | None = None,
        cache_dir: Path | str | None = None,
    ) -> None:
        super().__init__()
        if key_prefix:
            validate_prefix(key_prefix)
        self.bucket = bucket
        self.endpoint_url = endpoint_url or None
        self.key_prefix = key_prefix
        self.region_name = region_name
        self.cache_dir = Path(cache_dir) if cache_dir else data_dir() / "cache"
        self._client_lock = threading.Lock()
        self._client_obj: Any = None

    def __repr__(self) -> str:
        return f"S3ObjectStore(bucket={self.bucket!r}, endpoint_url={self.endpoint_url!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {
            "bucket": self.bucket,
            "endpoint_url": self.endpoint_url,
            "key_prefix": self.key_prefix,
            "region_name": self.region_name,
            "cache_dir": self.cache_dir,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    @property
    def _client(self) -> Any:
        # boto3 clients are thread-safe once made, but making one is not.
        if self._client_obj is None:
            with self._client_lock:
                if self._client_obj is None:
                    import boto3
                    from botocore.config import Config

                    self._client_obj = boto3.session.Session().client(
                        "s3",
                        endpoint_url=self.endpoint_url,
                        region_name=self.region_name,
                        config=Config(
                            retries={"mode": "standard", "max_attempts": 5},
                            max_pool_connections=32,
                            connect_timeout=5,
                            read_timeout=30,
                        ),
                    )
        return self._client_obj

    def _key(self, key: str) -> str:
        return self.key_prefix + validate_key(key)

    @staticmethod
    def _code(exc: Exception) -> str:
        response = getattr(exc, "response", None) or {}
        return str(response.get("Error", {}).get("Code", ""))

    @staticmethod
    def _status(exc: Exception) -> int:
        response = getattr(exc, "response", None) or {}
        return int(response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)

    @contextlib.contextmanager
    def _translate(self) -> Iterator[None]:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            yield
        except ClientError as exc:  # anything the caller did not expect and handle
            raise ServiceUnavailable(
                f"Object storage refused the request: {self._code(exc) or exc}"
            ) from exc
        except BotoCoreError as exc:  # connection refused, timeouts, bad endpoint
            raise ServiceUnavailable(f"Object storage is unavailable: {exc}") from exc

    def ensure_bucket(self) -> None:
        """Create the bucket if missing (development and tests; production buckets
        are provisioned outside the service)."""
        from botocore.exceptions import ClientError

        with self._translate():
            try:
                self._client.head_bucket(Bucket=self.bucket)
            except ClientError:
                self._client.create_bucket(Bucket=self.bucket)

    def get_versioned(self, key: str) -> tuple[bytes, str] | None:
        from botocore.exceptions import ClientError

        with self._translate():
            try:
                response = self._client.get_object(Bucket=self.bucket, Key=self._key(key))
            except ClientError as exc:
                if self._code(exc) in ("NoSuchKey", "404", "NotFound"):
                    return None
                raise
            data = response["Body"].read()
        self._count_get(len(data))
        return data, response["ETag"].strip('"')

    def _fetch_into(self, key: str, tmp: Path) -> bool:
        from botocore.exceptions import ClientError

        with open(tmp, "wb") as f, self._translate():
            try:
                self._download(key, f)
            except ClientError as exc:
                if self._code(exc) in ("NoSuchKey", "404", "NotFound"):
                    return False
                raise
        return True

    def _download(self, key: str, f: BinaryIO) -> None:
        response = self._client.get_object(Bucket=self.bucket, Key=self._key(key))
        for chunk in response["Body"].iter_chunks(1 << 20):
            f.write(chunk)

    def put(self, key: str, data: bytes) -> None:
        with self._translate():
            self._client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)
        self._count_put(len(data))

    def put_many(self, items: Mapping[str, bytes]) -> None:
        # Concurrent PUTs: a write waits one round trip for its pack and index, not two.
        for key in items:
            validate_key(key)
        if len(items) < 2:
            for key, data in items.items():
                self.put(key, data)
            return
        for future in [_uploads().submit(self.put, key, data) for key, data in items.items()]:
            future.result()

    def _conditional_put(self, key: str, data: bytes, **condition: str) -> bool:
        from botocore.exceptions import ClientError

        for attempt in range(8):
            with self._translate():
                try:
                    self._client.put_object(
                        Bucket=self.bucket, Key=self._key(key), Body=data, **condition
                    )
                except ClientError as exc:
                    code, status = self._code(exc), self._status(exc)
                    if code == "PreconditionFailed" or status == 412:
                        return False
                    if code in ("NoSuchKey", "404") and "IfMatch" in condition:
                        return False  # deleted under us: the version we read is gone
                    if code == "ConditionalRequestConflict" or status == 409:
                        # Another conditional write to this key is in flight; S3
                        # asks us to retry, and the retry will see its outcome.
                        time.sleep(0.01 * (attempt + 1))
                        continue
                    raise
            self._count_put(len(data))
            return True
        return False

    def put_if_absent(self, key: str, data: bytes) -> bool:
        return self._conditional_put(key, data, IfNoneMatch="*")

    def put_if_match(self, key: str, data: bytes, etag: str) -> bool:
        return self._conditional_put(key, data, IfMatch=f'"{etag}"')

    def list(self, prefix: str) -> list[StoredObject]:
        validate_prefix(prefix)
        found: list[StoredObject] = []
        with self._translate():
            paginator = self._client.get_paginator("list_objects_v2")
            for page in paginator.paginate(Bucket=self.bucket, Prefix=self._key_prefix_of(prefix)):
                for item in page.get("Contents", []):
                    key = item["Key"][len(self.key_prefix) :]
                    found.append(StoredObject(key, int(item["Size"]), item["LastModified"]))
        found.sort(key=lambda o: o.key)
        return found

    def _key_prefix_of(self, prefix: str) -> str:
        return self.key_prefix + prefix

    def delete(self, key: str) -> None:
        with self._translate():
            self._client.delete_object(Bucket=self.bucket, Key=self._key(key))

    def delete_prefix(self, prefix: str) -> int:
        objects = self.list(prefix)
        with self._translate():
            for start in range(0, len(objects), 1000):
                batch = objects[start : start + 1000]
                self._client.delete_objects(
                    Bucket=self.bucket,
                    Delete={
                        "Objects": [{"Key": self.key_prefix + o.key} for o in batch],
                        "Quiet": True,
                    },
                )
        return len(objects)


_upload_pool: concurrent.futures.ThreadPoolExecutor | None = None


def _uploads() -> concurrent.futures.ThreadPoolExecutor:
    global _upload_pool
    if _upload_pool is None:
        with _store_lock:
            if _upload_pool is None:
                _upload_pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=8, thread_name_prefix="gitloom-upload"
                )
    return _upload_pool


# --------------------------------------------------------------------------- the store


_store: ObjectStore | None = None
_override: list[ObjectStore] = []
_store_lock = threading.Lock()


def _configured_store() -> ObjectStore:
    kind = (settings.GITLOOM_STORAGE or "local").lower()
    cache = data_dir() / "cache"
    if kind == "local":
        return LocalObjectStore(data_dir() / "objects", cache_dir=cache)
    if kind == "s3":
        bucket = settings.GITLOOM_S3_BUCKET
        if not bucket:
            raise StorageMisconfigured(
                "GITLOOM_STORAGE is 's3' but GITLOOM_S3_BUCKET is not set.",
            )
        return S3ObjectStore(
            bucket=str(bucket),
            endpoint_url=settings.GITLOOM_S3_ENDPOINT_URL or None,
            key_prefix=settings.GITLOOM_S3_PREFIX or "",
            region_name=settings.GITLOOM_S3_REGION,
            cache_dir=cache,
        )
    raise StorageMisconfigured(f"Unknown GITLOOM_STORAGE {kind!r}: use 'local' or 's3'.")


def object_store() -> ObjectStore:
    """The process's object store (built once from settings; see ``using_object_store``)."""
    global _store
    if _override:
        return _override[-1]
    if _store is None:
        with _store_lock:
            if _store is None:
                _store = _configured_store()
    return _store


@contextlib.contextmanager
def using_object_store(store: ObjectStore) -> Iterator[ObjectStore]:
    """Make ``store`` the process's object store for the duration of the block.

    For tests (both backends against one test body), the benchmark (a scratch
    directory) and worker processes handed a store explicitly.
    """
    _override.append(store)
    try:
        yield store
    finally:
        _override.remove(store)
