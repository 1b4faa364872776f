"""A chart of an analytical run for people who would rather look: accuracy per record type
(rows) and n (columns) as a grid of coloured cells, an SVG written next to the report
(`<report>.svg`). Plain text, no plotting library; the same rows give the same bytes."""

from __future__ import annotations

from html import escape
from pathlib import Path

from factlog.durable import replace_file
from runtime.eval_report import CaseRow

CELL_W, CELL_H, LABEL_W, HEAD_H = 72, 28, 140, 44


def _colour(rate: float) -> str:
    """Red (0) through yellow to green (1)."""
    red = 220 if rate < 0.5 else int(220 - (rate - 0.5) * 2 * 180)
    green = int(60 + rate * 2 * 130) if rate < 0.5 else 190
    return f"#{red:02x}{green:02x}50"


def accuracy_svg(rows: list[CaseRow], title: str) -> str:
    cells: dict[tuple[str, str], list[bool]] = {}
    for row in rows:
        kind, n = row.extra.get("type"), row.extra.get("n")
        if kind is None or n is None:
            continue
        cells.setdefault((str(kind), str(n)), []).append(row.status == "pass")
    types = sorted({k for k, _ in cells})
    sizes = sorted({n for _, n in cells}, key=lambda n: (len(n), n))
    width, height = LABEL_W + CELL_W * max(len(sizes), 1) + 10, HEAD_H + CELL_H * max(len(types), 1) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<text x="4" y="16" font-weight="bold">{escape(title)}</text>',
             f'<text x="4" y="{HEAD_H - 8}">type \\ n</text>']
    for column, n in enumerate(sizes):
        x = LABEL_W + column * CELL_W + CELL_W // 2
        parts.append(f'<text x="{x}" y="{HEAD_H - 8}" text-anchor="middle">{escape(n)}</text>')
    for line, kind in enumerate(types):
        y = HEAD_H + line * CELL_H
        parts.append(f'<text x="4" y="{y + CELL_H // 2 + 4}">{escape(kind)}</text>')
        for column, n in enumerate(sizes):
            outcomes = cells.get((kind, n))
            if not outcomes:
                continue
            rate = sum(outcomes) / len(outcomes)
            x = LABEL_W + column * CELL_W
            parts.append(f'<rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" fill="{_colour(rate)}">'
                         f'<title>{escape(kind)}, n={escape(n)}: {sum(outcomes)}/{len(outcomes)}</title></rect>')
            parts.append(f'<text x="{x + CELL_W // 2}" y="{y + CELL_H // 2 + 4}" text-anchor="middle">'
                         f'{sum(outcomes)}/{len(outcomes)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_chart(report_path: Path, rows: list[CaseRow], title: str) -> Path:
    path = report_path.with_name(report_path.name + ".svg")
    replace_file(path, accuracy_svg(rows, title).encode("utf-8"))
    return path
