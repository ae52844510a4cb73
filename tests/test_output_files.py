"""Outputs as a careful user expects them: permissions that follow the umask (or the
file replaced), and temporaries of killed runs cleaned up by the next run, only ours."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tracekit.files import remove_stale_temporaries, stale_temporaries, temporary_owner


@pytest.fixture
def umask():
    """Set the process umask for one test, then put the previous one back."""
    previous = os.umask(0o022)
    yield os.umask
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def dead_pid() -> int:
    """The id of a process that has ended (a child that was started and reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("mask", [0o077, 0o002])
def test_new_reports_and_traces_follow_the_umask(run_cli, make_trace, tmp_path, umask, mask):
    trace = make_trace()
    umask(mask)
    for fmt in ("json", "html", "text"):
        out = tmp_path / f"report.{fmt}"
        res = run_cli("analyze", trace, "-t", "adreno-640", "-f", fmt, "-o", out)
        assert res.code == 0, res.text
        assert mode(out) == 0o666 & ~mask, fmt
    out = tmp_path / "copy.tkt"
    assert run_cli("ingest", trace, "-o", out).code == 0
    assert mode(out) == 0o777 & ~mask
    assert all(mode(p) == 0o666 & ~mask for p in out.iterdir())
    out = tmp_path / "copy.parquet"
    assert run_cli("ingest", trace, "-o", out).code == 0
    assert mode(out) == 0o666 & ~mask
    out = tmp_path / "parts.tkt"
    assert run_cli("partition", trace, out).code == 0
    assert mode(out) == 0o777 & ~mask


def test_a_replaced_output_keeps_its_mode(run_cli, make_trace, tmp_path, umask):
    trace = make_trace()
    umask(0o022)
    report, copy = tmp_path / "report.json", tmp_path / "copy.tkt"
    report.write_text("{}")
    report.chmod(0o600)              # the user made it private
    copy.mkdir()
    copy.chmod(0o750)
    assert run_cli("analyze", trace, "-t", "adreno-640", "-f", "json", "-o", report).code == 0
    assert run_cli("ingest", trace, "-o", copy).code == 0
    assert report.read_text().startswith("{\n") and mode(report) == 0o600
    assert (copy / "accesses.parquet").exists() and mode(copy) == 0o750


def test_the_next_run_removes_only_its_own_stale_temporaries(run_cli, make_trace, tmp_path):
    trace = make_trace()
    dead, alive = dead_pid(), os.getppid()
    ours = [tmp_path / f".out.tkt.part-{dead}.a1b2_c3d", tmp_path / f".out.tkt.part-{dead}.zzzzzzzz"]
    ours[0].mkdir()
    (ours[0] / "accesses.parquet").write_bytes(b"half")
    ours[1].write_bytes(b"half")
    keep = [tmp_path / ".out.tkt.part-foo",                        # a user's file
            tmp_path / f".out.tkt.part-{alive}.a1b2c3d4",          # a run still going
            tmp_path / f".other.tkt.part-{dead}.a1b2c3d4",         # another output's
            tmp_path / f".out.tkt.part-{dead}.toolong123",         # not our pattern
            tmp_path / f".out.tkt.part-{dead}.a1b2c3d4.csv"]       # nor this (wrong suffix)
    for p in keep:
        p.write_text("mine")
    assert sorted(stale_temporaries(tmp_path / "out.tkt")) == sorted(ours)
    res = run_cli("ingest", trace, "-o", tmp_path / "out.tkt")
    assert res.code == 0, res.text
    assert not any(p.exists() for p in ours)
    assert all(p.read_text() == "mine" for p in keep)
    report = tmp_path / "r.json"
    stale_report = tmp_path / f".r.json.part-{dead}.k9k9k9k9.json"
    stale_report.write_text("{")
    assert run_cli("analyze", trace, "-t", "adreno-640", "-f", "json", "-o", report).code == 0
    assert not stale_report.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if temporary_owner(p)) == sorted(
        p.name for p in keep[1:3])


def test_a_previous_output_moved_aside_by_a_killed_writer_is_put_back(tmp_path):
    aside = tmp_path / f".out.tkt.part-{dead_pid()}.old"
    aside.mkdir()
    (aside / "manifest.json").write_text("{}")
    assert remove_stale_temporaries(tmp_path / "out.tkt") == []
    assert (tmp_path / "out.tkt" / "manifest.json").read_text() == "{}" and not aside.exists()


def test_temporary_names_are_parsed_exactly():
    assert temporary_owner(".a.json.part-12.abcdefgh.json") == ("a.json", 12)
    assert temporary_owner(".a.tkt.part-12.abcdefgh") == ("a.tkt", 12)
    assert temporary_owner(".a.tkt.part-12.old") == ("a.tkt", 12)
    for name in (".a.json.part-x.abcdefgh.json", "a.json.part-12.abcdefgh.json", ".a.json.part-12.abcdefg",
                 ".a.json.part-12.abcdefgh.html", ".a.json.part-12.ABCDEFGH.json", ".x.part-foo"):
        assert temporary_owner(name) is None, name


@pytest.mark.parametrize("swap", [True, False])
def test_a_trace_folder_replaces_the_previous_output_whole(run_cli, make_trace, tmp_path, monkeypatch, swap):
    """With the atomic swap of two folders, and without it (the previous output moved aside
    for an instant): either way the new trace is in place and nothing else is left."""
    import tracekit.files
    if not swap:
        monkeypatch.setattr(tracekit.files, "_exchange", lambda a, b: False)
    out = tmp_path / "out.tkt"
    assert run_cli("ingest", make_trace("strided", stride=2), "-o", out).code == 0
    assert run_cli("partition", make_trace(), out).code == 0
    assert run_cli("ingest", make_trace(), "-o", out).code == 0
    res = run_cli("info", "--json", out)
    assert res.code == 0 and json.loads(res.out)["total_accesses"] == 768, res.text   # the last one
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


SIGTERM_IN_A_CALLBACK = """
import ctypes, os, signal, time
from tracekit.files import Terminated, sigterm_unwinds

def hook():                       # Python code that C calls, like a JIT compiler's cache hook
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.2)

callback = ctypes.CFUNCTYPE(None)(hook)
try:
    with sigterm_unwinds():
        callback()
        time.sleep(2)
    print("ran to the end")
except Terminated:
    print("terminated")
"""


def test_sigterm_in_code_called_from_c_still_stops_the_command(tmp_path):
    """Python drops an exception raised in a callback from C; the SIGTERM is delivered again."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    run = subprocess.run([sys.executable, "-c", SIGTERM_IN_A_CALLBACK], capture_output=True, text=True,
                         env=env, timeout=60)
    assert run.stdout.strip() == "terminated", run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr
