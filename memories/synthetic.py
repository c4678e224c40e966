"""Synthetic memory files for the benchmarks (``bench_import``, ``bench_load``): one
purchase per file, two distinct cues each, so every cue is embedded when imported."""

from __future__ import annotations

import io
import random
import tarfile

PEOPLE = ["Priya", "Marco", "Sofia", "Kenji", "Amara", "Lukas", "Ines", "Tomas"]
THINGS = ["camera", "bike", "guitar", "laptop", "kayak", "telescope", "espresso machine"]
PLACES = ["Lisbon", "Bengaluru", "Oslo", "Kyoto", "Lagos", "Montreal", "Porto"]


def synthetic_archive(*, count: int, seed: int) -> tuple[bytes, list[str]]:
    """A tar.gz of ``count`` memory files, and each file's question-shaped cue."""
    rng = random.Random(seed)
    questions: list[str] = []
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for i in range(count):
            person, thing, place = rng.choice(PEOPLE), rng.choice(THINGS), rng.choice(PLACES)
            model = f"{thing} model {rng.randint(100, 999)}{chr(65 + i % 26)}"
            question = f"what {thing} did {person} buy in {place} #{i}"
            questions.append(question)
            text = (
                f"---\ntier: facts\ntags: [{thing.replace(' ', '-')}]\n"
                "created: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"
                f"confidence: 0.9\ncues:\n  - {question}\n  - {model} purchase {i}\n---\n\n"
                f"{person} bought a {model} in {place} (purchase {i}).\n"
            ).encode()
            info = tarfile.TarInfo(f"facts/purchases/p-{i:06d}-{i:08x}.md")
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    return buffer.getvalue(), questions
