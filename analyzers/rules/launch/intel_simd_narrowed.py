"""INTEL-SIMD-NARROWED: the compiler built the kernel narrower than usual because its registers ran out."""

from analyzers.rules.machine_facts import machine, number
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="INTEL-SIMD-NARROWED", title="Kernel compiled SIMD8 because of register pressure",
      vendors=("intel",),
      inputs=("machine_code.simd_width", "machine_code.target_width", "machine_code.grf_used",
              "machine_code.grf_count", "occupancy.limiting_factor"),
      citation=C("intel", "Execution of OpenCL Work-Items: the SIMD Machine"),
      thresholds={"grf_share": Threshold(0.75, "team choice: a kernel whose listing touches three quarters "
                                               "or more of a thread's registers is one the compiler narrowed "
                                               "to fit, not one it chose narrow for another reason")},
      fix="""Cut the values each work-item keeps live at once, so the compiler can give a hardware thread
      16 or 32 work-items again: shorten private arrays, unroll less, recompute cheap values instead of
      keeping them, and split long kernels.  A narrower build runs half the work-items per thread, so
      the same work needs twice the threads and their register files.""")
def check(f, t):
    m = machine(f)
    if m is None or not m.narrowed or not number(m, "grf_count"):
        return None
    used = number(m, "grf_used") / number(m, "grf_count")
    if used < t.grf_share:
        return None
    occ = f.occupancy
    ev = {"simd_width": int(number(m, "simd_width")), "usual_width": int(number(m, "target_width")),
          "registers_used": f"{int(number(m, 'grf_used'))} of {int(number(m, 'grf_count'))}",
          "registers_per_item": int(number(m, "registers_per_item")), "spills": bool(m.spill_fill),
          "occupancy_limited_by": str(occ.limiting_factor) if occ is not None else None,
          "not_priced": "a wider build is another program; the model prices the code the compiler made"}
    return Hit(ev, sites=[])
