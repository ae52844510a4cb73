"""Instruction mix: integer division, precision of math, 64-bit integers, int vs float, fusion."""

from __future__ import annotations

from analyzers.rules.base import Citation as C
from analyzers.rules.base import Hit, rule

INT_DIV = ("int_div", "int64_div")
FAST = ("-cl-fast-relaxed-math", "-cl-unsafe-math-optimizations", "-cl-finite-math-only")


def _is_plain_math(c: str) -> bool:
    return c.startswith("math_") and not c.startswith(("math_native_", "math_half_"))


def _sites_of(ctx, pred) -> list[int]:
    o = ctx.ops
    d = o[o["opclass"].map(pred)].groupby("site")["issues"].sum().sort_values(ascending=False, kind="stable")
    return [int(s) for s in d.index]


@rule(id="GEN-INT-DIV", title="Integer division or modulo", metrics=("instructions.int_div", "alu.cycles"),
      severity="medium",
      citation={"powervr": C("pvr", "Tweak Work for the Graphics Core"),
                "adreno": C("adreno", "8.12 Miscellaneous"),
                "intel": C("intel", "Avoid Spurious Operations in Kernel Code"),
                "nvidia": C("cuda", "Division Modulo Operations")},
      fix="""Replace division and modulo by powers of two with shifts and masks, by known constants
      with a precomputed reciprocal, and otherwise go through float (convert, native divide, convert
      back) when the operands stay below 2^24.""")
def gen_int_div(ctx):
    o = ctx.ops
    if not len(o):
        return None
    iss = {c: ctx.issues(lambda x, c=c: x == c) for c in INT_DIV}
    cyc = sum(iss[c] * ctx.cycles(c) for c in INT_DIV)
    total = ctx.metrics.get("alu_cycles", 0.0)
    if not cyc or cyc < ctx.t("int_div_alu_share") * total:
        return None
    via_float = ctx.cycles("fp32_div") + 2 * ctx.cycles("convert")
    saved = sum(iss[c] * max(0.0, ctx.cycles(c) - via_float) for c in INT_DIV)
    ev = {"int_div_executions": int(ctx.executions(lambda x: x in INT_DIV)),
          "alu_cycle_share": round(cyc / total, 4) if total else None,
          "cycles_per_issue": ctx.cycles("int_div")}
    return Hit(ev, sites=_sites_of(ctx, lambda x: x in INT_DIV), gain_s=ctx.gain_alu(ctx.alu_seconds(saved)))


@rule(id="GEN-FAST-MATH", title="Float division and math built-ins without fast relaxed math",
      metrics=("instructions.fp32_div", "instructions.math_*", "launch.build_options"), severity="medium",
      citation={"powervr": C("pvr", "Trade Precision for Speed"),
                "adreno": C("adreno", "8.3 Conformant vs. fast vs. native math functions"),
                "intel": C("intel", "Using Compiler Options for Optimizations"),
                "nvidia": C("cuda", "Math Libraries")},
      fix="""Build with -cl-fast-relaxed-math when the kernel tolerates relaxed IEEE rules; division
      and the transcendental functions then skip range reduction and special-case handling.""")
def gen_fast_math(ctx):
    if ctx.launch.has_option(*FAST):
        return None
    pred = lambda c: c in ("fp32_div", "fp16_div") or _is_plain_math(c)
    n = ctx.executions(pred)
    if not n:
        return None
    fast = ctx.target.extra.get("alu_cycles_fast_math", {}) if isinstance(ctx.target.extra, dict) else {}
    saved = sum(ctx.issues(lambda x, c=c: x == c) * max(0.0, ctx.cycles(c) - float(v)) for c,
            v in fast.items())
    ev = {"executions": int(n), "build_options": ctx.launch.build_options}
    return Hit(ev, sites=_sites_of(ctx, pred), gain_s=ctx.gain_alu(ctx.alu_seconds(saved)) if fast else None)


@rule(id="GEN-NATIVE-MATH", title="Full-precision math built-ins where native_ versions exist",
      metrics=("instructions.math_*",), severity="medium",
      citation={"powervr": C("pvr", "Trade Precision for Speed"),
                "adreno": C("adreno", "8.3 Conformant vs. fast vs. native math functions"),
                "intel": C("intel", "Considering native_ and half_ Versions of Math Built-Ins"),
                "nvidia": C("cuda", "Math Libraries")},
      fix="""Where the accuracy budget allows, call native_sin, native_exp, native_divide and friends
      (or half_ variants) at the hot call sites and check the results against a reference.""")
def gen_native_math(ctx):
    o = ctx.ops
    if not len(o):
        return None
    plain = sorted({c for c in o["opclass"] if _is_plain_math(c)})
    if not plain:
        return None
    saved, priced = 0.0, False
    for c in plain:
        nat = "math_native_" + c[len("math_"):]
        if nat in ctx.target.alu_cycles:
            priced = True
            saved += ctx.issues(lambda x, c=c: x == c) * max(0.0, ctx.cycles(c) - ctx.cycles(nat))
    ev = {"functions": [c[len("math_"):] for c in plain], "executions": int(ctx.executions(_is_plain_math))}
    return Hit(ev, sites=_sites_of(ctx, _is_plain_math),
               gain_s=ctx.gain_alu(ctx.alu_seconds(saved)) if priced else None)


@rule(id="GEN-INT64-INDEX", title="64-bit integer arithmetic (size_t indices)", vendors=("adreno", "intel"),
      metrics=("instructions.int64_*",), severity="medium",
      citation={"adreno": C("adreno", "8.7 Avoid the use of size_t"),
                "intel": C("intel", "Avoid Spurious Operations in Kernel Code")},
      fix="""Hold indices and loop counters in 32-bit int/uint (cast get_global_id once) unless the
      buffer really exceeds 4 GB; 64-bit math costs extra instructions and registers.""")
def gen_int64(ctx):
    o = ctx.ops
    if not len(o):
        return None
    is64 = lambda c: c.startswith("int64_")
    n, total = ctx.executions(is64), float(o["executions"].sum())
    if not n or n < ctx.t("int64_fraction") * total:
        return None
    saved = sum(ctx.issues(lambda x, c=c: x == c) * max(0.0,
            ctx.cycles(c) - ctx.cycles(c.replace("int64_", "int_")))
                for c in ("int64_add", "int64_mul", "int64_div"))
    return Hit({"int64_executions": int(n), "fraction": round(n / total, 4)}, sites=_sites_of(ctx, is64),
               gain_s=ctx.gain_alu(ctx.alu_seconds(saved)))


@rule(id="GEN-FLOAT-OVER-INT", title="Integer-heavy arithmetic on a float-optimised GPU",
      vendors=("powervr", "intel"), metrics=("instructions.int_add", "instructions.int_mul"), severity="low",
      citation={"powervr": C("pvr", "Tweak Work for the Graphics Core"),
                "intel": C("intel", "Using Floating Point for Calculations")},
      fix="""Convert the values to float once, do the adds and multiplies (as mad) in float, and
      convert back when storing; the float path is faster than the integer one here.""")
def gen_float_over_int(ctx):
    o = ctx.ops
    if not len(o):
        return None
    ints = ("int_add", "int_mul")
    n_int = ctx.executions(lambda c: c in ints)
    n_fp = ctx.executions(lambda c: c.startswith(("fp32_", "fp16_")))
    accesses = float(ctx.sites["accesses"].sum()) or 1.0
    if not n_int or n_int < ctx.t("int_arith_fraction") * (n_int + n_fp) or n_int / accesses < 4:
        return None
    saved = sum(ctx.issues(lambda x, c=c: x == c) * max(0.0, ctx.cycles(c) - ctx.cycles(c.replace("int_",
            "fp32_")))
                for c in ints)
    return Hit({"int_executions": int(n_int), "float_executions": int(n_fp),
                "int_ops_per_access": round(n_int / accesses, 2)},
               sites=_sites_of(ctx, lambda c: c in ints), gain_s=ctx.gain_alu(ctx.alu_seconds(saved)))


@rule(id="INTEL-MAD", title="Separate float multiply and add where mad fits", vendors=("intel",),
      metrics=("instructions.fp32_mul", "instructions.fp32_add", "launch.build_options"), severity="low",
      citation=C("intel", "Using Floating Point for Calculations"),
      fix="""Write a*b+c as mad(a, b, c) (or build with -cl-mad-enable) so each pair issues as one
      fused instruction.""")
def intel_mad(ctx):
    if ctx.launch.has_option("-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-unsafe-math-optimizations"):
        return None
    mul, add = ctx.executions(lambda c: c == "fp32_mul"), ctx.executions(lambda c: c == "fp32_add")
    fp = ctx.executions(lambda c: c.startswith("fp32_"))
    pairs = min(mul, add)
    if not pairs or pairs < ctx.t("unfused_fraction") * fp:
        return None
    iss = min(ctx.issues(lambda c: c == "fp32_mul"), ctx.issues(lambda c: c == "fp32_add"))
    return Hit({"fp32_mul": int(mul), "fp32_add": int(add),
            "fp32_fma": int(ctx.executions(lambda c: c == "fp32_fma"))},
               sites=_sites_of(ctx, lambda c: c in ("fp32_mul", "fp32_add")),
               gain_s=ctx.gain_alu(ctx.alu_seconds(iss * ctx.cycles("fp32_add"))))


@rule(id="ADR-FP16", title="32-bit float math on 8- or 16-bit data", vendors=("adreno",),
      metrics=("accesses.size", "instructions.fp32_*", "instructions.fp16_*"), severity="medium",
      citation=C("adreno", "7.2.3 Optimal data type"),
      fix="""Compute in half where the precision is enough (mind that fp16 holds integers exactly
      only up to 2048); fp16 arithmetic runs at twice the fp32 rate and halves register use.""")
def adr_fp16(ctx):
    g = ctx.space("global", "load")
    if not len(g) or float(g["access_size"].max()) > 2:
        return None
    fp32 = ctx.executions(lambda c: c.startswith("fp32_"))
    if not fp32 or ctx.executions(lambda c: c.startswith("fp16_")):
        return None
    saved = sum(ctx.issues(lambda x, c=c: x == c) * max(0.0,
            ctx.cycles(c) - ctx.cycles(c.replace("fp32_", "fp16_")))
                for c in ("fp32_add", "fp32_mul", "fp32_fma", "fp32_div"))
    return Hit({"fp32_executions": int(fp32), "max_load_bytes": int(g["access_size"].max())},
               sites=_sites_of(ctx,
                       lambda c: c.startswith("fp32_")), gain_s=ctx.gain_alu(ctx.alu_seconds(saved)))
