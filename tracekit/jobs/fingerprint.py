"""Content hashes: a trace is processed again only when its bytes (or the job's settings) change.

A ``.tkt`` trace is a directory, so its hash covers every file in it by relative
name and content (hidden temporaries excluded); a single-file trace hashes its
bytes.  Modification times are ignored on purpose: copying a folder of traces
to a new machine must not make every trace look new.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

_CHUNK = 1 << 20


def _feed_file(h, path: Path) -> None:
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)


def trace_hash(path: str | Path) -> str:
    """SHA-256 of a trace's content, stable across copies and renames of the trace."""
    path = Path(path)
    h = hashlib.sha256()
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file()
                       and not any(part.startswith(".") for part in p.relative_to(path).parts))
        for p in files:
            rel = p.relative_to(path).as_posix().encode()
            h.update(len(rel).to_bytes(4, "little") + rel + p.stat().st_size.to_bytes(8, "little"))
            _feed_file(h, p)
    else:
        _feed_file(h, path)
    return h.hexdigest()


def config_hash(targets: list, formats: tuple[str, ...]) -> str:
    """Hash of what a job does to each trace: the target models (every number) and the formats.

    Editing a target file, or a tracekit upgrade that changes a shipped model,
    changes the hash and so reprocesses the traces under the new model.
    """
    payload = {"targets": [repr(t) for t in targets], "formats": sorted(formats)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
