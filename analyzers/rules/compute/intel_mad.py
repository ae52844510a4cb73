"""INTEL-MAD: separate float multiplies and adds where one fused mad would issue."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="INTEL-MAD", title="Separate float multiply and add where mad fits", vendors=("intel",),
      inputs=("ops.fp32_mul", "ops.fp32_add", "launch.build_options"),
      citation=C("intel", "Using Floating Point for Calculations"),
      thresholds={"fraction": Threshold(0.1, "team choice: separate fp32 mul and add pairs at least 10% of "
                                             "float arithmetic")},
      fix="""Write a*b+c as mad(a, b, c) (or build with -cl-mad-enable) so each pair issues as one
      fused instruction.""")
def check(f, t):
    if f.has_option("-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-unsafe-math-optimizations"):
        return None
    mul, add = f.executions(lambda c: c == "fp32_mul"), f.executions(lambda c: c == "fp32_add")
    fp = f.executions(lambda c: c.startswith("fp32_"))
    pairs = min(mul, add)
    if not pairs or pairs < t.fraction * fp:
        return None
    iss = min(f.issues(lambda c: c == "fp32_mul"), f.issues(lambda c: c == "fp32_add"))
    fma = f.executions(lambda c: c == "fp32_fma")
    return Hit({"fp32_mul": int(mul), "fp32_add": int(add), "fp32_fma": int(fma)},
               sites=f.sites_by_issues(lambda c: c in ("fp32_mul", "fp32_add")),
               gain_s=f.gain_alu(f.alu_seconds(iss * f.cycles("fp32_add"))))
