"""PVR-DATASET-MULTIPLE-32: a global size that leaves the last tasks partly empty."""

import math

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule


@rule(id="PVR-DATASET-MULTIPLE-32", title="Global size is not a multiple of 32",
      vendors=("powervr",), inputs=("launch.global_size", "target.simd.width"),
      citation=C("pvr", "Aim for a dataset Size that is a Multiple of 32"),
      fix="""Round the global size up to a multiple of 32 and let the surplus items return early
      after a bounds check, so the last tasks are not partly empty.""")
def check(f, t):
    n = f.work_items
    if n % f.width == 0:
        return None
    return Hit({"work_items": n, "padded": math.ceil(n / f.width) * f.width})
