"""What storage really holds, for tests of erasure: every object under a prefix raw,
every pack's objects inflated with dulwich (packs are zlib-compressed, so their raw
bytes would hide a text), and the git CLI to check what an export clones to."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

from dulwich.object_format import DEFAULT_OBJECT_FORMAT
from dulwich.pack import PackData, PackInflater


def git(*args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def stored_texts(store, prefix: str) -> dict[str, bytes]:
    """Everything under ``prefix`` as bytes: each object raw, and each pack's objects
    inflated (packs are zlib-compressed, so their raw bytes would hide a text)."""
    texts: dict[str, bytes] = {}
    for obj in store.list(prefix):
        data = store.get(obj.key) or b""
        texts[obj.key] = data
        if obj.key.endswith(".pack"):
            texts.update(_inflated(obj.key, data))
    return texts


def cached_texts(store, prefix: str) -> dict[str, bytes]:
    """This process's local pack cache of the namespace, inflated the same way."""
    texts: dict[str, bytes] = {}
    directory = Path(store.cache_dir) / prefix.rstrip("/")
    for path in sorted(directory.glob("*")) if directory.is_dir() else []:
        data = path.read_bytes()
        texts[str(path)] = data
        if path.suffix == ".pack":
            texts.update(_inflated(str(path), data))
    return texts


def _inflated(name: str, data: bytes) -> dict[str, bytes]:
    pack = PackData.from_file(io.BytesIO(data), DEFAULT_OBJECT_FORMAT)
    try:
        return {
            f"{name}:{obj.id.decode()}": obj.as_raw_string()
            for obj in PackInflater.for_pack_data(pack)
        }
    finally:
        pack.close()


def holding(texts: dict[str, bytes], needle: str) -> list[str]:
    low = needle.lower().encode()
    return [key for key, data in texts.items() if low in data.lower()]
