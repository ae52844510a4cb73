"""ADR-FP16: 32-bit float arithmetic on data that arrives as 8- or 16-bit values."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.retype import retypes

#: The float arithmetic a half-precision version of the kernel does in 16 bits.
HALVED = ("fp32_add", "fp32_mul", "fp32_fma", "fp32_div")


@rule(id="ADR-FP16", title="32-bit float math on 8- or 16-bit data", vendors=("adreno",),
      inputs=("sites.access_size", "ops.fp32_*", "ops.fp16_*"), what_if="retype",
      citation=C("adreno", "7.2.3 Optimal data type"),
      fix="""Compute in half where the precision is enough (mind that fp16 holds integers exactly
      only up to 2048); fp16 arithmetic runs at twice the fp32 rate and halves register use.""")
def check(f, t):
    g = f.space("global", "load")
    if not len(g) or float(g["access_size"].max()) > 2:
        return None
    fp32 = f.executions(lambda c: c.startswith("fp32_"))
    if not fp32 or f.executions(lambda c: c.startswith("fp16_")):
        return None
    present = set(f.compiled_ops["opclass"])
    change = retypes({c: ("fp16_" + c[5:],) for c in HALVED if c in present and "fp16_" + c[5:] in
                      f.target.alu_cycles})
    return Hit({"fp32_executions": int(fp32), "max_load_bytes": int(g["access_size"].max())},
               sites=f.sites_by_issues(lambda c: c.startswith("fp32_")), change=change)
