"""Recording a probe suite: shared by every suite under tests/data/mobile (one folder per source).

A suite's script lists its launches as ``cases()`` (probe name, swept value x,
kernel, grid in work-groups, work-group size, ``--arg`` list, -D defines, and the
quantity the probe reports: ``unit`` and ``count``) and calls :func:`record_suite`.

Launches with more work-groups than ``groups`` are recorded as their first
``groups`` work-groups run as a launch of their own, then given the full grid and
``sampling`` metadata, as tests/data/h200/record_twins.py does (no probe reads the
grid size).  Each launch's metadata gets a ``probe`` record (name, x, unit, count)
that ``tracekit.calibration.probes`` matches to the measured points:

* ``unit = "ns/step"``: the model's launch time x 1e9 / count (a dependent chase of count steps);
* ``unit = "GB/s"``: count bytes / the model's launch time / 1e9;
* ``unit = "GFLOPS"``: count floating-point operations / the model's launch time / 1e9.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def record(kernels: Path, case: dict, groups: int, out: Path, data: dict[str, str]) -> int:
    """`tracekit record` of the first ``groups`` work-groups; returns how many were run."""
    total = case["grid"][0]
    run = min(groups, total)
    size = case["block"][0]
    cmd = [sys.executable, "-c", "from tracekit.cli import main; main()", "record", str(kernels),
           "--kernel", case["kernel"], "--global", str(run * size), "--local", str(size),
           "-q", "-o", str(out)]
    for d in case["defines"]:
        cmd += ["-D", d]
    for a in case["args"]:
        cmd += ["--arg", a.format(**data)]
    subprocess.run(cmd, check=True)
    return run


def _merge():
    spec = importlib.util.spec_from_file_location("record_twins", HERE.parent / "h200" / "record_twins.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.merge


def label(dst: Path, rows: list[dict]) -> None:
    """Write each launch's probe and x into its metadata (in place, before the trace is published)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = dst / "launches.parquet"
    t = pq.read_table(path)
    metas = []
    for meta, case in zip(t.column("metadata").to_pylist(), rows, strict=True):
        m = json.loads(meta)
        m["probe"] = {"name": case["probe"], "x": case["x"], "unit": case["unit"], "count": case["count"]}
        if "variant" in case:  # one of several launches timing the same point: the probe reports the best
            m["probe"].update(variant=case["variant"], combine="fastest")
        metas.append(json.dumps(m, sort_keys=True))
    t = t.set_column(t.schema.get_field_index("metadata"), "metadata", pa.array(metas, pa.string()))
    pq.write_table(t, path)


def record_suite(kernels: Path, rows: list[dict], groups: int, out: Path, data: dict[str, str]) -> None:
    """Record every case into one trace at ``out`` (replaced whole when it exists)."""
    with tempfile.TemporaryDirectory(prefix="probes-") as tmpdir:
        tmp = Path(tmpdir)
        parts = []
        for i, case in enumerate(rows):
            path = tmp / f"launch{i}.tkt"
            run = record(kernels, case, groups, path, data)
            print(f"launch {i:2d} {case['probe']:<18} x={case['x']:<9} "
                  f"recorded {run} of {case['grid'][0]} groups", flush=True)
            parts.append((case, run, path))
        staged = tmp / "all.tkt"
        _merge()(parts, staged, distinct_sites=True)  # one kernel name, several builds
        label(staged, rows)
        if out.exists():
            shutil.rmtree(out)
        shutil.move(staged, out)
    print(f"wrote {out}")


def main(doc: str, cases, kernels: Path, default_out: Path, data=None, after=None) -> None:
    """A suite script's command line: ``[--groups N] [-o TRACE] [--only PROBE]``.

    ``data(tmp)`` makes the files the cases' ``--arg`` values name (``{key}`` in them) in a
    temporary folder; ``after(out)`` runs on the published trace (machine code, say).
    """
    import argparse

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--groups", type=int, default=4, help="work-groups recorded per launch")
    ap.add_argument("-o", "--out", type=Path, default=default_out)
    ap.add_argument("--only", help="record only this probe (for a quick look)")
    opts = ap.parse_args()
    rows = [c for c in cases() if not opts.only or c["probe"] == opts.only]
    with tempfile.TemporaryDirectory(prefix="probe-data-") as tmpdir:
        record_suite(kernels, rows, opts.groups, opts.out, data(Path(tmpdir)) if data else {})
    if after is not None:
        after(opts.out)
