"""Global, constant and private memory: coalescing, alignment, width, caches, re-reads, hot data."""
