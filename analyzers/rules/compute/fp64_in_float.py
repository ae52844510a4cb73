"""GEN-FP64-IN-FLOAT: a float kernel that computes in double precision (unsuffixed literals)."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.precision import SinglePrecision

#: Opcodes of the conversions that widen a float to a double and narrow it back.
WIDENING = ("fpext", "fptrunc")


def is_fp64(c: str) -> bool:
    return c.startswith("fp64_")


@rule(id="GEN-FP64-IN-FLOAT", what_if="fp32", title="Float data computed in double precision",
      inputs=("ops.fp64_*", "ops.convert", "sites.opcode", "target.unsupported"),
      citation={"powervr": C("pvr", "Trade Precision for Speed"),
                "adreno": C("adreno", "9 OpenCL extensions in Adreno GPUs"),
                "intel": C("intel", "Avoid Spurious Operations in Kernel Code"),
                "nvidia": C("cuda", "Promotions to Doubles and Truncations to Floats")},
      fix="""A literal without a suffix (0.5, 1e-3) is a double in OpenCL C, and so is any expression
      it touches: float operands are widened, the arithmetic runs at the double-precision rate (emulated
      on most mobile GPUs, absent on Adreno) and the result is narrowed again.  Write float literals
      with an f suffix (0.5f), or build with -cl-single-precision-constant.""")
def check(f, t):
    o = f.compiled_ops
    if not len(o):
        return None
    wide = o[o["opclass"].map(is_fp64)]
    if not len(wide) or not wide["executions"].sum():
        return None
    converts = sorted(int(s) for s in o.loc[o["opclass"] == "convert", "site"].unique())
    widening = [s for s, op in f.opcodes(converts).items() if op in WIDENING]
    if not widening:
        return None          # no float was widened: the kernel works on doubles by design
    unsupported = sorted(c for c in wide["opclass"].unique() if c in (f.target.unsupported or {}))
    ev = {"fp64_executions": int(wide["executions"].sum()),
          "fp64_classes": sorted(wide["opclass"].unique()),
          "widening_conversions": int(o.loc[o["site"].isin(widening) & (o["opclass"] == "convert"),
                                            "executions"].sum())}
    sites = f.sites_by_issues(is_fp64)
    if unsupported and f.launch.uses_double is False:
        return None          # the source never names double: that device's compiler makes the literals float
    if unsupported:
        ev["double_supported"] = False
        ev["warning"] = (f"{f.target.name} has no double precision ({', '.join(unsupported)} unsupported): "
                         "the kernel as written does not build there, and its time leaves those "
                         "instructions out")
        return Hit(ev, sites=sites)
    total = f.alu_cycles
    cvt = o[o["site"].isin(widening) & (o["opclass"] == "convert")]
    fp64 = float((wide["issues"] * wide["cycles"]).sum()) + float((cvt["issues"] * cvt["cycles"]).sum())
    ev["double_supported"] = True
    # the share of the issue cycles (the plain sum over classes) spent on doubles and their conversions
    ev["share_of_alu_cycles"] = round(fp64 / total, 4) if total else None
    as_fp32 = sum(float(r.issues) * f.cycles("fp32_" + r.opclass[len("fp64_"):]) for r in wide.itertuples())
    saved = fp64 - as_fp32
    return Hit(ev, sites=sites, gain_s=f.gain_alu(f.alu_seconds(saved)),
               change=SinglePrecision(tuple(widening)))
