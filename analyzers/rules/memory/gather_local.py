"""GEN-GATHER-LOCAL: a gather whose work-group keeps coming back to one window of the array."""

from analyzers.rules.gather_facts import hottest_read_only_gather
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, rule
from analyzers.whatif.stage import StageLocal


@rule(id="GEN-GATHER-LOCAL", what_if="stage-local",
      title="Data-dependent reads through the buffer path: stage the work-group's window in local memory",
      inputs=("sites.accesses", "sites.bytes_moved", "dataflow", "ops.role"),
      citation={"powervr": C("pvr", "Use Shared/Local Memory Sensibly"),
                "adreno": C("adreno", "6.5 Local memory"),
                "intel": C("intel", "__local Memory"),
                "nvidia": C("cuda", "Shared Memory")},
      fix="""When the elements one work-group reads through loaded indices lie in a window it can
      bound (a look-up table, the block of CSR entries its rows own, a band of a matrix, a tile of a
      mesh), copy that window into a local array first, every item loading neighbouring elements in
      turn, put a barrier after the copy, and read from the local array: scattered lanes then cost
      bank conflicts instead of transactions and cache lines.  It pays only where the group reads the
      window's elements more often than the copy moves them, or reads them scattered.""")
def check(f, t):
    ev = hottest_read_only_gather(f)
    if ev is None:
        return None
    # a candidate: only a replay in which the copy costs less than the gathers it serves keeps it
    return Hit(ev, sites=[ev["site"]], change=StageLocal(ev["site"]))
