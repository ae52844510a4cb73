"""GEN-PRIVATE-SPILL: private data that lives in memory instead of registers."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.changes import NoPrivate


@rule(id="GEN-PRIVATE-SPILL", what_if="no-private",
      title="Private memory traffic (spills or private arrays in memory)",
      inputs=("sites.private.accesses", "sites.private.bytes_moved"),
      citation={"powervr": C("pvr", "Reduce Unified Store Usage (Private Memory)"),
                "adreno": C("adreno", "7.1.4 Private memory"),
                "intel": C("intel", "__private Memory"),
                "nvidia": C("cuda", "Local Memory")},
      fix="""Keep per-item data in registers: index private arrays only with compile-time constants
      (unroll the loops that index them), shrink them, or turn them into vector variables; move large
      per-item arrays to coalesced global or local memory.""")
def check(f, t):
    df = f.space("private")
    df = df[df["accesses"] > 0].sort_values(["bytes_moved", "site"], ascending=[False, True])
    if not len(df):
        return None
    saved = sum(f.site_memory_s(s) for s in df["site"])
    ev = {"private_accesses": int(df["accesses"].sum()), "private_bytes_moved": int(df["bytes_moved"].sum()),
          "sites": f.rows(df.head(5), ["site", "accesses", "bytes_moved"])}
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_memory(saved), change=NoPrivate())
