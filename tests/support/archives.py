"""Build memory files and archives the way a user would hand them to the import API."""

from __future__ import annotations

import io
import tarfile
from datetime import UTC, datetime

from namespaces.memory_format import Link, Memory, render_memory


def memory_bytes(
    body: str,
    *,
    tier: str = "facts",
    cues: list[str] | None = None,
    tags: list[str] | None = None,
    related: list[tuple[str, str]] | None = None,
    sources: list[str] | None = None,
    when: datetime | None = None,
    confidence: float | None = 0.9,
) -> bytes:
    when = when or datetime(2026, 7, 31, tzinfo=UTC)
    return render_memory(
        Memory(
            tier=tier,
            tags=tags or [],
            created=when,
            updated=when,
            confidence=confidence,
            cues=cues or [body[:60]],
            related=[Link(type=t, path=p) for t, p in (related or [])],
            sources=sources or [],
            body=body,
        )
    )


def tar_gz(files: dict[str, bytes], *, extra: list[tarfile.TarInfo] | None = None) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for info in extra or []:
            archive.addfile(info)
    return out.getvalue()


CAMERA = "facts/camera-gear/sony-a7iii-9a01c4de.md"
LENS = "facts/camera-gear/kit-lens-28-70-1b2c3d4e.md"
TRIP = "events/travel/lisbon-trip-5e6f7a8b.md"


def sample_files() -> dict[str, bytes]:
    return {
        CAMERA: memory_bytes(
            "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru for ₹142,000.",
            cues=["what camera do I own", "Sony A7III purchase"],
            tags=["camera", "purchase"],
            related=[("same-purchase", LENS)],
            sources=["msg-2041"],
        ),
        LENS: memory_bytes(
            "The A7III came with the FE 28-70mm kit lens.",
            cues=["which lens came with the Sony camera"],
            tags=["camera", "lens"],
            related=[("same-purchase", CAMERA)],
        ),
        TRIP: memory_bytes(
            "Flew to Lisbon on 2026-09-02 and stayed at the Hotel Avenida Palace.",
            tier="events",
            cues=["when did I go to Lisbon", "Lisbon hotel"],
            tags=["travel"],
        ),
    }


def tar_header(name: str, *, size: int, kind: bytes = tarfile.REGTYPE) -> bytes:
    """One raw 512-byte tar header block, whatever ``size`` says (for hostile archives)."""
    info = tarfile.TarInfo(name)
    info.size = size
    info.type = kind
    return info.tobuf(format=tarfile.GNU_FORMAT)


def gzip_of_zeros(size: int) -> bytes:
    """``size`` zero bytes as concatenated gzip members (1 GiB is about 1 MB)."""
    import gzip

    chunk = 16 * 1024 * 1024
    member = gzip.compress(b"\0" * chunk, compresslevel=9)
    whole, rest = divmod(size, chunk)
    return member * whole + (gzip.compress(b"\0" * rest) if rest else b"")
