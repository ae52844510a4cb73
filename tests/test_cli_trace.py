"""The trace commands as a user meets them: every bad input exits 2 with a message that says where."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

HEADER = "kernel,group,item,site,space,op,address,size\n"
GOOD = HEADER + "k,0,0,0,global,load,0,4\nk,0,1,0,global,load,4,4\nk,1,0,0,global,store,8,4\n"
SIZES = ["--global", "4", "--local", "2"]


def _bad_row(field: str, value: str) -> str:
    """GOOD with the third data row's ``field`` replaced by ``value``."""
    cols = HEADER.strip().split(",")
    rows = GOOD.strip().split("\n")
    cells = rows[3].split(",")
    cells[cols.index(field)] = value
    rows[3] = ",".join(cells)
    return "\n".join(rows) + "\n"


def _ingest_and_validate(run_cli, src: Path, tmp_path: Path):
    """Both commands that read a CSV, with launch sizes given."""
    return [run_cli("ingest", src, "-o", tmp_path / "out.tkt", *SIZES), run_cli("validate", src, *SIZES)]


def _assert_user_error(result, *needles: str) -> None:
    assert result.code == 2, result.text
    assert "Traceback" not in result.text
    for needle in needles:
        assert needle in result.text, f"{needle!r} not in: {result.text}"


CASES = {
    # name: (file content, what the message must say besides the file name)
    "empty file": ("", ["is empty"]),
    "header only": (HEADER, ["header line but no data rows"]),
    "missing column": (HEADER.replace(",address", "") + "k,0,0,0,global,load,4\n",
                       ["column 'address'", "missing required column 'address'"]),
    "string for number": (_bad_row("address", "0x10g"),
                          ["row 3", "column 'address'", "not a number", "'0x10g'"]),
    "negative address": (_bad_row("address", "-16"), ["row 3", "column 'address'", "negative address"]),
    "non-integer address": (_bad_row("address", "8.5"), ["row 3", "column 'address'", "non-integer address"]),
    "NaN": (_bad_row("size", "NaN"), ["row 3", "column 'size'", "NaN size"]),
    "unknown space": (_bad_row("space", "texture2d"), ["row 3", "column 'space'", "unknown space",
                                                       "global, local, constant, private, image"]),
    "unknown op": (_bad_row("op", "prefetch"), ["row 3", "column 'op'", "unknown op", "load, store, atomic"]),
    "item outside local size": (_bad_row("item", "2"), ["row 3", "column 'item'", "item 2 is outside"]),
    "row with a missing field": (GOOD + "k,1,1,0,global,load,4\n",
                                 ["row 4", "has 7 fields, expected 8", "(file line 5)"]),
    "duplicate columns": (HEADER.replace("site", "address") + "k,0,0,0,global,load,0,4\n",
                          ["duplicate column name", "column 'address'"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_csv_is_a_clear_user_error(run_cli, write_csv, tmp_path, case):
    content, needles = CASES[case]
    src = write_csv("bad.csv", content)
    for result in _ingest_and_validate(run_cli, src, tmp_path):
        _assert_user_error(result, str(src), *needles)
    assert not (tmp_path / "out.tkt").exists()


def test_csv_rows_also_name_the_file_line(run_cli, write_csv):
    src = write_csv("line.csv", _bad_row("address", "-16"))
    for result in _ingest_and_validate(run_cli, src, src.parent):
        _assert_user_error(result, "row 3", "(file line 4)")


@pytest.mark.parametrize("command", ["validate", "info", "ingest"])
def test_truncated_parquet(run_cli, make_trace, tmp_path, command):
    whole = make_trace("vector_add", layout="parquet").read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(whole[: len(whole) // 2])
    args = [command, cut] + (["-o", tmp_path / "o.tkt"] if command == "ingest" else [])
    _assert_user_error(run_cli(*args), str(cut), "truncated or damaged")


@pytest.mark.parametrize("command", ["validate", "info", "ingest"])
def test_non_parquet_named_parquet(run_cli, write_csv, tmp_path, command):
    fake = write_csv("fake.parquet", GOOD)
    args = [command, fake] + (["-o", tmp_path / "o.tkt"] if command == "ingest" else [])
    _assert_user_error(run_cli(*args), str(fake), "is not a Parquet file")


def test_byte_order_mark_is_accepted(run_cli, write_csv, tmp_path):
    src = write_csv("bom.csv", b"\xef\xbb\xbf" + GOOD.encode())
    assert run_cli("validate", src, *SIZES).code == 0
    result = run_cli("ingest", src, "-o", tmp_path / "bom.tkt", *SIZES)
    assert result.code == 0, result.text
    assert "3 accesses" in result.text
    assert run_cli("validate", tmp_path / "bom.tkt").code == 0


def _digest(path: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.iterdir())}


def test_failed_ingest_leaves_destination_untouched(run_cli, write_csv, make_trace, tmp_path):
    dst = make_trace("vector_add", name="precious")
    before = _digest(dst)
    bad = write_csv("late.csv", GOOD + "k,1,1,0,global,load,-4,4\n")
    _assert_user_error(run_cli("ingest", bad, "-o", dst, *SIZES), "row 4", "negative address")
    assert _digest(dst) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_ingest_refuses_to_overwrite_its_source(run_cli, make_trace):
    src = make_trace("vector_add", layout="parquet")
    before = src.read_bytes()
    _assert_user_error(run_cli("ingest", src, "-o", src), "refusing to write the output over the input")
    assert src.read_bytes() == before


def test_invalid_trace_file_lists_errors_and_exits_2(run_cli, make_trace, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tracekit import open_trace
    path = make_trace("vector_add", name="broken")
    acc = open_trace(path).accesses
    sizes = acc["size"].to_numpy().copy()
    sizes[10] = 0
    pq.write_table(acc.set_column(acc.schema.get_field_index("size"), "size", pa.array(sizes)),
                   path / "accesses.parquet")
    result = run_cli("validate", path)
    _assert_user_error(result, str(path), "row 11", "column 'size'", "size of 0")
    assert "invalid: 1 kind(s) of error" in result.text


def test_ingest_then_info_prints_tables(run_cli, write_csv, tmp_path):
    src = write_csv("dump.csv", "kernel_name,ctaid,tid,pc,mem_space,opcode,addr,width\n"
                                "k,0,0,8,global,LDG.E,0,4\nk,0,0,16,shared,STS,0,4\nk,0,1,8,global,LDG.E,4,4\n")
    result = run_cli("ingest", src, "-o", tmp_path / "t.parquet", "--preset", "cuda", *SIZES)
    assert result.code == 0, result.text
    assert "no seq column" in result.text
    info = run_cli("info", tmp_path / "t.parquet")
    assert info.code == 0, info.text
    for needle in ("3 accesses", "12 bytes", "4 x 1 x 1", "2 x 1 x 1", "1 of 2", "local", "66.7%"):
        assert needle in info.text, needle
    as_json = run_cli("info", tmp_path / "t.parquet", "--json")
    assert '"total_accesses": 3' in as_json.out


def test_unknown_preset_and_bad_sizes(run_cli, write_csv, tmp_path):
    src = write_csv("ok.csv", GOOD)
    _assert_user_error(run_cli("ingest", src, "-o", tmp_path / "x.tkt", "--preset", "nope"),
                       "unknown preset 'nope'", "flat, cuda")
    _assert_user_error(run_cli("ingest", src, "-o", tmp_path / "x.tkt", "--global", "4", "--local", "0"),
                       "--local must be 1 to 3 positive numbers")


def test_console_script_prints_no_traceback(write_csv, tmp_path):
    """The installed entry point, as a separate process (exit status and stderr as a shell sees them)."""
    src = write_csv("neg.csv", _bad_row("address", "-16"))
    exe = Path(sys.executable).with_name("tracekit")
    proc = subprocess.run([str(exe), "validate", str(src), *SIZES], capture_output=True, text=True,
                          timeout=120, env={"COLUMNS": "1000", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "row 3" in proc.stderr and "negative address" in proc.stderr
