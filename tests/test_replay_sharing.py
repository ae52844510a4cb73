"""Work shared between the replays of one launch gives the same answers as doing it again each time."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analyzers.analyze import resolve_target
from analyzers.whatif.changes import parse_change
from analyzers.whatif.replay import Replays, _analyze_one, _instructions_table
from tracekit.trace import footprint as fp

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces"


def test_a_change_to_the_accesses_reuses_the_issues_per_wave_and_agrees_with_a_fresh_replay():
    replays = Replays(SAMPLES / "transpose_naive.tkt")
    launch = sorted(replays.geos)[0]
    target = resolve_target("adreno-640")
    change = parse_change("coalesce=0")
    w = replays.run(target, change, launch)
    memo = replays._issues[(target.name, launch, False)]
    assert memo, "the unchanged replay should have kept its issues per wave"
    base = replays.head(launch)
    changed = change.apply(base, target)
    assert changed.instructions is base.instructions          # accesses only
    fresh = _analyze_one(changed, target, replays.trace)      # no memo: everything again
    assert fresh.time_estimates == w.after.time_estimates
    assert fresh.verdict == w.after.verdict
    # the head's instruction table is converted once for every such change
    assert _instructions_table(base.instructions) is _instructions_table(changed.instructions)


def test_a_footprint_is_decoded_once_and_counts_its_units_once():
    g = 32
    read = np.zeros(64, bool)
    read[[0, 1, 2, 9, 40]] = True
    written = np.zeros(64, bool)
    written[[2, 3]] = True
    entry = fp.encode(g, [fp.BufferFootprint(4096, 64 * g, read, written, 0)])
    first = fp.decode(entry)
    assert fp.decode(dict(entry)) is first                     # the same metadata text: the same object
    counts = first.distinct_units(128)
    assert counts == first._count_units(128) == (3, 1, 0)       # lines 0, 2 and 10 read; line 0 written
    assert first._units == {128: counts}
    other = fp.decode(fp.encode(g, [fp.BufferFootprint(4096, 64 * g, written, read, 0)]))
    assert other is not first and other.distinct_units(128) == (1, 3, 2)
