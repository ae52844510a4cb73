"""Measure machine instructions per LLVM IR instruction, by instruction group.

For every kernel of the sample kernels (sample_traces/kernels/) and the corpus of
public benchmark kernels (tests/data/isa_corpus/, see its README):

* the IR side is the LLVM IR Oclgrind executes -- the program is built under
  ``oclgrind --dump-spir`` (a pyopencl build, no launch) and each kernel's
  instructions are counted statically, by the recorder's classes
  (tracekit/recorder/opclass.h, mirrored below at group level; phi nodes are
  not counted, as the recorder does not count them);
* the machine side is what ``ocloc`` builds for Gen9 (``skl``) and Gen11
  (``icllp``), counted statically, each SIMD32 half-instruction as half an
  operation (:func:`tracekit.isa.classes.logical_weight`).

Both counts are static (every instruction once, loops not weighted).  The factor
of a group is the corpus total of machine instructions over the corpus total of
IR instructions of that group.  Prints a Markdown table (docs/model.md) and, with
``--json OUT``, the raw per-kernel counts.

    .venv/bin/python bench/ir_machine_factors.py [--device skl] [--dynamic intel-hd530] [--json out.json]

``--dynamic TARGET`` adds executed counts: every sample trace gets its machine
code and the machine-code model maps its dynamic IR counts onto it by source
line (the mapping that prices the Intel targets).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tracekit.isa import compile_source  # noqa: E402
from tracekit.isa.classes import ir_group_of  # noqa: E402

GROUPS = ("float", "int", "math", "convert", "logic", "compare", "control", "memory", "barrier", "other")

_BUILD = """
import sys, pyopencl as cl
ctx = cl.Context(cl.get_platforms()[0].get_devices())
cl.Program(ctx, open(sys.argv[1]).read()).build(options=sys.argv[2])
"""
_INST = re.compile(r"^\s+(?:%[\w.]+\s*=\s*)?(?:tail\s+|notail\s+|musttail\s+)?([a-z_]+)\b(.*)$")
_DEFINE = re.compile(r"^define\s.*?@([\w.]+)\(")


def _call_group(rest: str) -> str:
    """Group of a call, as the recorder classes it (builtins by name, intrinsics, user calls)."""
    m = re.search(r"@([\w.]+)\(", rest)
    name = m.group(1) if m else ""
    if name.startswith("llvm."):
        base = name[5:].split(".")[0]
        if base in ("fmuladd", "fma"):
            return "float"
        if base in ("memcpy", "memset", "memmove", "lifetime", "dbg", "assume"):
            return "other"
        return "compare" if base in ("smin", "smax", "umin", "umax") else "math"
    mm = re.match(r"_Z(\d+)(\w+)", name)
    builtin = mm.group(2)[: int(mm.group(1))] if mm else name
    if builtin in ("barrier", "work_group_barrier", "mem_fence", "read_mem_fence", "write_mem_fence"):
        return "barrier"
    if builtin.startswith(("get_", "as_", "async_work_group")) or builtin in ("printf", "prefetch"):
        return "other"
    if builtin.startswith(("atomic_", "atom_", "vload", "vstore", "read_image", "write_image")):
        return "memory"
    if builtin in ("fma", "mad"):
        return "float"
    if builtin in ("mad24", "mul24", "mul_hi", "mad_hi"):
        return "int"
    if builtin.startswith("convert_"):
        return "convert"
    return "math" if mm else "control"


def ir_group(op: str, rest: str) -> str | None:
    """The recorder's class of one IR instruction, reduced to its group (None: not counted)."""
    if op in ("fadd", "fsub", "fneg", "fmul", "fdiv", "frem"):
        return "float"
    if op in ("add", "sub", "mul", "getelementptr"):
        return "int"
    if op in ("sdiv", "udiv", "srem", "urem"):
        divisor = rest.rsplit(",", 1)[-1].strip().split()[0] if "," in rest else ""
        if re.fullmatch(r"-?\d+", divisor):
            k = abs(int(divisor))
            return "logic" if k and k & (k - 1) == 0 else "int"
        return "int"
    if op in ("shl", "lshr", "ashr", "and", "or", "xor", "trunc", "zext", "sext"):
        return "logic"
    if op in ("icmp", "fcmp", "select"):
        return "compare"
    if op in ("fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext", "ptrtoint", "inttoptr",
              "addrspacecast"):
        return "convert"
    if op in ("br", "switch", "indirectbr", "ret", "unreachable"):
        return "control"
    if op in ("load", "store", "atomicrmw", "cmpxchg"):
        return "memory"
    if op == "fence":
        return "barrier"
    if op == "phi":
        return None
    if op == "call":
        return _call_group(rest)
    return "other"


def ir_counts(source: Path, options: str) -> dict[str, Counter]:
    """Kernel -> IR instructions by group, from the IR Oclgrind builds."""
    with tempfile.TemporaryDirectory(prefix="tracekit-ir-") as tmp:
        before = set(Path("/tmp").glob("oclgrind_*.ll"))
        script = Path(tmp) / "build.py"
        script.write_text(_BUILD)
        env = dict(os.environ, PYOPENCL_NO_CACHE="1")
        subprocess.run(["oclgrind", "--dump-spir", sys.executable, str(script), str(source), options],
                       check=True, env=env, capture_output=True, timeout=600)
        dumped = sorted(set(Path("/tmp").glob("oclgrind_*.ll")) - before)
        text = dumped[-1].read_text(errors="replace")
        for f in dumped:
            for ext in (".ll", ".bc", ".cl"):
                f.with_suffix(ext).unlink(missing_ok=True)
    out: dict[str, Counter] = {}
    current = None
    for line in text.splitlines():
        d = _DEFINE.match(line)
        if d:
            current = d.group(1) if "spir_kernel" in line else None
            if current:
                out[current] = Counter()
            continue
        if line.startswith("}"):
            current = None
            continue
        if current is None:
            continue
        m = _INST.match(line)
        if m and not line.strip().endswith(":"):
            g = ir_group(m.group(1), m.group(2))
            if g is not None:
                out[current][g] += 1
    return out


def machine_counts(source: Path, options: str, device: str, platform: str) -> dict[str, Counter]:
    out = {}
    for k in compile_source(source.read_text(errors="replace"), device, platform, options=options,
                            source_name=source.name):
        ins = k.instructions
        groups = [ir_group_of(g, o, k) for g, o, k in zip(ins["group"], ins["opclass"], ins["send_kind"],
                                                           strict=True)]
        c = Counter()
        for g, w in zip(groups, ins["weight"], strict=True):
            c[g] += float(w)
        out[k.kernel] = c
    return out


def dynamic_counts(device_target: str) -> tuple[Counter, Counter, list[dict]]:
    """Executed IR instructions and machine operations by IR group over the sample traces.

    Each sample trace (recorded by Oclgrind) gets its kernels' machine code, and the
    machine-code model maps the trace's dynamic counts onto it by source line
    (analyzers/machine_code.py): the same mapping that prices the Intel targets.
    """
    import shutil

    import analyzers
    from tracekit.isa.attach import attach

    ir, mc, rows = Counter(), Counter(), []
    with tempfile.TemporaryDirectory(prefix="tracekit-dyn-") as tmp:
        for src in sorted((ROOT / "sample_traces").glob("*.tkt")):
            dst = Path(tmp) / src.name
            shutil.copytree(src, dst)
            attach(dst, [device_target])
            for r in analyzers.analyze(dst, device_target).launches:
                m = r.machine
                if m is None or m.priced_by != "machine_code":
                    continue
                ir.update(m.ir_group_issues)
                mc.update(m.ir_group_machine)
                rows.append({"trace": src.name, "kernel": r.kernel, "coverage": m.dynamic_coverage,
                             "simd_width": m.simd_width, "ir": m.ir_group_issues,
                             "machine": m.ir_group_machine})
    return ir, mc, rows


def _table(ir_total: Counter, mc_total: Counter) -> None:
    print("| IR group | IR instructions | machine instructions | machine per IR |")
    print("| --- | ---: | ---: | ---: |")
    for g in GROUPS:
        ratio = mc_total[g] / ir_total[g] if ir_total[g] else float("nan")
        print(f"| {g} | {ir_total[g]:.0f} | {mc_total[g]:.1f} | {ratio:.2f} |")
    all_ir, all_mc = sum(ir_total.values()), sum(mc_total.values())
    print(f"| all | {all_ir:.0f} | {all_mc:.1f} | {all_mc / all_ir:.2f} |")


def corpus() -> list[tuple[Path, str]]:
    files = [(p, "") for p in sorted((ROOT / "sample_traces" / "kernels").glob("*.cl"))]
    manifest = tomllib.loads((ROOT / "tests" / "data" / "isa_corpus" / "corpus.toml").read_text())
    for name, entry in manifest["kernels"].items():
        files.append((ROOT / "tests" / "data" / "isa_corpus" / name, entry.get("options", "")))
    return files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="skl")
    ap.add_argument("--platform", default=None, help="iga64 platform (default: 9 for skl, 11 for icllp)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--dynamic", default=None, metavar="TARGET",
                    help="also map the sample traces' executed counts on this Intel target (intel-hd530)")
    a = ap.parse_args()
    platform = a.platform or {"skl": "9", "icllp": "11"}.get(a.device, "9")
    ir_total, mc_total, rows = Counter(), Counter(), []
    for path, options in corpus():
        ir = ir_counts(path, options)
        mc = machine_counts(path, options, a.device, platform)
        for kernel in sorted(set(ir) & set(mc)):
            ir_total.update(ir[kernel])
            mc_total.update(mc[kernel])
            rows.append({"file": str(path.relative_to(ROOT)), "kernel": kernel, "ir": dict(ir[kernel]),
                         "machine": dict(mc[kernel])})
    print(f"static counts: {len(rows)} kernels from {len(corpus())} files, device {a.device}\n")
    _table(ir_total, mc_total)
    doc = {"device": a.device, "static": rows}
    if a.dynamic:
        dir_, dmc, drows = dynamic_counts(a.dynamic)
        cov = sum(r["coverage"] for r in drows) / len(drows) if drows else 0.0
        print(f"\ndynamic counts: {len(drows)} launches of the sample traces on {a.dynamic} "
              f"(mean coverage of the IR by line mapping {cov:.0%})\n")
        _table(dir_, dmc)
        doc["dynamic"] = drows
    if a.json:
        a.json.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
