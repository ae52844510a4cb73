"""GEN-NATIVE-MATH: full-precision math built-ins where native_ versions would do."""

from analyzers.rules.compute.fast_math import is_plain_math
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.changes import NativeMath


@rule(id="GEN-NATIVE-MATH", what_if="native-math",
      title="Full-precision math built-ins where native_ versions exist",
      inputs=("ops.math_*",),
      citation={"powervr": C("pvr", "Trade Precision for Speed"),
                "adreno": C("adreno", "8.3 Conformant vs. fast vs. native math functions"),
                "intel": C("intel", "Considering native_ and half_ Versions of Math Built-Ins"),
                "nvidia": C("cuda", "Math Libraries")},
      fix="""Where the accuracy budget allows, call native_sin, native_exp, native_divide and friends
      (or half_ variants) at the hot call sites and check the results against a reference.""")
def check(f, t):
    o = f.ops
    if not len(o):
        return None
    plain = sorted({c for c in o["opclass"] if is_plain_math(c)})
    if not plain:
        return None
    saved, priced = 0.0, False
    for c in plain:
        nat = "math_native_" + c[len("math_"):]
        if nat in f.target.alu_cycles:
            priced = True
            saved += f.issues(lambda x, c=c: x == c) * max(0.0, f.cycles(c) - f.cycles(nat))
    ev = {"functions": [c[len("math_"):] for c in plain], "executions": int(f.executions(is_plain_math))}
    gain = f.gain_alu(f.alu_seconds(saved)) if priced else None
    change = NativeMath() if priced else None
    return Hit(ev, sites=f.sites_by_issues(is_plain_math), gain_s=gain, change=change)
