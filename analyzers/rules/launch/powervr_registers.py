"""PVR-REGISTERS: more than about 40 registers per item lowers the threads a USC keeps."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="PVR-REGISTERS", title="More than 40 registers per item lowers utilisation",
      vendors=("powervr",), inputs=("launch.registers_per_item",),
      citation=C("pvr", "Reduce Unified Store Usage (Private Memory)"),
      thresholds={"registers": Threshold(40, "powervr Reduce Unified Store Usage (Private Memory): 40 scalar "
                                             "values per item keep 512 threads resident")},
      fix="""Cut live temporaries and private arrays (recompute cheap values, narrow types, shorter
      unrolled loops) to stay within about 40 scalar registers per item.""")
def check(f, t):
    regs = f.launch.registers_per_item
    if not regs or regs <= t.registers:
        return None
    return Hit({"registers_per_item": int(regs), "budget": int(t.registers)})
