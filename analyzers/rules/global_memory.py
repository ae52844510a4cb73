"""Global memory access shape: coalescing, alignment, access width, cache thrashing."""

from __future__ import annotations

from analyzers.rules.base import Citation as C
from analyzers.rules.base import Hit, rule

COALESCE = {"powervr": C("pvr", "Access Memory in Row-Major Order"),
            "adreno": C("adreno", "7.2.1 Coalesced memory load/store"),
            "intel": C("intel", "__global Memory and __constant Memory"),
            "nvidia": C("cuda", "Coalesced Access to Global Memory")}


def _site_rows(df, cols):
    out = []
    for r in df.itertuples():
        out.append({c: (round(float(getattr(r, c)), 4) if isinstance(getattr(r, c), float)
                        else int(getattr(r, c))) for c in cols})
    return out


def _uncoalesced(ctx, op):
    df = ctx.space("global", op)
    df = df[(df["requests"] > 0)
            & (df["transactions"] >= ctx.t("uncoalesced_ratio") * df["ideal_transactions"])]
    df = ctx.hot(df, "bytes_moved")
    if not len(df):
        return None
    saved = sum(ctx.site_memory_s(s) * (1 - i / t) for s, i, t in
                zip(df["site"], df["ideal_transactions"], df["transactions"], strict=False))
    ev = {"sites": _site_rows(df.head(5), ["site", "requests", "transactions_per_request",
                                            "ideal_per_request", "bytes_requested", "bytes_moved"]),
          "transaction_bytes": int(ctx.target.transaction_bytes)}
    return Hit(ev, sites=list(df["site"]), gain_s=ctx.gain_memory(saved))


@rule(id="GEN-UNCOALESCED-LOAD", title="Uncoalesced global loads", metrics=(
      "memory.transactions_per_request", "memory.bytes_requested", "memory.bytes_moved"),
      severity="high", citation=COALESCE,
      fix="""Index so that neighbouring items of dimension 0 read neighbouring addresses (swap the
      roles of row and column, or store the data as separate arrays per field); then each wave's loads
      fall into as few memory transactions as its bytes allow.""")
def gen_uncoalesced_load(ctx):
    return _uncoalesced(ctx, "load")


@rule(id="GEN-UNCOALESCED-STORE", title="Uncoalesced global stores", metrics=(
      "memory.transactions_per_request", "memory.bytes_moved"),
      severity="medium",
      citation={**COALESCE, "adreno": C("adreno", "7.6 Improve the GPU’s L1/L2 cache usage")},
      fix="""Make each wave write one contiguous block (transpose through local memory if the
      algorithm scatters); scattered partial-line writes cost a line each.""")
def gen_uncoalesced_store(ctx):
    return _uncoalesced(ctx, "store")


@rule(id="GEN-MISALIGNED", title="Contiguous accesses straddle transaction boundaries", metrics=(
      "memory.misaligned_requests", "memory.transactions"), severity="medium",
      citation={"powervr": C("pvr", "System Memory Access"),
                "adreno": C("adreno", "7.2.2 Vectorized load/store"),
                "intel": C("intel", "__global Memory and __constant Memory"),
                "nvidia": C("cuda", "Effects of Misaligned Accesses")},
      fix="""Align buffer bases and per-group offsets to the transaction size (pad row pitches to
      it); for a neighbour read such as a[i+1], load the aligned block and shift in registers or
      local memory.""")
def gen_misaligned(ctx):
    df = ctx.space("global")
    df = df[(df["requests"] > 0)
            & (df["misaligned_requests"] >= ctx.t("misaligned_fraction") * df["requests"])]
    df = ctx.hot(df, "bytes_moved")
    if not len(df):
        return None
    saved = sum(ctx.site_memory_s(s) * m / t for s, m, t in
                zip(df["site"], df["misaligned_requests"], df["transactions"], strict=False) if t)
    ev = {"sites": _site_rows(df.head(5), ["site", "requests", "misaligned_requests", "transactions"]),
          "transaction_bytes": int(ctx.target.transaction_bytes)}
    return Hit(ev, sites=list(df["site"]), gain_s=ctx.gain_memory(saved))


@rule(id="GEN-VECTOR-LOAD", title="Adjacent scalar loads where one 128-bit load fits",
      vendors=("powervr", "adreno", "intel"), metrics=("accesses.size", "accesses.adjacency"),
      severity="medium",
      citation={"powervr": C("pvr", "Group Memory Access Together"),
                "adreno": C("adreno", "7.2.2 Vectorized load/store"),
                "intel": C("intel", "Loading and Storing Data in Greatest Chunks")},
      fix="""Fetch the neighbouring values with one vload4 (or a float4/uint4 pointer) instead of
      separate scalar loads, and shrink the global size if each item now handles more elements.""")
def gen_vector_load(ctx):
    vb = ctx.t("vector_bytes")
    df = ctx.space("global", "load")
    df = df[df["access_size"] < vb]
    n, adj = float(df["accesses"].sum()), float(df["adjacent"].sum())
    if not n or adj / n < 1 - 1 / ctx.t("vector_run_min"):
        return None
    run = n / max(n - adj, 1.0)
    size = float((df["access_size"] * df["accesses"]).sum() / n)
    width = min(vb, run * size)
    sites = list(df.loc[df["adjacent"] > 0].sort_values("site")["site"])
    runs = list(df.loc[df["site"].isin(sites), "site"])
    o = ctx.ops
    load_issues = float(o.loc[o["site"].isin(runs + sites) & (o["opclass"] == "load"),
            "issues"].sum()) if len(o) else 0
    saved = ctx.alu_seconds(load_issues * (1 - size / width) * ctx.cycles("load"))
    ev = {"adjacent_fraction": round(adj / n, 4), "mean_run": round(run, 2), "access_size": round(size, 2),
          "suggested_width_bytes": int(width)}
    return Hit(ev, sites=sites, gain_s=ctx.gain_alu(saved))


@rule(id="INTEL-SUB32-ACCESS", title="8- or 16-bit global accesses", vendors=("intel",),
      metrics=("accesses.size",), severity="low", citation=C("intel", "Granularity"),
      fix="""Move narrow data in 32-bit (or wider) aligned units, e.g. char4 or uint instead of char,
      and unpack in registers.""")
def intel_sub32(ctx):
    df = ctx.hot(ctx.space("global")[lambda d: d["access_size"] < 4])
    if not len(df):
        return None
    o = ctx.ops
    iss = float(o.loc[o["site"].isin(df["site"]) & o["opclass"].isin(["load", "store"]), "issues"].sum()) \
        if len(o) else 0.0
    size = float(df["access_size"].mean())
    ev = {"sites": _site_rows(df.head(5), ["site", "accesses", "access_size"])}
    return Hit(ev, sites=list(df["site"]), gain_s=ctx.gain_alu(ctx.alu_seconds(
        iss * (1 - size / 4) * ctx.cycles("load"))))


@rule(id="INTEL-WIDE-ACCESS", title="Global accesses wider than 128 bits per item", vendors=("intel",),
      metrics=("accesses.size",), severity="low", citation=C("intel", "Granularity"),
      fix="""Split float8/float16-sized accesses into 128-bit pieces on the GPU; keep the wide types
      for CPU builds only.""")
def intel_wide(ctx):
    df = ctx.hot(ctx.space("global")[lambda d: d["access_size"] > ctx.t("vector_bytes")])
    if not len(df):
        return None
    return Hit({"sites": _site_rows(df.head(5), ["site", "accesses", "access_size"])}, sites=list(df["site"]))


@rule(id="INTEL-WG-SHAPE-2D", title="2D work-group too narrow in dimension 0 for row-major data",
      vendors=("intel",), metrics=("launch.local_size", "memory.transactions_per_request"), severity="medium",
      citation=C("intel", "__global Memory and __constant Memory"),
      fix="""Shape the group as rows: make dimension 0 cover at least a cache line of elements per
      hardware thread (e.g. 16x1 for int data) so each SIMD access stays within one line.""")
def intel_wg_shape(ctx):
    lx, ly = ctx.launch.local_size[0], ctx.launch.local_size[1]
    if ly <= 1 or lx >= ctx.width:
        return None
    hit = _uncoalesced(ctx, "load")
    if hit is None:
        return None
    hit.evidence.update({"local_size": list(ctx.launch.local_size), "wave_width": ctx.width})
    return hit


@rule(id="GEN-CACHE-THRASH", title="DRAM traffic far above the data footprint (cache thrashing)",
      vendors=("powervr", "adreno", "intel"), metrics=("memory.dram_bytes", "memory.footprint_bytes"),
      severity="high",
      citation={"powervr": C("pvr", "Access Memory in Row-Major Order"),
                "adreno": C("adreno", "7.6 Improve the GPU’s L1/L2 cache usage"),
                "intel": C("intel", "Kernel Memory Access Optimization Summary")},
      fix="""Shrink the working set each group touches at once (smaller or squarer tiles, a traversal
      order that finishes with a line before moving on, fewer groups in flight over distant data) so lines
      are used fully before they are evicted.""")
def gen_cache_thrash(ctx):
    m = ctx.metrics
    if not m.get("cache_modelled"):
        return None
    foot = float(m.get("footprint_bytes", 0)) * ctx.launch.sampling_scale
    dram = float(m.get("dram_bytes", 0))
    if not foot or dram < ctx.t("cache_thrash_ratio") * foot:
        return None
    saved = float(ctx.times.get("memory_s", 0.0)) * (1 - foot / dram)
    return Hit({"dram_bytes": int(dram), "footprint_bytes": int(foot), "ratio": round(dram / foot, 2)},
               gain_s=ctx.gain_memory(saved))


