"""PVR-ASYNC-COPY: a global-to-local copy written by hand where async_work_group_copy bursts."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="PVR-ASYNC-COPY", title="Global-to-local copy by hand instead of async_work_group_copy",
      vendors=("powervr",), inputs=("patterns.staged_local_store_fraction", "launch.local_size"),
      citation=C("pvr", "System Memory Access"),
      thresholds={"staged": Threshold(0.5, "team choice: half the local stores copy a value the item has "
                                           "just loaded from global memory"),
                  "min_group": Threshold(17, "powervr System Memory Access: the work-group burst to the "
                                             "common store needs 17 or more items")},
      fix="""Fill the tile with async_work_group_copy and a compile-time work-group size of 17 or more
      items; the hardware then moves up to 4 KB per group in one burst instead of one load and
      store per item.""")
def check(f, t):
    frac = float(f.patterns.staged_local_store_fraction)
    if frac < t.staged or f.group_size < t.min_group:
        return None
    st = f.space("local", "store")
    return Hit({"staged_local_store_fraction": round(frac, 3), "work_group_size": f.group_size},
               sites=list(st.sort_values("site")["site"]))
