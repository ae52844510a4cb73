"""The terminal view of ``tracekit analyze``: one table row per (launch, target).

Built from the same JSON document the ``json`` format writes, so the two never
disagree; the table only chooses what a person scanning for the bottleneck
needs: the verdict, the time terms behind it, SIMD utilisation and occupancy.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tracekit.report.fmt import fmt_time

_VERDICT_STYLE = {"alu": "bold magenta", "memory": "bold blue", "latency": "bold yellow"}


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def render_table(doc: dict, console: Console) -> None:
    """Print the analysis document ``doc`` (see docs/json-schema.md) as a table."""
    table = Table(title=f"{escape(str(doc.get('trace', '')))}", title_justify="left")
    for col, justify in (("kernel", "left"), ("launch", "right"), ("target", "left"), ("verdict", "left"),
                         ("time", "right"), ("ALU", "right"), ("memory", "right"), ("latency", "right"),
                         ("SIMD util.", "right"), ("occupancy", "right")):
        table.add_column(col, justify=justify)
    rows = []
    for target, res in doc.get("targets", {}).items():
        for err in res.get("errors", []):
            rows.append((str(err.get("kernel", "")), err.get("launch", -1), target,
                         ["", "", f"[red]error:[/] {escape(str(err.get('error', err)))}", *[""] * 6]))
        for launch in res.get("launches", []):
            kernel, number = str(launch.get("kernel", "")), launch.get("launch", -1)
            if launch.get("error"):
                cells = [f"[red]error:[/] {escape(str(launch['error']))}", *[""] * 6]
            else:
                t = launch.get("time_estimates", {})
                verdict = launch.get("bound", "")
                mem = fmt_time(t.get("memory_s"), plain=True)
                if t.get("memory_bottleneck"):
                    mem += f" ({escape(str(t['memory_bottleneck']))})"
                occ = launch.get("occupancy", {})
                occ_text = _pct(occ.get("occupancy"))
                if occ.get("limiting_factor"):
                    occ_text += f" ({escape(str(occ['limiting_factor']))})"
                style = _VERDICT_STYLE.get(verdict, "")
                cells = [f"[{style}]{escape(verdict)}[/]" if style else escape(verdict),
                         fmt_time(t.get("total_s"), plain=True), fmt_time(t.get("alu_s"), plain=True), mem,
                         fmt_time(t.get("latency_s"), plain=True),
                         _pct(launch.get("simd", {}).get("utilization")), occ_text]
            rows.append((kernel, number, target, cells))
    for kernel, number, target, cells in sorted(rows, key=lambda r: (r[0], r[1], r[2])):
        table.add_row(escape(kernel), str(number), escape(target), *cells)
    console.print(table)
    for w in doc.get("warnings", []):
        console.print(f"[yellow]warning:[/] {escape(str(w))}")
