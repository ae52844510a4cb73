"""Local memory: bank conflicts, staging without reuse, how tiles are filled, barriers."""

from __future__ import annotations

from analyzers.rules.base import Citation as C
from analyzers.rules.base import Hit, rule, vendor_key
from analyzers.rules.global_memory import _site_rows

BANKS = {"powervr": C("pvr", "Common Store"),
         "intel": C("intel", "__local Memory"),
         "nvidia": C("cuda", "Shared Memory and Memory Banks")}


def _conflicts(ctx, ops):
    df = ctx.space("local")
    df = df[df["op"].isin(ops) & (df["conflict_degree_mean"] >= ctx.t("bank_conflict_degree"))]
    df = ctx.hot(df, "accesses")
    if not len(df):
        return None
    lm = ctx.target.local_memory
    saved = ctx.alu_seconds(float((df["local_cycles"] - df["local_requests"]).clip(lower=0).sum()))
    ev = {"sites": _site_rows(df.head(5), ["site", "local_requests", "conflict_degree_mean", "local_cycles"]),
          "banks": lm.banks, "bank_width_bytes": lm.bank_width_bytes,
          "padding_hint": f"pad each row of the local array by {lm.bank_width_bytes} bytes (one bank word)"}
    return Hit(ev, sites=list(df["site"]), gain_s=ctx.gain_alu(saved))


@rule(id="GEN-LOCAL-BANK-CONFLICT", title="Local-memory bank conflicts", vendors=("powervr", "intel",
        "nvidia"),
      metrics=("local_memory.conflict_degree_mean", "local_memory.cycles", "local_memory.requests"),
      severity="high", citation=BANKS,
      fix="""Let neighbouring lanes read neighbouring words: interleave per-item blocks (index =
      element * items + lane rather than lane * stride + element), and for 2D tiles read by column pad each
      row by one bank word (e.g. 17 floats per row of 16) so a column spreads over all banks.""")
def gen_bank_conflict(ctx):
    ops = ["load"] if vendor_key(ctx.target) == "intel" else ["load", "store", "atomic"]
    return _conflicts(ctx, ops)


@rule(id="INTEL-SLM-WRITE-CONFLICT", title="SLM stores from one SIMD chunk land in the same bank",
      vendors=("intel",), metrics=("local_memory.conflict_degree_mean",), severity="medium",
      citation=C("intel", "Kernel Memory Access Optimization Summary"),
      fix="""Give each item its own bank for stores (consecutive items write consecutive words), and
      avoid many items writing the same SLM word; same-bank writes serialise even at one address.""")
def intel_slm_write_conflict(ctx):
    return _conflicts(ctx, ["store", "atomic"])


@rule(id="GEN-LOCAL-READ-ONCE", title="Local memory holds data read only once or twice",
      vendors=("powervr", "adreno", "intel"), metrics=("local_memory.reads_per_word",), severity="medium",
      citation={"powervr": C("pvr", "Use Shared/Local Memory Sensibly"),
                "adreno": C("adreno", "7.1.2 Local memory"),
                "intel": C("intel", "__local Memory")},
      fix="""Staging through local memory pays only when several items reuse each word; read this data
      straight from global memory (the caches serve it) and drop the copy and its barrier.""")
def gen_local_read_once(ctx):
    m = ctx.metrics
    if not m.get("local_words_stored"):
        return None
    limit = ctx.t("local_reads_per_word_adreno"
            if vendor_key(ctx.target) == "adreno" else "local_reads_per_word")
    rpw = float(m["local_reads_per_word"])
    if rpw > limit:
        return None
    df = ctx.space("local")
    saved = ctx.alu_seconds(float(df["local_cycles"].sum()))
    ev = {"reads_per_word": round(rpw, 3), "limit": limit, "words_stored": int(m["local_words_stored"])}
    return Hit(ev, sites=list(df.sort_values("site")["site"]), gain_s=ctx.gain_alu(saved))


@rule(id="GEN-LOCAL-SINGLE-LOADER", title="A few items fill the local tile while the rest wait",
      vendors=("powervr", "adreno", "intel"), metrics=("local_memory.storing_items_per_group",),
      severity="medium",
      citation={"powervr": C("pvr", "Use Shared/Local Memory Sensibly"),
                "adreno": C("adreno", "7.1.2 Local memory"),
                "intel": C("intel", "Applying Shared Local Memory")},
      fix="""Spread the copy over the whole group: item i copies elements i, i + group size, ... (one
      each when the tile matches the group), then one barrier.""")
def gen_local_single_loader(ctx):
    m, size = ctx.metrics, ctx.launch.group_size
    storing = float(m.get("local_storing_items_per_group", 0.0))
    if not m.get("local_stores") or size < 8 or storing > ctx.t("single_loader_fraction") * size:
        return None
    if m.get("local_stores_per_storing_item", 0.0) < 4:
        return None
    st = ctx.space("local", "store")
    return Hit({"storing_items_per_group": round(storing, 2), "work_group_size": size,
                "stores_per_storing_item": round(float(m["local_stores_per_storing_item"]), 2)},
               sites=list(st.sort_values("site")["site"]))


@rule(id="ADR-LOCAL-VECTOR", title="Scalar local-memory accesses", vendors=("adreno",),
      metrics=("accesses.local.size",), severity="low", citation=C("adreno", "6.5 Local memory"),
      fix="""Read and write local memory in 128-bit, 32-bit-aligned vectors (float4/uint4) instead of
      single words.""")
def adr_local_vector(ctx):
    df = ctx.hot(ctx.space("local")[lambda d: d["access_size"] < ctx.t("vector_bytes")])
    if not len(df):
        return None
    return Hit({"sites": _site_rows(df.head(5), ["site", "accesses", "access_size"])}, sites=list(df["site"]))


@rule(id="PVR-ASYNC-COPY", title="Global-to-local copy by hand instead of async_work_group_copy",
      vendors=("powervr",), metrics=("accesses.staged_local_store_fraction", "launch.local_size"),
      severity="low", citation=C("pvr", "System Memory Access"),
      fix="""Fill the tile with async_work_group_copy and a compile-time work-group size of 17 or more
      items; the hardware then moves up to 4 KB per group in one burst instead of one load and
      store per item.""")
def pvr_async_copy(ctx):
    frac = float(ctx.metrics.get("staged_local_store_fraction", 0.0))
    if frac < 0.5 or ctx.launch.group_size < ctx.t("pvr_async_min_group"):
        return None
    st = ctx.space("local", "store")
    return Hit({"staged_local_store_fraction": round(frac, 3), "work_group_size": ctx.launch.group_size},
               sites=list(st.sort_values("site")["site"]))


@rule(id="PVR-BARRIER-AFTER-LOCAL", title="Barrier directly after a local or constant access",
      vendors=("powervr",), metrics=("sites.order", "instructions.barrier", "accesses.local"), severity="low",
      citation=C("pvr-it", "Avoid Barrier Directly after Local or Constant Memory Access"),
      fix="""Move independent arithmetic between the local-memory access and the barrier that follows
      it, so the compiler can hide the common store's index latency.""")
def pvr_barrier_after_local(ctx):
    o = ctx.ops
    if not len(o):
        return None
    barriers = sorted(o.loc[o["opclass"] == "barrier", "site"].unique())
    executed = sorted(set(o["site"]) | set(ctx.sites["site"]))
    space = dict(zip(ctx.sites["site"], ctx.sites["space"], strict=False))
    pairs = []
    for b in barriers:
        before = [s for s in executed if s < b and s not in barriers]
        if before and space.get(before[-1]) in ("local", "constant"):
            pairs.append((int(before[-1]), int(b)))
    if not pairs:
        return None
    issues = float(o.loc[o["site"].isin([b for _, b in pairs]) & (o["opclass"] == "barrier"), "issues"].sum())
    saved = ctx.alu_seconds(issues * ctx.target.local_memory.latency_cycles)
    sites = [s for p in pairs for s in p]
    return Hit({"access_then_barrier": [list(p) for p in pairs]}, sites=sites, gain_s=ctx.gain_alu(saved))


@rule(id="INTEL-BARRIER-NO-LOCAL", title="Barriers in a kernel that shares no local memory",
      vendors=("intel",), metrics=("instructions.barrier", "accesses.local"), severity="low",
      citation=C("intel", "Optimizing Utilization of Execution Units"),
      fix="""Remove barriers that protect no local-memory exchange; besides their own cost they cap
      how many groups a subslice runs at once.""")
def intel_barrier_no_local(ctx):
    lf = ctx.launch
    if not lf.has_barrier or lf.uses_local:
        return None
    o = ctx.ops
    b = o[o["opclass"] == "barrier"]
    saved = ctx.alu_seconds(float(b["issues"].sum()) * ctx.cycles("barrier"))
    return Hit({"barrier_executions": int(b["executions"].sum())}, sites=list(b["site"].unique()),
               gain_s=ctx.gain_alu(saved))
