"""The offline extractor (no model): see ``memories.offline.extractor``."""

from memories.offline.extractor import NAME, OfflineExtractor

__all__ = ["NAME", "OfflineExtractor"]
