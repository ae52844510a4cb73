"""No command writes over one of its inputs: not the same path, another spelling of it,
a hard link or a symbolic link to it, a file inside an input trace folder, nor a folder
that holds an input.  Each is refused with exit 2 before any work, naming both paths,
and the input is left byte for byte as it was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tracekit.errors import TracekitError
from tracekit.files import refuse_overwriting_inputs

TARGETS = Path(__file__).parents[1] / "tracekit" / "targets"
KERNEL = """__kernel void copy(__global const float *a, __global float *b) {
    size_t i = get_global_id(0);
    b[i] = a[i];
}
"""


def snapshot(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` (or ``path`` itself) with its bytes, links not followed."""
    if path.is_dir() and not path.is_symlink():
        return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
    return {"": path.read_bytes()}


def aliases(tmp_path: Path, victim: Path, how: str) -> Path:
    """An output path that leads to ``victim`` in the way ``how`` names."""
    if how == "same":
        return victim
    if how == "spelled":  # the same file through a detour
        (tmp_path / "detour").mkdir(exist_ok=True)
        return tmp_path / "detour" / ".." / victim.relative_to(tmp_path)
    if how == "hardlink":
        link = tmp_path / f"hard{victim.suffix}"
        os.link(victim, link)
        return link
    if how == "symlink":
        link = tmp_path / f"soft{victim.suffix}"
        link.symlink_to(victim)
        return link
    if how == "inside":  # a file inside an input trace folder
        return victim / "report.json"
    raise AssertionError(how)


@pytest.fixture
def inputs(make_trace, tmp_path):
    """Inputs of every kind a command reads: traces in both layouts, a CSV export, a target file."""
    csv = tmp_path / "export.csv"
    csv.write_text("launch,group,item,seq,op,space,address,size,site\n"
                   + "".join(f"0,0,{i},0,load,global,{4 * i},4,0\n" for i in range(64)))
    (tmp_path / "export.launches.json").write_text(
        '{"launches": [{"kernel": "k", "global_size": 64, "local_size": 64}]}')
    target = tmp_path / "mine.toml"
    shutil.copy(TARGETS / "adreno-640.toml", target)
    return {"tkt": make_trace(name="trace"), "parquet": make_trace(name="single", layout="parquet"),
            "other": make_trace("strided", stride=2, name="other"), "csv": csv, "target": target,
            "sidecar": tmp_path / "export.launches.json"}


#: (case, the input it aims at, argv with OUT for the output path)
FILE_CASES = {
    "analyze-json": ("parquet", ["analyze", "{parquet}", "-t", "adreno-640", "-f", "json", "-o", "OUT"]),
    "analyze-html": ("parquet", ["analyze", "{parquet}", "-t", "adreno-640", "-f", "html", "-o", "OUT"]),
    "analyze-text": ("parquet", ["analyze", "{parquet}", "-t", "adreno-640", "-f", "text", "-o", "OUT"]),
    "analyze-what-if": ("parquet", ["analyze", "{parquet}", "-t", "adreno-640", "-f", "json",
                                    "--what-if", "vector-loads", "-o", "OUT"]),
    "analyze-sample-groups": ("parquet", ["analyze", "{parquet}", "-t", "adreno-640", "-f", "json",
                                          "--sample-groups", "0.5", "-o", "OUT"]),
    "analyze-target-file": ("target", ["analyze", "{tkt}", "-t", "{target}", "-f", "json", "-o", "OUT"]),
    "analyze-csv-sidecar": ("sidecar", ["analyze", "{csv}", "-t", "adreno-640", "-f", "json", "-o", "OUT"]),
    "compare": ("parquet", ["compare", "{tkt}", "{parquet}", "-t", "adreno-640", "-f", "json", "-o", "OUT"]),
    "compare-html": ("parquet", ["compare", "{parquet}", "{tkt}", "-t", "adreno-640", "-f", "html",
                                 "-o", "OUT"]),
    "ingest-parquet": ("parquet", ["ingest", "{parquet}", "-o", "OUT", "--layout", "parquet"]),
    "ingest-csv": ("csv", ["ingest", "{csv}", "-o", "OUT", "--layout", "parquet"]),
    "partition": ("parquet", ["partition", "{parquet}", "OUT"]),
    "calibrate": ("target", ["calibrate", str(Path(__file__).parent / "data" / "h200" / "ncu_raw.csv"),
                             str(Path(__file__).parent / "data" / "h200" / "twins" / "twins.tkt"),
                             "-t", "{target}", "--csv", "OUT"]),
}

#: Commands whose input is a trace folder: the output may not be it, a link to it, or inside it.
FOLDER_CASES = {
    "analyze-json": ["analyze", "{tkt}", "-t", "adreno-640", "-f", "json", "-o", "OUT"],
    "compare": ["compare", "{other}", "{tkt}", "-t", "adreno-640", "-f", "json", "-o", "OUT"],
    "ingest": ["ingest", "{tkt}", "-o", "OUT"],
    "partition": ["partition", "{tkt}", "OUT"],
}


def run_refused(run_cli, inputs, argv: list[str], victim: Path, out: Path) -> None:
    before = snapshot(victim)
    args = [str(out) if a == "OUT" else a.format(**inputs) for a in argv]
    res = run_cli(*args)
    assert res.code == 2, res.text
    assert "refusing to write the output over the input" in res.text
    assert str(victim.name) in res.text and "Traceback" not in res.text
    assert snapshot(victim) == before


@pytest.mark.parametrize("how", ["same", "spelled", "hardlink", "symlink"])
@pytest.mark.parametrize("case", sorted(FILE_CASES))
def test_a_command_refuses_to_write_over_an_input_file(run_cli, inputs, tmp_path, case, how):
    which, argv = FILE_CASES[case]
    victim = inputs[which]
    run_refused(run_cli, inputs, argv, victim, aliases(tmp_path, victim, how))


@pytest.mark.parametrize("how", ["same", "symlink", "inside"])
@pytest.mark.parametrize("case", sorted(FOLDER_CASES))
def test_a_command_refuses_to_write_over_or_into_an_input_trace_folder(run_cli, inputs, tmp_path, case, how):
    if how == "inside" and case in ("ingest", "partition"):
        out = inputs["tkt"] / "nested.tkt"
    else:
        out = aliases(tmp_path, inputs["tkt"], how)
    run_refused(run_cli, inputs, FOLDER_CASES[case], inputs["tkt"], out)


def test_ingest_refuses_to_replace_the_folder_holding_its_input(run_cli, inputs, tmp_path):
    holder = tmp_path / "holder.tkt"
    holder.mkdir()
    src = holder / "export.csv"
    shutil.copy(inputs["csv"], src)
    shutil.copy(inputs["sidecar"], holder / "export.launches.json")
    run_refused(run_cli, inputs, ["ingest", str(src), "-o", "OUT"], src, holder)


@pytest.mark.skipif(shutil.which("oclgrind") is None, reason="needs Oclgrind")
@pytest.mark.parametrize("how", ["same", "hardlink", "symlink"])
def test_record_refuses_to_write_the_trace_over_its_kernel_file(run_cli, inputs, tmp_path, how):
    kernel = tmp_path / "copy.cl"
    kernel.write_text(KERNEL)
    argv = ["record", str(kernel), "--kernel", "copy", "--global", "64", "--local", "64",
            "--arg", "float[64]=range", "--arg", "float[64]", "--no-isa", "-o", "OUT"]
    run_refused(run_cli, inputs, argv, kernel, aliases(tmp_path, kernel, how))


def test_outputs_beside_inputs_are_still_written(run_cli, inputs, tmp_path, monkeypatch):
    """The check is by identity, not by name or folder: a new name beside the input is fine,
    and a shipped target's name is not a file even where a folder of that name exists."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adreno-640").mkdir()
    res = run_cli("analyze", inputs["tkt"], "-t", "adreno-640", "-f", "json", "-o", "adreno-640/r.json")
    assert res.code == 0, res.text
    out = tmp_path / "single.json"
    res = run_cli("analyze", inputs["parquet"], "-t", inputs["target"], "-f", "json", "-o", out)
    assert res.code == 0, res.text
    assert out.read_text().startswith("{")
    res = run_cli("partition", inputs["tkt"], tmp_path / "trace-parts.tkt")
    assert res.code == 0, res.text
    res = run_cli("analyze", inputs["csv"], "-t", "adreno-640", "-f", "json", "-o", tmp_path / "csv.json")
    assert res.code == 0, res.text   # the export and its launch facts are read as they are
    res = run_cli("ingest", inputs["csv"], "-o", tmp_path / "export.tkt")
    assert res.code == 0 and "1 launch(es)" in res.text, res.text


def test_the_check_names_output_and_input(tmp_path):
    src = tmp_path / "in.parquet"
    src.write_bytes(b"x")
    os.link(src, tmp_path / "out.json")
    with pytest.raises(TracekitError) as err:
        refuse_overwriting_inputs(tmp_path / "out.json", [tmp_path / "missing", None, src])
    assert str(tmp_path / "out.json") in str(err.value) and str(src) in str(err.value)
    refuse_overwriting_inputs("-", [src])  # standard output is never a file
    refuse_overwriting_inputs(tmp_path / "new.json", [src])


def test_the_library_writer_refuses_the_analysed_trace_as_its_output(inputs):
    from tracekit import pipeline

    trace = inputs["parquet"]
    before = snapshot(trace)
    analysis = pipeline.analyze(trace, ["adreno-640"], progress=False)
    for fmt in ("json", "html"):
        with pytest.raises(TracekitError, match="refusing to write the output over the input"):
            pipeline.write(analysis, fmt, trace)
    assert snapshot(trace) == before
