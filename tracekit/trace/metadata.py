"""The ``metadata`` column of the launches table: one JSON object per launch, read in one place.

Writers put address layout, work-group sampling, recorder status and notes there
(docs/trace-format.md).  Readers (summary, geometry, what-if replay) take the parsed
object from :func:`parse`; anything that is not a JSON object, or a ``sampling``
entry whose counts are not whole numbers, is bad input named by file, launch and
column, not an exception deep inside an analyzer.
"""

from __future__ import annotations

import json

import pyarrow as pa

from tracekit.errors import TraceFormatError
from tracekit.trace import limits

#: Counts of ``sampling`` that analyzers turn into numbers.
_SAMPLING_COUNTS = ("total_groups", "groups_recorded", "n", "k", "seed")


def parse(text: str | None, *, path: str | None = None, launch: int | None = None) -> dict:
    """The metadata object of one launch ({} when empty)."""
    if text is None or not str(text).strip():
        return {}
    where = "launches table" + (f", launch {launch}" if launch is not None else "")

    def bad(why: str) -> TraceFormatError:
        return TraceFormatError(f"{where}: {why}", path=path, column="metadata",
                                hint="metadata is a JSON object such as {\"sampling\": {\"mode\": \"all\"}}")

    if len(text) > limits.MAX_METADATA_BYTES:
        raise bad(f"is {len(text):,} characters long, more than the {limits.MAX_METADATA_BYTES:,} a launch's "
                  "metadata may take (docs/trace-format.md, Limits)")
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise bad(f"is not valid JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise bad(f"is JSON {type(meta).__name__} {_short(text)}, expected an object")
    sampling = meta.get("sampling")
    if sampling is not None:
        if not isinstance(sampling, dict):
            raise bad(f"'sampling' is {_short(json.dumps(sampling))}, expected an object")
        for key in _SAMPLING_COUNTS:
            v = sampling.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise bad(f"'sampling.{key}' is {_short(json.dumps(v))}, expected a whole number >= 0")
    return meta


def check_table(launches: pa.Table, path: str | None = None) -> None:
    """Parse every launch's metadata once, so a bad one is reported when the trace is opened."""
    if "metadata" not in launches.column_names:
        return
    for launch, text in zip(launches["launch"].to_pylist(), launches["metadata"].to_pylist(), strict=True):
        parse(text, path=path, launch=launch)


def _short(text: str, limit: int = 40) -> str:
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."
