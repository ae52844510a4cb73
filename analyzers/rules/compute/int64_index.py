"""GEN-INT64-INDEX: 64-bit integer arithmetic, usually size_t indices."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.retype import retypes

#: 64-bit integer classes and their 32-bit counterparts' names (``int_`` + the rest).
INT64 = ("int64_add", "int64_mul", "int64_div")


@rule(id="GEN-INT64-INDEX", title="64-bit integer arithmetic (size_t indices)", vendors=("adreno", "intel"),
      inputs=("ops.int64_*",), covered_by=("INTEL-INT64-ADDRESS",), what_if="retype",
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
    sites = f.sites_by_issues(is64)
    present = set(o.loc[o["opclass"].map(is64), "opclass"])
    change = retypes({c: ("int_" + c[6:],) for c in sorted(present) if c in INT64}, sites)
    return Hit({"int64_executions": int(n), "fraction": round(n / total, 4)}, sites=sites, change=change)
