"""GEN-LOCAL-BANK-CONFLICT: lanes of one request wait for the same local-memory bank."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule, vendor_key

BANKS = {"powervr": C("pvr", "Common Store"),
         "intel": C("intel", "__local Memory"),
         "nvidia": C("cuda", "Shared Memory and Memory Banks")}
DEGREE = Threshold(1.25, "team choice: mean conflict degree above 1.25 (a quarter of requests serialised "
                         "twice); the degree itself follows the target's bank rules")


def conflicts(f, ops, degree: float):
    """Hit for the hot local sites of ``ops`` whose mean conflict degree reaches ``degree``."""
    df = f.space("local")
    df = df[df["op"].isin(ops) & (df["conflict_degree_mean"] >= degree)]
    df = f.hot(df, "accesses")
    if not len(df):
        return None
    lm = f.target.local_memory
    saved = f.alu_seconds(float((df["local_cycles"] - df["local_slices"]).clip(lower=0).sum()))
    ev = {"sites": f.rows(df.head(5), ["site", "local_requests", "conflict_degree_mean", "local_cycles"]),
          "banks": lm.banks, "bank_width_bytes": lm.bank_width_bytes,
          "padding_hint": f"pad each row of the local array by {lm.bank_width_bytes} bytes (one bank word)"}
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_alu(saved))


@rule(id="GEN-LOCAL-BANK-CONFLICT", title="Local-memory bank conflicts",
      vendors=("powervr", "intel", "nvidia"),
      inputs=("sites.conflict_degree_mean", "sites.local_cycles", "sites.local_slices"),
      severity="high", citation=BANKS, thresholds={"degree": DEGREE},
      fix="""Let neighbouring lanes read neighbouring words: interleave per-item blocks (index =
      element * items + lane rather than lane * stride + element), and for 2D tiles read by column pad each
      row by one bank word (e.g. 17 floats per row of 16) so a column spreads over all banks.""")
def check(f, t):
    ops = ["load"] if vendor_key(f.target) == "intel" else ["load", "store", "atomic"]
    return conflicts(f, ops, t.degree)
