"""PVR-KERNEL-SHORT: so few instructions per item that task set-up dominates."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="PVR-KERNEL-SHORT", title="Very few instructions per work-item",
      vendors=("powervr",), inputs=("ops.executions",),
      citation=C("pvr", "Optimisation Strategy Cheat Sheet"),
      thresholds={"instructions": Threshold(20, "powervr Optimisation Strategy Cheat Sheet: aim for a few "
                                                "tens to a few hundreds of instructions per item")},
      fix="""Give each item more work (several outputs per item, or fuse neighbouring kernels) so the
      cost of setting up tasks is spread over a few tens of instructions or more.""")
def check(f, t):
    if not len(f.ops):
        return None
    per_item = f.ops["executions"].sum() / max(f.items_recorded, 1)
    if per_item >= t.instructions:
        return None
    return Hit({"instructions_per_item": round(float(per_item), 2), "suggested_min": int(t.instructions)})
