"""ADR-FP16: 32-bit float arithmetic on data that arrives as 8- or 16-bit values."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule


@rule(id="ADR-FP16", title="32-bit float math on 8- or 16-bit data", vendors=("adreno",),
      inputs=("sites.access_size", "ops.fp32_*", "ops.fp16_*"),
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
    saved = sum(f.issues(lambda x, c=c: x == c) * max(0.0, f.cycles(c) - f.cycles("fp16_" + c[5:]))
                for c in ("fp32_add", "fp32_mul", "fp32_fma", "fp32_div"))
    return Hit({"fp32_executions": int(fp32), "max_load_bytes": int(g["access_size"].max())},
               sites=f.sites_by_issues(lambda c: c.startswith("fp32_")),
               gain_s=f.gain_alu(f.alu_seconds(saved)))
