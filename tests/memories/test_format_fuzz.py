"""Every header field the memory format writes survives import -> list -> export ->
import, for any values (issue 28): years 1 to 9999 with any UTC offset (and the
unpadded years GitLoom once wrote), microseconds, confidences from 0 to 1 down to the
smallest float, unicode and YAML-looking strings in tags, cues and sources, links, and
bodies of any text. A file whose values the format would not read back (a time that
leaves years 1-9999 once in UTC) is refused at the door (400, nothing stored); every
other file is listed, read, exported and imported again with the same values.

Driven through the HTTP API with hypothesis-generated files, written by hand as a user
would (any offset, any key order), not by the service's own writer.
"""

from __future__ import annotations

import io
import itertools
import tarfile
from datetime import UTC, datetime, timedelta, timezone

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from namespaces.memory_format import TIERS, Link, Memory
from tests.support.archives import tar_gz

# One line of text, as the format allows in a tag, cue or source: no control characters,
# line or paragraph separators; surrogates cannot be UTF-8.
LINE = st.text(
    st.characters(blacklist_categories=("Cc", "Zl", "Zp", "Cs")), min_size=1, max_size=40
).filter(str.strip)
YAMLISH = st.sampled_from(["null", "~", "yes", "No", "1.5", "0x1F", "1_000", "-", "'q'", "a: b",
                           "[x]", "#tag", "@at", "*star", "&amp", "!bang", "%pc", " pad ",
                           "2026-07-31", "12:30", "ñandú", "東京", "🙂 emoji", "\ufeffbom"])  # fmt: skip
FIELD = st.one_of(LINE, YAMLISH)
BODY = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
               min_size=1, max_size=200).filter(str.strip)  # fmt: skip
SEGMENT = st.from_regex(r"[a-z0-9-]{1,12}", fullmatch=True)
OFFSET = st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1).map(
    lambda minutes: timezone(timedelta(minutes=minutes))
)
MOMENT = st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)
)
CONFIDENCE = st.one_of(
    st.none(),
    st.sampled_from([0.0, 1.0, 5e-324, 1e-05, 0.1 + 0.2, 0.5]),
    st.floats(min_value=0, max_value=1),
)


@st.composite
def timestamps(draw) -> tuple[str, datetime | None]:
    """A header time as written by hand, and the UTC time it means (None when that is
    outside years 1-9999: the file must be refused)."""
    local = draw(MOMENT).replace(tzinfo=draw(OFFSET))
    text = local.isoformat()
    if draw(st.booleans()) and text.startswith("0"):
        text = text.lstrip("0")  # GitLoom's old unpadded years ("999-06-01T...")
    if local.utcoffset() == timedelta(0) and draw(st.booleans()):
        text = text.replace("+00:00", "Z")
    try:
        return text, local.astimezone(UTC)
    except OverflowError:
        return text, None


@st.composite
def memory_files(draw) -> tuple[dict[str, bytes], dict[str, Memory], bool]:
    """``(files, expected memories, valid)`` for one import of 1-4 files."""
    count = draw(st.integers(1, 4))
    paths = draw(
        st.lists(
            st.tuples(st.sampled_from(TIERS), SEGMENT, SEGMENT).map(
                lambda parts: f"{parts[0]}/{parts[1]}/{parts[2]}.md"
            ),
            min_size=count,
            max_size=count,
            unique=True,
        )
    )
    files, expected, valid = {}, {}, True
    for path in paths:
        (created_text, created), (updated_text, updated) = sorted(
            [draw(timestamps()), draw(timestamps())],
            key=lambda pair: pair[1] or datetime.max.replace(tzinfo=UTC),
        )
        valid &= created is not None and updated is not None
        others = [p for p in paths if p != path]
        link = st.tuples(st.from_regex(r"[a-z0-9][a-z0-9_-]{0,15}", fullmatch=True),
                         st.sampled_from(others or [""]))  # fmt: skip
        links = draw(st.lists(link, max_size=3)) if others else []
        memory = {
            "tier": path.split("/")[0],
            "tags": draw(st.lists(FIELD, max_size=4)),
            "created": created_text,
            "updated": updated_text,
            "confidence": draw(CONFIDENCE),
            "cues": draw(st.lists(FIELD, min_size=1, max_size=3)),
            "related": [{link_type: target} for link_type, target in links],
            "sources": draw(st.lists(FIELD, max_size=3)),
        }
        header = {k: v for k, v in memory.items() if v not in (None, [])}
        keys = draw(st.permutations(list(header)))  # imported files may use any order
        text = yaml.safe_dump(
            {key: header[key] for key in keys},
            allow_unicode=draw(st.booleans()),
            sort_keys=False,
            width=1 << 30,
        )
        body = draw(BODY)
        files[path] = f"---\n{text}---\n\n{body}\n".encode()
        if created is not None and updated is not None:
            expected[path] = Memory(
                tier=memory["tier"],
                tags=memory["tags"],
                created=created,
                updated=updated,
                confidence=memory["confidence"],
                cues=memory["cues"],
                related=[Link(type=t, path=p) for t, p in links],
                sources=memory["sources"],
                body=body,
            )
    return files, expected, valid


def _case(created_text: str, created: datetime | None) -> tuple:
    """One file with the given ``created`` (and ``updated``) as written."""
    path = "events/trip/first-00000000.md"
    text = f"---\ntier: events\ncreated: {created_text}\nupdated: {created_text}\ncues:\n  - q\n---\n\nb\n"
    expected = {}
    if created is not None:
        expected[path] = Memory(
            tier="events", created=created, updated=created, cues=["q"], body="b"
        )
    return {path: text.encode()}, expected, created is not None


_names = (f"fuzz-{n}" for n in itertools.count())


def _namespace(api) -> str:
    name = next(_names)
    assert api.post("/v1/namespaces", {"name": name}, format="json").status_code == 201
    return name


def _import(api, name: str, data: bytes, kind: str = "tar"):
    content_type = "application/gzip" if kind == "tar" else "application/x-git-bundle"
    return api.post(f"/v1/namespaces/{name}/import?format={kind}", data, content_type=content_type)


def _read_back(api, name: str, expected: dict[str, Memory]) -> dict[str, bytes]:
    """Assert the listing and each memory carry the expected values; the raw files."""
    listing = api.get(f"/v1/memories?namespace={name}&limit=200").json()
    assert sorted(m["path"] for m in listing["memories"]) == sorted(expected)
    raw = {}
    for item in listing["memories"]:
        want = expected[item["path"]]
        assert (item["tier"], item["tags"], item["cues"]) == (want.tier, want.tags, want.cues)
        assert datetime.fromisoformat(item["updated"]) == want.updated
        got = api.get(f"/v1/memories/{item['path']}?namespace={name}").json()
        assert datetime.fromisoformat(got["created"]) == want.created, got["created"]
        assert datetime.fromisoformat(got["updated"]) == want.updated, got["updated"]
        assert got["confidence"] == want.confidence
        assert (got["tags"], got["cues"], got["sources"]) == (want.tags, want.cues, want.sources)
        assert [(r["type"], r["path"]) for r in got["related"]] == [
            (link.type, link.path) for link in want.related
        ]
        assert got["body"] == want.body
        raw[item["path"]] = got["raw"].encode()
    return raw


def _tar_files(data: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        return {m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}


@pytest.mark.slow
@settings(
    max_examples=12,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=memory_files())
# The issue's own inputs: a year before 1000, an offset that moves the year 1 time.
@example(case=_case("0999-06-01T00:00:00Z", datetime(999, 6, 1, tzinfo=UTC)))
@example(case=_case("0001-01-01T00:00:00-23:59", datetime(1, 1, 1, 23, 59, tzinfo=UTC)))
@example(case=_case("9999-12-31T23:59:59-00:01", None))  # past 9999 once in UTC
def test_every_header_field_survives_import_list_export_import(api, case):
    files, expected, valid = case
    name = _namespace(api)
    imported = _import(api, name, tar_gz(files))
    if not valid:
        # A time outside years 1-9999 once in UTC would not read back: refused, whole.
        assert imported.status_code == 400, imported.json()
        assert imported.json()["error"]["code"] == "invalid_memory"
        assert api.get(f"/v1/memories?namespace={name}").json()["memories"] == []
        return
    assert imported.status_code == 201, imported.json()
    raw = _read_back(api, name, expected)
    # The export holds exactly the files served, and imports again with the same values,
    # as a tar and as a bundle.
    exported = api.get(f"/v1/namespaces/{name}/export?format=tar").content
    assert _tar_files(exported) == raw
    again = _namespace(api)
    assert _import(api, again, exported).status_code == 201
    assert _read_back(api, again, expected) == raw
    bundle = api.get(f"/v1/namespaces/{name}/export?format=bundle").content
    cloned = _namespace(api)
    assert _import(api, cloned, bundle, "bundle").status_code == 201
    assert _read_back(api, cloned, expected) == raw
