"""Small inline-SVG charts for reports: bars, a log-log roofline, a meter.

Charts are generated here rather than by a plotting library so the report stays
one self-contained file with no scripts and no fetched resources, and renders
the same in a browser and in WeasyPrint.  Every label goes through
:func:`markupsafe.escape` (labels are source-file names from untrusted traces);
the result is :class:`markupsafe.Markup`, safe to place in an autoescaped template.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from markupsafe import Markup, escape

from tracekit.report.fmt import fmt_num, fmt_si

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
INK, MUTED, GRID = "#1f2933", "#616e7c", "#e4e7eb"
PALETTE = ("#2563eb", "#d97706", "#7c3aed", "#059669", "#dc2626", "#0891b2")
VERDICT_COLORS = {"memory": "#2563eb", "alu": "#d97706", "latency": "#7c3aed"}


def _f(x: float) -> str:
    """Coordinates with two decimals: small output, byte-identical across runs."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _svg(width: float, height: float, body: list[str], title: str) -> Markup:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{_f(width)}" '
            f'height="{_f(height)}" viewBox="0 0 {_f(width)} {_f(height)}" font-family="{FONT}" '
            f'font-size="11"><title>{escape(title)}</title>')
    return Markup(head + "".join(body) + "</svg>")


def _text(x: float, y: float, text: str, *, anchor: str = "start", fill: str = INK,
          size: float | None = None, weight: str | None = None) -> str:
    extra = f' font-size="{_f(size)}"' if size else ""
    extra += f' font-weight="{weight}"' if weight else ""
    return (f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" fill="{fill}"{extra}>'
            f"{escape(text)}</text>")


def _clip(label: str, limit: int) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1):]


def _color(colors: Sequence[str] | Mapping[str, str] | None, i: int, label: str) -> str:
    """A bar's colour: by label (its first word) from a mapping, else by position."""
    if isinstance(colors, Mapping):
        return colors.get(label, colors.get(label.split(" ")[0], PALETTE[0]))
    return colors[i % len(colors)] if colors else PALETTE[0]


def hbar_chart(rows: Sequence[tuple[str, float]], *, title: str, value_fmt: Callable = fmt_num,
               ref: float | None = None, ref_label: str = "", max_value: float | None = None,
               colors: Sequence[str] | Mapping[str, str] | None = None, width: float = 520,
               label_width: float = 150, bar_height: float = 16) -> Markup:
    """Horizontal bars, one per (label, value), with an optional dashed reference line."""
    rows = [(str(lab), float(v)) for lab, v in rows if v is not None and math.isfinite(float(v))]
    top, gap, value_w = 22.0, 6.0, 70.0
    height = top + max(1, len(rows)) * (bar_height + gap) + (18 if ref is not None else 6)
    plot_w = width - label_width - value_w
    vmax = max([v for _, v in rows] + [ref or 0.0, max_value or 0.0, 1e-30])
    body = [_text(0, 13, title, weight="bold", size=12)]
    if not rows:
        body.append(_text(label_width, top + 12, "no data", fill=MUTED))
    for i, (label, value) in enumerate(rows):
        y = top + i * (bar_height + gap)
        w = max(0.0, plot_w * value / vmax)
        color = _color(colors, i, label)
        body.append(_text(label_width - 6, y + bar_height - 4, _clip(label, 24), anchor="end"))
        body.append(f'<rect x="{_f(label_width)}" y="{_f(y)}" width="{_f(plot_w)}" '
                    f'height="{_f(bar_height)}" fill="{GRID}" opacity="0.5"/>')
        body.append(f'<rect x="{_f(label_width)}" y="{_f(y)}" width="{_f(w)}" '
                    f'height="{_f(bar_height)}" fill="{color}" rx="2"/>')
        body.append(_text(label_width + plot_w + 6, y + bar_height - 4, value_fmt(value)))
    if ref is not None:
        x = label_width + plot_w * ref / vmax
        y1 = top + max(1, len(rows)) * (bar_height + gap)
        body.append(f'<line x1="{_f(x)}" y1="{_f(top - 3)}" x2="{_f(x)}" y2="{_f(y1)}" '
                    f'stroke="{INK}" stroke-dasharray="4 3" stroke-width="1"/>')
        body.append(_text(x, y1 + 12, ref_label, anchor="middle", fill=MUTED, size=10))
    return _svg(width, height, body, title)


def meter(fraction: float | None, *, label: str, width: float = 250, height: float = 34) -> Markup:
    """A 0..100 % bar: green when high, amber in the middle, red when low."""
    body = [_text(0, 11, label, fill=MUTED, size=10)]
    bar_y, bar_h = 16.0, 12.0
    body.append(f'<rect x="0" y="{_f(bar_y)}" width="{_f(width - 64)}" height="{_f(bar_h)}" '
                f'fill="{GRID}" rx="3"/>')
    if fraction is None or not math.isfinite(fraction):
        body.append(_text(width, bar_y + 10, "–", anchor="end"))
    else:
        frac = min(1.0, max(0.0, float(fraction)))
        color = "#059669" if frac >= 0.75 else ("#d97706" if frac >= 0.4 else "#dc2626")
        body.append(f'<rect x="0" y="{_f(bar_y)}" width="{_f((width - 64) * frac)}" '
                    f'height="{_f(bar_h)}" fill="{color}" rx="3"/>')
        body.append(_text(width, bar_y + 10, f"{100 * frac:.1f} %", anchor="end", weight="bold"))
    return _svg(width, height, body, label)


def _log_ticks(lo: float, hi: float) -> list[float]:
    return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def roofline(peak_ops: float | None, roofs: Sequence[tuple[str, float]], intensity: float | None,
             achieved: float | None, *, title: str, width: float = 440, height: float = 270,
             point_color: str = PALETTE[4]) -> Markup:
    """Log-log roofline: attainable ops/s against ops per byte, one roof per memory level."""
    roofs = [(str(n), float(bw)) for n, bw in roofs if bw and bw > 0]
    if not peak_ops or peak_ops <= 0 or not roofs:
        body = [_text(0, 13, title, weight="bold", size=12),
                _text(10, 40, "roofline unavailable: no peak rate or bandwidth", fill=MUTED)]
        return _svg(width, 60, body, title)
    ridges = [peak_ops / bw for _, bw in roofs]
    xs = ridges + ([intensity] if intensity and intensity > 0 else [])
    x_lo = 10.0 ** math.floor(math.log10(min(xs) / 8))
    x_hi = 10.0 ** math.ceil(math.log10(max(xs) * 8))
    ys = [peak_ops, min(bw for _, bw in roofs) * x_lo]
    if achieved and achieved > 0:
        ys.append(achieved)
    y_lo = 10.0 ** math.floor(math.log10(min(ys)))
    y_hi = 10.0 ** math.ceil(math.log10(peak_ops * 1.5))
    left, right, top, bottom = 56.0, 12.0, 26.0, 40.0
    pw, ph = width - left - right, height - top - bottom

    def px(x: float) -> float:
        return left + pw * (math.log10(x) - math.log10(x_lo)) / (math.log10(x_hi) - math.log10(x_lo))

    def py(y: float) -> float:
        y = min(max(y, y_lo), y_hi)
        return top + ph * (1 - (math.log10(y) - math.log10(y_lo)) / (math.log10(y_hi) - math.log10(y_lo)))

    body = [_text(0, 13, title, weight="bold", size=12),
            f'<rect x="{_f(left)}" y="{_f(top)}" width="{_f(pw)}" height="{_f(ph)}" fill="#fbfcfd" '
            f'stroke="{GRID}"/>']
    for t in _log_ticks(x_lo, x_hi):
        if x_lo <= t <= x_hi:
            body.append(f'<line x1="{_f(px(t))}" y1="{_f(top)}" x2="{_f(px(t))}" y2="{_f(top + ph)}" '
                        f'stroke="{GRID}"/>')
            body.append(_text(px(t), top + ph + 13, fmt_num(t) if t >= 1 else f"{t:g}",
                              anchor="middle", fill=MUTED, size=9))
    for t in _log_ticks(y_lo, y_hi):
        if y_lo <= t <= y_hi:
            body.append(f'<line x1="{_f(left)}" y1="{_f(py(t))}" x2="{_f(left + pw)}" y2="{_f(py(t))}" '
                        f'stroke="{GRID}"/>')
            body.append(_text(left - 4, py(t) + 3, fmt_si(t), anchor="end", fill=MUTED, size=9))
    body.append(_text(left + pw / 2, height - 8, "operational intensity (ops per DRAM byte)",
                      anchor="middle", fill=MUTED, size=10))
    body.append(f'<text transform="translate(12 {_f(top + ph / 2)}) rotate(-90)" text-anchor="middle" '
                f'fill="{MUTED}" font-size="10">ops per second</text>')
    for i, (name, bw) in enumerate(roofs):
        ridge = peak_ops / bw
        color = PALETTE[i % len(PALETTE)] if i else INK
        x0 = x_lo
        stroke = 2 if i == len(roofs) - 1 else 1.2
        body.append(f'<polyline fill="none" stroke="{color}" stroke-width="{stroke}" '
                    f'points="{_f(px(x0))},{_f(py(bw * x0))} {_f(px(ridge))},{_f(py(peak_ops))}"/>')
        lx = x_lo * 1.4
        body.append(_text(px(lx) + 2, py(bw * lx) - 4, f"{name} {fmt_si(bw, 'B/s')}", fill=color, size=9))
    body.append(f'<line x1="{_f(px(min(ridges)))}" y1="{_f(py(peak_ops))}" x2="{_f(left + pw)}" '
                f'y2="{_f(py(peak_ops))}" stroke="{INK}" stroke-width="2"/>')
    body.append(_text(left + pw - 2, py(peak_ops) - 5, f"ALU peak {fmt_si(peak_ops, 'op/s')}",
                      anchor="end", size=9))
    if intensity and intensity > 0 and achieved and achieved > 0:
        cx, cy = px(intensity), py(achieved)
        body.append(f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="5" fill="{point_color}" stroke="white" '
                    f'stroke-width="1.5"/>')
        body.append(_text(cx + 8, cy + 4, "kernel", fill=point_color, size=10, weight="bold"))
    return _svg(width, height, body, title)
