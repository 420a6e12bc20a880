"""Mapping fixes for eda.reach: what keeps a coverage point from being found in the formal model.

- Yosys 0.70 counts two lines too many after a `` `resetall `` directive (every `src` position below it is off
  by two, so neither the line/branch arms nor the declarations of toggled signals are found by position):
  `for_yosys` turns the directive into `` `default_nettype wire `` (what it resets that Yosys reads), on the
  same line.
"""
import re
from dataclasses import replace

_RESETALL = re.compile(r"`resetall\b")


def for_yosys(text: str) -> str:
    """The source text as Yosys should read it (same lines, same meaning for synthesis)."""
    return _RESETALL.sub("`default_nettype wire", text)


def base_modules(points, names) -> list:
    """The points with Verilator's name of a parameterised copy (`arbiter__A1_AB1_AD1`, `axis_fifo__D100_K0_U0`)
    replaced by the module's own name (`arbiter`): Yosys names the copy `$paramod$...\\arbiter`, so the mapping
    looks for the source module. A name that is itself a module of the sources stays."""
    names = set(names)
    out = []
    for p in points:
        m = p.module
        if m and m not in names and "__" in m:
            cut = [m[:i] for i in range(len(m)) if m.startswith("__", i) and m[:i] in names]
            if cut:
                p = replace(p, module=cut[-1])
        out.append(p)
    return out
