"""The jobs file is read strictly, and every complaint names the line to fix."""

from __future__ import annotations

import textwrap

import pytest

from tracekit.jobs.config import JobsFileError, KeyLines, load_jobs


def write(tmp_path, text: str):
    (tmp_path / "traces").mkdir(exist_ok=True)
    p = tmp_path / "jobs.toml"
    p.write_text(textwrap.dedent(text))
    return p


GOOD = """\
    # nightly reports
    ledger = "state/ledger.sqlite"

    [jobs.nightly]
    inputs = ["traces"]
    targets = ["powervr-g6400"]
    formats = ["json"]
    output = "reports"
    regression_threshold = 0.05
"""


def test_good_file_loads_with_paths_relative_to_it(tmp_path):
    jobs = load_jobs(write(tmp_path, GOOD))
    assert jobs.ledger == tmp_path / "state/ledger.sqlite"
    (job,) = jobs.jobs
    assert job.name == "nightly"
    assert job.output == tmp_path / "reports"
    assert job.targets == ("powervr-g6400",)
    assert job.regression_threshold == 0.05
    assert "time_s" in job.metrics


@pytest.mark.parametrize("text, line, words", [
    (GOOD.replace("    output =", "    outptu = \"x\"\n    output ="), 8,
     ["unknown key 'outptu'", "nightly"]),
    (GOOD.replace('inputs = ["traces"]', 'inputs = ["traces", "missing-dir"]'), 5,
     ["missing-dir", "does not exist"]),
    (GOOD.replace("ledger =", "ledgr ="), 2, ["unknown key 'ledgr'"]),
    (GOOD.replace('formats = ["json"]', 'formats = ["json", "docx"]'), 7, ["formats", "docx"]),
    (GOOD.replace('targets = ["powervr-g6400"]', 'targets = ["no-such-gpu"]'), 6,
     ["no-such-gpu", "known targets"]),
    (GOOD.replace("regression_threshold = 0.05", 'regression_threshold = "ten"'), 9,
     ["regression_threshold", "number"]),
    (GOOD.replace("    output = \"reports\"\n", ""), 4, ["has no 'output'"]),
])
def test_errors_name_the_line(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(JobsFileError) as err:
        load_jobs(path)
    msg = str(err.value)
    assert f"{path}:{line}:" in msg, msg
    for w in words:
        assert w in msg
    assert err.value.exit_code == 2


def test_syntax_error_keeps_tomllib_position(tmp_path):
    path = write(tmp_path, GOOD + "[jobs.broken\n")
    with pytest.raises(JobsFileError, match="line 10"):
        load_jobs(path)


def test_key_lines_understands_dotted_keys_headers_and_multiline_strings():
    text = textwrap.dedent('''\
        a = 1
        [jobs."night ly"]
        note = """
        fake = 3
        """
        inputs = [
          "x",
        ]
        jobs.other.output = "y"
        ''')
    kl = KeyLines(text)
    assert kl.line("a") == 1
    assert kl.line("jobs", "night ly") == 2
    assert kl.line("jobs", "night ly", "inputs") == 6
    assert kl.line("jobs", "night ly", "fake") == 2   # inside a string: falls back to its table
    assert kl.line("jobs", "night ly", "jobs", "other", "output") == 9


def test_discover_folders_globs_and_single_traces(tmp_path):
    t = tmp_path / "traces"
    (t / "a.tkt").mkdir(parents=True)
    (t / "a.tkt" / "accesses.parquet").write_bytes(b"")
    (t / "b.parquet").write_bytes(b"")
    (t / "notes.txt").write_text("not a trace")
    (t / "deep" / "c.tkt").mkdir(parents=True)
    inputs = 'inputs = ["traces", "traces/**/*.tkt", "traces/b.parquet"]'
    path = write(tmp_path, GOOD.replace('inputs = ["traces"]', inputs))
    (job,) = load_jobs(path).jobs
    names = [p.name for p in job.discover()]
    assert sorted(names) == ["a.tkt", "b.parquet", "c.tkt"]
