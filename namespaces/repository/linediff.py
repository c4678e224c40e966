"""Matching the lines of two versions of a file, in bounded time.

difflib's ``SequenceMatcher`` without its junk heuristic (which exact blame needs: with
it, a line that recurs, such as ``---`` or a blank line, is never matched) costs more
than the product of the two sides' lengths on repetitive input: two 700-line versions
of alternating lines take ~5 s, two 3,000-line ones minutes, and a memory file of 64 KiB
can hold 30,000 lines. So ``matching_blocks`` matches the common prefix and suffix
first (an edit is usually local: that is most of a file), hands what is left between
them to ``SequenceMatcher`` only while the product of its lengths is within
``EXACT_BUDGET``, and otherwise anchors it on the lines that occur exactly once on each
side (patience diff's anchors, in order by their longest increasing run) and matches
the gaps between anchors the same way, to ``MAX_DEPTH`` levels. What no step matches
counts as changed: for a pathological file, blame gives lines to a newer commit than
it could, rather than holding a worker for minutes.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Sequence

# Two 200-line stretches of alternating lines: ~90 ms in SequenceMatcher, the worst case
# at this size; ordinary text is far below it.
EXACT_BUDGET = 200 * 200
MAX_DEPTH = 16

Block = tuple[int, int, int]  # (start in old, start in new, length), as difflib's


def matching_blocks(old: Sequence, new: Sequence) -> list[Block]:
    """Non-overlapping runs of equal lines, increasing on both sides (no final
    zero-length block, unlike difflib's)."""
    out: list[Block] = []
    _match(old, 0, len(old), new, 0, len(new), out, 0)
    return out


def _match(
    old: Sequence, alo: int, ahi: int, new: Sequence, blo: int, bhi: int, out: list, depth: int
) -> None:
    start_a, start_b = alo, blo
    while alo < ahi and blo < bhi and old[alo] == new[blo]:
        alo, blo = alo + 1, blo + 1
    if alo > start_a:
        out.append((start_a, start_b, alo - start_a))
    end = 0
    while alo < ahi - end and blo < bhi - end and old[ahi - 1 - end] == new[bhi - 1 - end]:
        end += 1
    ahi, bhi = ahi - end, bhi - end
    if alo < ahi and blo < bhi:
        if (ahi - alo) * (bhi - blo) <= EXACT_BUDGET:
            matcher = difflib.SequenceMatcher(None, old[alo:ahi], new[blo:bhi], autojunk=False)
            out.extend(
                (alo + i, blo + j, size) for i, j, size in matcher.get_matching_blocks() if size
            )
        elif depth < MAX_DEPTH:
            previous_a, previous_b = alo, blo
            for i, j in _unique_anchors(old, alo, ahi, new, blo, bhi):
                _match(old, previous_a, i, new, previous_b, j, out, depth + 1)
                out.append((i, j, 1))
                previous_a, previous_b = i + 1, j + 1
            if (previous_a, previous_b) != (alo, blo):
                _match(old, previous_a, ahi, new, previous_b, bhi, out, depth + 1)
    if end:
        out.append((ahi, bhi, end))


def _unique_anchors(
    old: Sequence, alo: int, ahi: int, new: Sequence, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The lines occurring once in ``old[alo:ahi]`` and once in ``new[blo:bhi]``, as
    (old index, new index) pairs: the longest run increasing on both sides."""
    seen_old: dict = {}
    for i in range(alo, ahi):
        seen_old[old[i]] = -1 if old[i] in seen_old else i
    seen_new: dict = {}
    for j in range(blo, bhi):
        line = new[j]
        if seen_old.get(line, -1) >= 0:
            seen_new[line] = -1 if line in seen_new else j
    pairs = sorted((seen_old[line], j) for line, j in seen_new.items() if j >= 0)  # by old index
    # Longest increasing subsequence of the new indexes (patience sorting).
    tails: list[int] = []  # new index ending the best run of each length
    tail_at: list[int] = []  # its position in pairs
    back: list[int] = [-1] * len(pairs)
    for position, (_i, j) in enumerate(pairs):
        length = bisect.bisect_left(tails, j)
        back[position] = tail_at[length - 1] if length else -1
        if length == len(tails):
            tails.append(j)
            tail_at.append(position)
        else:
            tails[length], tail_at[length] = j, position
    run = []
    position = tail_at[-1] if tail_at else -1
    while position >= 0:
        run.append(pairs[position])
        position = back[position]
    return run[::-1]


class _BoundedMatcher(difflib.SequenceMatcher):
    """difflib's matcher with :func:`matching_blocks` for its matching blocks, so
    ``get_opcodes`` and ``get_grouped_opcodes`` cost what they cost."""

    def __init__(self, a: Sequence, b: Sequence):
        super().__init__(None, a, b, autojunk=False)

    def get_matching_blocks(self):  # noqa: D102 - difflib's
        if self.matching_blocks is None:
            merged: list[list[int]] = []
            for i, j, size in matching_blocks(self.a, self.b):
                if (
                    merged
                    and merged[-1][0] + merged[-1][2] == i
                    and merged[-1][1] + merged[-1][2] == j
                ):
                    merged[-1][2] += size
                else:
                    merged.append([i, j, size])
            merged.append([len(self.a), len(self.b), 0])
            self.matching_blocks = [difflib.Match(*block) for block in merged]
        return self.matching_blocks


def unified_diff(
    a: Sequence[str], b: Sequence[str], *, fromfile: str, tofile: str, n: int = 3
) -> str:
    """``difflib.unified_diff`` joined, in bounded time (the same format: ``---``,
    ``+++``, ``@@`` hunks with ``n`` lines of context; lines keep their line ends)."""
    out: list[str] = []
    for group in _BoundedMatcher(a, b).get_grouped_opcodes(n):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        old_range = _range(first[1], last[2])
        new_range = _range(first[3], last[4])
        out.append(f"@@ -{old_range} +{new_range} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += ["-" + line for line in a[i1:i2]]
            if tag in ("replace", "insert"):
                out += ["+" + line for line in b[j1:j2]]
    return "".join(out)


def _range(start: int, stop: int) -> str:
    """A hunk's range as unified diffs write it (difflib's ``_format_range_unified``)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1  # an empty range starts at the line before
    return f"{beginning},{length}"
