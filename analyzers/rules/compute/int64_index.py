"""GEN-INT64-INDEX: 64-bit integer arithmetic, usually size_t indices."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="GEN-INT64-INDEX", title="64-bit integer arithmetic (size_t indices)", vendors=("adreno", "intel"),
      inputs=("ops.int64_*",), covered_by=("INTEL-INT64-ADDRESS",),
      citation={"adreno": C("adreno", "8.7 Avoid the use of size_t"),
                "intel": C("intel", "Avoid Spurious Operations in Kernel Code")},
      thresholds={"fraction": Threshold(0.01, "team choice: 64-bit integer ops at least 1% of executed "
                                              "instructions")},
      fix="""Hold indices and loop counters in 32-bit int/uint (cast get_global_id once) unless the
      buffer really exceeds 4 GB; 64-bit math costs extra instructions and registers.""")
def check(f, t):
    m = getattr(f.result, "machine", None)
    if m is not None and m.priced_by == "machine_code":
        return None   # the compiler's own code says which 64-bit arithmetic is left (INTEL-INT64-ADDRESS)
    o = f.compiled_ops
    if not len(o):
        return None
    is64 = lambda c: c.startswith("int64_")  # noqa: E731
    n, total = f.executions(is64), float(o["executions"].sum())
    if not n or n < t.fraction * total:
        return None
    saved = sum(f.issues(lambda x, c=c: x == c) * max(0.0, f.cycles(c) - f.cycles("int_" + c[6:]))
                for c in ("int64_add", "int64_mul", "int64_div"))
    return Hit({"int64_executions": int(n), "fraction": round(n / total, 4)}, sites=f.sites_by_issues(is64),
               gain_s=f.gain_alu(f.alu_seconds(saved)))
