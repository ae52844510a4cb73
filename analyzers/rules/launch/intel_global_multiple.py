"""INTEL-GLOBAL-MULTIPLE-8: a global size that leaves the last hardware thread of a row part idle."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="INTEL-GLOBAL-MULTIPLE-8", title="Global size is not a multiple of 8",
      vendors=("intel",), inputs=("launch.global_size",),
      citation=C("intel", "Avoiding Handling Edge Conditions in Kernels"),
      thresholds={"multiple": Threshold(8, "intel Avoiding Handling Edge Conditions in Kernels: global sizes "
                                           "a multiple of 8")},
      fix="""Dispatch a global size that is a multiple of 8 (the narrowest SIMD width) and handle the
      remaining items separately, so the last hardware thread of each row is not partly idle.""")
def check(f, t):
    m = int(t.multiple)
    x = f.launch.global_size[0]
    if x % m == 0:
        return None
    return Hit({"global_size_x": x, "multiple": m, "rounded_down": x - x % m})
