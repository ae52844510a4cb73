"""Nsight Compute CSV exports (the real H200 measurements in tests/data/h200) and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracekit.errors import TraceFormatError, TracekitError
from tracekit.formats import detect, detect_and_read
from tracekit.formats.ncu import normalise_unit, read_ncu_raw, read_ncu_sol, sol_verdict, to_number

H200 = Path(__file__).parent / "data" / "h200"
RAW, SOL = H200 / "ncu_raw.csv", H200 / "ncu_sol.csv"


def _launches_in_sol() -> list[tuple[int, str]]:
    """(ID, kernel) of every launch in the Speed-of-Light export: an independent export of the same run."""
    ids = {}
    for line in SOL.read_text().splitlines():
        if line.startswith('"') and not line.startswith('"ID"'):
            cells = line.split('","')
            ids[int(cells[0].strip('"'))] = cells[4]
    return sorted(ids.items())


@pytest.fixture(scope="module")
def raw():
    return read_ncu_raw(RAW)


def test_banners_skipped_and_one_row_per_launch(raw):
    assert list(zip(raw.frame["ID"], raw.frame["Kernel Name"], strict=True)) == _launches_in_sol()
    assert list(raw.frame["ID"]) == list(range(len(raw.frame)))
    assert raw.frame["Kernel Name"].iloc[0] == "copy_coalesced"


def test_thousands_separators_and_units(raw):
    f = raw.frame
    assert raw.units["dram__bytes_read.sum"] == "byte"
    assert raw.units["gpu__time_duration.sum"] == "ns"
    # the same launch's requests and sectors are consistent: 4 sectors per coalesced 128-byte request
    i = f.index[(f["Kernel Name"] == "copy_coalesced") & (f["block"] == (256, 1, 1))][0]
    ld_sectors = f.at[i, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    ld_req = f.at[i, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
    assert ld_req > 1000 and ld_sectors == 4 * ld_req
    # launch__grid_size is in blocks, and matches the parsed Grid Size column
    for g, n in zip(f["grid"], f["launch__grid_size"], strict=True):
        assert g[0] * g[1] * g[2] == n
    assert f["launch__cluster_scheduling_policy"].iloc[0] == "PolicySpread"  # text stays text
    assert to_number("1,398,192") == 1398192.0 and to_number("87,477.33") == 87477.33


def test_per_launch_frames(raw):
    frames = raw.per_launch()
    assert len(frames) == len(raw.frame)
    one = frames[0].set_index("metric")
    assert one.at["gpu__time_duration.sum", "unit"] == "ns"
    assert one.at["launch__block_size", "value"] == 256
    assert set(frames[0].columns) >= {"kernel", "grid", "block", "metric", "unit", "value"}


def test_unit_prefixes():
    assert normalise_unit("Kbyte") == ("byte", 1e3)
    assert normalise_unit("Mbyte") == ("byte", 1e6)
    assert normalise_unit("usecond") == ("ns", 1e3)
    assert normalise_unit("Ghz") == ("hz", 1e9)
    assert normalise_unit("Gbyte/second") == ("byte/second", 1e9)
    assert normalise_unit("sector") == ("sector", 1.0)


def test_sol_verdicts_follow_rule_text():
    sol = read_ncu_sol(SOL)
    assert list(zip(sol["ID"], sol["kernel"], strict=True)) == _launches_in_sol()
    assert sol["sol_verdict"].notna().all()
    for _, r in sol.iterrows():
        text = r["sol_rule"].lower()
        if "compute is more heavily" in text:
            assert r["sol_verdict"] == "alu"
        elif "memory is more heavily" in text:
            assert r["sol_verdict"] == "memory"
        elif "greater than 80" in text:
            assert r["sol_verdict"] == ("alu" if r["compute_pct"] >= r["memory_pct"] else "memory")
        else:
            assert r["sol_verdict"] == "latency"
    # the kernel built to be ALU-bound is classified so by ncu
    assert set(sol[sol["kernel"] == "uniform_all_lanes"]["sol_verdict"]) == {"alu"}


def test_sol_mapping_table():
    assert sol_verdict("Compute is more heavily utilized than Memory: ...", 80, 8) == "alu"
    assert sol_verdict("... grid is too small to fill ...", 0, 0) == "latency"
    assert sol_verdict("... greater than 80.0% of ...", 92.0, 8.8) == "alu"
    assert sol_verdict("... greater than 80.0% of ...", 10.6, 84.4) == "memory"
    assert sol_verdict("something new", 1, 2) is None


def test_detect():
    assert detect(RAW) == "ncu" and detect(SOL) == "ncu"
    assert detect_and_read(SOL)["sol_verdict"].notna().all()
    assert len(detect_and_read(RAW).frame) == len(_launches_in_sol())


def test_not_ncu_output(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("a,b,c\n1,2,3\n")
    with pytest.raises(TraceFormatError, match="not Nsight Compute CSV output") as err:
        read_ncu_raw(p)
    assert str(p) in str(err.value)
    assert detect(p) is None


def test_banner_only(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("==PROF== Connected to process 1\n==PROF== Disconnected from process 1\n")
    with pytest.raises(TraceFormatError, match="no header row"):
        read_ncu_raw(p)


def test_header_without_launches(tmp_path):
    lines = RAW.read_text().splitlines()
    head = next(i for i, s in enumerate(lines) if s.startswith('"ID"'))
    p = tmp_path / "x.csv"
    p.write_text("\n".join(lines[:head + 2]) + "\n")
    with pytest.raises(TraceFormatError, match="no profiled launches"):
        read_ncu_raw(p)


def test_details_page_given_as_raw():
    with pytest.raises(TraceFormatError, match="--page details"):
        read_ncu_raw(SOL)


def test_missing_metric(raw):
    with pytest.raises(TracekitError, match="metric 'l1tex__t_sectors_nonexistent.sum' is not in") as err:
        raw.metric("l1tex__t_sectors_nonexistent.sum")
    assert "closest: " in str(err.value) and "l1tex__t_sectors_pipe_lsu_mem_global_op_" in str(err.value)


def test_ragged_row(tmp_path):
    lines = RAW.read_text().splitlines()
    lines[-1] = lines[-1].rsplit(",", 3)[0]
    p = tmp_path / "x.csv"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceFormatError, match=r"line \d+: \d+ fields, the header has"):
        read_ncu_raw(p)
