"""GEN-FAST-MATH: float division and math built-ins built without relaxed math."""

from analyzers.rules.builtins import is_costly_math
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.changes import FastMath

FAST = ("-cl-fast-relaxed-math", "-cl-unsafe-math-optimizations", "-cl-finite-math-only")


@rule(id="GEN-FAST-MATH", what_if="fast-math",
      title="Float division and math built-ins without fast relaxed math",
      inputs=("ops.fp32_div", "ops.math_*", "launch.build_options"),
      citation={"powervr": C("pvr", "Trade Precision for Speed"),
                "adreno": C("adreno", "8.3 Conformant vs. fast vs. native math functions"),
                "intel": C("intel", "Using Compiler Options for Optimizations"),
                "nvidia": C("cuda", "Math Libraries")},
      fix="""Build with -cl-fast-relaxed-math when the kernel tolerates relaxed IEEE rules; division
      and the transcendental functions then skip range reduction and special-case handling.""")
def check(f, t):
    if f.has_option(*FAST):
        return None
    # fabs, fmin, fmax and the like are plain ALU instructions: relaxed math leaves them as they are
    pred = lambda c: c in ("fp32_div", "fp16_div") or is_costly_math(c)  # noqa: E731
    n = f.executions(pred)
    if not n:
        return None
    fast = f.target.alu_cycles_fast_math
    saved = sum(f.issues(lambda x, c=c: x == c) * max(0.0, f.cycles(c) - float(v)) for c, v in fast.items())
    ev = {"executions": int(n), "build_options": f.launch.build_options}
    gain = f.gain_alu(f.alu_seconds(saved)) if fast else None
    return Hit(ev, sites=f.sites_by_issues(pred), gain_s=gain, change=FastMath() if fast else None)
