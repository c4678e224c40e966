"""The offline extractor (no model): see ``memories.offline.extractor``."""

from memories.offline.extractor import NAME, OfflineExtractor
from memories.offline.words import STOPWORDS

__all__ = ["NAME", "STOPWORDS", "OfflineExtractor"]
