"""GEN-INT-DIV: integer division and modulo, long software sequences on every GPU here."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.retype import retypes

INT_DIV = ("int_div", "int64_div")
#: A division done through float: the dividend converted, a float divide, the quotient converted back
#: (the divisor is as a rule invariant in the loop or kernel, and its conversion is hoisted).
VIA_FLOAT = ("convert", "convert", "fp32_div")


@rule(id="GEN-INT-DIV", title="Integer division or modulo", inputs=("ops.int_div", "ops.cycles"),
      what_if="retype",
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
    ev = {"int_div_executions": int(f.executions(lambda x: x in INT_DIV)),
          "alu_cycle_share": round(cyc / total, 4) if total else None,
          "cycles_per_issue": f.cycles("int_div")}
    sites = f.sites_by_issues(lambda x: x in INT_DIV)
    # priced by replay: each division through float (two conversions and a float divide); where that
    # costs the target more than its integer division the replay says so and the item goes
    change = retypes({c: VIA_FLOAT for c in INT_DIV if iss[c]}, sites)
    return Hit(ev, sites=sites, change=change)

