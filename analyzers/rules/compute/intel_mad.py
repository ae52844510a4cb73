"""INTEL-MAD: separate float multiplies and adds where one fused mad would issue."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.changes import Combined
from analyzers.whatif.retype import Retype


@rule(id="INTEL-MAD", title="Separate float multiply and add where mad fits", vendors=("intel",),
      inputs=("ops.fp32_mul", "ops.fp32_add", "launch.build_options", "dataflow"), what_if="retype",
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
    fma = f.executions(lambda c: c == "fp32_fma")
    muls, adds = fused_pairs(f)
    if not muls:
        return None
    # priced by replay: each multiply of a pair issued as a mad, its add gone
    change = Combined((Retype("fp32_mul", ("fp32_fma",), muls), Retype("fp32_add", (), adds)))
    return Hit({"fp32_mul": int(mul), "fp32_add": int(add), "fp32_fma": int(fma), "pairs": len(muls)},
               sites=sorted(muls + adds), change=change)


def fused_pairs(f) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(multiply sites, add sites) of the pairs one mad replaces: an add taking a multiply's result
    that nothing else uses (the trace's data-flow graph); without the graph, the multiplies and adds
    that share a source line, paired in site order."""
    o = f.compiled_ops
    mul_sites = sorted(int(s) for s in o.loc[o["opclass"] == "fp32_mul", "site"].unique())
    add_sites = sorted(int(s) for s in o.loc[o["opclass"] == "fp32_add", "site"].unique())
    g = getattr(f.result, "dataflow", None)
    muls, adds = [], []
    if g is not None:
        for a in add_sites:
            m = next((m for m in g.operands.get(a, ()) if m in mul_sites and m not in muls
                      and g.users.get(m, ()) == (a,)), None)
            if m is not None:
                muls.append(m)
                adds.append(a)
        return tuple(muls), tuple(adds)
    lines = f.sites_lines
    for m in mul_sites:
        a = next((a for a in add_sites if a not in adds and a > m and lines.get(a) == lines.get(m)), None)
        if a is not None and lines.get(m, ("?", 0))[1] > 0:
            muls.append(m)
            adds.append(a)
    return tuple(muls), tuple(adds)
