"""INTEL-SPILL-SCRATCH: the compiled kernel spills registers to scratch memory."""

from analyzers.rules.machine_facts import (
    gain_without,
    level_seconds,
    machine,
    machine_lines,
    number,
    share_of_alu,
    sites_on,
)
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule


@rule(id="INTEL-SPILL-SCRATCH", title="Registers spilled to scratch memory (spill and fill messages)",
      vendors=("intel",),
      inputs=("machine_code.spill_fill", "machine_code.scratch_read_bytes",
              "machine_code.scratch_write_bytes", "machine_code.scratch_cycles", "machine_code.lines"),
      citation=C("intel", "__private Memory"),
      fix="""Keep fewer values live so they fit the thread's registers: index private arrays only with
      constants or shrink them, unroll less, split the kernel, or let a work-group share data through
      local memory.  Every spill and fill is a message through the L3, paid per work-item, with no
      locality between work-items.""")
def check(f, t):
    m = machine(f)
    if m is None or not m.spill_fill:
        return None
    lines = machine_lines(f)
    lines = lines[lines["listing"].str.contains("scratch", regex=False)]
    ev = {"scratch_bytes_per_thread": int(number(m, "scratch_bytes_per_thread")),
          "scratch_read_bytes": int(number(m, "scratch_read_bytes")),
          "scratch_write_bytes": int(number(m, "scratch_write_bytes")),
          "spill_lines": list(lines["label"])[:6], "simd_width": int(number(m, "simd_width")),
          "registers_used": f"{int(number(m, 'grf_used'))} of {int(number(m, 'grf_count'))}"}
    if m.priced_by != "machine_code":
        # The spill messages are in the code, but without a line table nothing says how often they
        # run: the finding stands on the compiler's own scratch size, unpriced.
        ev.update(scratch_read_bytes=None, scratch_write_bytes=None,
                  not_priced="the machine code maps to no source line (its -g build, which gives the "
                             "line table, may have compiled to other code), so how often the spill "
                             f"messages run is unknown: {m.reason}")
        return Hit(ev, sites=[])
    moved = number(m, "scratch_read_bytes") + number(m, "scratch_write_bytes")
    memory_s = level_seconds(f, 0, moved) if f.target.caches else 0.0
    gain = gain_without(f, alu_s=share_of_alu(f, m, number(m, "scratch_cycles")),
                        level=f.target.caches[0].name if f.target.caches else None, level_s=memory_s)
    ev["gain_from"] = "the spill and fill messages' cycles and their bytes at the first cache level"
    return Hit(ev, sites=sites_on(f, lines), gain_s=gain)
