"""Reading an untrusted tar(.gz) upload, without ``tarfile``.

``tarfile`` trusts its input: it reads a PAX or GNU long-name header of any declared size
into memory (a 1 MB upload could declare 1 GiB), and on unpatched Pythons its pax parser
is quadratic (CVE-2024-6232: a 285-byte upload held a worker for 91 s). This reader does
the little an import needs and nothing more, whatever the Python patch level:

- the body is decompressed as it is read (gzip, or a plain tar), and the decompressed
  total is capped, so nothing larger than the caps is ever held;
- a PAX or GNU long-name header may be at most ``MAX_EXTENDED_HEADER_BYTES``, and is
  parsed in one linear pass;
- only regular files and directories are accepted (no links, devices or fifos);
- each file's size, the number of files and their total size are capped before their
  data is read.

``read_tar`` yields ``(name, data)`` for each regular file and raises ``InvalidArchive``
or ``ImportTooLarge`` (both 400) on the first problem. Given a ``TarWork``, it counts
what reading cost (bytes decompressed, headers and PAX records visited), so the caps
can be checked as bounds on work, not seconds.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from memories.errors import ImportTooLarge, InvalidArchive

BLOCK = 512
MAX_EXTENDED_HEADER_BYTES = 64 * 1024  # one PAX record set or GNU long name
MAX_HEADERS_PER_MEMBER = 8  # extended headers before one member's own header
_GZIP_MAGIC = b"\x1f\x8b"
_READ_CHUNK = 64 * 1024

_REGULAR = {b"0", b"\0", b"7"}  # "7" is a contiguous file, read as a regular one
_DIRECTORY = b"5"
_PAX = b"x"
_PAX_GLOBAL = b"g"
_GNU_LONG_NAME = b"L"
_GNU_LONG_LINK = b"K"


@dataclass
class TarWork:
    """What reading an archive cost so far."""

    inflated: int = 0  # bytes decompressed (or, for a plain tar, read)
    headers: int = 0  # header blocks visited, extended ones included
    records: int = 0  # PAX records parsed


class _Source:
    """The decompressed byte stream, read in order, with a cap on its total length."""

    def __init__(self, data: bytes, *, max_bytes: int, work: TarWork):
        self.work = work
        self.data = data
        self.gzip = data[:2] == _GZIP_MAGIC
        self.position = 0  # in ``data``, for a plain tar
        self.inflater = zlib.decompressobj(wbits=31) if self.gzip else None
        self.pending = b""  # compressed input not yet given to the inflater
        self.buffer = bytearray()
        self.produced = 0
        self.max_bytes = max_bytes
        if self.gzip:
            self.pending = data

    def _fill(self, wanted: int) -> None:
        while len(self.buffer) < wanted:
            chunk = self._next_chunk(wanted - len(self.buffer))
            if not chunk:
                return
            self.produced += len(chunk)
            self.work.inflated += len(chunk)
            if self.produced > self.max_bytes:
                raise ImportTooLarge(f"The archive unpacks to more than {self.max_bytes} bytes.")
            self.buffer += chunk

    def _next_chunk(self, wanted: int) -> bytes:
        size = max(wanted, _READ_CHUNK)
        if not self.gzip:
            chunk = self.data[self.position : self.position + size]
            self.position += len(chunk)
            return chunk
        assert self.inflater is not None
        while True:
            try:
                if self.inflater.eof:
                    rest = self.inflater.unused_data
                    if not rest.strip(b"\0"):
                        return b""
                    # Another gzip member follows (a concatenated .gz).
                    self.inflater = zlib.decompressobj(wbits=31)
                    self.pending = rest
                given = self.inflater.unconsumed_tail or self.pending
                if given is self.pending:
                    self.pending = b""
                chunk = self.inflater.decompress(given, size)
            except zlib.error:
                raise InvalidArchive("The archive is corrupt.") from None
            if chunk:
                return chunk
            if not given and not self.inflater.eof:
                raise InvalidArchive("The archive is truncated.")

    def read(self, size: int) -> bytes:
        self._fill(size)
        if len(self.buffer) < size:
            raise InvalidArchive("The archive is truncated.")
        out = bytes(self.buffer[:size])
        del self.buffer[:size]
        return out

    def read_block(self) -> bytes | None:
        """The next 512-byte block, or ``None`` at a clean end of the stream."""
        self._fill(BLOCK)
        if not self.buffer:
            return None
        return self.read(BLOCK)

    def skip(self, size: int) -> None:
        while size > 0:
            step = min(size, _READ_CHUNK)
            self.read(step)
            size -= step


def _padded(size: int) -> int:
    return -(-size // BLOCK) * BLOCK


def _number(field: bytes) -> int:
    if field and field[0] & 0x80:  # GNU base-256
        value = int.from_bytes(field[1:], "big")
        if field[0] & 0x40:
            raise InvalidArchive("A tar header holds a negative number.")
        return value
    text = field.split(b"\0", 1)[0].strip(b" ")
    if not text:
        return 0
    try:
        return int(text, 8)
    except ValueError:
        raise InvalidArchive("A tar header is corrupt.") from None


def _checksum_ok(block: bytes) -> bool:
    stored = _number(block[148:156])
    blanked = block[:148] + b" " * 8 + block[156:]
    unsigned = sum(blanked)
    signed = sum(b - 256 if b > 127 else b for b in blanked)
    return stored in (unsigned, signed)


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArchive("A file name in the archive is not UTF-8.") from None


def _pax_records(data: bytes, work: TarWork) -> dict[bytes, bytes]:
    """``"<length> <key>=<value>\\n"`` records, in one pass (no regular expressions)."""
    records: dict[bytes, bytes] = {}
    position = 0
    while position < len(data):
        work.records += 1
        if data[position] == 0:  # trailing NUL padding
            break
        space = data.find(b" ", position, position + 20)
        digits = data[position:space] if space > position else b""
        if not digits.isdigit():
            raise InvalidArchive("A PAX header is corrupt.")
        length = int(digits)
        end = position + length
        if length <= len(digits) + 1 or end > len(data) or data[end - 1 : end] != b"\n":
            raise InvalidArchive("A PAX header is corrupt.")
        key, equals, value = data[space + 1 : end - 1].partition(b"=")
        if not equals or not key:
            raise InvalidArchive("A PAX header is corrupt.")
        records[key] = value
        position = end
    return records


def _extended(source: _Source, size: int, kind: str) -> bytes:
    if size > MAX_EXTENDED_HEADER_BYTES:
        raise InvalidArchive(
            f"A {kind} header of {size} bytes is over the {MAX_EXTENDED_HEADER_BYTES}-byte limit."
        )
    data = source.read(size)
    source.skip(_padded(size) - size)
    return data


def read_tar(
    data: bytes,
    *,
    max_files: int,
    max_file_bytes: int,
    max_total_bytes: int,
    work: TarWork | None = None,
) -> Iterator[tuple[str, bytes]]:
    """Every regular file of a tar or tar.gz, as ``(name, data)``; see the module's doc.

    A file over ``max_file_bytes`` is yielded as its first ``max_file_bytes + 1`` bytes
    (so the caller can say which file is too big); its rest is skipped unread.
    """
    # Decompressed bytes beyond the files' own: two blocks of header and padding per
    # file, extended headers, the end-of-archive blocks.
    overhead = max_files * (2 * BLOCK) + MAX_HEADERS_PER_MEMBER * MAX_EXTENDED_HEADER_BYTES
    work = work if work is not None else TarWork()
    source = _Source(data, max_bytes=max_total_bytes + overhead + 4 * BLOCK, work=work)
    files = 0
    total = 0
    first = True
    while True:
        block = source.read_block() if not first else _first_block(source)
        first = False
        if block is None or block == b"\0" * BLOCK:
            return
        pax: dict[bytes, bytes] = {}
        long_name: bytes | None = None
        for _ in range(MAX_HEADERS_PER_MEMBER + 1):
            work.headers += 1
            if not _checksum_ok(block):
                raise InvalidArchive("The upload is not a tar.gz archive.")
            kind = block[156:157]
            size = _number(block[124:136])
            if kind == _PAX:
                pax.update(_pax_records(_extended(source, size, "PAX"), work))
            elif kind == _PAX_GLOBAL:
                _pax_records(_extended(source, size, "PAX"), work)
            elif kind == _GNU_LONG_NAME:
                long_name = _extended(source, size, "long-name").split(b"\0", 1)[0]
            elif kind == _GNU_LONG_LINK:
                _extended(source, size, "long-link")
            else:
                break
            block = source.read_block()
            if block is None:
                raise InvalidArchive("The archive is truncated.")
        else:
            raise InvalidArchive("A file in the archive has too many extended headers.")

        name_raw = block[0:100].split(b"\0", 1)[0]
        prefix = block[345:500].split(b"\0", 1)[0] if block[257:262] == b"ustar" else b""
        if prefix and block[257:263] == b"ustar\0":  # POSIX ustar: prefix/name
            name_raw = prefix + b"/" + name_raw
        if long_name is not None:
            name_raw = long_name
        if b"path" in pax:
            name_raw = pax[b"path"]
        if b"size" in pax:
            if not pax[b"size"].isdigit():
                raise InvalidArchive("A PAX header is corrupt.")
            size = int(pax[b"size"])
        name = _text(name_raw).removeprefix("./")

        if kind == _DIRECTORY or (kind in _REGULAR and name.endswith("/")):
            source.skip(_padded(size))
            continue
        if kind not in _REGULAR:
            raise InvalidArchive(
                f"{name}: only regular files may be imported (no links or devices)."
            )
        files += 1
        total += min(size, max_file_bytes + 1)
        if files > max_files or total > max_total_bytes:
            raise ImportTooLarge("The archive holds too much.")
        if size > max_file_bytes:
            head = source.read(max_file_bytes + 1)
            yield name, head  # the caller refuses it; the rest is skipped only if it goes on
            source.skip(_padded(size) - len(head))
            continue
        content = source.read(size)
        source.skip(_padded(size) - size)
        yield name, content


def _first_block(source: _Source) -> bytes | None:
    try:
        block = source.read_block()
    except InvalidArchive:
        raise InvalidArchive("The upload is not a tar.gz archive.") from None
    if block is None or (block != b"\0" * BLOCK and not _checksum_ok(block)):
        raise InvalidArchive("The upload is not a tar.gz archive.")
    return block
