"""The offline extractor (no model): see ``memories.extraction.offline.extractor``."""

from memories.extraction.offline.extractor import NAME, OfflineExtractor
from memories.extraction.offline.words import STOPWORDS

__all__ = ["NAME", "STOPWORDS", "OfflineExtractor"]
