"""``tracekit targets list|show``: the shipped GPU models and every number's source."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.table import Table

from tracekit.cli.safe import cell, console
from tracekit.errors import MESSAGE_LIMIT

if TYPE_CHECKING:  # the models load when a targets command runs, not when the CLI starts
    from tracekit.targets.model import Target

SECTIONS = ("simd", "local_memory", "dram", "occupancy")


def _num(v) -> str:
    from tracekit.targets.throughput import format_value
    if isinstance(v, float):
        return format_value(v) if not v.is_integer() else str(int(v))
    if isinstance(v, tuple):
        return ", ".join(str(x) for x in v)
    return str(v)


def _cite(t: Target, key: str) -> str:
    """The field's source, with the reasoning appended when the value is also assumed."""
    src = t.sources.get(key, "")
    why = t.assumptions.get(key)
    if why and not src.startswith("assumed:"):
        src = f"{src}; assumed: {why}"
    return src


#: How a number stands: only a source, a source and an assumption, only an assumption.
SOURCED, PARTLY, ASSUMED, UNSUPPORTED = "sourced", "source+assumed", "ASSUMED", "unsupported"
_STYLE = {ASSUMED: "bold yellow", PARTLY: "yellow", UNSUPPORTED: "bold red"}


def status(t: Target, key: str) -> str:
    """Whether ``key``'s number is backed by a source, an assumption, or both."""
    if key.startswith("alu_cycles.") and key.split(".", 1)[1] in t.unsupported:
        return UNSUPPORTED
    if key in t.assumptions:
        return PARTLY if not t.sources.get(key, "").startswith("assumed:") else ASSUMED
    return SOURCED if key in t.sources else ""


def _field_rows(t: Target) -> list[tuple[str, str, str]]:
    """(key, value, source) for every sourced field, in the file's order of sections."""
    rows = []
    for key in ("compute_units", "clock_mhz", "transaction_bytes", "cache_lookup"):
        if key in t.sources:
            rows.append((key, _num(getattr(t, key)), _cite(t, key)))
    for sec in SECTIONS:
        obj = getattr(t, sec)
        for name in obj.__dataclass_fields__:
            key = f"{sec}.{name}"
            if key in t.sources:
                rows.append((key, _num(getattr(obj, name)), _cite(t, key)))
    for c in t.caches:
        for name in c.__dataclass_fields__:
            key = f"caches.{c.name}.{name}"
            if key in t.sources:
                rows.append((key, _num(getattr(c, name)), _cite(t, key)))
        rows.append((f"caches.{c.name}.sets", str(c.sets), "derived: size_bytes / (line_bytes x ways)"))
    if t.texture is not None:
        for name in ("tile_bytes", "tile_rows", "shared_with"):
            key = f"texture.{name}"
            if key in t.sources:
                rows.append((key, _num(getattr(t.texture, name)), _cite(t, key)))
        for c in t.texture.caches:
            for name in c.__dataclass_fields__:
                key = f"texture_caches.{c.name}.{name}"
                if key in t.sources:
                    rows.append((key, _num(getattr(c, name)), _cite(t, key)))
            rows.append((f"texture_caches.{c.name}.sets", str(c.sets),
                         "derived: size_bytes / (line_bytes x ways)"))
    for op, cyc in t.alu_cycles.items():
        key = f"alu_cycles.{op}"
        rows.append((key, _num(cyc), _cite(t, key)))
    for op in t.unsupported:
        key = f"alu_cycles.{op}"
        rows.append((key, "unsupported", _cite(t, key)))
    for table in ("alu_cycles_fast_math", "issue_pipes"):
        for op, value in getattr(t, table).items():
            key = f"{table}.{op}"
            rows.append((key, _num(value) if not isinstance(value, str) else value, _cite(t, key)))
    for name in t.launch.__dataclass_fields__:
        key = f"launch.{name}"
        if key in t.sources:
            rows.append((key, _num(getattr(t.launch, name)), _cite(t, key)))
    for key in t.sources:
        if key.startswith(("peak_throughput[", "math_classes.")):
            rows.append((key, "", _cite(t, key)))
    return rows


def register(app: typer.Typer) -> None:
    targets_app = typer.Typer(help="GPU target models: list them, show one with its sources.",
                              no_args_is_help=True)
    app.add_typer(targets_app, name="targets")

    @targets_app.command("list")
    def list_cmd() -> None:
        """Table of the shipped targets."""
        from tracekit.targets import list_targets, load_target
        table = Table("name", "vendor", "family", "CUs", "SIMD width", "clock MHz")
        for name in list_targets():
            t = load_target(name)
            widths = str(t.simd.width)
            if len(t.simd.widths) > 1:
                widths += " (" + "/".join(str(w) for w in t.simd.widths) + ")"
            table.add_row(cell(t.name), cell(t.vendor), cell(t.family), cell(t.compute_units), cell(widths),
                          cell(_num(t.clock_mhz)))
        console(width=200).print(table)

    @targets_app.command("show")
    def show_cmd(target: str = typer.Argument(..., help="shipped target name or path to a .toml")) -> None:
        """Every field of a target with its source, and its peak-throughput table."""
        from tracekit.targets import load_target
        from tracekit.targets.throughput import format_value, peak_throughput
        t = load_target(target)
        out = console(width=240)
        out.print(f"[bold]{cell(t.name)}[/]: {cell(t.description, MESSAGE_LIMIT)}\n"
                  f"vendor: {cell(t.vendor)}    family: {cell(t.family)}")
        rows = peak_throughput(t)
        if rows:
            peak = Table("data type", "operation", "ops/instr", "cycles/instr", "throughput", "unit",
                         title=cell(f"peak throughput at {_num(t.clock_mhz)} MHz x {t.compute_units} CUs x "
                                    f"{t.simd.issuers_per_cu * t.simd.lanes} lanes"))
            for r in rows:
                peak.add_row(cell(r.data_type), cell(r.operation), cell(_num(r.ops_per_instruction)),
                             cell(_num(r.cycles_per_instruction)), cell(format_value(r.value)), cell(r.unit))
            out.print(peak)
        fields = Table("key", "value", "status", "source", title="fields")
        counts: dict[str, int] = {}
        for key, value, src in _field_rows(t):
            st = status(t, key)
            counts[st] = counts.get(st, 0) + 1
            fields.add_row(cell(key), cell(value), st, cell(src, MESSAGE_LIMIT), style=_STYLE.get(st))
        out.print(fields)
        numbers = sum(n for st, n in counts.items() if st in (SOURCED, PARTLY, ASSUMED))
        out.print(f"{counts.get(ASSUMED, 0)} of {numbers} numbers are ASSUMED (no source), "
                  f"{counts.get(PARTLY, 0)} derive from a source through an assumption (source+assumed), "
                  f"{counts.get(SOURCED, 0)} are sourced"
                  + (f"; {counts[UNSUPPORTED]} instruction classes are unsupported" if counts.get(UNSUPPORTED)
                     else ""))
        general = {k: v for k, v in t.assumptions.items() if k not in t.sources}
        if general:
            out.print("[bold]assumptions[/]")
            for k, v in general.items():
                out.print(f"  {cell(k)}: {cell(v, MESSAGE_LIMIT)}")
