"""The torch-free ONNX graph against sentence-transformers: the proof that the service's
vectors are the model's.

The one place torch is used (requirements-dev.txt): 1,000 LoCoMo texts (turns and
questions, the kinds of text cues and queries are) embedded both ways, every vector
compared; and the check vectors a first start compares a new graph with
(``retrieval/data/all-MiniLM-L6-v2.reference.json``) remade and compared, so that file
cannot drift from the model. Remake it with

    .venv/bin/python -m tests.retrieval.test_embedding_sameness --write-reference

The LoCoMo file is not in the repository: ``data/locomo10.json`` in the project (as
``eval_locomo`` reads it) or the development split in ``../shared/data/locomo/`` beside
the clone; without either, the LoCoMo test is skipped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from retrieval import embeddings

ROOT = Path(__file__).resolve().parents[2]
LOCOMO_FILES = (
    ROOT / "data" / "locomo10.json",
    ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json",
)
TEXTS = 1000


def locomo_texts(path: Path, count: int) -> list[str]:
    """``count`` distinct texts, half turns and half questions, spread over the file."""
    data = json.loads(path.read_text())
    turns, questions = [], []
    for sample in data:
        conversation = sample["conversation"]
        for key, session in conversation.items():
            if key.startswith("session_") and isinstance(session, list):
                turns.extend(turn["text"] for turn in session if turn.get("text"))
        questions.extend(qa["question"] for qa in sample["qa"] if qa.get("question"))
    turns, questions = list(dict.fromkeys(turns)), list(dict.fromkeys(questions))

    def spread(items: list[str], n: int) -> list[str]:
        return [items[i] for i in np.linspace(0, len(items) - 1, n).astype(int)]

    return spread(turns, count // 2) + spread(questions, count - count // 2)


def torch_vectors(texts: list[str]) -> np.ndarray:
    pytest.importorskip("sentence_transformers")
    torch = embeddings.local_encoder(runtime_name="torch", threads=2)
    return np.asarray(torch(texts))


def test_the_onnx_graph_matches_sentence_transformers_on_1000_locomo_texts():
    path = next((p for p in LOCOMO_FILES if p.is_file()), None)
    if path is None:
        pytest.skip(f"no LoCoMo file at {' or '.join(map(str, LOCOMO_FILES))}")
    texts = locomo_texts(path, TEXTS)
    assert len(set(texts)) == TEXTS
    reference = torch_vectors(texts)

    onnx = embeddings.local_encoder(runtime_name="onnx", threads=2)
    # In batches of 64, padded to the longest text of each, as cues are indexed.
    batched = np.asarray(
        [v for start in range(0, TEXTS, 64) for v in onnx(texts[start : start + 64])]
    )
    float_cosines = (batched * reference).sum(axis=1)
    # The questions one at a time by the int8 query copy, as /v1/retrieve embeds a query
    # (the int8 copy embeds queries only: on long turns it agrees less, ~0.97 at worst).
    questions = slice(TEXTS // 2, TEXTS)
    int8 = embeddings.local_encoder(runtime_name="onnx-int8", threads=1)
    queries = np.asarray([int8([text])[0] for text in texts[questions]])
    int8_cosines = (queries * batched[questions]).sum(axis=1)

    print(
        f"\n{TEXTS} LoCoMo texts from {path.name}: float graph vs sentence-transformers "
        f"min cosine {float_cosines.min():.7f} (mean {float_cosines.mean():.7f}); "
        f"{len(queries)} questions, int8 query copy vs float graph min "
        f"{int8_cosines.min():.5f} (mean {int8_cosines.mean():.5f})"
    )
    assert float_cosines.min() >= 0.9999
    # int8 kernels differ between CPUs: worst question 0.99+ with AVX-512 (AMD EPYC
    # family 26), 0.984 without it (family 25); the mean stays 0.995+ on both. The
    # per-process check (QUERY_INT8_MIN_COSINE on the check texts) guards the rest.
    assert int8_cosines.min() >= 0.98
    assert int8_cosines.mean() >= 0.995


def reference_file_contents() -> dict:
    """What ``embeddings.REFERENCE_FILE`` should hold, made with sentence-transformers."""
    import sentence_transformers
    import torch

    texts = list(embeddings.EXPORT_CHECK_TEXTS)
    return {
        "model": embeddings.LOCAL_MODEL,
        "package": embeddings.LOCAL_PACKAGE,
        "weights_sha256": embeddings.package_file_sha256("model.safetensors"),
        "made_with": (
            f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}"
        ),
        "texts": texts,
        "vectors": [[float(f"{x:.8g}") for x in v] for v in torch_vectors(texts).tolist()],
    }


def test_the_check_vectors_a_first_start_uses_are_sentence_transformers_vectors():
    pytest.importorskip("sentence_transformers")
    kept = json.loads(embeddings.REFERENCE_FILE.read_text())
    made = reference_file_contents()
    assert kept["weights_sha256"] == made["weights_sha256"]
    assert kept["texts"] == made["texts"]
    assert np.asarray(kept["vectors"]) == pytest.approx(np.asarray(made["vectors"]), abs=1e-6)


if __name__ == "__main__" and "--write-reference" in sys.argv:
    import django

    sys.path.insert(0, str(ROOT))
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    django.setup()
    contents = reference_file_contents()
    embeddings.REFERENCE_FILE.parent.mkdir(exist_ok=True)
    vectors = contents.pop("vectors")
    text = json.dumps(contents, indent=1, ensure_ascii=False)[:-2]  # one vector a line
    text += ',\n "vectors": [\n  ' + ",\n  ".join(json.dumps(v) for v in vectors) + "\n ]\n}\n"
    embeddings.REFERENCE_FILE.write_text(text)
    print(f"wrote {embeddings.REFERENCE_FILE}")
