"""GEN-NATIVE-MATH: full-precision math built-ins where native_ versions would do."""

from analyzers.rules.builtins import builtin, has_native
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
      fix="""Where the accuracy budget allows, call the native_ form of the functions listed in the
      evidence (OpenCL C has native_ versions of cos, divide, exp, exp2, exp10, log, log2, log10, powr,
      recip, rsqrt, sin, sqrt and tan only) at the hot call sites and check the results against a
      reference.""")
def check(f, t):
    o = f.compiled_ops
    if not len(o):
        return None
    plain = sorted({c for c in o["opclass"] if has_native(c)})
    if not plain:
        return None
    saved, priced = 0.0, False
    for c in plain:
        nat = "math_native_" + builtin(c)
        if nat in f.target.alu_cycles:
            priced = True
            saved += f.issues(lambda x, c=c: x == c) * max(0.0, f.cycles(c) - f.cycles(nat))
    ev = {"functions": [builtin(c) for c in plain], "native_forms": ["native_" + builtin(c) for c in plain],
          "executions": int(f.executions(has_native))}
    gain = f.gain_alu(f.alu_seconds(saved)) if priced else None
    change = NativeMath() if priced else None
    return Hit(ev, sites=f.sites_by_issues(has_native), gain_s=gain, change=change)
