"""INTEL-UNROLLED-SCALAR-LOADS: the compiler unrolled a loop over consecutive elements, one message each."""

import os

from analyzers.rules.machine_facts import machine, machine_lines
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.loops import LoopVectorLoads


@rule(id="INTEL-UNROLLED-SCALAR-LOADS", what_if="vector-loop-loads",
      title="Unrolled loop reads consecutive elements one message at a time",
      vendors=("intel",),
      inputs=("machine_code.lines.unroll", "machine_code.lines.load_messages",
              "machine_code.lines.load_lane_bytes", "sites.loop_adjacent"),
      citation=C("intel", "Loading and Storing Data in Greatest Chunks"),
      thresholds={"unroll": Threshold(2, "a block holding two or more copies of the loop body was unrolled "
                                         "by the compiler (intel Using Loops)"),
                  "vector_bytes": Threshold(16, "intel Loading and Storing Data in Greatest Chunks: float4 "
                                                "and int4 loads move four times the data of a scalar load; "
                                                "a work-item's runs of consecutive loads must fill one such "
                                                "vector on average (a 3-wide stencil row does not)")},
      fix="""Load the loop's consecutive elements as vectors (vload4/vstore4 or float4 pointers, four
      iterations per access): the compiler has already unrolled the loop, but each copy still sends its
      own message for one 32-bit element per work-item.  When the loop also stores, declaring the pointer
      arguments restrict lets the compiler merge the messages itself, since it no longer has to keep
      each load behind the previous store.""")
def check(f, t):
    m = machine(f)
    pats = f.result.memory.patterns.sites if f.result.memory is not None and \
        f.result.memory.patterns is not None else None
    if m is None or pats is None or "loop_adjacent" not in pats:
        return None
    lines = machine_lines(f)
    if lines.empty:
        return None
    lines = lines[lines["line"].notna() & (lines["unroll"] >= t.unroll) & (lines["load_messages"] >= 2)
                  & (lines["load_lane_bytes"] < t.vector_bytes)]
    if not len(lines):
        return None
    where = {(str(fl), int(ln)) for fl, ln in zip(lines["file"], lines["line"], strict=True)}
    loads = f.space("global", "load")
    loads = loads[[(os.path.basename(str(fl)), int(ln) if ln == ln else -1) in where
                   for fl, ln in zip(loads["file"], loads["line"], strict=True)]]
    loads = loads.merge(pats[["site", "loop_adjacent"]].drop_duplicates("site"), on="site", how="left")
    loads["consecutive"] = loads["loop_adjacent"].fillna(0) + loads["adjacent"]
    loads = loads[loads["access_size"] < t.vector_bytes]
    n, joined = float(loads["accesses"].sum()), float(loads["consecutive"].sum())
    if not n or joined >= n:
        return None
    size = float((loads["access_size"] * loads["accesses"]).sum()) / n
    run = n / (n - joined)             # mean loads per run of consecutive elements
    if run * size < t.vector_bytes:
        return None
    sites = sorted(int(s) for s in loads["site"])
    mine = lines[[(str(fl), int(ln)) in {(os.path.basename(str(a)), int(b)) for a, b in
                                         zip(loads["file"], loads["line"], strict=True)}
                  for fl, ln in zip(lines["file"], lines["line"], strict=True)]]
    ev = {"unroll_factor": int(mine["unroll"].max()),
          "load_messages_in_block": int(mine["load_messages"].sum()),
          "bytes_per_lane_per_message": float(mine["load_lane_bytes"].max()),
          "consecutive_share": round(joined / n, 4), "mean_run": round(run, 2),
          "lines": list(mine["label"])}
    return Hit(ev, sites=sites, change=LoopVectorLoads(tuple(sites), int(t.vector_bytes)))
