"""The Gitloom-Moved trailer a commit records its moves in, as history and blame read it."""

from __future__ import annotations

from namespaces.repository import MOVED_TRAILER, moved_trailers, moves_of
from namespaces.repository.values import format_message, parse_message


def test_moves_round_trip_through_a_commit_message_even_past_one_trailers_length():
    moved = {
        f"facts/topic-{n}/an-old-rather-long-file-name-{n:03d}-1a2b3c4d.md": (
            f"facts/topic-{n}/a-new-rather-long-file-name-{n:03d}-5e6f7a8b.md"
        )
        for n in range(20)
    }
    trailers = moved_trailers(moved)
    assert len(trailers) > 1 and MOVED_TRAILER in trailers
    assert all(len(value) <= 1000 for value in trailers.values())

    _, parsed = parse_message(format_message("Ingest job x", {"Gitloom-Job": "x", **trailers}))

    assert moves_of(parsed) == {new: old for old, new in moved.items()}


def test_no_moves_no_trailer():
    assert moved_trailers({}) == {}
    assert moves_of({"Gitloom-Job": "x"}) == {}
