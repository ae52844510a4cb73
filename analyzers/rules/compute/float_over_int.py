"""GEN-FLOAT-OVER-INT: integer-heavy arithmetic on a GPU whose float path is faster."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.retype import retypes

INTS = ("int_add", "int_mul")


@rule(id="GEN-FLOAT-OVER-INT", title="Integer-heavy arithmetic on a float-optimised GPU",
      vendors=("powervr", "intel"), inputs=("ops.int_add", "ops.int_mul", "sites.accesses"), what_if="retype",
      citation={"powervr": C("pvr", "Tweak Work for the Graphics Core"),
                "intel": C("intel", "Using Floating Point for Calculations")},
      thresholds={"fraction": Threshold(0.5, "team choice for powervr Tweak Work for the Graphics Core / "
                                             "intel Using Floating Point for Calculations: integer add/mul "
                                             "half or more of the arithmetic"),
                  "per_access": Threshold(4, "team choice: four or more integer operations per memory "
                                             "access, beyond the address arithmetic of the access itself")},
      fix="""Convert the values to float once, do the adds and multiplies (as mad) in float, and
      convert back when storing; the float path is faster than the integer one here.""")
def check(f, t):
    o = f.work_ops   # address arithmetic and loop control stay integer whatever the data type
    if not len(o):
        return None
    ints = o["opclass"].isin(INTS)
    n_int = float(o.loc[ints, "executions"].sum())
    n_fp = float(o.loc[o["opclass"].str.startswith(("fp32_", "fp16_")), "executions"].sum())
    accesses = float(f.sites["accesses"].sum()) or 1.0
    if not n_int or n_int < t.fraction * (n_int + n_fp) or n_int / accesses < t.per_access:
        return None
    sites = o[ints].groupby("site")["issues"].sum().sort_values(ascending=False, kind="stable")
    sites = [int(s) for s in sites.index]
    # the kernel's own integer adds and multiplies done in float (its address arithmetic stays)
    change = retypes({c: (c.replace("int_", "fp32_"),) for c in INTS if (o["opclass"] == c).any()}, sites)
    return Hit({"int_executions": int(n_int), "float_executions": int(n_fp),
                "int_ops_per_access": round(n_int / accesses, 2)}, sites=sites, change=change)
