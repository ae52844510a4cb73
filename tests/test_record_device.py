"""Real kernels against the simulated device's limits: compiler hints Oclgrind cannot run,
Oclgrind's own reason when it refuses a kernel, and local memory beyond its default 32 KiB.

Every case records for real (Oclgrind and the recorder plugin) through ``tracekit record``;
``--no-isa`` keeps them to the recording itself.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tracekit.formats import open_trace
from tracekit.recorder import record_command, toolchain

DATA = Path(__file__).resolve().parent / "data" / "record"
HINTS = DATA / "hints.cl"
BIG_LOCAL = DATA / "big_local.cl"
VEC_ARGS = ["--arg", "float[64]=rand", "--arg", "float[64]", "--arg", "int:64"]
BIG_ARGS = ["--arg", "float[24576]=rand", "--arg", "float[128]"]
TILE_BYTES = 12288 * 4


@pytest.fixture(scope="module", autouse=True)
def built():
    toolchain.plugin_path()
    toolchain.host_path()


def record(run_cli, tmp_path, source, kernel, *extra, global_size="64", local_size="16"):
    out = tmp_path / f"{kernel}.tkt"
    res = run_cli("record", source, "--kernel", kernel, "--global", global_size, "--local", local_size,
                  "-o", out, "-q", "--no-isa", *extra)
    return res, out


@pytest.mark.parametrize("kernel", ["assume_hint", "unreachable_hint"])
def test_kernel_with_a_compiler_hint_records(kernel, run_cli, tmp_path):
    res, out = record(run_cli, tmp_path, HINTS, kernel, *VEC_ARGS)
    assert res.code == 0, res.text
    t = open_trace(out)
    assert t.launch_metadata(0)["status"] == "ok"
    ops = t.accesses.to_pandas()["op"].astype(str).value_counts().to_dict()
    assert ops == {"load": 64, "store": 64}


def test_kernel_oclgrind_cannot_run_shows_oclgrind_message(run_cli, tmp_path):
    res, out = record(run_cli, tmp_path, HINTS, "cycle_counter", *VEC_ARGS)
    assert res.code == 2 and "Traceback" not in res.text
    assert "Undefined external function: llvm.readcyclecounter" in res.text
    assert "Oclgrind could not create kernel 'cycle_counter'" in res.text
    assert "no kernel named" not in res.text
    assert "Oclgrind cannot run 'llvm.readcyclecounter'" in res.text      # the hint names it
    assert not out.exists()


HOST = textwrap.dedent("""
    import sys
    import numpy as np
    import pyopencl as cl
    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, open(sys.argv[1]).read()).build()
    a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.ones(64, np.float32))
    b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256)
    cl.Kernel(prg, sys.argv[2])(q, (64,), (16,), a, b, np.int32(64))
    q.finish()
""")


def test_host_program_with_a_hint_records_and_a_refused_kernel_shows_why(tmp_path):
    """The hints are defined away for a host program's own builds too, and what Oclgrind says
    when it cannot create a kernel reaches the error."""
    host = tmp_path / "host.py"
    host.write_text(HOST)
    r = record_command([sys.executable, str(host), str(HINTS), "assume_hint"], tmp_path / "h.tkt", echo=False)
    assert [s for _, s in r.launches] == ["ok"]
    from tracekit.errors import RecordError
    with pytest.raises(RecordError) as e:
        record_command([sys.executable, str(host), str(HINTS), "cycle_counter"], tmp_path / "c.tkt",
                       echo=False)
    assert "Undefined external function: llvm.readcyclecounter" in str(e.value)


def test_kernel_with_48_kib_of_local_memory_records(run_cli, tmp_path):
    res, out = record(run_cli, tmp_path, BIG_LOCAL, "stage", *BIG_ARGS, global_size="128", local_size="64")
    assert res.code == 0, res.text
    t = open_trace(out)
    assert t.launches["local_mem_bytes"].to_pylist() == [TILE_BYTES]
    assert t.launch_metadata(0)["status"] == "ok"
    a = t.accesses.to_pandas()
    local = a[a["space"] == "local"]
    assert (local["op"] == "store").sum() == 2 * 12288 and local["address"].max() < TILE_BYTES


def test_local_memory_follows_the_target_and_the_option(run_cli, tmp_path):
    from tracekit.recorder.device import shipped_local_memory
    small = min(shipped_local_memory().items(), key=lambda kv: kv[1])
    assert small[1] < TILE_BYTES, "a shipped target with less local memory than the kernel needs"
    res, out = record(run_cli, tmp_path, BIG_LOCAL, "stage", *BIG_ARGS, "--target", small[0],
                      global_size="128", local_size="64")
    assert res.code == 2 and "Traceback" not in res.text
    assert f"needs {TILE_BYTES} bytes of local memory" in res.text
    assert f"device's {small[1]} bytes" in res.text
    assert "--local-mem-size" in res.text and "multiple of --local" not in res.text
    assert not out.exists()
    # the option wins over the target
    res, out = record(run_cli, tmp_path, BIG_LOCAL, "stage", *BIG_ARGS, "--target", small[0],
                      "--local-mem-size", TILE_BYTES, global_size="128", local_size="64")
    assert res.code == 0, res.text
    res, out = record(run_cli, tmp_path, BIG_LOCAL, "stage", *BIG_ARGS, "--local-mem-size", TILE_BYTES - 1,
                      global_size="128", local_size="64")
    assert res.code == 2 and f"device's {TILE_BYTES - 1} bytes" in res.text


@pytest.mark.parametrize("value", ["0", "-4", str(1 << 40)])
def test_local_mem_size_out_of_range_is_refused(value, run_cli, tmp_path):
    res, out = record(run_cli, tmp_path, BIG_LOCAL, "stage", *BIG_ARGS, "--local-mem-size", value)
    assert res.code == 2 and "is outside 1 to" in res.text and "Traceback" not in res.text


def test_work_group_too_large_says_so(run_cli, tmp_path):
    res, _ = record(run_cli, tmp_path, HINTS, "assume_hint", "--arg", "float[4096]", "--arg", "float[4096]",
                    "--arg", "int:4096", global_size="4096", local_size="4096")
    assert res.code == 2
    assert "a work-group of 4096 work-items is more than" in res.text and "local memory" not in res.text


def test_oclgrind_messages_reach_the_terminal_printable():
    """What Oclgrind printed quotes the kernel's source: control characters in it are not passed on."""
    from tracekit.recorder.runner import host_error
    err = host_error("OCLGRIND FATAL ERROR\nUndefined external function: llvm.x\x1b]0;title\x07\n"
                     "TRACEKIT-ERROR kernel: Oclgrind could not create kernel 'k\x1b[2J'\n")
    text = str(err) + (err.hint or "")
    assert "\x1b" not in text and "\x07" not in text
    assert "Undefined external function: llvm.x" in text and "could not create kernel 'k?[2J'" in text


def test_record_kernel_api_gives_the_same_local_memory_as_the_command(tmp_path):
    from tracekit.recorder import record_kernel
    r = record_kernel(BIG_LOCAL, "stage", global_size="128", local_size="64",
                      args=["float[24576]=rand", "float[128]"], out=tmp_path / "api.tkt")
    assert [s for _, s in r.launches] == ["ok"]
    assert open_trace(r.path).launches["local_mem_bytes"].to_pylist() == [TILE_BYTES]
