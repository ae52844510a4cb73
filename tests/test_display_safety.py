"""Names taken from an input reach the terminal, the logs and the reports as printable text.

A trace, a target file, a jobs file or a ledger can hold any string: escape sequences that
clear the screen or set the window title, NUL, C1 controls, bidirectional overrides, rich
markup and emoji codes.  Every command that shows such a name must show it escaped and
literal (the reader sees what is there, the terminal acts on none of it).
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest
from conftest import access_pattern, launches_for, sites_for

from tracekit.errors import TracekitError, printable, printable_list
from tracekit.targets import load_target
from tracekit.trace.store import conform, write_trace

#: Clear screen, set the window title, NUL, then a rich emoji code, rich markup, a
#: right-to-left override and an 8-bit CSI.
HOSTILE = "\x1b[2J\x1b]0;pwn\x07\x00:skull:[bold red]x[/]\u202e\x9b"
#: How every command shows it.
SHOWN = "\\x1b[2J\\x1b]0;pwn\\x07\\x00:skull:[bold red]x[/]\\u202e\\x9b"
#: What a terminal or an HTML/XML reader would act on: C0 controls other than line feed and
#: tab, DEL, C1 controls and the bidirectional controls.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
TARGET = "adreno-640"
ROOT = Path(__file__).resolve().parent.parent


def assert_printable(*texts: str) -> None:
    for text in texts:
        bad = sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(text)})
        assert not bad, f"raw control characters {bad} in output:\n{text[:2000]!r}"
        assert "💀" not in text and "❌" not in text, "an emoji code was expanded"


def hostile_trace(path: Path) -> Path:
    """A vector add whose kernel, buffer, source file and source text names are hostile."""
    acc = access_pattern("vector_add")
    # built from Python strings: NumPy's fixed-width strings would drop the NUL
    kernel = pa.array(["k" + HOSTILE] * acc.num_rows).dictionary_encode()
    acc = conform(acc.set_column(acc.schema.get_field_index("kernel"), "kernel", kernel), "accesses")
    buffers = [{"base": 0x10000 * (i + 1), "size": 1024, "order": i, "arg": i, "name": f"buf{i}{HOSTILE}"}
               for i in range(3)]
    launches = launches_for(acc, global_size=256, local_size=64,
                            metadata={"layout": {"alignment": 4096, "global_buffers": buffers}})
    # the sites are on lines 10 .. 12, which the report quotes
    text = "kernel void k() {\n" + "\n" * 8 + "".join(f"  x{n}; // {HOSTILE}\n" for n in range(3)) + "}\n"
    source = pa.array([text] * launches.num_rows)
    launches = launches.set_column(launches.schema.get_field_index("source"), "source", source)
    return write_trace(path, acc, launches=launches, sites=sites_for(acc, file=f"src{HOSTILE}.cl"))


@pytest.fixture
def trace(tmp_path) -> Path:
    return hostile_trace(tmp_path / "hostile.tkt")


def test_printable_escapes_controls_and_cuts_long_values():
    assert printable("k" + HOSTILE) == "k" + SHOWN
    assert printable("a\nb\tc") == "a\\nb\\tc"
    assert printable("a\nb\tc\x1b", newlines=True) == "a\nb\tc\\x1b"
    assert printable("Größe 💀 ok") == "Größe 💀 ok"   # printable text is left alone
    assert printable(b"\xfd7zXZ\x00\x1b ok") == "\\xfd7zXZ\\x00\\x1b ok"
    long = printable("x" * 10_000, limit=50)
    assert long.startswith("x" * 50) and "9,950 more characters" in long and len(long) < 100
    assert printable_list([b"\x00" * 5000] * 100, each=8, most=3).count("\\x00") == 24
    err = TracekitError(f"no kernel '{HOSTILE}'", path=f"p{HOSTILE}", column=HOSTILE, hint=HOSTILE)
    assert_printable(str(err), err.message)
    assert SHOWN in str(err)


def test_analyze_text_shows_names_escaped(trace, run_cli):
    res = run_cli("analyze", trace, "-t", TARGET, "-f", "text")
    assert res.code == 0, res.err
    assert_printable(res.out, res.err)
    assert "k" + SHOWN in res.out


def test_info_shows_names_escaped(trace, run_cli):
    res = run_cli("info", trace)
    assert res.code == 0, res.err
    assert_printable(res.out, res.err)
    assert "k" + SHOWN in res.out


def test_json_keeps_names_but_escapes_controls(trace, run_cli):
    """JSON holds the names exactly (a parser gets them back) with every control as an escape."""
    res = run_cli("analyze", trace, "-t", TARGET, "-f", "json")
    assert res.code == 0, res.err
    assert_printable(res.out)
    assert json.loads(res.out)["targets"][TARGET]["launches"][0]["kernel"] == "k" + HOSTILE


def test_html_report_has_no_controls_and_shows_names_escaped(trace, tmp_path, run_cli):
    out = tmp_path / "r.html"
    res = run_cli("analyze", trace, "-t", TARGET, "-f", "html", "-o", out)
    assert res.code == 0, res.err
    html = out.read_text(encoding="utf-8")
    assert_printable(html)
    # autoescaped as HTML, with the controls written out: names, source file and source lines
    assert "k" + SHOWN in html and f"src{SHOWN}.cl" in html and f"// {SHOWN}" in html


def test_jobs_history_and_status_show_names_escaped(trace, tmp_path, run_cli):
    traces = tmp_path / "traces"
    traces.mkdir()
    trace.rename(traces / "t\x1b[2J\u202e.tkt")
    (traces / "broken\x1b]0;pwn\x07.parquet").write_bytes(b"\x1b[2J not parquet \x07")
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(textwrap.dedent(f"""\
        ledger = "ledger.sqlite"
        [jobs."nightly\\u001b[2J\\u001b]0;pwn\\u0007:skull:"]
        inputs = ["traces"]
        targets = ["{TARGET}"]
        formats = ["json"]
        output = "reports"
        """))
    res = run_cli("jobs", "run", jobs)
    assert res.code == 5, res.err   # the broken trace failed, the hostile one was analysed
    assert_printable(res.out, res.err)
    for command in ("history", "status"):
        res = run_cli("jobs", command, jobs)
        assert res.code == 0, res.err
        assert_printable(res.out, res.err)
        assert "nightly\\x1b[2J\\x1b]0;pwn\\x07:skull:" in res.out
    assert "broken\\x1b]0;pwn\\x07.parquet" in res.out   # the failed trace, in status
    res = run_cli("jobs", "history", jobs)
    assert "k" + SHOWN in res.out


def hostile_target(tmp_path: Path) -> Path:
    text = (ROOT / "tracekit/targets" / f"{TARGET}.toml").read_text(encoding="utf-8")
    toml_hostile = json.dumps(HOSTILE)[1:-1]   # a TOML basic string takes JSON's \u escapes
    text = text.replace('description = "', f'description = "{toml_hostile}', 1)
    text = text.replace('source = "', f'source = "{toml_hostile}', 1)
    text = text.replace('vendor = "', f'vendor = "{toml_hostile}', 1)
    p = tmp_path / "mine.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_targets_show_shows_file_text_escaped(tmp_path, run_cli):
    path = hostile_target(tmp_path)
    assert load_target(path).description.startswith(HOSTILE)
    res = run_cli("targets", "show", path)
    assert res.code == 0, res.err
    assert_printable(res.out, res.err)
    assert SHOWN in res.out


@pytest.mark.parametrize("case", ["missing target", "bad what-if", "xz as csv", "binary as csv"])
def test_error_messages_quote_input_escaped(case, trace, tmp_path, run_cli):
    src = tmp_path / "dump.csv"
    if case == "missing target":
        res = run_cli("analyze", trace, "-t", tmp_path / "gpu\x1b[2J\x1b]0;pwn\x07\u202e.toml")
    elif case == "bad what-if":
        res = run_cli("analyze", trace, "-t", TARGET, "-f", "text", "--what-if", f"coalesce={HOSTILE}")
    elif case == "xz as csv":
        import lzma
        src.write_bytes(lzma.compress(HOSTILE.encode() * 2000))
        res = run_cli("ingest", src, "-o", tmp_path / "out.tkt")
        assert "xz-compressed" in res.err
    else:
        src.write_bytes(("x," + HOSTILE).encode() * 2000)
        res = run_cli("ingest", src, "-o", tmp_path / "out.tkt")
        assert "binary" in res.err and len(res.err) < 500   # a short excerpt, not the file
    assert res.code == 2, (res.out, res.err)
    assert_printable(res.out, res.err)
    assert "Traceback" not in res.err
    if "csv" not in case:
        assert "\\x1b" in res.err


def test_jobs_tables_on_a_terminal_show_cells_as_text(monkeypatch):
    """On a terminal the ledger's tables go through rich: cells are text, never markup or emoji."""
    import io

    from tracekit.jobs.tables import show_table
    monkeypatch.setenv("COLUMNS", "400")
    out = io.StringIO()
    show_table(f"title{HOSTILE}", ["job", "kernel"], [[f"j{HOSTILE}", f"k{HOSTILE}"]], file=out,
               terminal=True)
    text = out.getvalue()
    assert_printable(text)
    assert "k" + SHOWN in text and "j" + SHOWN in text
