"""GEN-PITCH-PAD: rows of a 2D buffer a whole number of lines apart keep evicting each other.

When a buffer's row pitch is a multiple of a cache's set span (a power of two such as
2048 bytes, typically), the same column of every row maps to the same few sets: a wave
whose lanes each walk their own row, or that walks down a column, fills those sets and
evicts lines before their next use, while the rest of the cache sits idle.  Padding each
row by a line spreads the rows over the sets.

The pitch alone does not decide it: whether it thrashes depends on each cache's size,
ways and set mapping (the H200 hashes its set index), so the rule only proposes the
padding where some cache level fetches well beyond the data's footprint, and the fix
is kept only when replaying the launch with padded rows measures a gain
(``speculative``: no gain, no finding).
"""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.pitch import PadPitch


def pitch_candidates(f, line: int) -> list[tuple[int, int, int]]:
    """(site, buffer, pitch) of the hot global sites whose rows are a whole number of lines apart:
    the step between neighbouring lanes (each lane its own row) or between the rows one item walks."""
    df = f.hot(f.space("global"), "bytes_moved")
    df = df[df["buffer"] >= 0]
    st = f.patterns.stencils
    walk = {} if st is None or not len(st) else {int(b): p for b, p in zip(st["buffer"], st["pitch"],
                                                                           strict=True) if p == p}
    out = []
    for site, buffer, stride in zip(df["site"], df["buffer"], df["lane_stride"], strict=True):
        for pitch in (abs(int(stride)), int(walk.get(int(buffer), 0))):
            if pitch >= line and pitch % line == 0:
                out.append((int(site), int(buffer), pitch))
                break
    return out


@rule(id="GEN-PITCH-PAD", what_if="pad-pitch", title="Row pitch maps every row to the same cache sets",
      inputs=("sites.lane_stride", "patterns.stencils", "memory.caches", "patterns.footprint_bytes"),
      citation={"powervr": C("pvr", "Access Memory in Row-Major Order"),
                "adreno": C("adreno", "7.6 Improve the GPU’s L1/L2 cache usage"),
                "intel": C("intel", "Kernel Memory Access Optimization Summary"),
                "nvidia": C("cuda", "Device Memory Spaces")},
      thresholds={"refetch": Threshold(2.0, "team choice: some cache level fetches at least twice the bytes "
                                            "the launch touches, so lines are evicted before their reuse; "
                                            "below that there is no conflict for a padding to remove")},
      fix="""Pad each row of the 2D buffer by one cache line (allocate rows of pitch + line bytes and
      index with the padded pitch, e.g. 512 + 32 floats per row of 512): rows then start in different
      cache sets, so the lines a wave needs at once no longer evict each other.""")
def check(f, t):
    mem = f.result.memory
    if not f.cache_modelled or mem is None:
        return None
    te = f.times
    if te["alu_s"] >= max(te["memory_s"], te["latency_s"]):
        return None      # a layout fix cannot shorten a launch its ALU work bounds
    foot = float(f.patterns.footprint_bytes)
    fetched = {c.level: c.misses * f.target.cache(c.level).line_bytes for c in mem.memory.caches}
    if not foot or not fetched or max(fetched.values()) < t.refetch * foot:
        return None
    line = max(c.line_bytes for c in f.target.caches)
    found = pitch_candidates(f, line)
    if not found:
        return None
    site, buffer, pitch = found[0]
    level = max(fetched, key=fetched.get)
    ev = {"buffer": buffer, "row_pitch_bytes": pitch, "pitch_in_lines": pitch // line, "pad_bytes": line,
          "refetched_level": level, "fetched_over_footprint": round(fetched[level] / foot, 2)}
    return Hit(ev, sites=[site], change=PadPitch(buffer, pitch, line))
