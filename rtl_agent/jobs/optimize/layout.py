"""A picture of routed layouts from their DEF files (matplotlib): placed cells as dots, routed wires as lines
coloured by layer, the die outline; the find beside its reference for the optimize report (layout.png)."""
from __future__ import annotations

import re
from pathlib import Path

_PT = re.compile(r"\(\s*(-?\d+|\*)\s+(-?\d+|\*)(?:\s+-?\d+)?\s*\)")


def parse(def_text: str) -> dict:
    """Die box, cell origins and routed segments [(layer, x0, y0, x1, y1)] in microns."""
    units = float(re.search(r"UNITS\s+DISTANCE\s+MICRONS\s+(\d+)", def_text).group(1))
    die = [int(v) / units for v in re.search(r"DIEAREA\s*\(\s*(-?\d+)\s+(-?\d+)\s*\)\s*\(\s*(-?\d+)\s+(-?\d+)",
                                             def_text).groups()]
    cells = [(int(x) / units, int(y) / units) for x, y in
             re.findall(r"\+\s*(?:PLACED|FIXED)\s*\(\s*(-?\d+)\s+(-?\d+)\s*\)", def_text.split("\nNETS", 1)[0])]
    segs = []
    nets = def_text.split("\nNETS", 1)[-1].split("\nEND NETS", 1)[0]
    for m in re.finditer(r"(?:ROUTED|NEW)\s+(\S+)([^\n;]*)", nets):
        layer, last = m.group(1), None
        for xs, ys in _PT.findall(m.group(2)):
            x = last[0] if xs == "*" else int(xs) / units
            y = last[1] if ys == "*" else int(ys) / units
            if last is not None:
                segs.append((layer, last[0], last[1], x, y))
            last = (x, y)
    return {"die": die, "cells": cells, "segs": segs}


def draw(defs: list[tuple[str, Path]], png: Path) -> Path:
    """One panel per (title, DEF) side by side, written to `png`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(defs), figsize=(5 * len(defs), 5), squeeze=False)
    for ax, (title, path) in zip(axes[0], defs):
        d = parse(Path(path).read_text(errors="replace"))
        x0, y0, x1, y1 = d["die"]
        ax.plot([x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0], color="black", lw=0.8)
        layers = sorted({s[0] for s in d["segs"]})
        cmap = plt.get_cmap("tab10")
        for i, layer in enumerate(layers):
            xs, ys = [], []
            for _, a, b, c, e in (s for s in d["segs"] if s[0] == layer):
                xs += [a, c, None]
                ys += [b, e, None]
            ax.plot(xs, ys, lw=0.5, color=cmap(i % 10), label=layer)
        if d["cells"]:
            ax.scatter(*zip(*d["cells"]), s=2, color="grey", zorder=0)
        ax.set_title(title, fontsize=10)
        ax.set_aspect("equal")
        ax.set_xlabel("um")
        if layers:
            ax.legend(fontsize=6, loc="upper right")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png
