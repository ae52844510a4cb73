"""Bad input and failing outputs, met through the real command line.

Every case ends with exit code 2, a message that names the file (or argument) and
what is wrong with it, no Python traceback, no hang, nothing half-written (no
temporary ``.part`` file left beside the output) and any previous output intact.
Cases are grouped by kind: damaged Parquet pages, launch metadata, dictionary
values, paths that are not files, other tools' formats, outputs that cannot be
written (read-only, a file in the way, a full disk before or during the write),
and recorder arguments.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import access_pattern, launches_for, sites_for

from tracekit.files import PART_MARK
from tracekit.trace.store import write_trace

ROOT = Path(__file__).resolve().parent.parent
VADD = ROOT / "sample_traces" / "kernels" / "vector_add.cl"
TRACEG = ROOT / "tests" / "data" / "traceg" / "kernel-1.traceg"
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def refused(result, *needles: str) -> None:
    """Exit 2, no traceback, and every needle in the message."""
    assert result.code == 2, result.text
    assert "Traceback" not in result.text
    for needle in needles:
        assert needle in result.text, f"{needle!r} not in: {result.text}"


def leftovers(folder: Path) -> list[str]:
    """Temporary files or folders of a writer anywhere under ``folder``."""
    return sorted(str(p) for p in folder.rglob("*") if ".part" in p.name or ".old-" in p.name)


@pytest.fixture
def no_hang():
    """Fail (instead of hanging the suite) if a command blocks, e.g. reading a FIFO."""
    def alarm(signum, frame):
        raise TimeoutError("the command blocked for 20 s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def flip(path: Path, offset: int, count: int = 8) -> None:
    """Invert ``count`` bytes of ``path`` from ``offset`` on."""
    data = bytearray(path.read_bytes())
    for i in range(offset, min(offset + count, len(data))):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def page_offset(path: Path, column: str, kind: str = "data") -> int:
    """Where the first data (or dictionary) page of ``column`` starts, from the file's metadata."""
    md = pq.ParquetFile(path).metadata
    col = md.row_group(0).column(md.schema.to_arrow_schema().get_field_index(column))
    offset = col.dictionary_page_offset if kind == "dictionary" else col.data_page_offset
    assert offset is not None, f"{column} has no {kind} page"
    return offset


# -- damaged Parquet pages ---------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["parquet", "tkt"])
@pytest.mark.parametrize(("column", "kind", "commands"), [
    ("address", "data", ["validate", "analyze"]),        # info does not read addresses
    ("space", "dictionary", ["validate", "info", "analyze"]),
])
def test_damaged_page(run_cli, make_trace, layout, column, kind, commands):
    trace = make_trace(layout=layout)
    table = trace if layout == "parquet" else trace / "accesses.parquet"
    flip(table, page_offset(table, column, kind) + 2)
    for command in commands:
        args = [command, trace] + (["-t", "intel-hd530", "-f", "json"] if command == "analyze" else [])
        refused(run_cli(*args), str(table), "damaged")


# -- launch metadata ----------------------------------------------------------------------------

@pytest.mark.parametrize(("metadata", "expect"), [
    ("[1,2]", "expected an object"),
    ("{bad json", "is not valid JSON"),
    ('{"sampling": [1]}', "'sampling' is [1], expected an object"),
    ('{"sampling": {"total_groups": "many"}}', "'sampling.total_groups'"),
])
def test_launch_metadata_that_is_not_an_object(run_cli, tmp_path, metadata, expect):
    acc = access_pattern("vector_add")
    launches = launches_for(acc, global_size=256, local_size=64)
    launches = launches.set_column(launches.schema.get_field_index("metadata"), "metadata",
                                   pa.array([metadata] * launches.num_rows, pa.string()))
    path = write_trace(tmp_path / "meta.tkt", acc, launches=launches, sites=sites_for(acc))
    for args in (["analyze", path, "-t", "intel-hd530", "-f", "json"], ["info", path], ["validate", path]):
        refused(run_cli(*args), str(path), "launch 0", "column 'metadata'", expect)


# -- dictionary values ----------------------------------------------------------------------------

def _with_space_dictionary(acc: pa.Table, extra: str, use: bool) -> pa.Table:
    """``acc`` whose space dictionary also holds ``extra``, used by the last row when ``use``."""
    space = acc["space"].combine_chunks()
    indices = space.indices.to_numpy(zero_copy_only=False).copy()
    if use:
        indices[-1] = len(space.dictionary)
    col = pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()),
                                         pa.array(space.dictionary.to_pylist() + [extra]))
    return acc.set_column(acc.schema.get_field_index("space"), "space", col)


def test_unused_unknown_dictionary_value_is_harmless(run_cli, tmp_path):
    acc = access_pattern("vector_add")
    path = tmp_path / "extra.parquet"
    pq.write_table(_with_space_dictionary(acc, "texture9", use=False), path)
    r = run_cli("validate", path)
    assert r.code == 0 and "valid: 768 accesses" in r.out, r.text
    assert run_cli("info", path).code == 0


def test_used_unknown_dictionary_value_names_the_row(run_cli, tmp_path):
    acc = access_pattern("vector_add")
    path = tmp_path / "used.parquet"
    pq.write_table(_with_space_dictionary(acc, "texture9", use=True), path)
    refused(run_cli("validate", path), str(path), "row 768", "column 'space'", "unknown space", "'texture9'")


# -- paths that are not files ---------------------------------------------------------------------

def _commands(target: Path, tmp_path: Path) -> list[list]:
    return [["validate", target], ["info", target], ["analyze", target, "-t", "intel-hd530", "-f", "json"],
            ["ingest", target, "-o", tmp_path / "out.tkt"], ["partition", target, tmp_path / "part.tkt"]]


def test_symlink_loop(run_cli, tmp_path, no_hang):
    loop = tmp_path / "x.parquet"
    loop.symlink_to(loop.name)
    for args in _commands(loop, tmp_path):
        refused(run_cli(*args), str(loop), "loops back on itself")
    assert not (tmp_path / "out.tkt").exists() and leftovers(tmp_path) == []


def test_trace_directory_linking_to_itself(run_cli, tmp_path, no_hang):
    self_dir = tmp_path / "self.tkt"
    self_dir.mkdir()
    (self_dir / "accesses.parquet").symlink_to("../self.tkt")
    for args in _commands(self_dir, tmp_path)[:3]:
        refused(run_cli(*args), str(self_dir / "accesses.parquet"), "is a folder")
    looped = tmp_path / "loop.tkt"
    looped.symlink_to("loop.tkt")
    for args in _commands(looped, tmp_path)[:3]:
        refused(run_cli(*args), str(looped), "loops back on itself")


@pytest.mark.parametrize("name", ["fifo.parquet", "fifo.csv", "fifo"])
def test_fifo_is_refused_up_front(run_cli, tmp_path, no_hang, name):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    for args in _commands(fifo, tmp_path):
        refused(run_cli(*args), str(fifo), "a pipe, socket or device")


def test_device_files_and_fifo_side_inputs(run_cli, make_trace, tmp_path, no_hang):
    refused(run_cli("validate", "/dev/zero"), "/dev/zero", "a pipe, socket or device")
    refused(run_cli("ingest", "/dev/null", "-o", tmp_path / "x.tkt"), "/dev/null", "a pipe, socket or device")
    fifo = tmp_path / "facts.json"
    os.mkfifo(fifo)
    csv = tmp_path / "a.csv"
    csv.write_text("kernel,group,item,site,space,op,address,size\nk,0,0,0,global,load,0,4\n")
    refused(run_cli("ingest", csv, "-o", tmp_path / "x.tkt", "--launches", fifo), str(fifo), "a pipe")
    ncu = tmp_path / "ncu.csv"
    os.mkfifo(ncu)
    refused(run_cli("calibrate", ncu, make_trace()), str(ncu), "a pipe, socket or device")
    target = tmp_path / "gpu.toml"
    os.mkfifo(target)
    refused(run_cli("analyze", make_trace(), "-t", target, "-f", "json"), str(target), "a pipe")


def test_folder_where_a_file_is_expected(run_cli, make_trace, tmp_path):
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    refused(run_cli("calibrate", folder, make_trace()), str(folder), "is a folder")
    csv = tmp_path / "a.csv"
    csv.write_text("kernel,group,item,site,space,op,address,size\nk,0,0,0,global,load,0,4\n")
    refused(run_cli("ingest", csv, "-o", tmp_path / "x.tkt", "--launches", folder), str(folder),
            "is a folder")
    refused(run_cli("validate", folder), str(folder))
    empty = tmp_path / "empty.tkt"
    empty.mkdir()
    refused(run_cli("info", empty), str(empty), "accesses.parquet is missing")
    toml = tmp_path / "gpu.toml"
    toml.mkdir()
    refused(run_cli("analyze", make_trace(), "-t", toml, "-f", "json"), str(toml), "is a folder")


# -- other tools' formats -------------------------------------------------------------------------

def _traceg(tmp_path: Path, old: str = "", new: str = "", name: str = "bad.traceg") -> Path:
    text = TRACEG.read_text()
    assert old in text
    p = tmp_path / name
    p.write_text(text.replace(old, new, 1) if old else text)
    return p


@pytest.mark.parametrize(("edit", "expect"), [
    ("header", "has a header but no thread blocks"),
    (("LDG.E 2 R2 R3 4 1 0x7f2a40000000 4 0", "LDG.E 2 R2 R3 4 1 0xffffffffffffff00 4096 0"),
     "outside 0 .. 2^64-1"),
    (("LDG.E 2 R2 R3 4 1 0x7f2a40000000 4 0", "LDG.E 2 R2 R3 4 1 0x7f2a40000000 99999999999999999999 0"),
     "outside 0 .. 2^64-1"),
    (("LDG.E 2 R2 R3 4 1 0x7f2a40000000", "LDG.E 2 R2 R3 4 1 -0x7f2a40000000"),
     "outside 0 .. 0xffffffffffffffff"),
    (("LDS 1 R6 4 2 0x0 8", "LDS 1 R6 4 2 0x0 -8"), "comes out as -16"),
])
def test_traceg_content(run_cli, tmp_path, edit, expect):
    if edit == "header":
        src = tmp_path / "header.traceg"
        src.write_text(TRACEG.read_text().split("#BEGIN_TB")[0])
    else:
        src = _traceg(tmp_path, *edit)
    out = tmp_path / "out.tkt"
    refused(run_cli("ingest", src, "-o", out), str(src), expect)
    assert not out.exists() and leftovers(tmp_path) == []


def test_xz_that_is_not_xz_or_is_cut_short(run_cli, tmp_path):
    import lzma
    fake = tmp_path / "kernel-1.traceg.xz"
    fake.write_text(TRACEG.read_text())
    refused(run_cli("ingest", fake, "-o", tmp_path / "a.tkt"), str(fake), "not valid xz-compressed data")
    packed = lzma.compress(TRACEG.read_bytes())
    cut = tmp_path / "kernel-2.traceg.xz"
    cut.write_bytes(packed[: len(packed) // 2])
    refused(run_cli("ingest", cut, "-o", tmp_path / "b.tkt"), str(cut), "truncated")
    assert leftovers(tmp_path) == []


#: The metrics calibrate reads, with the units ncu prints, and a value each for one launch.
NCU_METRICS = {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": ("sector", "32"),
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": ("request", "8"),
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": ("sector", "32"),
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": ("request", "8"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": ("", "0"),
    "smsp__inst_executed_op_shared_ld.sum": ("inst", "0"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": ("", "0"),
    "smsp__inst_executed_op_shared_st.sum": ("inst", "0"),
    "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct": ("%", "0"),
    "lts__t_sector_hit_rate.pct": ("%", "50"),
    "smsp__thread_inst_executed_per_inst_executed.ratio": ("", "32"),
    "gpu__time_duration.sum": ("nsecond", "1,536"),
    "dram__bytes_read.sum": ("byte", "131,072"),
    "dram__bytes_write.sum": ("Kbyte", "1.02"),
}


def ncu_export(path: Path, **values: str) -> Path:
    """An ``ncu --csv --page raw`` export of one vector_add launch, banners and units row included."""
    ids = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
           "Block Size", "Grid Size", "Device", "CC"]
    row = ["0", "1", "app", "host", "vector_add", "1", "7", "(64, 1, 1)", "(4, 1, 1)", "0", "9.0"]
    names = list(NCU_METRICS)
    cells = [values.get(n, NCU_METRICS[n][1]) for n in names]
    lines = ["==PROF== Connected to process 1 (app)",
             ",".join(f'"{h}"' for h in ids + names),
             ",".join('""' for _ in ids) + "," + ",".join(f'"{NCU_METRICS[n][0]}"' for n in names),
             ",".join(f'"{c}"' for c in row + cells),
             "==PROF== Disconnected from process 1"]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_ncu_thousands_separators_and_missing_values_are_read(run_cli, make_trace, tmp_path):
    trace = make_trace(global_size=256, local_size=64)
    export = ncu_export(tmp_path / "ncu_raw.csv", **{"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct":
                                                     "n/a"})
    out = tmp_path / "cal.csv"
    r = run_cli("calibrate", export, trace, "-t", "nvidia-h200", "--csv", out)
    assert r.code == 0, r.text
    import pandas as pd
    hw = pd.read_csv(out).set_index("quantity")["measured"]
    assert hw["time_ns"] == 1536                       # "1,536" nsecond
    assert hw["dram_bytes"] == 131072 + 1020           # "131,072" byte + "1.02" Kbyte
    assert pd.isna(hw["l1_hit_rate"])                   # n/a: not measured, not an error


def test_ncu_value_that_is_not_a_number(run_cli, make_trace, tmp_path):
    export = ncu_export(tmp_path / "ncu_raw.csv", **{"gpu__time_duration.sum": "12 ms"})
    refused(run_cli("calibrate", export, make_trace()), str(export), "line 4", "'gpu__time_duration.sum'",
            "'12 ms'", "not a number")
    bad_id = ncu_export(tmp_path / "ncu_id.csv")
    bad_id.write_text(bad_id.read_text().replace('"0","1","app"', '"x","1","app"'))
    refused(run_cli("calibrate", bad_id, make_trace()), str(bad_id), "ID 'x' is not a launch number")


# -- outputs that cannot be written ---------------------------------------------------------------

#: Each writer: (command line with OUT for the destination, destination name, old content kind).
WRITERS = {
    "json": (["analyze", "TRACE", "-t", "intel-hd530", "-f", "json", "-o", "OUT"], "report.json"),
    "html": (["analyze", "TRACE", "-t", "intel-hd530", "-o", "OUT"], "report.html"),
    "text": (["analyze", "TRACE", "-t", "intel-hd530", "-f", "text", "-o", "OUT"], "report.txt"),
    "compare": (["compare", "TRACE", "TRACE", "-t", "intel-hd530", "-o", "OUT"], "compare.html"),
    "ingest": (["ingest", "TRACE", "-o", "OUT"], "copy.parquet"),
    "ingest-tkt": (["ingest", "TRACE", "-o", "OUT"], "copy.tkt"),
    "partition": (["partition", "TRACE", "OUT"], "parts.tkt"),
    "calibrate": (["calibrate", "NCU", "TRACE", "--csv", "OUT"], "cal.csv"),
}


def _writer_args(name: str, trace: Path, ncu: Path, out: Path) -> list:
    args, _ = WRITERS[name]
    return [{"TRACE": trace, "NCU": ncu, "OUT": out}.get(a, a) for a in args]


def _old_output(dest: Path) -> None:
    """A previous output at ``dest``: a file, or a trace folder for .tkt destinations."""
    if dest.suffix == ".tkt":
        dest.mkdir()
        (dest / "keep.txt").write_text("previous")
    else:
        dest.write_text("previous")


def _old_output_intact(dest: Path) -> bool:
    return ((dest / "keep.txt").read_text() if dest.suffix == ".tkt" else dest.read_text()) == "previous"


@pytest.fixture
def inputs(make_trace, tmp_path):
    trace = make_trace(global_size=256, local_size=64)
    return trace, ncu_export(tmp_path / "ncu_raw.csv")


@pytest.mark.parametrize("writer", list(WRITERS))
def test_output_under_a_file(run_cli, inputs, tmp_path, writer):
    """A path whose folder is a regular file: refused for every user, root included."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    dest = blocker / WRITERS[writer][1]
    refused(run_cli(*_writer_args(writer, *inputs, dest)), str(dest), "is a file, not a folder")
    assert blocker.read_text() == "x" and leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", ["json", "ingest", "partition", "calibrate"])
def test_output_in_proc(run_cli, inputs, writer):
    """/proc takes no new files, whoever asks."""
    dest = Path("/proc") / WRITERS[writer][1]
    refused(run_cli(*_writer_args(writer, *inputs, dest)), str(dest), "does not accept new files",
            "nothing was written")


@pytest.mark.skipif(AS_ROOT, reason="root writes into read-only folders; covered by the cases above")
@pytest.mark.parametrize("writer", list(WRITERS))
def test_output_in_read_only_folder(run_cli, inputs, tmp_path, writer):
    folder = tmp_path / "ro"
    folder.mkdir()
    dest = folder / WRITERS[writer][1]
    _old_output(dest)
    folder.chmod(0o555)
    try:
        refused(run_cli(*_writer_args(writer, *inputs, dest)), str(dest), "not writable")
        assert _old_output_intact(dest) and leftovers(folder) == []
    finally:
        folder.chmod(0o755)


def _disk_full_on_write(monkeypatch) -> None:
    """The disk fills up in the middle of a write: half the bytes go out, then ENOSPC.

    Atomic-writer outputs go through ``os.write`` (half of the first chunk is written,
    then the next write fails); trace writers through pyarrow's ParquetWriter, whose
    ``write_table`` fails as pyarrow does when the device is full.
    """
    real_write = os.write
    calls = {"n": 0}

    def write(fd, data):
        try:
            name = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            name = ""
        if PART_MARK not in Path(name).name:
            return real_write(fd, data)
        calls["n"] += 1
        if calls["n"] == 1 and len(data) > 1:
            return real_write(fd, bytes(memoryview(data)[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def write_table(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, f"[Errno 28] Error writing bytes to file. Detail: {os.strerror(28)}")

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(pq.ParquetWriter, "write_table", write_table)


def _disk_full_on_create(monkeypatch) -> None:
    """The disk is full before anything is written: the temporary file or folder cannot be made."""
    import tempfile

    def refuse(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    monkeypatch.setattr(tempfile, "mkdtemp", refuse)


@pytest.mark.parametrize("when", ["before", "during"])
@pytest.mark.parametrize("writer", list(WRITERS))
def test_full_disk(run_cli, inputs, tmp_path, monkeypatch, writer, when):
    folder = tmp_path / "out"
    folder.mkdir()
    dest = folder / WRITERS[writer][1]
    _old_output(dest)
    args = _writer_args(writer, *inputs, dest)
    (_disk_full_on_create if when == "before" else _disk_full_on_write)(monkeypatch)
    refused(run_cli(*args), str(dest), "no space left on the device", "nothing was written")
    monkeypatch.undo()
    assert _old_output_intact(dest)
    assert leftovers(tmp_path) == []


def test_file_size_limit_in_the_middle_of_writing(make_trace, tmp_path):
    """A real failing write: the kernel refuses bytes past RLIMIT_FSIZE (EFBIG), as a full disk would."""
    trace = make_trace(global_size=4096, local_size=64)
    report, copy = tmp_path / "report.html", tmp_path / "copy.parquet"
    for dest in (report, copy):
        dest.write_text("previous")
    code = textwrap.dedent(f"""
        import json, resource, sys
        from tracekit.cli import main
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        codes = []
        for args in (["analyze", {str(trace)!r}, "-t", "intel-hd530", "-o", {str(report)!r}],
                     ["ingest", {str(trace)!r}, "-o", {str(copy)!r}]):
            try:
                main(args)
                codes.append(0)
            except SystemExit as exc:
                codes.append(exc.code)
        print(json.dumps(codes))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": "1000"})
    assert json.loads(r.stdout.strip().splitlines()[-1]) == [2, 2], r.stderr
    assert "Traceback" not in r.stderr
    for dest in (report, copy):
        assert f"{dest}: cannot write (the file size limit was reached); nothing was written" in r.stderr
        assert dest.read_text() == "previous"
    assert leftovers(tmp_path) == []


def test_recording_into_an_unwritable_place_fails_before_it_runs(run_cli, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    out = blocker / "x.tkt"
    refused(run_cli("record", VADD, "--kernel", "vector_add", "--global", "64", "--arg", "float[64]",
                    "--arg", "float[64]", "--arg", "float[64]", "--arg", "int:64", "-o", out),
            str(out), "is a file, not a folder")
    assert leftovers(tmp_path) == []


def test_output_that_is_a_device_is_refused(run_cli, make_trace):
    refused(run_cli("analyze", make_trace(), "-t", "intel-hd530", "-f", "json", "-o", "/dev/null"),
            "/dev/null", "is a device, pipe or socket")


# -- recorder arguments -----------------------------------------------------------------------------

@pytest.mark.parametrize(("arg", "expect"), [
    ("float[64]=rand:1:9:5", "rand's range 9:5 is empty"),
    ("int[64]=rand:1:5:5", "rand's range 5:5 is empty"),
    ("int[64]=rand:-1", "the seed of rand is a whole number >= 0"),
    ("int[64]=rand:1:0:1e30", "does not fit in int"),
    ("uint[64]=-1", "value -1 does not fit in uint"),
    ("int[64]=nan", "is not a whole number"),
    ("int[64]=range:0:1e30", "does not fit in int"),
    ("char[64]=range:0:10", "range value 630 does not fit in char"),
    ("int:nan", "is not a whole number"),
    ("half[64]=1e10", "does not fit in half"),
    ("int[0]", "at least one element"),
    ("int[64]=", "nothing follows '='"),
    ("local:99999999999999999999", "more than the 1 GiB"),
])
def test_malformed_recorder_argument(run_cli, tmp_path, arg, expect):
    out = tmp_path / "x.tkt"
    refused(run_cli("record", VADD, "--kernel", "vector_add", "--global", "64", "--arg", arg,
                    "--arg", "float[64]", "--arg", "float[64]", "--arg", "int:64", "-o", out),
            f"--arg 0 '{arg}'", expect)
    assert not out.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize(("option", "expect"), [
    (["--global", "99999999999"], "a dimension is above 4,294,967,295"),
    (["--global", "64", "--sample", "first:99999999999999999999"], "above 2^63-1"),
])
def test_malformed_recorder_sizes(run_cli, tmp_path, option, expect):
    out = tmp_path / "x.tkt"
    args = ["record", VADD, "--kernel", "vector_add", *option, "--arg", "float[64]", "--arg", "float[64]",
            "--arg", "float[64]", "--arg", "int:64", "-o", out]
    refused(run_cli(*args), expect)
    assert not out.exists()


# -- a launch the target refuses ----------------------------------------------------------------------

def _verdict_cells(table: str) -> dict[str, str]:
    """Target -> the text of its verdict cell, joined over the lines a wrapped cell takes."""
    out, target = {}, None
    for line in table.splitlines():
        cells = line.split("│")[1:-1]
        if len(cells) < 4:
            continue
        target = cells[2].strip() or target
        out[target] = " ".join([out.get(target, ""), cells[3].strip()]).strip()
    return out


def test_text_table_shows_a_refused_launch(run_cli, make_trace):
    """A 1024-item work-group on a GPU whose limit is 256: a row with the reason, no traceback."""
    trace = make_trace(global_size=2048, local_size=1024)
    r = run_cli("analyze", trace, "-t", "intel-hd530", "-t", "nvidia-h200", "-f", "text")
    assert r.code == 0 and "Traceback" not in r.text, r.text
    verdicts = _verdict_cells(r.out)
    assert verdicts["intel-hd530"].startswith("refused:")
    assert "maximum work-group size of 256" in verdicts["intel-hd530"]
    assert verdicts["nvidia-h200"] in ("alu", "memory", "latency")


def test_console_script_on_damaged_input(make_trace, tmp_path):
    """The installed entry point as its own process: exit status and stderr as a shell sees them."""
    trace = make_trace(layout="parquet")
    flip(trace, page_offset(trace, "address") + 2)
    exe = Path(sys.executable).with_name("tracekit")
    proc = subprocess.run([str(exe), "analyze", str(trace), "-t", "intel-hd530", "-f", "json"],
                          capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "1000", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert str(trace) in proc.stderr and "damaged" in proc.stderr
