"""Build the machine code of a trace's kernels for every Intel target and store it with the trace.

Each launch row carries its kernel source and build options; every distinct
(source, options) pair is built once per target device, and the kernels the
trace launched are kept.  A ``.tkt`` trace gets a ``machine_code.parquet``
member; a single-file ``.parquet`` trace is rewritten with the table in its
footer (the same temporary-name-then-rename as any trace write).
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from tracekit.errors import MissingToolError, TracekitError
from tracekit.isa.compile import KernelISA, compile_source
from tracekit.isa.table import merge, to_table
from tracekit.isa.tools import IsaCompileError


@dataclass
class IsaBuild:
    """What one pass over a trace built, and what it could not."""

    kernels: list[KernelISA] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failed: bool = False

    @property
    def table(self) -> pa.Table:
        return to_table(self.kernels)


def isa_targets(names=None) -> list:
    """Targets with an ``[isa]`` section: those named (names or paths), or every shipped one."""
    from tracekit.targets import list_targets, load_target
    if names:
        loaded = [load_target(n) for n in names]
        plain = [t.name for t in loaded if t.isa is None]
        if plain:
            raise TracekitError(f"target(s) {', '.join(plain)} have no [isa] section: no offline compiler "
                                "builds their machine code (only the Intel targets have one)")
        return loaded
    return [t for t in (load_target(n) for n in list_targets() if _may_have_isa(n)) if t.isa is not None]


#: A top-level ``isa`` table in TOML: ``[isa]``, ``[isa.x]``, ``isa = {...}`` or ``isa.x = ...``.
_ISA_KEY = re.compile(r"^[ \t]*(\[[ \t]*isa[ \t]*[\].]|isa[ \t]*[.=])", re.MULTILINE)


def _may_have_isa(name: str) -> bool:
    """False when a shipped target's file cannot have an ``[isa]`` section, so that recording
    parses only the Intel targets' files (parsing and checking every model takes longer)."""
    from tracekit.targets.loader import target_path
    return bool(_ISA_KEY.search(target_path(name).read_text()))


def _source_name(trace, kernel: str) -> str:
    """The kernel file's name as the trace's sites know it (line tables are matched by it)."""
    sites = trace.sites
    if sites.num_rows:
        rows = [r for r in sites.select(["kernel", "file"]).to_pylist()
                if r["kernel"] == kernel and r["file"]]
        if rows:
            return rows[0]["file"]
    return f"{kernel}.cl"


def _programs(trace, source: str | None, source_name: str | None) -> dict[tuple[str, str], tuple[str, set]]:
    """(source text, build options) -> (file name, kernels launched from it)."""
    out: dict[tuple[str, str], tuple[str, set]] = {}
    missing = []
    for row in trace.launches.select(["kernel", "build_options", "source"]).to_pylist():
        text = source if source is not None else row["source"]
        if not text:
            missing.append(row["kernel"])
            continue
        key = (text, row["build_options"] or "")
        name = source_name or _source_name(trace, row["kernel"])
        out.setdefault(key, (name, set()))[1].add(row["kernel"])
    if missing and not out:
        raise TracekitError(f"the trace keeps no kernel source for {', '.join(sorted(set(missing)))}; give "
                            "the source with --source K.cl", path=str(trace.path))
    return out


def build_for_trace(trace, targets=None, *, source_path: str | os.PathLike | None = None,
                    strict: bool = True) -> IsaBuild:
    """Machine code of every kernel ``trace`` launched, for each Intel target.

    ``strict=False`` (used while recording) turns a missing tool or a failed
    build into a note, so that the trace is still written and the Intel targets
    fall back to the IR model; ``strict=True`` raises.
    """
    result = IsaBuild()
    source = Path(source_path).read_text(errors="replace") if source_path is not None else None
    try:
        chosen = isa_targets(targets)
        programs = _programs(trace, source, str(source_path) if source_path is not None else None)
        devices: dict[str, list] = {}
        for t in chosen:
            devices.setdefault((t.isa.ocloc_device, t.isa.iga_platform), []).append(t.name)
        jobs = [(names, device, platform, text, options, name, sorted(kernels))
                for (device, platform), names in sorted(devices.items())
                for (text, options), (name, kernels) in programs.items()]
        # Each build waits on ocloc: run them side by side, collect them in order.
        with ThreadPoolExecutor(max_workers=max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
            builds = [(names, pool.submit(compile_source, text, device, platform, options=options,
                                          source_name=name, kernels=kernels))
                      for names, device, platform, text, options, name, kernels in jobs]
            for names, build in builds:
                for k in build.result():
                    k.target = ",".join(sorted(names))
                    result.kernels.append(k)
    except (MissingToolError, IsaCompileError) as exc:
        if strict:
            raise
        result.failed = True
        result.notes.append(f"{exc}\nthe Intel targets fall back to the IR model for this trace")
    return result


def store_machine_code(trace, table: pa.Table) -> Path:
    """Add ``table`` to the trace on disk (rows for the same device, kernel and options are replaced)."""
    from tracekit.trace.store import TraceWriter, write_machine_code_file
    merged = merge(trace.machine_code, table)
    path = Path(trace.path)
    if trace.layout == "tkt":
        write_machine_code_file(merged, path / "machine_code.parquet")
        return path
    if trace.layout != "parquet":
        raise TracekitError("machine code can only be stored in a trace on disk (.tkt or .parquet)",
                            path=str(path))
    with TraceWriter(path, layout="parquet") as w:
        for batch in trace.iter_batches("accesses"):
            w.write_accesses(batch)
        w.write_instructions(trace._instruction_runs)
        w.set_launches(trace.launches)
        w.set_sites(trace.sites)
        w.set_machine_code(merged)
    return path


def attach(trace_path: str | os.PathLike, targets=None, *, source_path=None, strict: bool = True) -> IsaBuild:
    """Build the trace's kernels for the Intel targets and store the result in the trace."""
    from tracekit.formats import open_trace
    trace = open_trace(trace_path)
    build = build_for_trace(trace, targets, source_path=source_path, strict=strict)
    if build.kernels:
        store_machine_code(trace, build.table)
    return build
