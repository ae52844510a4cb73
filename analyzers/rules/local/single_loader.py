"""GEN-LOCAL-SINGLE-LOADER: a few items fill the local tile while the rest of the group waits."""

from analyzers.rules.rule import Citation as C
from analyzers.rules.rule import Hit, Threshold, rule


@rule(id="GEN-LOCAL-SINGLE-LOADER", title="A few items fill the local tile while the rest wait",
      vendors=("powervr", "adreno", "intel"),
      inputs=("patterns.local_storing_items_per_group", "patterns.local_stores_per_storing_item"),
      citation={"powervr": C("pvr", "Use Shared/Local Memory Sensibly"),
                "adreno": C("adreno", "7.1.2 Local memory"),
                "intel": C("intel", "Applying Shared Local Memory")},
      thresholds={"fraction": Threshold(0.125, "intel Applying Shared Local Memory: local stores from at "
                                               "most one item in eight mean a few items fill the tile while "
                                               "the rest wait"),
                  "stores_per_item": Threshold(4, "team choice: a storing item writes four or more words, so "
                                                  "the copy is a loop rather than one store")},
      fix="""Spread the copy over the whole group: item i copies elements i, i + group size, ... (one
      each when the tile matches the group), then one barrier.""")
def check(f, t):
    p, size = f.patterns, f.group_size
    storing = float(p.local_storing_items_per_group)
    if not p.local_stores or size < 8 or storing > t.fraction * size:
        return None
    if p.local_stores_per_storing_item < t.stores_per_item:
        return None
    st = f.space("local", "store")
    return Hit({"storing_items_per_group": round(storing, 2), "work_group_size": size,
                "stores_per_storing_item": round(float(p.local_stores_per_storing_item), 2)},
               sites=list(st.sort_values("site")["site"]))
