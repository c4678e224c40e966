"""The memory file: one markdown file with a YAML header, one fact per file.

A memory file looks exactly like this (docs/API.md, "Memories", is the contract)::

    ---
    tier: facts
    tags: [camera, purchase]
    created: 2026-07-31T00:00:00Z
    updated: 2026-07-31T00:00:00Z
    cues:
      - what camera do I own
    sources:
      - msg-2041
    ---

    Bought a Sony A7III ...

    Memory, Link          the header and body as values
    parse_memory          bytes -> Memory; lenient where hand edits are harmless, and
                          refuses hostile input (size, encoding, YAML tricks) first
    render_memory         Memory -> the canonical bytes (render(parse(x)) == x)
    validate_memory_path  ``<tier>/<topic>/<name>.md``; new_memory_path names new files
    validate_links        ``related`` links point at files that exist

The rules (keys, canonical form, hostile input, paths): docs/design/namespaces.md
("Memory files").
"""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import yaml

from gitloom.core.errors import InvalidPath  # InvalidPath: re-exported
from namespaces.errors import InvalidMemory

TIERS = ("facts", "preferences", "events", "working")
MAX_MEMORY_BYTES = 64 * 1024
MAX_PATH_CHARS = 200
MAX_TOPIC_CHARS = 64
MAX_NAME_CHARS = 100  # file name, ".md" included
MAX_FIELD_CHARS = 300  # one cue, tag or source id
SEGMENT_RE = re.compile(r"[a-z0-9-]+")
LINK_TYPE_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
HEADER_KEYS = ("tier", "tags", "created", "updated", "confidence", "cues", "related", "sources")
REQUIRED_KEYS = ("tier", "created", "updated", "cues")

# The format nests at most mapping > list > mapping; anything deeper is hostile, and
# refusing it early keeps a deep "[[[[..." from recursing in the YAML composer.
_MAX_DEPTH = 4
# The year may have fewer than four digits: GitLoom itself once wrote years before 1000
# unpadded ("999-06-01T00:00:00Z", strftime's %Y), and those files must stay readable.
_TIMESTAMP_RE = re.compile(
    r"(\d{1,4})(-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-]\d{2}:\d{2}))", re.ASCII
)
_WIDE = 1 << 30  # keep PyYAML from folding long scalars over lines
# Letters NFKD does not decompose but that have an obvious ASCII spelling.
_FOLDS = str.maketrans(
    {"ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE",
     "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "Th", "ı": "i"}
)  # fmt: skip


@dataclass(frozen=True)
class Link:
    type: str
    path: str


@dataclass(kw_only=True)
class Memory:
    tier: str
    tags: list[str] = field(default_factory=list)
    created: datetime
    updated: datetime
    confidence: float | None = None
    cues: list[str]
    related: list[Link] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    body: str

    def __post_init__(self) -> None:
        # The file always holds the body the same way, so equality survives a write.
        self.body = _normalize_body(self.body)


# --- paths ------------------------------------------------------------------


def _show(value: str) -> str:
    """A caller's string, safe to put in an error message."""
    return repr(value[:80] + "…" if len(value) > 80 else value)


def validate_memory_path(path: str) -> str:
    """Return ``path`` if it is ``<tier>/<topic>/<name>.md``; raise ``InvalidPath``."""

    def bad(problem: str) -> InvalidPath:
        return InvalidPath(f"Invalid memory path {_show(path)}: {problem}.", path=path)

    if not isinstance(path, str) or not path:
        raise InvalidPath("A memory path must be a non-empty string.")
    if len(path) > MAX_PATH_CHARS:
        raise bad(f"longer than {MAX_PATH_CHARS} characters")
    for char, why in (("\0", "NUL"), ("\\", "a backslash"), ("#", "'#'")):
        if char in path:
            raise bad(f"contains {why}")
    if path.startswith("/"):
        raise bad("must be relative, not absolute")
    segments = path.split("/")
    if ".." in segments or "." in segments:
        raise bad("must not contain '.' or '..' segments")
    if len(segments) != 3:
        raise bad("must be <tier>/<topic>/<name>.md, exactly three segments")
    tier, topic, name = segments
    if tier not in TIERS:
        raise bad(f"unknown tier {_show(tier)} (expected one of {', '.join(TIERS)})")
    if not SEGMENT_RE.fullmatch(topic) or len(topic) > MAX_TOPIC_CHARS:
        raise bad(f"topic must be 1-{MAX_TOPIC_CHARS} characters of a-z, 0-9 and '-'")
    stem = name.removesuffix(".md")
    if stem == name:
        raise bad("file name must end in '.md'")
    if not SEGMENT_RE.fullmatch(stem) or len(name) > MAX_NAME_CHARS:
        raise bad(f"file name must be a-z, 0-9 and '-' then '.md', at most {MAX_NAME_CHARS}")
    return path


def slugify(text: str, *, max_len: int = 48, fallback: str = "memory") -> str:
    """ASCII slug of ``text``: accents folded, other non-ASCII dropped, runs of anything
    else collapsed to '-'. ``fallback`` when nothing is left ("東京")."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLDS))
    ascii_text = "".join(c for c in decomposed if not unicodedata.combining(c))
    ascii_text = ascii_text.encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    slug = slug[:max_len].rstrip("-")
    return slug or fallback


def new_memory_path(
    *,
    tier: str,
    topic_hint: str,
    title: str,
    body: str,
    topic_sizes: Callable[[str], int] | Mapping[str, int],
    max_topic_files: int = 200,
) -> str:
    """Name a new memory ``<tier>/<topic>/<slug>-<hash8>.md``.

    ``hash8`` is the start of the SHA-256 of the (normalized) body, so two facts with the
    same title get different names. ``topic_sizes`` gives the number of files already in
    a folder such as ``"facts/camera-gear"``; a full folder spills to ``<topic>-2``,
    ``<topic>-3``, ... The caller still checks that the returned path is free: an equal
    title and body yield the same name, which is usually the same fact.
    """
    if tier not in TIERS:
        raise InvalidPath(f"Unknown tier {_show(tier)} (expected one of {', '.join(TIERS)}).")
    size_of = topic_sizes if callable(topic_sizes) else lambda key: topic_sizes.get(key, 0)
    topic = slugify(topic_hint, max_len=40, fallback="general")
    for n in itertools.count(1):
        folder = f"{tier}/{topic}" if n == 1 else f"{tier}/{topic}-{n}"
        if size_of(folder) < max_topic_files:
            break
    digest = hashlib.sha256(_normalize_body(body).encode("utf-8")).hexdigest()[:8]
    return validate_memory_path(f"{folder}/{slugify(title)}-{digest}.md")


# --- parsing ----------------------------------------------------------------


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe loader that refuses duplicate and merge keys and leaves timestamps as
    strings, so this module decides what a valid timestamp is."""

    yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise yaml.constructor.ConstructorError(
                    None, None, "merge keys ('<<') are not allowed", key_node.start_mark
                )
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise yaml.constructor.ConstructorError(
                    None, None, "keys must be strings", key_node.start_mark
                )
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _check_events(text: str) -> None:
    """Refuse anchors, aliases, explicit tags and deep nesting before composing, so a
    YAML bomb is never expanded and no tag can pick a constructor."""
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise yaml.YAMLError(f"anchors and aliases are not allowed ({event.start_mark})")
        if getattr(event, "tag", None) is not None:
            raise yaml.YAMLError(f"YAML tags are not allowed ({event.tag!r})")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > _MAX_DEPTH:
                raise yaml.YAMLError("the header is nested too deeply")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def parse_memory(data: bytes, *, path: str | None = None) -> Memory:
    """Parse and validate a memory file; raise ``InvalidMemory`` naming ``path``."""
    where = path if path is not None else "memory"

    def bad(problem: str) -> InvalidMemory:
        return InvalidMemory(f"{where}: {problem}.", path=path)

    if not isinstance(data, bytes):
        raise bad("expected bytes")
    if len(data) > MAX_MEMORY_BYTES:
        raise bad(f"file is {len(data)} bytes, over the {MAX_MEMORY_BYTES}-byte limit")
    if b"\0" in data:
        raise bad("file contains a NUL byte")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad(f"file is not UTF-8 (byte {exc.start})") from None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise bad("file must start with a '---' line opening the YAML header")
    if text.endswith("\n---"):  # a header with no body; reported as an empty body below
        text += "\n"
    end = text.find("\n---\n", 3)
    if end == -1:
        raise bad("the YAML header is not closed by a '---' line")
    header_text, body = text[4 : end + 1], text[end + 5 :]
    try:
        _check_events(header_text)
        header = yaml.load(header_text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except (yaml.YAMLError, RecursionError) as exc:
        raise bad(f"invalid YAML header: {' '.join(str(exc).split())}") from None
    except ValueError:  # an integer past Python's int-string limit (4300 digits)
        raise bad("invalid YAML header: a number in it has too many digits") from None
    if not isinstance(header, dict):
        raise bad("the YAML header must be a mapping of keys to values")
    unknown = [key for key in header if key not in HEADER_KEYS]
    if unknown:
        raise bad(f"unknown header key {_show(unknown[0])} (allowed: {', '.join(HEADER_KEYS)})")
    missing = [key for key in REQUIRED_KEYS if header.get(key) is None]
    if missing:
        raise bad(f"missing required header key {missing[0]!r}")

    def str_list(key: str) -> list[str]:
        value = header.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise bad(f"{key!r} must be a list")
        return value

    def timestamp(key: str) -> datetime:
        value = header[key]
        match = _TIMESTAMP_RE.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            raise bad(
                f"{key!r} must be an ISO 8601 time with a zone, like 2026-07-31T00:00:00Z "
                f"(got {_show(str(value))})"
            )
        try:
            year, rest = match.groups()
            return datetime.fromisoformat(f"{int(year):04d}{rest}").astimezone(UTC)
        except (ValueError, OverflowError):  # OverflowError: past year 9999 once in UTC
            raise bad(f"{key!r} is not a real time: {_show(value)}") from None

    related = []
    for item in str_list("related"):
        if not isinstance(item, dict) or len(item) != 1:
            raise bad("each 'related' entry must be one '<type>: <path>' pair")
        ((link_type, link_path),) = item.items()
        if not isinstance(link_path, str):
            raise bad(f"related link {_show(link_type)} must point to a path")
        related.append(Link(type=link_type, path=link_path))

    memory = Memory(
        tier=header["tier"],
        tags=str_list("tags"),
        created=timestamp("created"),
        updated=timestamp("updated"),
        confidence=header.get("confidence"),
        cues=str_list("cues"),
        related=related,
        sources=str_list("sources"),
        body=body,
    )
    _validate(memory, bad)
    if path is not None:
        try:
            validate_memory_path(path)
        except InvalidPath as exc:
            raise bad(exc.message.rstrip(".")) from None
        if path.split("/", 1)[0] != memory.tier:
            raise bad(f"tier {memory.tier!r} does not match the path's first segment")
    return memory


def _validate(memory: Memory, bad: Callable[[str], InvalidMemory]) -> None:
    """The checks shared by parsing and writing, so neither can produce a bad file."""
    if memory.tier not in TIERS:
        raise bad(f"unknown tier {_show(str(memory.tier))} (expected one of {', '.join(TIERS)})")
    for key in ("created", "updated"):
        value = getattr(memory, key)
        if not isinstance(value, datetime) or value.utcoffset() is None:
            raise bad(f"{key!r} must be a datetime with a time zone")
    if memory.updated < memory.created:
        raise bad("'updated' is earlier than 'created'")
    confidence = memory.confidence
    if confidence is not None:
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            raise bad(f"'confidence' must be a number from 0 to 1 (got {_show(str(confidence))})")
        if not 0 <= confidence <= 1:
            raise bad(f"'confidence' must be from 0 to 1 (got {confidence})")
    for key in ("tags", "cues", "sources"):
        values = getattr(memory, key)
        if not isinstance(values, list):
            raise bad(f"{key!r} must be a list")
        for value in values:
            _check_line(value, f"each of {key!r}", bad)
    if not memory.cues:
        raise bad("'cues' must hold at least one cue")
    if not isinstance(memory.related, list):
        raise bad("'related' must be a list")
    for link in memory.related:
        if not isinstance(link, Link):
            raise bad("each 'related' entry must be a Link")
        if not isinstance(link.type, str) or not LINK_TYPE_RE.fullmatch(link.type):
            raise bad(
                f"link type {_show(str(link.type))} must be 1-64 characters of a-z, 0-9, '_' "
                "and '-'"
            )
        try:
            validate_memory_path(link.path)
        except InvalidPath as exc:
            raise bad(f"related link {link.type!r}: {exc.message.rstrip('.')}") from None
    if not isinstance(memory.body, str) or not memory.body:
        raise bad("the body is empty")


def _check_line(value: object, what: str, bad: Callable[[str], InvalidMemory]) -> None:
    if not isinstance(value, str):
        raise bad(f"{what} must be a string (got {_show(str(value))})")
    if not value.strip():
        raise bad(f"{what} must not be empty")
    if len(value) > MAX_FIELD_CHARS:
        raise bad(f"{what} must be at most {MAX_FIELD_CHARS} characters")
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in value):
        raise bad(f"{what} must be one line without control characters")


def _normalize_body(body: str) -> str:
    if not isinstance(body, str):
        return body  # _validate reports the type
    body = body.replace("\r\n", "\n").rstrip()
    return re.sub(r"\A(?:[ \t]*\n)+", "", body)


# --- writing ----------------------------------------------------------------


# Strings that are certainly plain YAML scalars unless they resolve to another type
# ("yes", "1.5", "null"); they skip the emitter, which costs ~80 us a call. For these
# the emitter would choose plain style too, so the output is the same either way.
_PLAIN_BLOCK_RE = re.compile(r"\w(?:[\w ./()+=?!'-]*[\w.)?!'])?")
_PLAIN_FLOW_RE = re.compile(r"\w(?:[\w ./()+=-]*[\w.)])?")
_DUMP_RESOLVER = yaml.resolver.Resolver()


def _scalar(value: str, *, flow: bool = False) -> str:
    """``value`` as a one-line YAML scalar for a list item, quoted only if YAML needs it."""
    plain = _PLAIN_FLOW_RE if flow else _PLAIN_BLOCK_RE
    if plain.fullmatch(value) and (
        _DUMP_RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == "tag:yaml.org,2002:str"
    ):
        return value
    dumped = yaml.safe_dump([value], default_flow_style=flow, allow_unicode=True, width=_WIDE)
    return dumped.removeprefix("[").removesuffix("]\n") if flow else dumped[2:-1]


def _timestamp(value: datetime) -> str:
    # Not strftime: its %Y does not pad years before 1000 on every platform, and the
    # reader wants four digits ("0999-06-01T00:00:00Z").
    utc = value.astimezone(UTC)
    text = utc.replace(tzinfo=None).isoformat(timespec="seconds")
    return f"{text}.{utc.microsecond:06d}Z" if utc.microsecond else f"{text}Z"


def _float(value: float) -> str:
    # repr, but with a dot before any exponent: YAML 1.1 reads "1e-05" as a string.
    mantissa, e, exponent = repr(float(value)).partition("e")
    if e and "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}{e}{exponent}"


def render_memory(memory: Memory) -> bytes:
    """The canonical bytes of ``memory``; raise ``InvalidMemory`` if it is not valid."""

    def bad(problem: str) -> InvalidMemory:
        return InvalidMemory(f"memory: {problem}.")

    _validate(memory, bad)
    lines = ["---", f"tier: {memory.tier}"]
    if memory.tags:
        lines.append(f"tags: [{', '.join(_scalar(tag, flow=True) for tag in memory.tags)}]")
    lines.append(f"created: {_timestamp(memory.created)}")
    lines.append(f"updated: {_timestamp(memory.updated)}")
    if memory.confidence is not None:
        lines.append(f"confidence: {_float(memory.confidence)}")
    lines += ["cues:"] + [f"  - {_scalar(cue)}" for cue in memory.cues]
    if memory.related:
        lines.append("related:")
        lines += [f"  - {_scalar(link.type)}: {_scalar(link.path)}" for link in memory.related]
    if memory.sources:
        lines += ["sources:"] + [f"  - {_scalar(source)}" for source in memory.sources]
    lines += ["---", "", memory.body, ""]
    data = "\n".join(lines).encode("utf-8")
    if len(data) > MAX_MEMORY_BYTES:
        raise bad(f"file would be {len(data)} bytes, over the {MAX_MEMORY_BYTES}-byte limit")
    return data


# --- links ------------------------------------------------------------------


def validate_links(*, memories: Mapping[str, Memory], existing_paths: Container[str]) -> None:
    """Every ``related`` link of every memory points at another memory that is either in
    ``memories`` (path -> memory, e.g. one import) or in ``existing_paths``."""
    for path, memory in memories.items():
        for link in memory.related:
            if link.path == path:
                raise InvalidMemory(
                    f"{path}: related link {link.type!r} points at the memory itself.", path=path
                )
            if link.path not in memories and link.path not in existing_paths:
                raise InvalidMemory(
                    f"{path}: related link {link.type!r} points at {link.path}, which does "
                    "not exist.",
                    path=path,
                )
