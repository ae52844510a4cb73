"""ADR-LONG-KERNEL: one dispatch estimated to run beyond tens of milliseconds."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="ADR-LONG-KERNEL", title="Estimated kernel time beyond tens of milliseconds",
      vendors=("adreno",), inputs=("time.total_s",),
      citation=C("adreno", "3.3.2 Limit kernel/workgroup execution time on GPU"),
      thresholds={"seconds": Threshold(0.03, "adreno §3.3.2 Limit kernel/workgroup execution time on GPU: "
                                             "tens of milliseconds, with UI frames every ~30 ms")},
      fix="""Split the work over several shorter dispatches so the display and other clients get the
      GPU between them and no watchdog reset is risked.""")
def check(f, t):
    total = f.times["total_s"]
    if total <= t.seconds:
        return None
    return Hit({"estimated_s": round(total, 6), "limit_s": t.seconds})
