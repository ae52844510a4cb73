"""GEN-LOCAL-BANK-CONFLICT: lanes of one request wait for the same local-memory bank."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule, vendor_key
from analyzers.whatif.changes import PadLocal

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
          "banks": lm.banks, "bank_width_bytes": lm.bank_width_bytes}
    hot = df.iloc[0]
    change = padding(int(hot["lane_stride"]), lm, int(hot["buffer"]))
    if change is not None:
        ev["row_pitch_bytes"] = change.row_bytes
        ev["padding_hint"] = (f"rows are {change.row_bytes} bytes apart; pad each row by {change.pad_bytes} "
                              f"bytes (pitch {change.row_bytes + change.pad_bytes}) so a column spreads over "
                              "the banks")
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_alu(saved), change=change)


def padding(stride: int, lm, buffer: int) -> PadLocal | None:
    """The padding that makes a column read with row pitch ``stride`` conflict-free: pitches that
    are an odd number of bank words share no factor with a power-of-two bank count, so a column
    then walks every bank.  None when the pitch is already such a number (padding more would
    not help) or cannot be read off the requests."""
    word = lm.bank_width_bytes
    if stride <= 0:
        return None
    words = -(-stride // word)
    if stride % word == 0 and words % 2:
        return None
    target = words if words % 2 else words + 1
    return PadLocal(row_bytes=stride, pad_bytes=target * word - stride,
                    buffer=buffer if buffer >= 0 else None)


@rule(id="GEN-LOCAL-BANK-CONFLICT", what_if="pad-local", title="Local-memory bank conflicts",
      vendors=("powervr", "intel", "nvidia"),
      inputs=("sites.conflict_degree_mean", "sites.local_cycles", "sites.local_slices"),
      citation=BANKS, thresholds={"degree": DEGREE},
      fix="""Let neighbouring lanes read neighbouring words: interleave per-item blocks (index =
      element * items + lane rather than lane * stride + element), and for 2D tiles read by column pad each
      row so its pitch is an odd number of bank words (e.g. 17 floats per row of 16 on 4-byte banks) so a
      column spreads over all banks.""")
def check(f, t):
    ops = ["load"] if vendor_key(f.target) == "intel" else ["load", "store", "atomic"]
    return conflicts(f, ops, t.degree)
