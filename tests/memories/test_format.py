"""The memory file format: canonical round trips, validation, hostile input, naming."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

from gitloom.core.errors import InvalidInput
from namespaces.errors import InvalidMemory
from namespaces.memory_format import (
    MAX_MEMORY_BYTES,
    InvalidPath,
    Link,
    Memory,
    new_memory_path,
    parse_memory,
    render_memory,
    slugify,
    validate_links,
    validate_memory_path,
)

PATH = "facts/camera-gear/sony-a7iii-purchase-3f2a9c1b.md"
# Byte for byte the product's example memory (the camera purchase).
EXAMPLE = """\
---
tier: facts
tags: [camera, purchase]
created: 2026-07-31T00:00:00Z
updated: 2026-07-31T00:00:00Z
confidence: 0.9
cues:
  - what camera do I own
  - Sony A7III purchase
related:
  - same-purchase: facts/camera-gear/kit-lens-28-70-9a01c4de.md
sources:
  - msg-2041
---

Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru for ₹142,000,
chosen over the A7IV on price.
""".encode()
TIMES = "created: 2026-07-31T00:00:00Z\nupdated: 2026-07-31T00:00:00Z\n"
MINIMAL = f"---\ntier: facts\n{TIMES}cues:\n  - q\n---\n\nBody.\n".encode()


def header_with(replace: str, by: str) -> bytes:
    data = EXAMPLE.decode()
    assert replace in data
    return data.replace(replace, by, 1).encode()


def refused(data: bytes, *, path: str | None = PATH) -> str:
    with pytest.raises(InvalidMemory) as info:
        parse_memory(data, path=path)
    assert info.value.code == "invalid_memory"
    assert isinstance(info.value, InvalidInput)
    return info.value.message


# --- round trips ------------------------------------------------------------


def test_design_example_parses_into_its_fields():
    memory = parse_memory(EXAMPLE, path=PATH)
    t = datetime(2026, 7, 31, tzinfo=UTC)
    assert memory == Memory(
        tier="facts",
        tags=["camera", "purchase"],
        created=t,
        updated=t,
        confidence=0.9,
        cues=["what camera do I own", "Sony A7III purchase"],
        related=[Link(type="same-purchase", path="facts/camera-gear/kit-lens-28-70-9a01c4de.md")],
        sources=["msg-2041"],
        body="Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru for ₹142,000,\n"
        "chosen over the A7IV on price.",
    )


def test_design_example_renders_back_byte_for_byte():
    assert render_memory(parse_memory(EXAMPLE, path=PATH)) == EXAMPLE


def test_minimal_memory_omits_empty_optional_keys_and_round_trips():
    memory = parse_memory(MINIMAL)
    assert (memory.tags, memory.related, memory.sources, memory.confidence) == ([], [], [], None)
    assert render_memory(memory) == MINIMAL


@pytest.mark.parametrize(
    "text",
    [
        "what: a colon",
        "[starts with a bracket",
        "{brace",
        "yes",
        "null",
        "2041",
        "0.5",
        "2026-07-31",
        "a # not a comment",
        "#hash first",
        "- dash first",
        "'quoted'",
        '"double"',
        " padded ",
        "ends with colon:",
        "* star",
        "&anchorish",
        "!bang",
        "@at",
        "%percent",
        "Zürich café ₹ 東京 😀",
        "---",
        "a, b",
        "On",
        "~",
        "1e3",
        "0x1F",
        "1_000",
        ".inf",
        "2026-07-31 10:00:00",
        "what's my sister's name?",
        "Dr. (Asha) Rao!",
    ],
)
def test_awkward_strings_round_trip_in_every_list(text):
    memory = Memory(
        tier="events",
        tags=[text],
        created=datetime(2026, 1, 1, tzinfo=UTC),
        updated=datetime(2026, 1, 2, 3, 4, 5, 600, tzinfo=UTC),
        confidence=1,
        cues=[text, "second cue"],
        related=[Link(type="yes", path="facts/a/b.md")],
        sources=[text],
        body=f"{text}\n\n---\n\nmore",
    )
    data = render_memory(memory)
    assert parse_memory(data, path="events/x/y.md") == memory
    assert render_memory(parse_memory(data)) == data


def test_hand_edited_file_is_accepted_and_rewritten_canonically():
    hand = (
        "\ufeff---\r\nsources: [msg-1]\r\ncues: [where do I live]\r\ntier: facts\r\n"
        "updated: 2026-07-31T05:30:00+05:30\r\ncreated: 2026-07-30T00:00:00.5Z\r\n"
        "confidence: 1\r\ntags:\r\n---\r\n\r\n\r\nLives in Pune.   \r\n\r\n"
    ).encode()
    assert render_memory(parse_memory(hand)) == (
        b"---\ntier: facts\ncreated: 2026-07-30T00:00:00.500000Z\n"
        b"updated: 2026-07-31T00:00:00Z\nconfidence: 1.0\ncues:\n  - where do I live\n"
        b"sources:\n  - msg-1\n---\n\nLives in Pune.\n"
    )


def test_timestamps_are_returned_in_utc():
    memory = parse_memory(
        header_with("updated: 2026-07-31T00:00:00Z", "updated: 2026-07-31T09:00:00+09:00")
    )
    assert memory.updated == datetime(2026, 7, 31, tzinfo=UTC)
    assert memory.updated.utcoffset() == timedelta(0)


def test_render_writes_other_zones_as_utc():
    memory = parse_memory(EXAMPLE)
    memory.updated = datetime(2026, 8, 1, 2, 0, tzinfo=timezone(timedelta(hours=2)))
    assert b"updated: 2026-08-01T00:00:00Z\n" in render_memory(memory)


@pytest.mark.parametrize(
    "when",
    [
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(1, 1, 1, 23, 59, tzinfo=UTC),
        datetime(9, 9, 9, 9, 9, 9, 9, tzinfo=UTC),
        datetime(999, 6, 1, tzinfo=UTC),
        datetime(1000, 1, 1, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=timezone(timedelta(hours=-23, minutes=-59))),
    ],
)
@pytest.mark.parametrize("confidence", [None, 0, 1, 0.1, 5e-324, 0.30000000000000004, 1 - 2**-53])
def test_every_header_field_reads_back_as_written(when, confidence):
    memory = Memory(
        tier="working",
        tags=["東京", "ß", "🙂", "yes"],
        created=when,
        updated=when,
        confidence=confidence,
        cues=["what's 東京 — in ⚙ terms?", "- dash", "#hash", "\u00e9 plain"],
        related=[Link(type="same_event", path="facts/a/b.md")],
        sources=["msg-1", "null", "0999-06-01T00:00:00Z"],
        body="Line one.\n\n---\n\nline two ☃",
    )
    data = render_memory(memory)
    assert re.search(rb"^created: \d{4}-\d{2}-\d{2}T", data, re.M)
    assert parse_memory(data, path="working/a/b.md") == memory
    assert render_memory(parse_memory(data)) == data


def test_an_unpadded_year_an_older_gitloom_wrote_is_read_and_rewritten_padded():
    data = header_with("created: 2026-07-31T00:00:00Z", "created: 999-06-01T00:00:00Z")
    memory = parse_memory(data)
    assert memory.created == datetime(999, 6, 1, tzinfo=UTC)
    assert b"created: 0999-06-01T00:00:00Z\n" in render_memory(memory)


# --- validation -------------------------------------------------------------


@pytest.mark.parametrize(
    ("replace", "by", "problem"),
    [
        ("tier: facts", "tier: trivia", "unknown tier 'trivia'"),
        ("tier: facts", "tier: working", "does not match the path"),
        ("  - Sony A7III purchase", "  - ''", "must not be empty"),
        ("  - Sony A7III purchase", "  -   ", "must be a string"),
        (
            "cues:\n  - what camera do I own\n  - Sony A7III purchase",
            "cues: []",
            "at least one cue",
        ),
        ("confidence: 0.9", "confidence: 1.5", "from 0 to 1"),
        ("confidence: 0.9", "confidence: -0.1", "from 0 to 1"),
        ("confidence: 0.9", "confidence: high", "must be a number"),
        ("confidence: 0.9", "confidence: true", "must be a number"),
        ("confidence: 0.9", "confidence: .nan", "from 0 to 1"),
        ("created: 2026-07-31T00:00:00Z", "created: 2026-07-31T00:00:00", "with a zone"),
        ("created: 2026-07-31T00:00:00Z", "created: 2026-07-31", "with a zone"),
        ("created: 2026-07-31T00:00:00Z", "created: 1785456000", "with a zone"),
        ("created: 2026-07-31T00:00:00Z", "created: 2026-02-30T00:00:00Z", "not a real time"),
        (
            "updated: 2026-07-31T00:00:00Z",
            "updated: 2026-07-30T00:00:00Z",
            "earlier than 'created'",
        ),
        ("tier: facts", "tier: facts\nmood: happy", "unknown header key 'mood'"),
        ("tier: facts\n", "", "missing required header key 'tier'"),
        ("tags: [camera, purchase]", "tags: camera", "'tags' must be a list"),
        ("tags: [camera, purchase]", "tags: [camera, 7]", "must be a string"),
        ("tags: [camera, purchase]", "tags: [camera, {a: b}]", "must be a string"),
        ("  - msg-2041", "  - 2041", "must be a string"),
        ("  - what camera do I own", '  - "two\\nlines"', "one line"),
        ("  - what camera do I own", "  - " + "x" * 301, "at most 300"),
        ("  - same-purchase: facts", "  - same-purchase: [facts]\n  - x: facts", "point to a path"),
        (
            "  - same-purchase: facts/camera-gear/kit-lens-28-70-9a01c4de.md",
            "  - just-a-string",
            "one '<type>: <path>' pair",
        ),
        (
            "  - same-purchase: facts/camera-gear/kit-lens-28-70-9a01c4de.md",
            "  - {a: facts/b/c.md, b: facts/b/d.md}",
            "one '<type>: <path>' pair",
        ),
        (
            "  - same-purchase: facts/camera-gear",
            "  - Same Purchase: facts/camera-gear",
            "link type 'Same Purchase'",
        ),
        (
            "same-purchase: facts/camera-gear/kit-lens-28-70-9a01c4de.md",
            "x: ../../etc/passwd.md",
            "'..'",
        ),
        ("tier: facts", "tier: facts\ntier: facts", "duplicate key 'tier'"),
        ("tier: facts", "<<: {tier: facts}", "merge keys"),
        ("tier: facts", "? [tier]\n: facts", "keys must be strings"),
    ],
)
def test_invalid_header_is_refused_with_a_message_naming_file_and_problem(replace, by, problem):
    message = refused(header_with(replace, by))
    assert message.startswith(f"{PATH}: ")
    assert problem in message


def test_error_without_a_path_still_says_what_is_wrong():
    with pytest.raises(InvalidMemory, match=r"^memory: unknown tier 'x'"):
        parse_memory(header_with("tier: facts", "tier: x"))


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"tier: facts\n", "must start with a '---' line"),
        (b"---\ntier: facts\n\nbody\n", "not closed"),
        (b"---\n- a\n- b\n---\n\nbody\n", "must be a mapping"),
        (b"---\n---\n\nbody\n", "must be a mapping"),
        (b"---\ntier: [unclosed\n---\n\nbody\n", "invalid YAML header"),
        (b"---\ntier: facts\n...\ntier: facts\n---\n\nbody\n", "invalid YAML header"),
        (MINIMAL.replace(b"\n\nBody.\n", b""), "the body is empty"),
        (MINIMAL.replace(b"Body.", b"Caf\xe9"), "not UTF-8"),
        (MINIMAL.replace(b"Body.", b"Bo\x00dy"), "NUL"),
        (MINIMAL.replace(b"tier: facts", b"tier: fa\x00cts"), "NUL"),
    ],
)
def test_malformed_files_are_refused(data, problem):
    assert problem in refused(data, path=None)


def test_oversize_file_is_refused_before_parsing():
    data = MINIMAL.replace(b"Body.", b"x" * MAX_MEMORY_BYTES)
    message = refused(data)
    assert "over the 65536-byte limit" in message


def test_file_at_the_size_limit_is_accepted():
    data = MINIMAL.replace(b"Body.", b"x" * (MAX_MEMORY_BYTES - len(MINIMAL) + 5))
    assert len(data) == MAX_MEMORY_BYTES
    assert parse_memory(data).body == "x" * (MAX_MEMORY_BYTES - len(MINIMAL) + 5)


def test_path_given_to_parse_is_validated():
    assert "'#'" in refused(MINIMAL, path="facts/a#b/c.md")


# --- hostile YAML -----------------------------------------------------------


def test_yaml_bomb_is_refused_without_expanding():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{', '.join(['*' + prev] * 9)}]")
    bomb = ("---\n" + "\n".join(lines) + "\ntier: facts\n---\n\nboom\n").encode()
    assert "anchors and aliases are not allowed" in refused(bomb)


@pytest.mark.parametrize(
    "header",
    [
        "tier: &t facts",
        "tags: &t [a]\ncues: *t",
        "tier: !!python/object/apply:os.system ['echo pwned']",
        "tier: !!python/name:os.system",
        "tier: !!str facts",
        "tier: ! facts",
        "tier: !custom facts",
        "%TAG !p! tag:yaml.org,2002:python/\n---\ntier: !p!object:os.system {}",
    ],
)
def test_anchors_aliases_and_tags_are_refused(header):
    data = f"---\n{header}\n{TIMES}cues: [q]\n---\n\nx\n"
    assert "invalid YAML header" in refused(data.encode())


@pytest.mark.parametrize("depth", [5, 50, 20000])
def test_deep_nesting_is_refused(depth):
    data = b"---\ntags: " + b"[" * depth + b"]" * depth + b"\n---\n\nx\n"
    assert "invalid YAML header" in refused(data)


def test_block_nesting_beyond_the_format_is_refused():
    nested = "".join(f"{'  ' * i}k{i}:\n" for i in range(6)) + "      v: 1\n"
    assert "nested too deeply" in refused(
        f"---\ntier: facts\nrelated:\n{nested}---\n\nx\n".encode()
    )


# --- writing validates too --------------------------------------------------


def valid_memory(**changes) -> Memory:
    fields = {
        "tier": "facts",
        "created": datetime(2026, 7, 31, tzinfo=UTC),
        "updated": datetime(2026, 7, 31, tzinfo=UTC),
        "cues": ["what camera do I own"],
        "body": "Owns a Sony A7III.",
    }
    return Memory(**(fields | changes))


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"tier": "trivia"}, "unknown tier"),
        ({"created": datetime(2026, 7, 31)}, "with a time zone"),
        ({"confidence": 2.0}, "from 0 to 1"),
        ({"cues": []}, "at least one cue"),
        ({"cues": ["two\nlines"]}, "one line"),
        ({"body": "\n  \n"}, "the body is empty"),
        ({"related": [Link(type="x", path="/etc/passwd")]}, "absolute"),
        ({"body": "x" * MAX_MEMORY_BYTES}, "over the 65536-byte limit"),
    ],
)
def test_render_refuses_an_invalid_memory(changes, problem):
    with pytest.raises(InvalidMemory, match=re.escape(problem)):
        render_memory(valid_memory(**changes))


def test_body_is_normalized_so_a_round_trip_is_equal():
    memory = valid_memory(body="\n\n  indented first line\r\nsecond  \n\n")
    assert memory.body == "  indented first line\nsecond"
    assert parse_memory(render_memory(memory)) == memory


# --- paths ------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "facts/camera-gear/sony-a7iii-purchase-3f2a9c1b.md",
        "working/x/y.md",
        "preferences/food/likes-dosa.md",
        "events/2026/trip-9.md",
    ],
)
def test_valid_paths_are_accepted(path):
    assert validate_memory_path(path) == path


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("", "non-empty"),
        ("/etc/passwd", "absolute"),
        ("/facts/a/b.md", "absolute"),
        ("facts/../b.md", "'..'"),
        ("facts/a/../../b.md", "'..'"),
        ("facts/./b.md", "'..'"),
        ("facts/a#b/c.md", "'#'"),
        ("facts/a/b\x00.md", "NUL"),
        ("facts\\a\\b.md", "backslash"),
        ("facts/a.md", "three segments"),
        ("facts/a/b/c.md", "three segments"),
        ("facts//b.md", "topic must be"),
        ("trivia/a/b.md", "unknown tier 'trivia'"),
        ("Facts/a/b.md", "unknown tier"),
        ("facts/Camera/b.md", "topic must be"),
        ("facts/caf\u00e9/b.md", "topic must be"),
        ("facts/a b/c.md", "topic must be"),
        ("facts/a/b.txt", "end in '.md'"),
        ("facts/a/.md", "file name must be"),
        ("facts/a/b.c.md", "file name must be"),
        ("facts/" + "t" * 65 + "/b.md", "topic must be"),
        ("facts/a/" + "n" * 98 + ".md", "at most 100"),
        ("facts/a/" + "n" * 300 + ".md", "longer than 200"),
    ],
)
def test_hostile_or_malformed_paths_are_refused(path, problem):
    with pytest.raises(InvalidPath) as info:
        validate_memory_path(path)
    assert info.value.code == "invalid_path"
    assert isinstance(info.value, InvalidInput)
    assert problem in info.value.message


# --- naming -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Café Zürich", "cafe-zurich"),
        ("東京", "memory"),
        ("Tokyo 東京 trip", "tokyo-trip"),
        ("Straße & Ærø", "strasse-aero"),
        ("  --Sony A7III: 28-70mm!!  ", "sony-a7iii-28-70mm"),
        ("ｆｕｌｌｗｉｄｔｈ", "fullwidth"),
        ("", "memory"),
        ("!!!", "memory"),
    ],
)
def test_slugify_folds_to_ascii(text, slug):
    assert slugify(text) == slug


def test_slugify_respects_max_len_without_a_trailing_dash():
    assert slugify("abc def ghi", max_len=4) == "abc"
    assert len(slugify("word " * 50)) <= 48


def test_new_memory_path_is_slug_and_body_hash():
    path = new_memory_path(
        tier="facts",
        topic_hint="Camera gear",
        title="Sony A7III purchase",
        body="Bought a Sony A7III.",
        topic_sizes={},
    )
    digest = hashlib.sha256(b"Bought a Sony A7III.").hexdigest()[:8]
    assert path == f"facts/camera-gear/sony-a7iii-purchase-{digest}.md"
    assert validate_memory_path(path) == path


def test_same_title_different_body_gets_a_different_path():
    kwargs = {"tier": "facts", "topic_hint": "people", "title": "Sister", "topic_sizes": {}}
    assert new_memory_path(body="Asha is a doctor.", **kwargs) != new_memory_path(
        body="Asha lives in Pune.", **kwargs
    )


def test_full_topic_folder_spills_to_numbered_siblings():
    sizes = {"facts/camera-gear": 200, "facts/camera-gear-2": 200, "facts/camera-gear-3": 17}
    path = new_memory_path(
        tier="facts", topic_hint="camera gear", title="t", body="b", topic_sizes=sizes
    )
    assert path.startswith("facts/camera-gear-3/t-")
    asked = []
    path = new_memory_path(
        tier="events",
        topic_hint="trips",
        title="t",
        body="b",
        topic_sizes=lambda folder: asked.append(folder) or (5 if folder == "events/trips" else 0),
        max_topic_files=5,
    )
    assert path.startswith("events/trips-2/")
    assert asked == ["events/trips", "events/trips-2"]


def test_new_memory_path_with_unfoldable_text_uses_fallbacks():
    path = new_memory_path(
        tier="working", topic_hint="東京", title="東京", body="x", topic_sizes={}
    )
    assert re.fullmatch(r"working/general/memory-[0-9a-f]{8}\.md", path)


def test_new_memory_path_refuses_unknown_tier():
    with pytest.raises(InvalidPath):
        new_memory_path(tier="trivia", topic_hint="a", title="b", body="c", topic_sizes={})


# --- links ------------------------------------------------------------------


def test_links_to_existing_or_co_imported_memories_pass():
    a, b, c = "facts/x/a.md", "facts/x/b.md", "facts/old/c.md"
    memories = {
        a: valid_memory(related=[Link(type="same", path=b)]),  # b comes in with a
        b: valid_memory(related=[Link(type="same", path=c)]),  # c is in the namespace
    }
    assert validate_links(memories=memories, existing_paths={c}) is None
    # What lets them pass is exactly that: without c in the namespace, or without b in
    # the same import, the link that needed it is refused.
    with pytest.raises(InvalidMemory, match=re.escape(f"{b}: related link 'same' points at {c}")):
        validate_links(memories=memories, existing_paths=set())
    with pytest.raises(InvalidMemory, match=re.escape(f"{a}: related link 'same' points at {b}")):
        validate_links(memories={a: memories[a]}, existing_paths={c})


def test_link_to_missing_path_is_refused_naming_file_and_link():
    memories = {
        "facts/x/a.md": valid_memory(related=[Link(type="employer", path="facts/x/gone.md")])
    }
    with pytest.raises(InvalidMemory) as info:
        validate_links(memories=memories, existing_paths=set())
    assert info.value.message == (
        "facts/x/a.md: related link 'employer' points at facts/x/gone.md, which does not exist."
    )


def test_link_to_itself_is_refused():
    memories = {"facts/x/a.md": valid_memory(related=[Link(type="same", path="facts/x/a.md")])}
    with pytest.raises(InvalidMemory, match="points at the memory itself"):
        validate_links(memories=memories, existing_paths={"facts/x/a.md"})
