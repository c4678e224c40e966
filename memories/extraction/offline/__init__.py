"""The offline extractor (no model): see ``memories.extraction.offline.extractor``."""

from memories.extraction.offline.extractor import NAME, OfflineExtractor

__all__ = ["NAME", "OfflineExtractor"]
