"""Waves and SIMD memory requests.

A work-group's items run in waves of the target's SIMD width, taken in linear
local-id order (item 0..W-1 form wave 0, and so on).  One memory instruction of
one wave is one *request*: the accesses of the wave's lanes for the same site
and the same loop iterations.  A recorded trace tags every access with the trip
counts of the loops around its site (``issue``, tracekit/recorder/issue.h), so
lanes that skip iterations (``if (lid < i)`` inside ``for i``) still meet in the
request of the iteration they ran; without tags a request takes each lane's
*occurrence* k (the k-th time that lane executed the site).  A loop body executed
three times gives three requests per wave.

Small work-groups may share a wave (PowerVR packs work-groups of up to
``SimdSpec.pack_small_groups_up_to`` items into one task): consecutive
work-groups are then folded into one *virtual group* of ``width // group_size``
work-groups whose items become consecutive lanes.  Everything downstream
(requests, compute-unit assignment) works on virtual groups.

Two implementations with one meaning: :func:`requests_frame` is plain pandas
(readable, for notebooks and as the test reference), :func:`form_requests` is the
compiled kernel the streaming replay uses.  Requests inside a wave are numbered
in program order, estimated from per-lane positions (how many accesses the lane
had made before): by the latest position any lane reached the request at, then
the earliest, then site and occurrence.  For structured control flow the latest
position respects program order: code after a branch is reached later than the
branch by the lanes that took it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from tracekit.targets.model import SimdSpec


def pack_factor(simd: SimdSpec, group_size: int) -> int:
    """Work-groups folded into one wave: 1 unless the target packs small groups."""
    lim = simd.pack_small_groups_up_to
    if lim and 0 < group_size <= lim and group_size < simd.width:
        return max(1, simd.width // group_size)
    return 1


def virtual_groups(group_rank: np.ndarray, item: np.ndarray, group_size: int, pack: int):
    """(virtual group, lane) of each access; ``group_rank`` counts work-groups 0, 1, 2, ..."""
    if pack <= 1:
        return group_rank, item
    g = group_rank.astype(np.int64, copy=False)
    return g // pack, (g % pack) * group_size + item.astype(np.int64, copy=False)



@njit(cache=True)
def chunk_virtual_groups(group, item, first_rank, group_size, pack, lane_out, vgroup_out=None):
    """:func:`virtual_groups` of a chunk of whole work-groups in one pass, from the raw columns.

    ``first_rank`` is the rank of the chunk's first work-group in its launch; a
    new work-group starts wherever ``group`` changes.  Returns (virtual group of
    each access, work-groups in the chunk); when groups are packed the lanes go to
    ``lane_out`` (unpacked, the lanes are the items themselves and it is not
    touched).  The rank never exists as an array: this replaces a cumulative sum
    and several int64 copies per chunk.  ``vgroup_out``, when large enough, receives
    the virtual groups (a buffer reused from chunk to chunk).
    """
    n = group.shape[0]
    vgroup = vgroup_out[:n] if vgroup_out is not None and vgroup_out.shape[0] >= n else np.empty(n, np.int64)
    rank = first_rank - 1
    for i in range(n):
        if i == 0 or group[i] != group[i - 1]:
            rank += 1
        if pack <= 1:
            vgroup[i] = rank
        else:
            vgroup[i] = rank // pack
            lane_out[i] = (rank % pack) * group_size + item[i]
    return vgroup, rank + 1 - first_rank

def issue_tags(df: pd.DataFrame) -> np.ndarray:
    """The accesses' issue tags (int64, null as 0), or zeros where the trace has none."""
    if "issue" not in df.columns:
        return np.zeros(len(df), np.int64)
    return df["issue"].fillna(0).to_numpy(np.int64)


def occurrence(df: pd.DataFrame, issue: np.ndarray) -> pd.Series:
    """How many times each access's work-item had executed its site under the same issue tag
    before (0 first; with no tags, how many times it had executed the site).

    ``df`` must be in canonical order (launch, group, item, seq).
    """
    return (df.assign(_issue=issue)
            .groupby(["launch", "group", "item", "site", "_issue"], sort=False, observed=True).cumcount())


def requests_frame(df: pd.DataFrame, simd: SimdSpec, group_size: int) -> pd.DataFrame:
    """Per access: ``wave``, ``lane``, ``occurrence`` and ``request`` (numbered per launch order).

    ``df`` holds accesses in canonical order with columns launch, group, item, site.
    Requests are numbered launch by launch, virtual group by group, wave by wave,
    and in program order inside a wave.
    """
    out = pd.DataFrame(index=df.index)
    rank = df.groupby("launch", sort=False)["group"].transform(
        lambda g: pd.factorize(g, sort=False)[0]).to_numpy()
    pack = pack_factor(simd, group_size)
    vgroup, lane = virtual_groups(rank, df["item"].to_numpy(), group_size, pack)
    out["vgroup"] = vgroup
    out["lane"] = lane
    out["wave"] = lane // simd.width
    # the k-th access of a site under one issue tag (with no tags: of the site)
    issue = issue_tags(df)
    out["occurrence"] = occurrence(df, issue).to_numpy()
    out["position"] = df.groupby(["launch", "group", "item"], sort=False).cumcount().to_numpy()
    tmp = pd.DataFrame({"launch": df["launch"].to_numpy(), "vgroup": out["vgroup"], "wave": out["wave"],
                        "site": df["site"].to_numpy(), "issue": issue, "occurrence": out["occurrence"],
                        "position": out["position"]})
    ident = ["launch", "vgroup", "wave", "site", "issue", "occurrence"]
    grouped = tmp.groupby(ident, sort=False)["position"]
    tmp["first"] = grouped.transform("min").to_numpy()
    tmp["last"] = grouped.transform("max").to_numpy()
    reqs = tmp.drop_duplicates(ident)
    launch_order = pd.unique(df["launch"])
    reqs = reqs.assign(lo=pd.Categorical(reqs["launch"], categories=launch_order).codes)
    reqs = reqs.sort_values(["lo", "vgroup", "wave", "last", "first", "site", "issue", "occurrence"],
                            kind="stable")
    reqs = reqs.assign(request=np.arange(len(reqs)))
    merged = tmp.merge(reqs[[*ident, "request"]], on=ident, how="left")
    out["request"] = merged["request"].to_numpy()
    return out.drop(columns=["position"])


@njit(cache=True)
def counting_order(key, n_keys, order):
    """``order`` stably re-sorted by ``key[order]`` (values 0 .. n_keys - 1): one counting pass."""
    count = np.zeros(n_keys + 1, np.int64)
    for q in range(order.shape[0]):
        count[key[order[q]] + 1] += 1
    for k in range(n_keys):
        count[k + 1] += count[k]
    out = np.empty_like(order)
    for q in range(order.shape[0]):
        k = key[order[q]]
        out[count[k]] = order[q]
        count[k] += 1
    return out


@njit(cache=True)
def _pair_order(hi, lo):
    """The stable order of rows by (``hi``, ``lo``), both small non-negative integers (a site and
    an occurrence or tag rank, each at most the rows' count): two counting passes (least
    significant first), linear where a comparison sort of a long wave is not."""
    m = hi.shape[0]
    order = np.arange(m)
    if m == 0:
        return order
    order = counting_order(lo, lo.max() + 1, order)
    return counting_order(hi, hi.max() + 1, order)


@njit(cache=True)
def _issue_keys(site, issue, lane_of, i, m):
    """Request keys of the ``m`` rows from ``i`` of one wave, when accesses carry issue tags.

    Rows of one request share the site and the tag (the loop iterations, the same in
    every lane that ran them); a lane that ran the site twice under one tag (a loop
    the tag does not see, such as one around a call) has its k-th such access in the
    k-th request.  Returns the rows (0-based, from ``i``) in key order, lanes ascending
    inside a key, and the key of each row in that order.
    """
    # dense rank of the tags in this wave
    tag = issue[i:i + m]
    rank = np.zeros(m, np.int64)
    lo_t = tag.min()
    span = tag.max() - lo_t + 1    # tags are loop trip counts: usually a short range
    if 1 < span <= 4 * m + 64:
        present = np.zeros(span, np.int64)
        for q in range(m):
            present[tag[q] - lo_t] = 1
        r = 0
        for v in range(span):
            if present[v]:
                present[v] = r
                r += 1
        for q in range(m):
            rank[q] = present[tag[q] - lo_t]
    elif tag.max() != lo_t:
        ts = np.argsort(tag, kind="mergesort")
        r = 0
        for q in range(m):
            if q and tag[ts[q]] != tag[ts[q - 1]]:
                r += 1
            rank[ts[q]] = r
    key1 = np.empty(m, np.int64)
    sites = np.empty(m, np.int64)
    for r in range(m):
        sites[r] = site[i + r]
        key1[r] = (sites[r] << 32) | rank[r]
    srt = _pair_order(sites, rank)  # stable: lanes ascending, a lane's rows in order
    # k-th row of one lane under one key
    occ = np.zeros(m, np.int64)
    repeated = False
    for q in range(1, m):
        a, b = srt[q], srt[q - 1]
        if key1[a] == key1[b] and lane_of[a] == lane_of[b]:
            occ[a] = occ[b] + 1
            repeated = True
    if repeated:
        # (key, k) order: the rank of the key's run, then k; stable, so lanes stay ascending
        run = np.empty(m, np.int64)
        run_of = np.empty(m, np.int64)
        occ_of = np.empty(m, np.int64)
        nrun = 0
        for q in range(m):
            if q and key1[srt[q]] != key1[srt[q - 1]]:
                nrun += 1
            run_of[q] = nrun
            occ_of[q] = occ[srt[q]]
            run[q] = (np.int64(nrun) << 32) | occ[srt[q]]
        again = _pair_order(run_of, occ_of)
        srt = srt[again]
        keys = run[again]
    else:
        keys = key1[srt]
    return srt, keys


@njit(cache=True)
def form_requests(vgroup, lane, site, width, max_site, order_out=None, issue=None):
    """Group accesses of one chunk (canonical order) into requests.

    Returns ``order`` (row indices grouped by request, lanes ascending inside one),
    ``req_ptr`` (request r owns ``order[req_ptr[r]:req_ptr[r+1]]``), ``req_wave``
    (wave index within the chunk), ``req_rank`` (program-order rank inside its
    wave), ``wave_vgroup`` and ``wave_local`` (wave number inside its virtual group).
    Waves whose lanes all ran the same site sequence take a sort-free path.

    ``order`` is written to ``order_out`` when given and large enough: a buffer
    reused from chunk to chunk costs no fresh pages.  The per-request arrays are
    sized for the worst case but only their used head is ever touched.

    ``issue`` (the accesses' issue tags, int64) pairs lanes by the loop iterations
    they ran (:func:`_issue_keys`); without it a lane's k-th access of a site goes
    to the wave's k-th request of that site.
    """
    n = site.shape[0]
    order = order_out[:n] if order_out is not None and order_out.shape[0] >= n else np.empty(n, np.int64)
    req_ptr = np.empty(n + 1, np.int64)
    req_ptr[0] = 0
    req_wave = np.empty(n, np.int64)
    req_rank = np.empty(n, np.int64)
    wave_vgroup = np.empty(n, np.int64)
    wave_local = np.empty(n, np.int64)
    counter = np.zeros(max_site + 1, np.int64)
    lane_start = np.empty(width + 1, np.int64)
    nreq = 0
    nwave = 0
    pos = 0
    i = 0
    while i < n:
        g = vgroup[i]
        w = lane[i] // width
        lo = w * width  # the wave's lanes: lo <= lane < hi (no division per row)
        hi = lo + width
        lane_start[0] = i
        nl = 1
        prev = lane[i]
        j = i + 1
        while j < n:
            ln = lane[j]
            if vgroup[j] != g or ln < lo or ln >= hi:
                break
            if ln != prev:
                lane_start[nl] = j
                nl += 1
                prev = ln
            j += 1
        lane_start[nl] = j
        wave_vgroup[nwave] = g
        wave_local[nwave] = w
        # sort-free path: every lane ran the same sequence of sites
        length = lane_start[1] - lane_start[0]
        uniform = True
        for k in range(1, nl):
            if lane_start[k + 1] - lane_start[k] != length:
                uniform = False
                break
        if uniform:
            # equal lengths: access p of lane k is row i + k * length + p, so comparing every
            # row with the one a lane earlier compares every lane with lane 0 (one flat loop)
            differ = 0
            for r in range(i + length, j):
                differ |= site[r] != site[r - length]
            if issue is not None:
                for r in range(i + length, j):
                    differ |= issue[r] != issue[r - length]
            uniform = differ == 0
        if uniform:
            for p in range(length):
                for k in range(nl):
                    order[pos + k] = i + k * length + p
                pos += nl
                req_wave[nreq] = nwave
                req_rank[nreq] = p
                nreq += 1
                req_ptr[nreq] = pos
        else:
            m = j - i
            lpos = np.empty(m, np.int64)
            if issue is None:
                occ = np.empty(m, np.int64)
                for k in range(nl):
                    for r in range(lane_start[k], lane_start[k + 1]):
                        occ[r - i] = counter[site[r]]
                        counter[site[r]] += 1
                        lpos[r - i] = r - lane_start[k]
                    for r in range(lane_start[k], lane_start[k + 1]):
                        counter[site[r]] = 0
                keys = np.empty(m, np.int64)
                sites = np.empty(m, np.int64)
                for r in range(m):
                    sites[r] = site[i + r]
                    keys[r] = (sites[r] << 32) | occ[r]
                srt = _pair_order(sites, occ)  # stable: lanes stay ascending
                skeys = keys[srt]
            else:
                lane_of = np.empty(m, np.int64)
                for k in range(nl):
                    for r in range(lane_start[k], lane_start[k + 1]):
                        lpos[r - i] = r - lane_start[k]
                        lane_of[r - i] = k
                srt, skeys = _issue_keys(site, issue, lane_of, i, m)
            # runs of equal keys are requests; order them by the latest, then the earliest
            # position any lane reached them at, then by key
            starts = np.empty(m + 1, np.int64)
            lasts = np.empty(m, np.int64)
            firsts = np.empty(m, np.int64)
            nr = 0
            for r in range(m):
                p = lpos[srt[r]]
                if r == 0 or skeys[r] != skeys[r - 1]:
                    starts[nr] = r
                    firsts[nr] = p
                    lasts[nr] = p
                    nr += 1
                else:
                    firsts[nr - 1] = min(firsts[nr - 1], p)
                    lasts[nr - 1] = max(lasts[nr - 1], p)
            starts[nr] = m
            rk = np.empty(nr, np.int64)
            for r in range(nr):
                rk[r] = (lasts[r] * (m + 1) + firsts[r]) * (nr + 1) + r
            rorder = np.argsort(rk)
            for q in range(nr):
                rr = rorder[q]
                for t in range(starts[rr], starts[rr + 1]):
                    order[pos] = i + srt[t]
                    pos += 1
                req_wave[nreq] = nwave
                req_rank[nreq] = q
                nreq += 1
                req_ptr[nreq] = pos
        nwave += 1
        i = j
    return (order, req_ptr[:nreq + 1], req_wave[:nreq], req_rank[:nreq],
            wave_vgroup[:nwave], wave_local[:nwave])


@njit(cache=True)
def schedule(req_wave, req_rank, wave_vgroup, wave_local, compute_units):
    """Execution order of a chunk's requests and the compute unit of each.

    Virtual group ``v`` runs on compute unit ``v % compute_units``; groups
    ``[r*CUs, (r+1)*CUs)`` form round ``r`` and run side by side.  Inside a group
    the waves advance in lock step (rank 0 of every wave, then rank 1, ...); inside
    a round the groups' streams are interleaved one request at a time in
    compute-unit order.  Requests of a wave are consecutive in the input and its
    waves are in order.
    """
    nreq = req_wave.shape[0]
    nw = wave_vgroup.shape[0]
    cu_of_req = np.empty(nreq, np.int64)
    # requests of each wave: [wave_first[w], wave_first[w] + wave_count[w])
    wave_first = np.zeros(nw, np.int64)
    wave_count = np.zeros(nw, np.int64)
    for r in range(nreq):
        w = req_wave[r]
        if wave_count[w] == 0:
            wave_first[w] = r
        wave_count[w] += 1
    # position of each request in its group's stream: ranks in turn, waves in turn
    out = np.empty(nreq, np.int64)
    key = np.empty(nreq, np.int64)
    w0 = 0
    while w0 < nw:
        g = wave_vgroup[w0]
        w1 = w0
        while w1 < nw and wave_vgroup[w1] == g:
            w1 += 1
        maxr = 0
        for w in range(w0, w1):
            if wave_count[w] > maxr:
                maxr = wave_count[w]
        p = 0
        for rank in range(maxr):
            for w in range(w0, w1):
                if rank < wave_count[w]:
                    r = wave_first[w] + rank
                    key[r] = p
                    cu_of_req[r] = g % compute_units
                    p += 1
        w0 = w1
    # order: round, stream position, compute unit
    # (round relative to the chunk's first, position < 2^24, compute unit < 2^16) in one key
    full = np.empty(nreq, np.int64)
    rnd0 = wave_vgroup[0] // compute_units if nw else 0
    for r in range(nreq):
        rnd = wave_vgroup[req_wave[r]] // compute_units - rnd0
        full[r] = (rnd << 40) | (key[r] << 16) | cu_of_req[r]
    srt = np.argsort(full, kind="mergesort")
    for q in range(nreq):
        out[q] = srt[q]
    return out, cu_of_req
