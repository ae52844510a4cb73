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
    # the tile's row pitch is the widest step between neighbouring lanes (a column read); a row
    # read of the same tile steps by one element and says nothing about the pitch
    col = df.iloc[int(df["lane_stride"].abs().to_numpy().argmax())]
    pitch, buffer = abs(int(col["lane_stride"])), int(col["buffer"])
    if padded(pitch, lm):
        # a column already spreads over the banks as well as it can: what conflicts remain come
        # from a wave spanning several rows, which no padding removes
        df = df[df["buffer"] != buffer] if buffer >= 0 else df.iloc[0:0]
        if not len(df):
            return None
        pitch = 0
    saved = f.alu_seconds(float((df["local_cycles"] - df["local_slices"]).clip(lower=0).sum()))
    ev = {"sites": f.rows(df.head(5), ["site", "local_requests", "conflict_degree_mean", "local_cycles"]),
          "banks": lm.banks, "bank_width_bytes": lm.bank_width_bytes}
    change = padding(pitch, lm, buffer) if pitch > 4 else None
    if change is not None:
        ev["row_pitch_bytes"] = change.row_bytes
        ev["padding_hint"] = (f"rows are {change.row_bytes} bytes apart; pad each row by {change.pad_bytes} "
                              f"bytes (pitch {change.row_bytes + change.pad_bytes}) so a column spreads over "
                              "the banks")
    return Hit(ev, sites=list(df["site"]), gain_s=f.gain_alu(saved), change=change)


def column_cycles(pitch: int, lm) -> int:
    """Cycles the banks need for one slice of lanes reading down a column of rows ``pitch`` bytes
    apart (each lane its own row, so its own bank word): the most words that fall in one bank."""
    lanes, word, banks = int(lm.lanes_per_cycle), int(lm.bank_width_bytes), int(lm.banks)
    per_bank: dict[int, int] = {}
    for k in range(lanes):
        b = (k * pitch // word) % banks
        per_bank[b] = per_bank.get(b, 0) + 1
    return max(per_bank.values())


def fewest_cycles(lm) -> int:
    """The least a column read can take: its lanes' words spread evenly over the banks."""
    return -(-int(lm.lanes_per_cycle) // int(lm.banks))


def padded(pitch: int, lm) -> bool:
    """A row pitch at which a column read already takes the fewest cycles it can."""
    return pitch > 0 and column_cycles(pitch, lm) <= fewest_cycles(lm)


def padding(stride: int, lm, buffer: int) -> PadLocal | None:
    """The smallest padding (in 4-byte elements, up to one row of banks) that makes a column read
    with row pitch ``stride`` take the fewest cycles it can (on 4-byte banks: an odd number of
    words, e.g. 17 floats per row of 16); the best padding when none reaches that.  None when
    the pitch is already as good as padding can make it, or cannot be read off the requests."""
    if stride <= 0:
        return None
    now = column_cycles(stride, lm)
    best, best_pad = now, None
    for pad in range(4, int(lm.banks * lm.bank_width_bytes) + 1, 4):
        c = column_cycles(stride + pad, lm)
        if c < best:
            best, best_pad = c, pad
        if best <= fewest_cycles(lm):
            break
    if best_pad is None:
        return None
    return PadLocal(row_bytes=stride, pad_bytes=best_pad, buffer=buffer if buffer >= 0 else None)


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
