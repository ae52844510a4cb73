"""Bad input to the recorder: each case ends in a clear message, and a failed
recording never leaves a half-written trace behind."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tracekit.cli import main
from tracekit.errors import MissingToolError, RecordError
from tracekit.formats import open_trace
from tracekit.recorder import record_command, record_kernel, toolchain

KERNELS = Path(__file__).resolve().parent.parent / "sample_traces" / "kernels"
VADD = KERNELS / "vector_add.cl"
VADD_ARGS = ["float[64]", "float[64]", "float[64]", "int:64"]


@pytest.fixture(scope="module", autouse=True)
def built():
    toolchain.plugin_path()
    toolchain.host_path()


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_build_failure_shows_build_log(tmp_path):
    src = tmp_path / "bad.cl"
    src.write_text("__kernel void k(__global float* a) { a[0] = undefined_name; }\n")
    with pytest.raises(RecordError) as e:
        record_kernel(src, "k", global_size="1", args=["float[1]"], out=tmp_path / "t.tkt")
    assert "does not compile" in str(e.value) and "undefined_name" in str(e.value)
    assert leftovers(tmp_path) == ["bad.cl"]


def test_unknown_kernel_lists_kernels(tmp_path):
    with pytest.raises(RecordError) as e:
        record_kernel(KERNELS / "transpose.cl", "transpose", global_size="16,16", local_size="16,16",
                      args=[], out=tmp_path / "t.tkt")
    msg = str(e.value)
    assert "no kernel named 'transpose'" in msg
    assert all(k in msg for k in ("transpose_naive", "transpose_tiled", "transpose_tiled_padded"))
    assert leftovers(tmp_path) == []


def test_wrong_argument_count_shows_signature(tmp_path):
    with pytest.raises(RecordError) as e:
        record_kernel(VADD, "vector_add", global_size="64", args=VADD_ARGS[:3], out=tmp_path / "t.tkt")
    msg = str(e.value)
    assert "takes 4 argument(s) but 3 --arg given" in msg and "int n" in msg


@pytest.mark.parametrize("args,needle", [
    (["int[64]", "float[64]", "float[64]", "int:64"], "points to float, but --arg 0 gives int elements"),
    (["float[64]", "float[64]", "float[64]", "float:64"], "is int, but --arg 3 gives float"),
    (["float:1", "float[64]", "float[64]", "int:64"], "gives a float scalar"),
    (["float[64]", "local:256", "float[64]", "int:64"], "is not a __local pointer"),
])
def test_wrong_argument_type(tmp_path, args, needle):
    with pytest.raises(RecordError) as e:
        record_kernel(VADD, "vector_add", global_size="64", args=args, out=tmp_path / "t.tkt")
    assert needle in str(e.value)


def test_out_of_bounds_access_is_reported_and_flagged(tmp_path):
    src = tmp_path / "oob.cl"
    src.write_text("__kernel void oob(__global float* a) { int i = get_global_id(0); a[i + 8] = 1.0f; }\n")
    out = tmp_path / "oob.tkt"
    r = record_kernel(src, "oob", global_size="16", local_size="16", args=["float[16]"], out=out)
    assert r.launches == [("oob", "errors")] and r.flagged
    meta = open_trace(out).launch_metadata(0)
    assert meta["status"] == "errors" and meta["oclgrind_errors"] == 8
    assert any("Invalid write of size 4" in d for d in meta["diagnostics"])
    # what was recorded is kept: all 16 stores, the last 8 past the buffer's end
    a = open_trace(out).accesses.to_pandas()
    base = meta["layout"]["global_buffers"][0]["base"]
    assert len(a) == 16 and (a["address"] - base).max() == 4 * 23


def test_a_kernel_oclgrind_cannot_run_exits_2_with_the_reason(tmp_path, capsys):
    # Oclgrind stops at the first instruction it does not implement (an address-space cast of
    # OpenCL C 2.0's generic pointers): the launch records nothing, which must not look like success
    src = tmp_path / "generic.cl"
    src.write_text("__kernel void g(__global const float* a, __global float* b) {\n"
                   "  int i = get_global_id(0);\n  vstore4(vload4(i, a), i, b);\n}\n")
    out = tmp_path / "g.tkt"
    with pytest.raises(SystemExit) as e:
        main(["record", str(src), "--kernel", "g", "--global", "16", "--local", "16", "--arg", "float[64]",
              "--arg", "float[64]", "--build-options", "-cl-std=CL2.0", "-o", str(out)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "could not run the kernel" in err and "Unsupported instruction" in err


HOST = textwrap.dedent("""
    import sys
    import numpy as np
    import pyopencl as cl
    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, open(sys.argv[1]).read()).build()
    n = 128
    mf = cl.mem_flags
    a = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.arange(n, dtype=np.float32))
    b = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ones(n, np.float32))
    c = cl.Buffer(ctx, mf.READ_WRITE, 4 * n)
    k = cl.Kernel(prg, "vector_add")
    k(q, (n,), (32,), a, b, c, np.int32(n))
    k(q, (n,), (64,), c, b, a, np.int32(n))
    q.finish()
    sys.exit(int(sys.argv[2]))
""")


def run_host(tmp_path: Path, code: int) -> tuple[Path, object]:
    host = tmp_path / "host.py"
    host.write_text(HOST)
    out = tmp_path / "h.tkt"
    r = record_command([sys.executable, str(host), str(VADD), str(code)], out, echo=False)
    return out, r


def test_host_program_every_launch_recorded(tmp_path):
    out, r = run_host(tmp_path, 0)
    assert r.host_exit_code == 0 and [s for _, s in r.launches] == ["ok", "ok"]
    t = open_trace(out)
    assert t.launches["local_size"].to_pylist() == [[32, 1, 1], [64, 1, 1]]
    a = t.accesses.to_pandas()
    assert len(a) == 2 * 3 * 128
    # launch 1 reads c (arg 0) where launch 0 wrote it: same device address
    l0, l1 = a[a.launch == 0], a[a.launch == 1]
    c_written = set(l0[l0.op == "store"]["address"])
    c_read = set(l1[(l1.op == "load") & (l1.buffer == 0)]["address"])
    assert c_written == c_read and len(c_read) == 128


def test_host_program_failure_keeps_flagged_launches(tmp_path):
    out, r = run_host(tmp_path, 3)
    assert r.host_exit_code == 3 and [s for _, s in r.launches] == ["host_failed"] * 2
    meta = open_trace(out).launch_metadata(1)
    assert meta["status"] == "host_failed" and meta["host_exit_code"] == 3
    assert any("exited with status 3" in d for d in meta["diagnostics"])


def test_cli_host_failure_exit_code_and_message(tmp_path, capsys):
    host = tmp_path / "host.py"
    host.write_text(HOST)
    with pytest.raises(SystemExit) as e:
        main(["record", "-q", "-o", str(tmp_path / "c.tkt"), "--", sys.executable, str(host), str(VADD), "5"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "exited with status 5" in err and "Traceback" not in err
    assert (tmp_path / "c.tkt" / "accesses.parquet").exists()


def test_cli_bad_arg_exits_2_without_traceback(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["record", str(VADD), "--kernel", "vector_add", "--global", "64",
              "--arg", "float[64", "-o", str(tmp_path / "x.tkt")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--arg 0 'float[64'" in err and "Traceback" not in err


def test_out_of_disk_leaves_nothing(tmp_path):
    """A file-size limit makes every Parquet write fail (EFBIG), as a full disk would."""
    out = tmp_path / "big.tkt"
    out.mkdir()
    (out / "keep.txt").write_text("the user's previous trace")
    code = textwrap.dedent(f"""
        import resource, sys
        from tracekit.cli import main
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
        main(["record", {str(VADD)!r}, "--kernel", "vector_add", "--global", "4096", "--local", "64",
              "--arg", "float[4096]", "--arg", "float[4096]", "--arg", "float[4096]",
              "--arg", "int:4096", "-o", {str(out)!r}])
    """)
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 2, r.stderr
    assert "nothing was written" in r.stderr and "Traceback" not in r.stderr
    assert leftovers(tmp_path) == ["big.tkt"]
    assert leftovers(out) == ["keep.txt"]
    assert resource.getrlimit(resource.RLIMIT_FSIZE)[0] != 2048  # only the child was limited


def test_missing_toolchain_names_packages(monkeypatch):
    toolchain.find_toolchain.cache_clear()
    monkeypatch.setattr(toolchain.shutil, "which", lambda name: None)
    try:
        with pytest.raises(MissingToolError) as e:
            toolchain.find_toolchain()
        assert "oclgrind" in str(e.value) and "liboclgrind-dev" in str(e.value)
    finally:
        monkeypatch.undo()
        toolchain.find_toolchain.cache_clear()


def test_single_file_layout_and_metadata_json(tmp_path):
    out = tmp_path / "m.parquet"
    record_kernel(VADD, "vector_add", global_size="64", args=VADD_ARGS, out=out)
    raw = open_trace(out).launches["metadata"][0].as_py()
    meta = json.loads(raw)
    assert meta["status"] == "ok" and meta["arg_specs"] == VADD_ARGS
    assert out.is_file() and open_trace(out).num_accesses == 3 * 64
