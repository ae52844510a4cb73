"""The terminal view of ``tracekit analyze``: a table row per (launch, target), then the checklist.

Built from the same JSON document the ``json`` format writes, so the two never
disagree; the table only chooses what a person scanning for the bottleneck needs
(the verdict and how clear it is, the time terms behind it, SIMD utilisation and
occupancy), and the checklist the top fixes of each launch on each target, with
the gain the model expects and the guide section behind each.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tracekit.cli.safe import cell
from tracekit.errors import MESSAGE_LIMIT
from tracekit.report.fmt import fmt_time

_VERDICT_STYLE = {"alu": "bold magenta", "memory": "bold blue", "latency": "bold yellow"}
_SEV_STYLE = {"high": "bold red", "medium": "yellow", "low": "white", "note": "dim"}
#: Fixes shown per (launch, target); the JSON and the reports carry all of them.
TOP_FINDINGS = 3


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _time(x) -> str:
    return fmt_time(x, plain=True)


def _margin(launch: dict) -> str:
    ev = launch.get("evidence") or {}
    m, other = ev.get("verdict_margin"), ev.get("runner_up")
    if m is None or not other:
        return "-"
    text = f"{m:.2g}x {cell(other)}"
    return f"[yellow]{text} (close)[/]" if m < 1.25 else text


def _alu_view(launch: dict) -> str:
    """Which code the ALU time prices: Intel's machine code, the optimizing compile's view, or the IR."""
    if (launch.get("machine_code") or {}).get("priced_by") == "machine_code":
        return " (machine code)"
    if launch.get("compiled_view"):
        return " (O3)"
    return ""


def _launch_cells(launch: dict) -> list[str]:
    if launch.get("error"):
        return [f"[red]refused:[/] {cell(launch['error'], MESSAGE_LIMIT)}", *[""] * 7]
    t = launch.get("time_estimates", {})
    verdict = launch.get("bound") or ""
    mem = _time(t.get("memory_s"))
    if t.get("memory_bottleneck"):
        mem += f" ({cell(t['memory_bottleneck'])})"
    occ = launch.get("occupancy", {})
    occ_text = _pct(occ.get("occupancy"))
    if occ.get("limiting_factor"):
        occ_text += f" ({cell(occ['limiting_factor'])})"
    style = _VERDICT_STYLE.get(verdict, "")
    shown = f"[{style}]{cell(verdict)}[/]" if style else cell(verdict)
    return [shown, _margin(launch), _time(t.get("total_s")), _time(t.get("alu_s")) + _alu_view(launch), mem,
            _time(t.get("latency_s")), _pct(launch.get("simd", {}).get("utilization")), occ_text]


def render_table(doc: dict, console: Console) -> None:
    """Print the analysis document ``doc`` (see docs/json-schema.md): the table, then the checklist."""
    table = Table(title=cell(doc.get("trace", ""), None), title_justify="left")
    for col, justify in (("kernel", "left"), ("launch", "right"), ("target", "left"), ("verdict", "left"),
                         ("ahead of", "left"), ("time", "right"), ("ALU", "right"), ("memory", "right"),
                         ("latency", "right"), ("SIMD util.", "right"), ("occupancy", "right")):
        table.add_column(col, justify=justify)
    rows = []
    for target, res in doc.get("targets", {}).items():
        for launch in res.get("launches", []):
            key = (str(launch.get("kernel", "")), launch.get("launch", -1), target)
            rows.append((*key, _launch_cells(launch)))
    for kernel, number, target, cells in sorted(rows, key=lambda r: (r[0], r[1], r[2])):
        table.add_row(cell(kernel), str(number), cell(target), *cells)
    console.print(table)
    render_findings(doc, console)
    for w in doc.get("warnings", []):
        console.print(f"[yellow]warning:[/] {cell(w, MESSAGE_LIMIT)}")


def render_findings(doc: dict, console: Console) -> None:
    """The top checklist items of each (launch, target), largest estimated gain first."""
    groups: dict[tuple, list[dict]] = {}
    notes: dict[tuple, int] = {}
    for target, res in doc.get("targets", {}).items():
        for f in res.get("findings", []):
            key = (str(f.get("kernel")), int(f.get("launch", 0)), target)
            if f.get("kind") == "note":
                notes[key] = notes.get(key, 0) + 1
            else:
                groups.setdefault(key, []).append(f)
    if not groups and not notes:
        return
    console.print("\n[bold]Checklist[/] (largest estimated gain first; notes have no measurable gain)")
    for key in sorted(set(groups) | set(notes)):
        kernel, launch, target = key
        found = groups.get(key, [])
        console.print(f"[bold]{cell(kernel)}[/] #{launch} on [bold]{cell(target)}[/]:")
        if not found:
            console.print("  nothing with a measurable gain")
        for f in found[:TOP_FINDINGS]:
            sev = str(f.get("severity"))
            gain = f.get("estimated_gain_s")
            frac = f.get("estimated_gain_fraction")
            how = " replayed" if f.get("gain_method") == "replay" else ""
            where = ", ".join(f"{a}:{b}" for a, b in (f.get("sites") or [])[:2])
            title = cell(f.get("title"), MESSAGE_LIMIT)
            console.print(f"  [{_SEV_STYLE.get(sev, '')}]{cell(sev):<6}[/] {title}"
                          f" - saves {_time(gain)} ({_pct(frac)}{how})"
                          + (f" at {cell(where)}" if where else ""))
            console.print(f"         {cell(f.get('citation'), MESSAGE_LIMIT)}", style="dim")
        if len(found) > TOP_FINDINGS:
            console.print(f"  ... {len(found) - TOP_FINDINGS} more in the JSON or HTML report", style="dim")
        if notes.get(key):
            console.print(f"  {notes[key]} note(s) without a measurable gain", style="dim")


def render_what_if(doc: dict, console: Console) -> None:
    """Print a what-if document: every launch on every target before and after the change."""
    title = f"{cell(doc.get('trace', ''), None)}: {cell(doc.get('description', ''), MESSAGE_LIMIT)}"
    table = Table(title=title, title_justify="left")
    for col, justify in (("kernel", "left"), ("launch", "right"), ("target", "left"), ("before", "right"),
                         ("after", "right"), ("gain", "right"), ("verdict", "left"), ("replayed", "right")):
        table.add_column(col, justify=justify)
    for target, launches in doc.get("targets", {}).items():
        for w in launches:
            if w.get("error"):  # a launch with nothing to replay
                table.add_row(cell(w.get("kernel")), str(w.get("launch")), cell(target), "", "", "",
                              f"[red]{cell(w['error'], MESSAGE_LIMIT)}[/]", "")
                continue
            verdict = f"{cell(w.get('verdict_before'))} -> {cell(w.get('verdict_after'))}"
            if w.get("error_after"):
                verdict = f"[red]refused after:[/] {cell(w['error_after'], MESSAGE_LIMIT)}"
            gain = w.get("gain_fraction") or 0.0
            style = "green" if gain > 0.005 else ("red" if gain < -0.005 else "")
            table.add_row(cell(w.get("kernel")), str(w.get("launch")), cell(target),
                          _time(w.get("time_before_s")), _time(w.get("time_after_s")),
                          f"[{style}]{100 * gain:+.1f}%[/]" if style else f"{100 * gain:+.1f}%", verdict,
                          f"{w.get('groups_replayed')} of {w.get('groups_total')} groups")
    console.print(table)
