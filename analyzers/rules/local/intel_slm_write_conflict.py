"""INTEL-SLM-WRITE-CONFLICT: SLM stores of one SIMD chunk land in the same bank."""

from analyzers.rules.local.bank_conflict import DEGREE, conflicts
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import rule


@rule(id="INTEL-SLM-WRITE-CONFLICT", what_if="pad-local",
      title="SLM stores from one SIMD chunk land in the same bank",
      vendors=("intel",), inputs=("sites.conflict_degree_mean",),
      citation=C("intel", "Kernel Memory Access Optimization Summary"), thresholds={"degree": DEGREE},
      fix="""Give each item its own bank for stores (consecutive items write consecutive words), and
      avoid many items writing the same SLM word; same-bank writes serialise even at one address.""")
def check(f, t):
    return conflicts(f, ["store", "atomic"], t.degree)
