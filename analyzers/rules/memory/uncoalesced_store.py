"""GEN-UNCOALESCED-STORE: a wave's stores are scattered over more lines than their bytes need."""

from analyzers.rules.memory.uncoalesced_load import COALESCE, RATIO, uncoalesced
from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import rule


@rule(id="GEN-UNCOALESCED-STORE", what_if="coalesce", title="Uncoalesced global stores",
      inputs=("sites.transactions", "sites.ideal_transactions", "sites.misaligned_requests",
              "sites.cache_units", "sites.ideal_cache_units", "sites.bytes_requested", "sites.bytes_moved"),
      citation={**COALESCE, "adreno": C("adreno", "7.6 Improve the GPU’s L1/L2 cache usage")},
      thresholds={"ratio": RATIO},
      fix="""Make each wave write one contiguous block (transpose through local memory if the
      algorithm scatters); scattered partial-line writes cost a line each.""")
def check(f, t):
    return uncoalesced(f, "store", t.ratio)
