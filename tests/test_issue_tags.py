"""Requests formed from the loop iterations a wave runs together (``accesses.issue``).

The recorder tags every access with the trip counts of the loops around its site
(tracekit/recorder/issue.h); the replay pairs lanes by tag (analyzers/replay/waves.py).  Where
lanes join a loop's work late (``if (lid <= m)`` inside ``for m``, the wavefront of
Rodinia's Needleman-Wunsch), pairing each lane's k-th access instead mixes iterations:
a 16-way local-memory conflict read as conflict-free in one loop while the same pattern
in the next loop, whose lanes leave early instead, was priced right.
"""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
import recorded_kernels as rk

from analyzers.replay.memory import replay_memory
from tracekit.targets import load_target

TARGETS = ("powervr-g6400", "adreno-640", "intel-hd530", "nvidia-h200")
#: the worst conflict 16 lanes reading words 16 apart can have: 16-way where the target's local
#: memory has 16 banks (its target file), 8-way with 32 banks (two of the 16 words share each bank)
WORST = {"powervr-g6400": 16, "adreno-640": 8, "intel-hd530": 16, "nvidia-h200": 8}


def _local_sites(path, target, *, tags=True):
    table = pq.read_table(path / "accesses.parquet")
    if not tags:
        table = table.drop(["issue"])
    lines = pq.read_table(path / "sites.parquet").to_pandas().set_index("site")["line"]
    per_site = replay_memory(table, load_target(target)).per_site
    local = per_site[per_site["space"] == "local"].copy()
    local["line"] = local["site"].map(lines)
    return local


def _line_of(path: str, text: str, nth: int = 0) -> int:
    found = [i + 1 for i, line in enumerate(open(path).read().splitlines()) if text in line]
    return found[nth]


def test_recorded_tags_are_the_loop_iterations():
    """Item 5 of triangular_local reads in the lower loop at i = 0..4 and in the upper loop at
    i = 6..15: its tags are those iterations, whatever its count of earlier reads."""
    acc = pq.read_table(rk.triangular_local() / "accesses.parquet").to_pandas()
    reads = acc[(acc["space"] == "local") & (acc["op"] == "load") & (acc["group"] == 0) & (acc["item"] == 5)]
    lower, upper = (g["issue"].tolist() for _, g in sorted(reads.groupby("site")))
    assert lower == [0, 1, 2, 3, 4]
    assert upper == list(range(6, 16))
    mine = acc[(acc["group"] == 0) & (acc["item"] == 5)]
    # the copy loop's 16 stores are tagged 0..15; the result's store, outside any loop, 0
    assert mine[(mine["space"] == "local") & (mine["op"] == "store")]["issue"].tolist() == list(range(16))
    assert mine[(mine["space"] == "global") & (mine["op"] == "store")]["issue"].tolist() == [0]


@pytest.mark.parametrize("target", TARGETS)
def test_lanes_joining_late_or_leaving_early_conflict_alike(target):
    """Both loops of triangular_local read one column of the tile per iteration: the same
    conflict degrees on every target, and the worst one the bank count allows."""
    local = _local_sites(rk.triangular_local(), target)
    reads = local[local["op"] == "load"].sort_values("site")
    assert len(reads) == 2
    lower, upper = reads.to_dict("records")
    assert lower["requests"] == upper["requests"] == 60  # 15 iterations x 4 work-groups
    assert lower["local_cycles"] == upper["local_cycles"]
    # at most 15 lanes take part in one iteration
    assert lower["conflict_degree_max"] == upper["conflict_degree_max"] == min(15, WORST[target])


@pytest.mark.parametrize("target", TARGETS)
def test_needleman_wunsch_wavefronts_conflict_alike(target):
    """Rodinia nw_kernel1: the upper-left wavefront (lanes join as the diagonal grows) has the
    same bank conflicts as the lower-right one (lanes leave as it shrinks): 16 lanes 16 words
    apart.  Without the tags the first loop reads as nearly conflict-free."""
    path = rk.rodinia_nw()
    src = str(rk.ROOT / "tests/data/isa_corpus/rodinia/nw_nw.cl")
    first = _line_of(src, "SCORE(t_index_y, t_index_x) = maximum", 0)
    second = _line_of(src, "SCORE(t_index_y, t_index_x) = maximum", 1)
    tagged = _local_sites(path, target)
    untagged = _local_sites(path, target, tags=False)

    def worst(frame, line):
        rows = frame[frame["line"].isin([line, line + 1, line + 2])]
        return rows["conflict_degree_max"].max()

    assert worst(tagged, first) == WORST[target]
    assert worst(tagged, second) == WORST[target] - (1 if WORST[target] == 16 else 0)  # 15 lanes at most
    assert worst(untagged, first) <= 2
    assert worst(untagged, second) == worst(tagged, second)
