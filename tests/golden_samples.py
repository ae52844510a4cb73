"""Golden outputs: every bundled sample trace analysed on every shipped target.

The analysis document and the checklist of each (sample, target) pair are kept in
``tests/data/golden/samples.jsonl.gz``; ``tests/test_golden_samples.py`` recomputes
them and fails on any difference, naming the pair and the first differing lines.
A change that is meant to move a number regenerates the file on purpose::

    .venv/bin/python tests/golden_samples.py --write

and the commit says which numbers moved and why.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "golden" / "samples.jsonl.gz"
SAMPLES = ROOT / "sample_traces"


def sample_paths() -> list[Path]:
    return sorted(SAMPLES.glob("*.tkt"))


def compute(paths: list[Path] | None = None) -> dict[str, str]:
    """``{"sample__target": canonical JSON text}`` of analysis and findings, in a stable order."""
    import analyzers
    from analyzers.result_dict import dumps
    from analyzers.rules import run_rules
    from analyzers.rules.gains import price_by_replay
    from tracekit.formats import open_trace
    from tracekit.targets import list_targets, load_target

    out = {}
    targets = [load_target(n) for n in list_targets()]
    for path in paths or sample_paths():
        trace = open_trace(path)
        for target in targets:
            result = analyzers.analyze(trace, target)
            findings = [f.to_dict() for f in price_by_replay(run_rules(result), [result], trace)]
            doc = {"analysis": result.to_dict(), "findings": findings}
            doc["analysis"]["trace"] = path.name
            out[f"{path.stem}__{target.name}"] = dumps(doc)
    return out


def load() -> dict[str, str]:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return {r["key"]: r["text"] for r in rows}


def write(docs: dict[str, str]) -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps({"key": k, "text": docs[k]}, sort_keys=True) + "\n" for k in sorted(docs))
    # mtime 0: the same documents give the same bytes
    with open(GOLDEN, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
        fh.write(lines.encode("utf-8"))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if "--write" not in sys.argv[1:]:
        sys.exit("usage: golden_samples.py --write   (recomputes and overwrites the golden file)")
    docs = compute()
    write(docs)
    print(f"wrote {len(docs)} documents to {GOLDEN.relative_to(ROOT)}")
