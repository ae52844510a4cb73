"""INTEL-SPILL-SCRATCH: the compiled kernel spills registers to scratch memory."""

from analyzers.rules.machine_facts import machine, machine_lines, number, sites_on
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.machine import NoSpills


@rule(id="INTEL-SPILL-SCRATCH", title="Registers spilled to scratch memory (spill and fill messages)",
      vendors=("intel",), what_if="no-spills",
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
    # priced by replaying the machine code without its spill and fill messages (their cycles and
    # their bytes through the first cache go; analyzers/whatif/machine.py)
    return Hit(ev, sites=sites_on(f, lines), change=NoSpills())
