"""Where data is fetched: re-reads, hot elements, constant and private memory, atomics, images."""

from __future__ import annotations

import math

from analyzers.rules.base import Citation as C
from analyzers.rules.base import Hit, rule
from analyzers.rules.global_memory import _site_rows


@rule(id="GEN-LOOP-REREAD", title="Work-items re-read the same global address (loop re-loads)",
      metrics=("accesses.rereads_per_item",), severity="medium",
      citation={"powervr": C("pvr", "Minimise Bandwidth Usage"),
                "adreno": C("adreno", "7.6 Improve the GPU’s L1/L2 cache usage"),
                "intel": C("intel", "Using Loops"),
                "nvidia": C("cuda", "Device Memory Spaces")},
      fix="""Load the value into a private variable before the loop, accumulate in a private variable,
      and store once after the loop instead of touching global memory every iteration.""")
def gen_loop_reread(ctx):
    df = ctx.space("global")
    df = ctx.hot(df[df["rereads_per_item"] >= ctx.t("reread_per_item")])
    if not len(df):
        return None
    saved = sum(ctx.site_memory_s(s) * (1 - 1 / r) for s, r in zip(df["site"], df["rereads_per_item"],
            strict=False))
    ev = {"sites": _site_rows(df.head(5), ["site", "accesses", "rereads_per_item"])}
    return Hit(ev, sites=list(df["site"]), gain_s=ctx.gain_memory(saved))


@rule(id="INTEL-HOT-ELEMENT", title="One global address read by most work-items", vendors=("intel",),
      metrics=("accesses.max_items_one_address",), severity="low",
      citation=C("intel", "__global Memory and __constant Memory"),
      fix="""Keep small shared coefficients in private variables or copy the table into local memory
      once per group; leave larger lookup tables in global memory.""")
def intel_hot_element(ctx):
    items = ctx.launch.groups_recorded * ctx.launch.group_size
    df = ctx.space("global", "load")
    df = ctx.hot(df[df["max_items_one_address"] > ctx.t("hot_address_items") * items])
    if not len(df):
        return None
    ev = {"work_items": items, "sites": _site_rows(df.head(5), ["site", "accesses", "max_items_one_address"])}
    return Hit(ev, sites=list(df["site"]))


@rule(id="GEN-CONST-DIVERGENT", title="Lanes of a wave index constant memory differently",
      vendors=("adreno", "intel", "nvidia"), metrics=("accesses.constant.distinct_per_request",),
      severity="medium",
      citation={"adreno": C("adreno", "7.1.3 Constant memory"),
                "intel": C("intel", "__global Memory and __constant Memory"),
                "nvidia": C("cuda", "Constant Memory")},
      fix="""Constant memory is fast only when a wave reads one address; move tables indexed per lane
      to an image or to ordinary global memory, and keep __constant for uniformly read values.""")
def gen_const_divergent(ctx):
    df = ctx.space("constant", "load")
    df = ctx.hot(df[(df["requests"] > 0)
            & (df["distinct_per_request"] >= ctx.t("const_distinct_per_request"))])
    if not len(df):
        return None
    ev = {"sites": _site_rows(df.head(5), ["site", "requests", "distinct_per_request"])}
    return Hit(ev, sites=list(df["site"]))


@rule(id="ADR-CONST-PROMOTE", title="Small buffer read uniformly by every lane is not __constant",
      vendors=("adreno",), metrics=("accesses.uniform_requests", "accesses.requests"), severity="medium",
      citation=C("adreno", "6.4 Constant memory"),
      fix="""Declare the argument __constant with max_constant_size, or pass the few values as
      scalar/vector kernel arguments, so they are broadcast from on-chip constant storage.""")
def adr_const_promote(ctx):
    df = ctx.space("global", "load")
    df = df[(df["requests"] > 0) & (df["lanes_per_request"] > 1)
            & (df["uniform_requests"] >= ctx.t("uniform_request_fraction") * df["requests"])]
    df = ctx.hot(df)
    if not len(df):
        return None
    ev = {"sites": _site_rows(df.head(5), ["site", "requests", "uniform_requests", "lanes_per_request"])}
    return Hit(ev, sites=list(df["site"]))


@rule(id="GEN-IMAGE-2D", title="2D neighbourhood read through a buffer where an image would serve",
      metrics=("accesses.stencil_rows", "accesses.row_pitch"), severity="low",
      citation={"powervr": C("pvr", "Access Memory in Row-Major Order"),
                "adreno": C("adreno", "6.2 Use image objects instead of buffer objects"),
                "intel": C("intel", "Using Buffers and Images Appropriately"),
                "nvidia": C("cuda", "Texture Memory")},
      fix="""Store the read-only 2D input as an image and sample it: the texture path caches 2D
      neighbourhoods, clamps borders in hardware and converts formats, removing bounds checks from
      the kernel.""")
def gen_image_2d(ctx):
    st = ctx.stencils
    if st is None or not len(st):
        return None
    st = st[st["rows"] >= ctx.t("image_rows_min")]
    if not len(st):
        return None
    best = st.sort_values(["rows", "buffer"], ascending=[False, True]).iloc[0]
    df = ctx.space("global", "load")
    if not math.isnan(float(best["buffer"])) and best["buffer"] >= 0 and "buffer" in df:
        df = df[df["buffer"] == best["buffer"]]
    ev = {"buffer": int(best["buffer"]), "rows_per_item": float(best["rows"]),
          "row_pitch_bytes": float(best["pitch"]) if best["pitch"] == best["pitch"] else None}
    return Hit(ev, sites=list(ctx.hot(df)["site"]))


@rule(id="GEN-ATOMIC-HOT", title="Many atomics on one address", vendors=("powervr", "adreno", "intel"),
      metrics=("accesses.atomic.max_accesses_one_address",), severity="high",
      citation={"powervr": C("pvr", "Use Shared/Local Memory Sensibly"),
                "adreno": C("adreno", "7.3 Atomic functions in OpenCL 1.x"),
                "intel": C("intel", "Kernel Memory Access Optimization Summary")},
      fix="""Reduce within the group first (local atomics or a sub-group reduction), then let one item
      per group apply a single global atomic, so updates to the shared counter stop serialising.""")
def gen_atomic_hot(ctx):
    df = ctx.sites[ctx.sites["op"] == "atomic"]
    df = df[df["max_accesses_one_address"] >= ctx.t("atomic_same_address")]
    if not len(df):
        return None
    df = df.sort_values(["max_accesses_one_address", "site"], ascending=[False, True])
    ev = {"sites": _site_rows(df.head(5), ["site", "accesses", "max_accesses_one_address"]),
          "space": str(df["space"].iloc[0])}
    return Hit(ev, sites=list(df["site"]))


@rule(id="GEN-PRIVATE-SPILL", title="Private memory traffic (spills or private arrays in memory)",
      metrics=("accesses.private.bytes_moved",), severity="high",
      citation={"powervr": C("pvr", "Reduce Unified Store Usage (Private Memory)"),
                "adreno": C("adreno", "7.1.4 Private memory"),
                "intel": C("intel", "__private Memory"),
                "nvidia": C("cuda", "Local Memory")},
      fix="""Keep per-item data in registers: index private arrays only with compile-time constants
      (unroll the loops that index them), shrink them, or turn them into vector variables; move large
      per-item arrays to coalesced global or local memory.""")
def gen_private_spill(ctx):
    df = ctx.space("private")
    df = df[df["accesses"] > 0].sort_values(["bytes_moved", "site"], ascending=[False, True])
    if not len(df):
        return None
    saved = sum(ctx.site_memory_s(s) for s in df["site"])
    ev = {"private_accesses": int(df["accesses"].sum()), "private_bytes_moved": int(df["bytes_moved"].sum()),
          "sites": _site_rows(df.head(5), ["site", "accesses", "bytes_moved"])}
    return Hit(ev, sites=list(df["site"]), gain_s=ctx.gain_memory(saved))
