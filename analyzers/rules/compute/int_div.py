"""GEN-INT-DIV: integer division and modulo, long software sequences on every GPU here."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule

INT_DIV = ("int_div", "int64_div")


@rule(id="GEN-INT-DIV", title="Integer division or modulo", inputs=("ops.int_div", "ops.cycles"),
      citation={"powervr": C("pvr", "Tweak Work for the Graphics Core"),
                "adreno": C("adreno", "8.12 Miscellaneous"),
                "intel": C("intel", "Avoid Spurious Operations in Kernel Code"),
                "nvidia": C("cuda", "Division Modulo Operations")},
      thresholds={"alu_share": Threshold(0.01, "team choice: integer division at least 1% of the ALU "
                                               "cycles")},
      fix="""Replace division and modulo by powers of two with shifts and masks, by known constants
      with a precomputed reciprocal, and otherwise go through float (convert, native divide, convert
      back) when the operands stay below 2^24.""")
def check(f, t):
    if not len(f.ops):
        return None
    iss = {c: f.issues(lambda x, c=c: x == c) for c in INT_DIV}
    cyc = sum(iss[c] * f.cycles(c) for c in INT_DIV)
    total = f.alu_cycles
    if not cyc or cyc < t.alu_share * total:
        return None
    via_float = f.cycles("fp32_div") + 2 * f.cycles("convert")
    saved = sum(iss[c] * max(0.0, f.cycles(c) - via_float) for c in INT_DIV)
    ev = {"int_div_executions": int(f.executions(lambda x: x in INT_DIV)),
          "alu_cycle_share": round(cyc / total, 4) if total else None,
          "cycles_per_issue": f.cycles("int_div")}
    sites = f.sites_by_issues(lambda x: x in INT_DIV)
    return Hit(ev, sites=sites, gain_s=f.gain_alu(f.alu_seconds(saved)))

