"""The local embedder: its ONNX graph of MiniLM against the torch model, the graph's cache
file under the data dir (made without torch), the query cache, and retrieval through it.
The real model throughout: the graph is written once per test session (the suite's data
dir is fresh), by whichever test embeds first. The 1,000-text comparison with
sentence-transformers is test_embedding_sameness.py."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from retrieval import embeddings
from tests.retrieval.helpers import memory, write

ROOT = Path(__file__).resolve().parents[2]

SENTENCES = [
    "what camera do I own",
    "Sony A7III purchase",
    "When did Caroline go to the LGBTQ support group?",
    "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru for ₹142,000.",
    "Ünïcödé, emoji 📷 and punctuation!?",
    # Longer than the model's 256 tokens: both runtimes must truncate alike.
    "a photograph of the mountains at dawn " * 60,
]


def cosines(a, b) -> np.ndarray:
    return (np.asarray(a) * np.asarray(b)).sum(axis=1)


def test_onnx_vectors_agree_with_the_torch_model():
    onnx = embeddings.local_encoder(runtime_name="onnx", threads=1)
    torch = embeddings.local_encoder(runtime_name="torch", threads=1)
    reference = torch(SENTENCES)
    one_by_one = [onnx([sentence])[0] for sentence in SENTENCES]
    batched = onnx(SENTENCES)  # padded to the longest text, as indexing batches are
    assert cosines(one_by_one, reference).min() >= 0.99
    assert cosines(batched, reference).min() >= 0.99
    assert np.linalg.norm(batched, axis=1) == pytest.approx(1.0, abs=1e-5)


def test_the_onnx_copy_is_made_once_under_the_data_dir_and_reused_without_torch():
    embeddings.embedder_load()
    path = embeddings.onnx_model_file()
    models = Path(settings.GITLOOM_DATA_DIR) / "models"
    assert path.parent == models and path.is_file()
    assert path.name.startswith("all-MiniLM-L6-v2-")
    assert [p for p in models.iterdir() if p.suffix == ".tmp"] == []  # no export left over
    before = path.stat()
    query_model = embeddings.onnx_query_model_file()
    assert query_model.parent == models and query_model.is_file()
    # the float model's vectors of the check texts, so a worker checks the copy without it
    assert json.loads(query_model.with_name(query_model.name + ".check.json").read_text())[
        "texts"
    ] == list(embeddings.EXPORT_CHECK_TEXTS)
    query_before = query_model.stat()

    # A new process (as a worker started after the export) uses the file as it is and
    # never imports torch or sentence-transformers.
    script = textwrap.dedent(
        f"""
        import json, sys
        from django.conf import settings
        settings.configure(
            GITLOOM_DATA_DIR={str(settings.GITLOOM_DATA_DIR)!r},
            GITLOOM_EMBEDDING_BACKEND="local", GITLOOM_EMBEDDING_RUNTIME="onnx",
            GITLOOM_EMBEDDING_THREADS=1, GITLOOM_EMBEDDING_QUERY_CACHE=8,
            GITLOOM_EMBEDDING_DIMENSIONS=384, GITLOOM_EMBEDDING_QUERY_INT8=True,
        )
        from retrieval.embeddings import embed_query, embedder_load, embedder_warm_up
        embedder_load()
        embedder_warm_up()
        vector = embed_query("what camera do I own")
        heavy = [m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules]
        print(json.dumps({{"heavy": heavy, "vector": vector}}))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    child = json.loads(run.stdout.strip().splitlines()[-1])
    assert child["heavy"] == []
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (
        before.st_ino,
        before.st_mtime_ns,
        before.st_size,
    )
    assert query_model.stat().st_mtime_ns == query_before.st_mtime_ns
    with override_settings(GITLOOM_EMBEDDING_QUERY_CACHE=0):
        here = embeddings.embed_query("what camera do I own")
    assert cosines([child["vector"]], [here])[0] == pytest.approx(1.0, abs=1e-6)


def test_a_fresh_data_dir_makes_both_graphs_with_torch_unimportable(tmp_path):
    """As in a venv made from requirements.txt: torch, sentence-transformers and
    transformers cannot be imported, and the graph and its int8 copy are made anyway,
    each announced by one log line."""
    script = textwrap.dedent(
        f"""
        import importlib.abc, json, logging, sys

        class NoTorch(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("torch", "sentence_transformers", "transformers"):
                    raise ImportError(f"{{name}} is not installed")

        sys.meta_path.insert(0, NoTorch())
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        from django.conf import settings
        settings.configure(
            GITLOOM_DATA_DIR={str(tmp_path)!r},
            GITLOOM_EMBEDDING_BACKEND="local", GITLOOM_EMBEDDING_RUNTIME="onnx",
            GITLOOM_EMBEDDING_THREADS=1, GITLOOM_EMBEDDING_QUERY_CACHE=0,
            GITLOOM_EMBEDDING_DIMENSIONS=384, GITLOOM_EMBEDDING_QUERY_INT8=True,
        )
        from retrieval.embeddings import embed_query, embed_texts, embedder_load
        embedder_load()
        print(json.dumps({{"query": embed_query("what camera do I own"),
                          "cue": embed_texts(["what camera do I own"])[0]}}))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    child = json.loads(run.stdout.strip().splitlines()[-1])
    made = {p.name for p in (tmp_path / "models").iterdir() if p.suffix == ".onnx"}
    assert made == {embeddings.onnx_model_file().name, embeddings.onnx_query_model_file().name}
    assert cosines([child["cue"]], embeddings.embed_texts(["what camera do I own"]))[0] == (
        pytest.approx(1.0, abs=1e-6)
    )
    assert cosines([child["query"]], [child["cue"]])[0] >= 0.99
    announced = [line for line in run.stderr.splitlines() if "once per data directory" in line]
    assert len(announced) == 2, run.stderr


def test_a_graph_that_disagrees_with_sentence_transformers_is_not_kept(tmp_path, monkeypatch):
    reference = json.loads(embeddings.REFERENCE_FILE.read_text())
    reference["vectors"] = [[-x for x in vector] for vector in reference["vectors"]]
    wrong = tmp_path / "reference.json"
    wrong.write_text(json.dumps(reference))
    monkeypatch.setattr(embeddings, "REFERENCE_FILE", wrong)
    path = tmp_path / "models" / "graph.onnx"
    path.parent.mkdir()
    with pytest.raises(ImproperlyConfigured, match="disagrees with sentence-transformers"):
        embeddings._export_onnx(path)
    assert list(path.parent.iterdir()) == []  # neither the graph nor a temporary file


def test_weights_the_check_vectors_were_not_made_for_are_refused(tmp_path, monkeypatch):
    reference = json.loads(embeddings.REFERENCE_FILE.read_text())
    reference["weights_sha256"] = "0" * 64
    other = tmp_path / "reference.json"
    other.write_text(json.dumps(reference))
    monkeypatch.setattr(embeddings, "REFERENCE_FILE", other)
    with pytest.raises(ImproperlyConfigured, match="requirements-model.txt"):
        embeddings._export_onnx(tmp_path / "graph.onnx")
    assert not (tmp_path / "graph.onnx").exists()


def test_queries_run_on_an_int8_copy_that_agrees_with_the_float_model():
    """A query is embedded by the int8 copy (about half the time of the float model,
    bench_embed); its vector stays within cosine 0.99 of the float model's, and cues
    (embed_texts) still get the float model's."""
    queries = SENTENCES[:5] + ["What did Melanie paint recently?", "how old is my dog"]
    with override_settings(GITLOOM_EMBEDDING_QUERY_CACHE=0):
        as_queries = [embeddings.embed_query(text) for text in queries]
    as_cues = embeddings.embed_texts(queries)
    agreement = cosines(as_queries, as_cues)
    assert agreement.min() >= 0.99
    assert agreement.min() < 0.99999  # quantised, not the float model itself
    assert embeddings.onnx_query_model_file().is_file()
    assert np.linalg.norm(as_queries, axis=1) == pytest.approx(1.0, abs=1e-5)


def test_with_int8_queries_off_a_query_gets_the_float_models_vector():
    with override_settings(GITLOOM_EMBEDDING_QUERY_CACHE=0, GITLOOM_EMBEDDING_QUERY_INT8=False):
        vector = embeddings.embed_query("what camera do I own")
    assert cosines([vector], embeddings.embed_texts(["what camera do I own"]))[0] == (
        pytest.approx(1.0, abs=1e-6)
    )


def test_an_int8_copy_that_disagrees_on_this_cpu_is_not_used(monkeypatch, caplog):
    # As on a CPU whose int8 kernels lose too much: the process keeps the float model.
    monkeypatch.setattr(embeddings, "QUERY_INT8_MIN_COSINE", 1.01)
    monkeypatch.setattr(embeddings, "_query_session", None)
    with override_settings(GITLOOM_EMBEDDING_QUERY_CACHE=0), caplog.at_level("WARNING"):
        vector = embeddings.embed_query("what camera do I own")
    assert cosines([vector], embeddings.embed_texts(["what camera do I own"]))[0] == (
        pytest.approx(1.0, abs=1e-6)
    )
    assert "queries use the float model" in caplog.text
    with override_settings(GITLOOM_EMBEDDING_QUERY_CACHE=0):  # and keeps to it
        again = embeddings.embed_query("what camera do I own")
    assert cosines([again], [vector])[0] == pytest.approx(1.0, abs=1e-6)


def test_cue_batches_longer_than_one_model_call_keep_their_order():
    texts = [f"memory number {i} about {word}" for i, word in enumerate(["camera", "dog"] * 40)]
    together = embeddings.embed_texts(texts)  # 80 texts: two batches of up to 64
    alone = [embeddings.embed_texts([text])[0] for text in texts[60:70]]
    assert len(together) == 80
    assert cosines(together[60:70], alone).min() >= 0.99999


def test_query_vectors_are_cached_per_process_and_bounded():
    cache = embeddings._query_cache
    cache.clear()
    with override_settings(GITLOOM_EMBEDDING_QUERY_CACHE=2):
        first = embeddings.embed_query("what camera do I own")
        assert embeddings.embed_query("what camera do I own") == pytest.approx(first, abs=1e-7)
        assert (cache.hits, cache.misses) == (1, 1)
        embeddings.embed_query("what is my dog called")
        embeddings.embed_query("where did I grow up")
        assert len(cache) == 2  # the least recently used one went
        embeddings.embed_query("what camera do I own")
        assert cache.misses == 4
    with override_settings(GITLOOM_EMBEDDING_QUERY_CACHE=0):
        cache.clear()
        embeddings.embed_query("what camera do I own")
        assert len(cache) == 0


@pytest.mark.parametrize("runtime", ["onnx", "torch"])
def test_retrieval_finds_a_memory_by_meaning_on_either_runtime(api, notes, runtime):
    camera = "facts/camera-gear/sony-a7iii-9a01c4de.md"
    dog = "facts/family/dog-biscuit-0a0b0c0d.md"
    with override_settings(GITLOOM_EMBEDDING_RUNTIME=runtime):
        write(
            notes,
            {
                camera: memory(cues=["what camera do I own"], body="Bought a Sony A7III."),
                dog: memory(cues=["what is my dog called"], body="Our dog is Biscuit."),
            },
        )
        # No word in common with either cue: only the semantic arm can find it.
        response = api.get(
            "/v1/retrieve",
            {"query": "which photography gear did I purchase", "namespace": "notes"},
        )
    assert response.status_code == 200, response.json()
    results = response.json()["results"]
    assert results[0]["path"] == camera
    assert "semantic" in results[0]["arms"]
