"""Validation of the optional image columns of ``accesses`` (texel coordinates, format, sampler).

Called by :mod:`tracekit.trace.validate` for every batch that has any of them; a trace
without image columns (every trace written before they existed) skips all of this.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc

from tracekit.trace import schema
from tracekit.trace.arrow_numpy import from_numpy, scalar
from tracekit.trace.columns import Bad, first_true, to_integer

_TEXELS = ("texel_x", "texel_y", "texel_z")


def _dictionary(col: pa.Array) -> pa.DictionaryArray:
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if pa.types.is_dictionary(col.type):
        return col
    return col.cast(pa.string()).dictionary_encode()


def _bad_values(col: pa.Array, ok: Callable[[str], bool], what: str, allowed: str) -> Bad | None:
    """The first non-null value of a string column that ``ok`` rejects."""
    d = _dictionary(col)
    codes = [i for i, v in enumerate(d.dictionary.to_pylist()) if v is not None and not ok(v)]
    if not codes:
        return None
    mask = pc.is_in(d.indices, value_set=from_numpy(codes, d.indices.type))
    mask = pc.fill_null(mask, scalar(False, pa.bool_()))
    i = first_true(mask)
    return Bad(i, repr(d[i].as_py()), f"unknown {what} (expected {allowed})", pc.sum(mask).as_py())


def _is_format(text: str) -> bool:
    order, sep, kind = text.partition(":")
    return bool(sep) and order in schema.CHANNEL_ORDERS and kind in schema.CHANNEL_TYPES


def check_image_columns(batch: pa.RecordBatch, space: pa.Array | None,
                        report: Callable[[Bad, str], None]) -> None:
    """Report bad values of the image columns of one batch through ``report(bad, column)``.

    ``space`` is the batch's ``space`` column (None if it failed its own check): texel
    coordinates are only meaningful on ``image`` rows.
    """
    names = set(batch.schema.names)
    for col in _TEXELS:
        if col in names:
            values = batch.column(col)
            _, b = to_integer(values.fill_null(scalar(0, values.type)), pa.int32(), what=col, minimum=0)
            if b:
                report(b, col)
    vocab = (("image_format", _is_format, "image format",
              "ORDER:TYPE, e.g. rgba:float; orders " + ", ".join(schema.CHANNEL_ORDERS)
              + "; types " + ", ".join(schema.CHANNEL_TYPES)),
             ("sampler_addressing", lambda v: v in schema.SAMPLER_ADDRESSING, "sampler addressing mode",
              ", ".join(schema.SAMPLER_ADDRESSING)),
             ("sampler_filter", lambda v: v in schema.SAMPLER_FILTERS, "sampler filter",
              ", ".join(schema.SAMPLER_FILTERS)))
    for col, ok, what, allowed in vocab:
        if col in names:
            b = _bad_values(batch.column(col), ok, what, allowed)
            if b:
                report(b, col)
    if space is None:
        return
    present = [c for c in _TEXELS if c in names]
    if not present:
        return
    has = pc.is_valid(batch.column(present[0]))
    for c in present[1:]:
        has = pc.or_(has, pc.is_valid(batch.column(c)))
    sp = _dictionary(space).cast(pa.string())
    not_image = pc.fill_null(pc.not_equal(sp, scalar("image", pa.string())), scalar(True, pa.bool_()))
    wrong = pc.and_(has, not_image)
    i = first_true(wrong)
    if i is not None:
        report(Bad(i, repr(sp[i].as_py()), "texel coordinates on a row whose space is not image",
                   pc.sum(wrong).as_py()), present[0])
