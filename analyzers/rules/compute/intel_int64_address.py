"""INTEL-INT64-ADDRESS: the machine code computes on 64-bit integers (size_t indices, long arithmetic)."""

from analyzers.rules.machine_facts import machine, machine_lines, number, sites_on
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule
from analyzers.whatif.machine import Int32Index


@rule(id="INTEL-INT64-ADDRESS", title="64-bit integer index arithmetic in the machine code",
      vendors=("intel",), what_if="int32-index",
      inputs=("machine_code.int64_cycles", "machine_code.int64_saving_cycles", "machine_code.machine_cycles",
              "machine_code.lines"),
      citation=C("intel", "Avoid Spurious Operations in Kernel Code"),
      thresholds={"share": Threshold(0.05, "team choice: 64-bit integer instructions taking a twentieth of "
                                           "the machine cycles are worth a look; fewer are the odd pointer "
                                           "computation every kernel has")},
      fix="""Index with int or uint where the index fits 32 bits: store get_global_id() and sizes in int
      variables and pass counts as uint.  The 64-bit forms run two registers per value, need widening
      moves, and turn a division or remainder into a long software sequence.""")
def check(f, t):
    m = machine(f)
    if m is None or m.priced_by != "machine_code":
        return None
    cycles, wide = number(m, "machine_cycles"), number(m, "int64_cycles")
    if not cycles or not wide:
        return None
    share = wide / cycles
    if share < t.share:
        return None
    lines = machine_lines(f)
    hot = lines[lines["int64_executed"].fillna(0) > 0]
    hot = hot.sort_values(["int64_executed", "label"], ascending=[False, True])
    ev = {"int64_share_of_machine_cycles": round(share, 4),
          "int64_instructions_static": int(number(m, "int64_instructions")), "lines": list(hot["label"])[:6]}
    # priced by replaying the machine code with its 64-bit integer arithmetic at 32 bits and the
    # widening moves gone (analyzers/whatif/machine.py); 64-bit division sequences keep their length
    return Hit(ev, sites=sites_on(f, hot), change=Int32Index())
