"""Reference implementation of the access-pattern facts, in plain pandas, for the tests.

:mod:`analyzers.replay.patterns` gathers the same facts in compiled passes inside the
streaming replay; ``tests/test_patterns.py`` checks the two agree on every sample
trace and on synthetic kernels.  This version reads a whole launch into pandas, so
it is the readable statement of what each fact means, not something to run on a
big trace.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def prepare(acc: pd.DataFrame, width: int) -> pd.DataFrame:
    """Sorted accesses with ``wave`` and ``occurrence`` (how often the item ran the site before)."""
    acc = acc.sort_values(["group", "item", "seq"], kind="stable").reset_index(drop=True)
    for c in ("space", "op"):
        acc[c] = acc[c].astype(str)
    acc["address"] = acc["address"].astype(np.int64)
    acc["size"] = acc["size"].astype(np.int64)
    acc["wave"] = acc["item"].astype(np.int64) // max(int(width), 1)
    acc["occurrence"] = acc.groupby(["group", "item", "site"], sort=False).cumcount()
    return acc


def _request_ids(acc: pd.DataFrame) -> np.ndarray:
    return acc.groupby(["group", "wave", "site", "occurrence"], sort=False).ngroup().to_numpy()


def transactions(acc: pd.DataFrame, tx_bytes: int) -> pd.DataFrame:
    """Per request of the non-local spaces: lanes, transactions, ideal transactions, misalignment."""
    g = acc[acc["space"] != "local"]
    if g.empty:
        return pd.DataFrame(columns=["site", "lanes", "transactions", "ideal", "span_ideal",
                                     "distinct", "bytes"])
    req = _request_ids(g)
    first = g["address"].to_numpy() // tx_bytes
    last = (g["address"].to_numpy() + g["size"].to_numpy() - 1) // tx_bytes
    n = (last - first + 1).astype(np.int64)
    seg = np.repeat(first, n) + (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
    segs = pd.DataFrame({"req": np.repeat(req, n), "seg": seg}).drop_duplicates()
    tx = segs.groupby("req").size()
    d = pd.DataFrame({"req": req, "site": g["site"].to_numpy(), "address": g["address"].to_numpy(),
                      "size": g["size"].to_numpy()})
    end = d["address"] + d["size"]
    d["end"] = end
    uniq = d.drop_duplicates(["req", "address"])
    per = d.groupby("req").agg(site=("site", "first"), lanes=("site", "size"),
                               lo=("address", "min"), hi=("end", "max"))
    u = uniq.groupby("req").agg(distinct=("address", "size"), bytes=("size", "sum"))
    per = per.join(u)
    per["transactions"] = tx.reindex(per.index).to_numpy()
    per["ideal"] = np.ceil(per["bytes"] / tx_bytes).astype(np.int64)
    span = per["hi"] - per["lo"]
    per["span_ideal"] = np.where(span == per["bytes"], np.ceil(span / tx_bytes), np.nan)
    return per.reset_index(drop=True)


def bank_conflicts(acc: pd.DataFrame, local) -> pd.DataFrame:
    """Per local request chunk (``lanes_per_cycle`` lanes): the bank conflict degree.

    The degree is the most distinct bank words any one bank must serve; same-word
    reads share a cycle when the target broadcasts, and same-bank writes always
    conflict under the strict write rule (``write_same_address_conflicts``).
    """
    loc = acc[acc["space"] == "local"]
    if loc.empty:
        return pd.DataFrame(columns=["site", "op", "degree"])
    word = loc["address"].to_numpy() // local.bank_width_bytes
    chunk = loc["item"].to_numpy() // max(local.lanes_per_cycle, 1)
    d = pd.DataFrame({"group": loc["group"].to_numpy(), "chunk": chunk, "site": loc["site"].to_numpy(),
                      "occ": loc["occurrence"].to_numpy(), "op": loc["op"].to_numpy(),
                      "bank": word % local.banks, "word": word, "item": loc["item"].to_numpy()})
    keys = ["group", "chunk", "site", "occ", "op", "bank"]
    strict = d["op"].ne("load") & bool(local.write_same_address_conflicts)
    per_bank = d.groupby(keys, sort=False).agg(words=("word", "nunique"), lanes=("item", "size"))
    per_bank = per_bank.reset_index()
    s = strict.groupby([d[k] for k in keys], sort=False).first().reset_index(drop=True)
    per_bank["need"] = np.where(s.to_numpy(), per_bank["lanes"], per_bank["words"])
    deg = per_bank.groupby(["group", "chunk", "site", "occ", "op"], sort=False)["need"].max()
    return deg.rename("degree").reset_index()[["site", "op", "degree"]]


def adjacency(acc: pd.DataFrame, vector_bytes: int) -> pd.Series:
    """Per access: True when the item's next access is an adjacent narrow load of the same space."""
    nxt_addr = acc["address"].shift(-1)
    same = (acc["group"].shift(-1) == acc["group"]) & (acc["item"].shift(-1) == acc["item"])
    same &= (acc["space"].shift(-1) == acc["space"]) & (acc["op"].shift(-1) == acc["op"])
    adj = same & (nxt_addr == acc["address"] + acc["size"]) & (acc["site"].shift(-1) != acc["site"])
    return adj & (acc["size"] < vector_bytes) & (acc["op"] == "load")


def loop_adjacency(acc: pd.DataFrame, vector_bytes: int) -> pd.Series:
    """Per access: True for a narrow global load that starts where the item's previous narrow global load
    at the same site ended (a loop walking memory)."""
    narrow = (acc["space"] == "global") & (acc["op"] == "load") & (acc["size"] < vector_bytes)
    g = acc[narrow]
    prev_end = (g["address"] + g["size"]).groupby([g["group"], g["item"], g["site"]], sort=False).shift(1)
    out = pd.Series(False, index=acc.index)
    out[g.index] = (g["address"] == prev_end).to_numpy()
    return out


def stencil_rows(acc: pd.DataFrame) -> pd.DataFrame:
    """Per global-load site set of one buffer: the median rows one item reads, row pitch and distinct
    addresses per row (2D stencil shape)."""
    g = acc[(acc["space"] == "global") & (acc["op"] == "load")]
    if g.empty:
        return pd.DataFrame(columns=["buffer", "rows", "pitch", "cols"])
    buf = g["buffer"].fillna(-1).astype(np.int64) if "buffer" in g else pd.Series(-1, index=g.index)
    d = pd.DataFrame({"group": g["group"], "item": g["item"], "buffer": buf, "address": g["address"],
                      "size": g["size"]}).drop_duplicates(["group", "item", "buffer", "address"])
    d = d.sort_values(["group", "item", "buffer", "address"], kind="stable")
    gap = d.groupby(["group", "item", "buffer"], sort=False)["address"].diff()
    d["big"] = gap > np.maximum(64, 4 * d["size"])
    d["gap"] = gap.where(d["big"])
    rows = d.groupby(["group", "item", "buffer"], sort=False).agg(rows=("big", "sum"), pitch=("gap",
            "median"), distinct=("address", "size"))
    rows["rows"] += 1
    rows["cols"] = rows["distinct"] / rows["rows"]
    return rows.groupby("buffer").agg(rows=("rows", "median"), pitch=("pitch", "median"),
                                      cols=("cols", "median")).reset_index()


def site_facts(acc: pd.DataFrame, target, vector_bytes: int) -> pd.DataFrame:
    """One row per site with accesses: counts, sizes, coalescing, conflicts, reuse patterns."""
    cols = dict(accesses=("address", "size"), items=("item", "nunique"), space=("space", "first"),
                op=("op", lambda s: s.mode().iat[0]), access_size=("size", "mean"))
    f = acc.groupby("site").agg(**cols)
    f["bytes_requested"] = acc.groupby("site")["size"].sum()
    f["buffer"] = (acc.groupby("site")["buffer"].first() if "buffer" in acc else np.nan)
    f["unaligned"] = (acc["address"] % acc["size"].clip(upper=4)).ne(0).groupby(acc["site"]).sum()
    f["adjacent"] = adjacency(acc, vector_bytes).groupby(acc["site"]).sum()
    f["loop_adjacent"] = loop_adjacency(acc, vector_bytes).groupby(acc["site"]).sum()
    per_item = acc.drop_duplicates(["group", "item", "site", "address"]).groupby("site").size()
    f["rereads_per_item"] = f["accesses"] / per_item
    addr_items = acc.drop_duplicates(["group", "item", "site", "address"]).groupby(["site", "address"]).size()
    f["max_items_one_address"] = addr_items.groupby(level="site").max()
    f["max_accesses_one_address"] = acc.groupby(["site", "address"]).size().groupby(level="site").max()
    tx = transactions(acc, int(target.transaction_bytes))
    if len(tx):
        r = tx.groupby("site").agg(requests=("lanes", "size"), transactions=("transactions", "sum"),
                                   ideal_transactions=("ideal", "sum"), lanes_per_request=("lanes", "mean"),
                                   distinct_per_request=("distinct", "mean"),
                                   uniform_requests=("distinct", lambda s: int((s == 1).sum())))
        mis = tx["span_ideal"].notna() & (tx["transactions"] > tx["span_ideal"])
        r["misaligned_requests"] = mis.groupby(tx["site"]).sum()
        f = f.join(r)
        f["bytes_moved"] = f["transactions"] * int(target.transaction_bytes)
    bc = bank_conflicts(acc, target.local_memory)
    if len(bc):
        b = bc.groupby("site").agg(local_requests=("degree", "size"), conflict_degree_mean=("degree", "mean"),
                                   local_cycles=("degree", "sum"))
        f = f.join(b)
    for c in ("requests", "transactions", "ideal_transactions", "misaligned_requests", "uniform_requests",
              "bytes_moved", "local_requests", "local_cycles"):
        f[c] = f[c].fillna(0).astype(np.int64) if c in f else 0
    for c in ("lanes_per_request", "distinct_per_request", "conflict_degree_mean"):
        if c not in f:
            f[c] = np.nan
    f["transactions_per_request"] = f["transactions"] / f["requests"].where(f["requests"] > 0)
    f["ideal_per_request"] = f["ideal_transactions"] / f["requests"].where(f["requests"] > 0)
    return f.reset_index()


def local_reuse(acc: pd.DataFrame) -> dict:
    """Loads per distinct stored local word (per work-group), and who stores them."""
    loc = acc[acc["space"] == "local"]
    stores = loc[loc["op"] == "store"]
    loads = loc[loc["op"] == "load"]
    words = stores.drop_duplicates(["group", "address"])
    storing_items = stores.groupby("group")["item"].nunique()
    return {
        "local_loads": int(len(loads)), "local_stores": int(len(stores)),
        "local_words_stored": int(len(words)),
        "local_reads_per_word": float(len(loads) / len(words)) if len(words) else float("nan"),
        "local_storing_items_per_group": float(storing_items.mean()) if len(storing_items) else 0.0,
        "local_stores_per_storing_item": float(len(stores) / storing_items.sum()) if len(stores) else 0.0,
    }


def staging(acc: pd.DataFrame) -> float:
    """Fraction of local stores whose item's previous access was a global load (manual copy-in)."""
    prev_space = acc["space"].shift(1)
    prev_op = acc["op"].shift(1)
    same = (acc["group"].shift(1) == acc["group"]) & (acc["item"].shift(1) == acc["item"])
    st = (acc["space"] == "local") & (acc["op"] == "store")
    if not st.any():
        return 0.0
    staged = st & same & (prev_space == "global") & (prev_op == "load")
    return float(staged.sum() / st.sum())


def footprint_bytes(acc: pd.DataFrame, tx_bytes: int) -> int:
    """Bytes of the distinct transactions (``tx_bytes`` segments) the launch's memory accesses touch:
    the least any cache could fetch from DRAM for this access stream."""
    g = acc[acc["space"].isin(["global", "constant", "image", "private"])]
    return int(pd.unique(g["address"].to_numpy() // tx_bytes).size * tx_bytes)
