"""Independent replays on every core (analyzers.parallel): same answers, in the same order, as one process."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from analyzers import parallel
from analyzers.parallel import JOBS_ENV, cores, jobs, map_cores
from tracekit import pipeline
from tracekit.errors import TraceFormatError, TracekitError

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces"


def _square_and_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def test_results_keep_the_order_of_the_tasks_and_run_in_other_processes(monkeypatch):
    monkeypatch.setenv(JOBS_ENV, "2")
    done = []
    out = map_cores(_square_and_pid, range(7), on_done=lambda i, r: done.append(i))
    assert [r[0] for r in out] == [x * x for x in range(7)]
    assert sorted(done) == list(range(7))
    assert os.getpid() not in {pid for _, pid in out}


def test_one_job_runs_here_in_order(monkeypatch):
    monkeypatch.setenv(JOBS_ENV, "1")
    done = []
    out = map_cores(_square_and_pid, [3, 1, 2], on_done=lambda i, r: done.append(i))
    assert out == [(9, os.getpid()), (1, os.getpid()), (4, os.getpid())]
    assert done == [0, 1, 2]


def test_a_worker_does_not_start_workers_of_its_own(monkeypatch):
    monkeypatch.setenv(JOBS_ENV, "2")

    def nested(x):
        return [pid for _, pid in map_cores(_square_and_pid, [x, x + 1])]

    for pids in map_cores(nested, [1, 2]):
        assert len(set(pids)) == 1 and pids[0] != os.getpid()


def _refuse(x):
    raise TraceFormatError(f"bad value {x}", path="some.tkt", column="address", hint="look at it")


def test_a_users_error_in_a_worker_arrives_whole(monkeypatch):
    monkeypatch.setenv(JOBS_ENV, "2")
    with pytest.raises(TraceFormatError) as err:
        map_cores(_refuse, [1, 2])
    assert err.value.path == "some.tkt" and err.value.column == "address" and err.value.hint == "look at it"
    assert str(err.value).startswith("some.tkt, column 'address': bad value")
    again = pickle.loads(pickle.dumps(err.value))
    assert str(again) == str(err.value) and isinstance(again, TraceFormatError)


@pytest.mark.parametrize("value", ["0", "many", "-3", "100000"])
def test_a_bad_jobs_setting_is_refused_by_name(monkeypatch, value):
    monkeypatch.setenv(JOBS_ENV, value)
    with pytest.raises(TracekitError, match=JOBS_ENV):
        jobs()


def test_jobs_default_to_every_core(monkeypatch):
    monkeypatch.delenv(JOBS_ENV, raising=False)
    assert jobs() == cores() >= 1
    monkeypatch.setenv(JOBS_ENV, " 3 ")
    assert jobs() == 3
    assert not parallel._in_worker


def test_the_checklist_does_not_depend_on_the_number_of_processes(monkeypatch):
    """Two targets, fixes priced by replay alone and together: every number is the same on one core
    and on two (the befores, singles and joint replays run in workers)."""
    trace = SAMPLES / "transpose_naive.tkt"
    docs = []
    for n in ("1", "2"):
        monkeypatch.setenv(JOBS_ENV, n)
        docs.append(json.loads(pipeline.analyze(trace, ["adreno-640", "intel-hd530"]).to_json()))
    assert docs[0] == docs[1]
    priced = [f for t in docs[0]["targets"].values() for f in t["findings"]
              if f.get("gain_method") == "replay"]
    assert priced, "the sample should have fixes priced by replay"
    # each target's checklist is made in the task that analysed it: the same findings, in the same
    # order, as the rules and replays run over both targets' results at once
    plain = pipeline.analyze(trace, ["adreno-640", "intel-hd530"], checklist=False)
    joint = [f.to_dict() for f in pipeline.run_checklist(plain.trace, plain.results)]
    assert joint == [f for t in docs[1]["targets"].values() for f in t["findings"]]


def test_the_command_refuses_a_bad_jobs_setting_and_writes_nothing(run_cli, monkeypatch, tmp_path):
    monkeypatch.setenv(JOBS_ENV, "lots")
    out = tmp_path / "report.json"
    res = run_cli("analyze", SAMPLES / "vector_add.tkt", "-t", "adreno-640", "-t", "intel-hd530", "-o", out)
    assert res.code == 2 and JOBS_ENV in res.text and "'lots'" in res.text
    assert not out.exists()


def test_no_more_processes_start_than_the_free_memory_holds(monkeypatch):
    monkeypatch.setenv(JOBS_ENV, "4")
    monkeypatch.setattr(parallel, "available_memory", lambda: 3 << 30)
    pids = {pid for _, pid in map_cores(_square_and_pid, range(6), memory_each=2 << 30)}
    assert pids == {os.getpid()}        # room for one: it runs here
    monkeypatch.setattr(parallel, "available_memory", lambda: 5 << 30)
    pids = {pid for _, pid in map_cores(_square_and_pid, range(12), memory_each=2 << 30)}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def test_free_memory_is_read_from_the_system():
    free = parallel.available_memory()
    assert free is None or free > 0


def test_off_linux_the_pieces_run_here(monkeypatch):
    monkeypatch.setenv(JOBS_ENV, "2")
    monkeypatch.setattr(parallel.sys, "platform", "darwin")
    assert {pid for _, pid in map_cores(_square_and_pid, range(4))} == {os.getpid()}


@pytest.fixture(scope="module")
def multi_launch(tmp_path_factory):
    from test_distributed import combine
    return combine(["vector_add", "strided_copy", "transpose_tiled", "reduction"],
                   tmp_path_factory.mktemp("launches") / "multi.tkt")


def test_one_targets_launches_run_on_every_core_with_the_same_answers(multi_launch, monkeypatch):
    from analyzers import analyze
    from tracekit.formats import open_trace

    monkeypatch.setenv(JOBS_ENV, "1")
    alone = analyze(open_trace(multi_launch), "adreno-640").to_dict()
    seen = []
    real = parallel.map_cores

    def watched(fn, tasks, **kw):
        out = real(fn, tasks, **kw)
        seen.extend(getattr(r, "elsewhere", None) for r in out)
        return out

    monkeypatch.setattr(parallel, "map_cores", watched)
    monkeypatch.setenv(JOBS_ENV, "2")
    spread = analyze(open_trace(multi_launch), "adreno-640").to_dict()
    assert seen == [True] * 4, "each of the four launches was analysed in a worker"
    assert json.dumps(spread, sort_keys=True) == json.dumps(alone, sort_keys=True)
    assert len(alone["launches"]) == 4 and all(lr["bound"] and not lr["error"] for lr in alone["launches"])


@pytest.mark.parametrize("jobs_", ["1", "2"])
def test_a_failed_replay_fails_every_launch_with_its_reason(multi_launch, monkeypatch, jobs_):
    """As when the launches are replayed in turn: the first failing launch's reason on all of them."""
    import sys

    from tracekit.formats import open_trace

    an = sys.modules["analyzers.analyze"]   # the package's name `analyze` is the function

    real = an.memory_by_launch

    def failing(trace, target, geos, targets=None):
        if any(g.launch >= 2 for g in geos):
            raise TracekitError(f"launch {min(g.launch for g in geos if g.launch >= 2)} cannot be replayed")
        return real(trace, target, geos, targets=targets)

    monkeypatch.setattr(an, "memory_by_launch", failing)
    monkeypatch.setenv(JOBS_ENV, jobs_)
    result = an.analyze(open_trace(multi_launch), "adreno-640")
    assert [lr.error for lr in result.launches] == ["launch 2 cannot be replayed"] * 4


def test_progress_of_launches_analysed_in_workers_is_earned_here(multi_launch, monkeypatch):
    import io

    from analyzers import analyze
    from tracekit.formats import open_trace
    from tracekit.progress import counting_trace, finish_counting, progress

    monkeypatch.setenv(JOBS_ENV, "2")
    trace = open_trace(multi_launch)
    with progress(trace.num_accesses, stream=io.StringIO(), interval=1e9) as bar:
        view = counting_trace(trace, bar)
        analyze(view, "adreno-640")
        assert bar.done == trace.num_accesses   # every launch finished in a worker and was credited
        finish_counting(view)
    assert bar.done == trace.num_accesses
