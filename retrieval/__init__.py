"""The derived index, the embedder and the fused query (BM25, cue vectors, one-hop
links), at the head or as of a commit. Design: docs/design/retrieval.md and
docs/design/embedder.md."""
