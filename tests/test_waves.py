"""Waves, occurrences and SIMD requests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzers.replay.waves import form_requests, pack_factor, requests_frame, schedule, virtual_groups
from tracekit.targets.model import SimdSpec


def frame(rows):
    """Accesses (group, item, site) in canonical order, with seq per item."""
    df = pd.DataFrame(rows, columns=["group", "item", "site"])
    df.insert(0, "launch", 0)
    df["seq"] = df.groupby(["group", "item"]).cumcount()
    return df.sort_values(["launch", "group", "item", "seq"], kind="stable").reset_index(drop=True)


def tagged(rows):
    """Accesses (group, item, site, issue tag) as the recorder writes them, in canonical order."""
    df = pd.DataFrame(rows, columns=["group", "item", "site", "issue"])
    df.insert(0, "launch", 0)
    df["seq"] = df.groupby(["group", "item"]).cumcount()
    return df


def compiled_partition(df, simd, group_size):
    rank = pd.factorize(df["group"])[0]
    pack = pack_factor(simd, group_size)
    vg, lane = virtual_groups(rank, df["item"].to_numpy(), group_size, pack)
    site = df["site"].to_numpy().astype(np.int64)
    issue = df["issue"].to_numpy(np.int64) if "issue" in df.columns else None
    order, ptr, rwave, rrank, wvg, wloc = form_requests(vg, lane, site, simd.width, int(site.max()),
                                                        None, issue)
    return [tuple(sorted(order[ptr[r]:ptr[r + 1]])) for r in range(len(ptr) - 1)], (rwave, rrank, wvg, wloc)


def reference_partition(df, simd, group_size):
    req = requests_frame(df, simd, group_size)["request"].to_numpy()
    return [tuple(np.flatnonzero(req == r)) for r in range(req.max() + 1)]


def test_waves_split_in_local_id_order():
    df = frame([(0, i, 3) for i in range(64)])
    parts, (rwave, _, wvg, wloc) = compiled_partition(df, SimdSpec(16), 64)
    assert parts == [tuple(range(16 * w, 16 * w + 16)) for w in range(4)]
    assert list(wloc) == [0, 1, 2, 3] and list(wvg) == [0, 0, 0, 0]
    out = requests_frame(df, SimdSpec(16), 64)
    assert list(out["wave"]) == [i // 16 for i in range(64)]


def test_loop_occurrences_make_one_request_each():
    # every item runs site 5 three times, then site 6 once
    rows = [(0, i, s) for i in range(8) for s in (5, 5, 5, 6)]
    df = frame(rows)
    out = requests_frame(df, SimdSpec(8), 8)
    assert list(out["occurrence"][:4]) == [0, 1, 2, 0]
    assert out["request"].nunique() == 4
    parts, (_, rrank, _, _) = compiled_partition(df, SimdSpec(8), 8)
    assert len(parts) == 4 and all(len(p) == 8 for p in parts)
    assert list(rrank) == [0, 1, 2, 3]
    assert sorted(parts) == sorted(reference_partition(df, SimdSpec(8), 8))


def test_divergent_lanes_form_partial_requests():
    # odd lanes take a branch with an extra access at site 9 between sites 1 and 2
    rows = []
    for i in range(8):
        rows += [(0, i, 1)] + ([(0, i, 9)] if i % 2 else []) + [(0, i, 2)]
    df = frame(rows)
    parts, (_, rrank, _, _) = compiled_partition(df, SimdSpec(8), 8)
    assert [len(p) for p in parts] == [8, 4, 8]  # program order: site 1, the branch, site 2
    assert sorted(parts) == sorted(reference_partition(df, SimdSpec(8), 8))


def test_small_groups_are_packed_into_one_task():
    # powervr-rogue-compute-recommendations.txt: 8-item groups share a 32-wide task
    simd = SimdSpec(32, pack_small_groups_up_to=16)
    assert pack_factor(simd, 8) == 4 and pack_factor(simd, 32) == 1 and pack_factor(SimdSpec(32), 8) == 1
    df = frame([(g, i, 0) for g in range(8) for i in range(8)])
    parts, _ = compiled_partition(df, simd, 8)
    assert [len(p) for p in parts] == [32, 32]
    parts_unpacked, _ = compiled_partition(df, SimdSpec(32), 8)
    assert [len(p) for p in parts_unpacked] == [8] * 8


def test_schedule_round_robin_and_interleaving():
    # 4 groups of 2 waves (width 4), two requests per wave, 2 compute units
    df = frame([(g, i, s) for g in range(4) for i in range(8) for s in (0, 1)])
    parts, (rwave, rrank, wvg, wloc) = compiled_partition(df, SimdSpec(4), 8)
    ex, cu = schedule(rwave, rrank, wvg, wloc, 2)
    assert list(cu[:4]) == [0, 0, 0, 0] and list(cu[4:8]) == [1, 1, 1, 1]
    # request ids: group g, wave w, rank k -> 4g + 2w + k
    first_round = [int(r) for r in ex[:8]]
    # position in a group's stream: (rank 0: wave 0, wave 1), (rank 1: wave 0, wave 1); CUs alternate
    assert first_round == [0, 4, 2, 6, 1, 5, 3, 7]
    assert sorted(int(r) for r in ex[8:]) == list(range(8, 16))


@pytest.mark.parametrize("tags", [False, True], ids=["untagged", "tagged"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_compiled_requests_match_reference(tags, data):
    groups = data.draw(st.integers(1, 3))
    items = data.draw(st.integers(1, 20))
    width = data.draw(st.sampled_from([4, 8, 16]))
    rows = []
    for g in range(groups):
        for i in range(items):
            for s, tag in data.draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3 if tags else 0)),
                                             max_size=6)):
                rows.append((g, i, s, tag))
    if not rows:
        return
    df = tagged(rows) if tags else frame([r[:3] for r in rows])
    simd = SimdSpec(width)
    got, _ = compiled_partition(df, simd, items)
    assert sorted(got) == sorted(reference_partition(df, simd, items))


def triangular(loop_site, lanes=8, trips=8):
    """``for i < trips: if (i > lid) read``: lane ``lid`` reads at iterations lid+1 .. trips-1,
    tagged with its iteration (what the recorder writes for a site inside one loop)."""
    return tagged([(0, lid, loop_site, i) for lid in range(lanes) for i in range(trips) if i > lid])


def test_lanes_that_skip_iterations_meet_in_their_iteration():
    """Lanes entering the work at different iterations: one request per iteration, holding
    exactly the lanes that ran it (pairing by count would put lane 0's first read, made at
    iteration 1, beside lane 5's first, made at iteration 6)."""
    df = triangular(7)
    simd = SimdSpec(8)
    parts, _ = compiled_partition(df, simd, 8)
    by_iteration = [tuple(np.flatnonzero(df["issue"].to_numpy() == i)) for i in range(1, 8)]
    assert sorted(parts) == sorted(by_iteration)
    assert sorted(reference_partition(df, simd, 8)) == sorted(by_iteration)
    # without the tags the old pairing comes back: request k takes every lane's k-th read
    untagged, _ = compiled_partition(df.drop(columns="issue"), simd, 8)
    assert sorted(len(p) for p in untagged) == [1, 2, 3, 4, 5, 6, 7]
    assert sorted(untagged) != sorted(by_iteration)


def test_uniform_site_sequences_still_split_by_iteration():
    """Every lane reads the site equally often but at different iterations (even lanes on even
    iterations, odd lanes on odd ones): same site sequence, two requests per pair of iterations."""
    df = tagged([(0, lid, 3, i) for lid in range(8) for i in range(8) if (i + lid) % 2 == 0])
    parts, _ = compiled_partition(df, SimdSpec(8), 8)
    assert len(parts) == 8 and all(len(p) == 4 for p in parts)
    assert sorted(parts) == sorted(reference_partition(df, SimdSpec(8), 8))


def test_an_access_repeated_under_one_tag_keeps_its_order():
    """A site run twice under one tag (a loop the tags do not see): the k-th such access of each
    lane goes to the k-th request, as without tags."""
    df = tagged([(0, lid, 2, 0) for lid in range(4) for _ in range(3)])
    parts, (_, rrank, _, _) = compiled_partition(df, SimdSpec(4), 4)
    assert parts == [(0, 3, 6, 9), (1, 4, 7, 10), (2, 5, 8, 11)]
