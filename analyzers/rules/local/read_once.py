"""GEN-LOCAL-READ-ONCE: data staged in local memory is read once or twice per word."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule, vendor_key
from analyzers.whatif.changes import DropStaging


@rule(id="GEN-LOCAL-READ-ONCE", what_if="drop-staging",
      title="Local memory holds data read only once or twice",
      vendors=("powervr", "adreno", "intel"), inputs=("patterns.local_reads_per_word",),
      citation={"powervr": C("pvr", "Use Shared/Local Memory Sensibly"),
                "adreno": C("adreno", "7.1.2 Local memory"),
                "intel": C("intel", "__local Memory")},
      thresholds={"reads_per_word": Threshold(1.0, "powervr Use Shared/Local Memory Sensibly and intel "
                                                   "__local Memory: a local word read once on average is "
                                                   "staging without reuse"),
                  "reads_per_word_adreno": Threshold(2.0, "adreno §7.1.2: local memory pays off only for "
                                                          "data read more than twice"),
                  "stores_per_word": Threshold(1.0, "team choice: a copy of global data is written once per "
                                                    "word; words written again hold values computed in the "
                                                    "group (a reduction tree, a scan), which global memory "
                                                    "cannot serve")},
      fix="""Staging through local memory pays only when several items reuse each word; read this data
      straight from global memory (the caches serve it) and drop the copy and its barrier.""")
def check(f, t):
    p = f.patterns
    if not p.local_words_stored:
        return None
    limit = t.reads_per_word_adreno if vendor_key(f.target) == "adreno" else t.reads_per_word
    rpw = float(p.local_reads_per_word)
    if rpw > limit:
        return None
    # staging that can be dropped is a copy; a word rewritten in the group carries partial results
    # passed between items (reduction trees), and reading global memory instead cannot replace it
    if p.local_stores > t.stores_per_word * p.local_words_stored:
        return None
    df = f.space("local")
    saved = f.alu_seconds(float(df["local_cycles"].sum()))
    ev = {"reads_per_word": round(rpw, 3), "limit": limit, "words_stored": int(p.local_words_stored),
          "stores": int(p.local_stores)}
    return Hit(ev, sites=list(df.sort_values("site")["site"]), gain_s=f.gain_alu(saved), change=DropStaging())
