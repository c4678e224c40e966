"""The model engine: an OpenAI-compatible chat model extracts, cues, relates and
reconciles (``extractor``), through its client (``client``: retries, usage, the answer
wherever a server puts it), with its prompts (``prompts``) and the shapes its answers
must have (``output``).

What the rest of the house may use is exported here: the engine, its client (an
evaluation points one at its own server) and the prompts' identity (a scripted server
tells the two calls apart by their system prompts). Design: docs/design/model-path.md.
"""

from memories.extraction.model.client import ModelClient, model_client
from memories.extraction.model.extractor import ModelExtractor
from memories.extraction.model.prompts import EXTRACT_SYSTEM, PROMPT_VERSION, RELATE_SYSTEM

__all__ = [
    "EXTRACT_SYSTEM",
    "PROMPT_VERSION",
    "RELATE_SYSTEM",
    "ModelClient",
    "ModelExtractor",
    "model_client",
]
