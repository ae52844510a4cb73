"""The quick commands import only what they use (bench/bench_startup.py measures the time).

Each command runs in a fresh interpreter, which then reports the modules it loaded:
``--help`` and ``targets`` load no array library at all; ``validate`` and ``info``
load pyarrow and NumPy but not pandas (which pyarrow loads on its own for many
conversions, see :mod:`tracekit.trace.arrow_numpy`), no target models and no
analyzer, numba or report code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces"
TRACE = SAMPLES / "vector_add.tkt"
#: Runs the CLI on the probe's arguments and keeps its exit code in ``code``.
RUN_CLI = """
from tracekit.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
"""
PROBE = """
import json, sys
""" + RUN_CLI + """print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""
HEAVY = ("numba", "analyzers", "tracekit.report", "tracekit.pipeline", "jinja2", "weasyprint", "dask")


def loaded(*args: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), proc.stderr
    return set(report["modules"])


def _top(mods: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in mods)


@pytest.mark.parametrize("args", [["--help"], ["targets", "list"], ["targets", "show", "intel-hd530"]])
def test_help_and_targets_load_no_array_library(args):
    mods = loaded(*args)
    for name in ("pyarrow", "pandas", "numpy", *HEAVY):
        assert not _top(mods, name), f"`tracekit {' '.join(args)}` imported {name}"


QUICK_FORBIDDEN = ("pandas", "tracekit.targets", *HEAVY)


@pytest.mark.parametrize("command", ["validate", "info"])
@pytest.mark.parametrize("sample", ["vector_add.tkt", "conv3x3_image.tkt", "parquet layout"])
def test_validate_and_info_load_no_pandas_and_no_models(command, sample, make_trace):
    """Stored traces of every layout, with and without the image columns and instruction runs."""
    if sample == "parquet layout":
        trace = make_trace("strided", stride=8, layout="parquet")
    else:
        trace = SAMPLES / sample
    mods = loaded(command, str(trace))
    assert _top(mods, "pyarrow") and _top(mods, "numpy")
    for name in QUICK_FORBIDDEN:
        assert not _top(mods, name), f"`tracekit {command} {sample}` imported {name}"
    # validate checks every value with the compute functions; info counts with NumPy alone
    assert ("pyarrow.compute" in mods) == (command == "validate")
    # the command's own module, and the small helper every command prints input-derived text with
    assert {m for m in mods if m.startswith("tracekit.cli.")} == {"tracekit.cli.app", "tracekit.cli.trace",
                                                                 "tracekit.cli.safe"}


def test_a_bad_trace_is_reported_without_pandas(make_trace, tmp_path):
    """The error paths (a value out of range, an unknown word) convert without pandas too."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = make_trace("vector_add")
    acc = pq.read_table(path / "accesses.parquet")
    item = acc["item"].to_pylist()
    item[3] = 10_000
    acc = acc.set_column(acc.schema.get_field_index("item"), "item", pa.array(item, pa.int32()))
    pq.write_table(acc, path / "accesses.parquet")
    proc = subprocess.run([sys.executable, "-c", PROBE, "validate", str(path)], capture_output=True,
                          text=True, timeout=120)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 2 and "item 10000 is outside" in proc.stderr
    assert "pandas" not in {m.split(".")[0] for m in report["modules"]}


def test_command_index_names_what_each_module_registers():
    """``COMMANDS`` (which module to load for a command) agrees with the modules, name by name
    and in the order ``tracekit --help`` lists them, so no command can go missing."""
    import importlib

    import typer

    from tracekit.cli.app import COMMANDS, register_all

    full = typer.Typer()
    register_all(full)
    assert list(typer.main.get_group(full).commands) == list(COMMANDS)
    for module in set(COMMANDS.values()):
        part = typer.Typer()
        importlib.import_module(f"tracekit.cli.{module}").register(part)
        assert set(typer.main.get_group(part).commands) == {n for n, m in COMMANDS.items() if m == module}


@pytest.mark.parametrize("args", [["--help"], ["valdate"]])
def test_help_and_suggestions_see_every_command(args):
    """The listing and the did-you-mean hint load every command module."""
    proc = subprocess.run([sys.executable, "-c", "from tracekit.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    if args == ["--help"]:
        from tracekit.cli.app import COMMANDS
        assert proc.returncode == 0
        listed = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("│ ")
                  and len(line.split()) > 2 and line.split()[1] in COMMANDS]
        assert listed == list(COMMANDS)
    else:
        assert proc.returncode == 2 and "Did you mean 'validate'" in proc.stderr


RECORD_HOST = """
import sys
import numpy as np
import pyopencl as cl
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, open(sys.argv[1]).read()).build()
n = 256
a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.ones(n, np.float32))
c = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * n)
cl.Kernel(prg, "vector_add")(q, (n,), (64,), a, a, c, np.int32(n))
q.finish()
"""
RECORD_PROBE = """
import json, subprocess, sys
at_start = []
class Popen(subprocess.Popen):
    def __init__(self, args, *rest, **kw):
        if not at_start and str(args[0]).endswith("oclgrind") and len(args) > 2:  # the program itself
            at_start.append(sorted(sys.modules))
        super().__init__(args, *rest, **kw)
subprocess.Popen = Popen
""" + RUN_CLI + """out = {"code": code, "modules": sorted(sys.modules), "at_start": at_start[0]}
print(json.dumps(out), file=sys.stderr)
"""


def test_recording_loads_no_pandas_and_starts_the_program_first(tmp_path):
    """``tracekit record -- COMMAND`` (machine code included) writes the trace with pyarrow and NumPy
    alone, and starts the program before loading them, so they load while it runs."""
    host = tmp_path / "host.py"
    host.write_text(RECORD_HOST)
    out = tmp_path / "h.tkt"
    proc = subprocess.run([sys.executable, "-c", RECORD_PROBE, "record", "-q", "-o", str(out), "--",
                           sys.executable, str(host), str(SAMPLES / "kernels" / "vector_add.cl")],
                          capture_output=True, text=True, timeout=300)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), proc.stderr
    assert (out / "accesses.parquet").is_file() and (out / "machine_code.parquet").is_file()
    mods = {m.split(".")[0] for m in report["modules"]}
    assert "pandas" not in mods and "pyarrow.compute" not in report["modules"]
    assert not {"numpy", "pyarrow"} & {m.split(".")[0] for m in report["at_start"]}


def test_machine_code_targets_found_without_parsing_every_model():
    """Recording reads only the target files that can have an [isa] section; the same targets come out."""
    from tracekit.isa.attach import _may_have_isa, isa_targets
    from tracekit.targets import list_targets, load_target

    full = [n for n in list_targets() if load_target(n).isa is not None]
    assert full and [t.name for t in isa_targets()] == full
    assert not all(_may_have_isa(n) for n in list_targets())  # the filter does skip files
