"""Context by budget: show the whole design when the prompt fits the model's context, else a focus
region on the critical path.

The region is chosen from the parent's STA data (the critical path's start/end points and the
nets and cells it names, which keep the RTL's names after synthesis): the module whose text holds
the most of those names, and within it the window of lines around the densest hits, grown until
the prompt would no longer fit. The focus prompt shows that window with the design's interface
(the top module's header), and edits are accepted only inside it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_SKIP = {"data", "arrival", "time", "required", "slack", "MET", "VIOLATED", "Startpoint", "Endpoint",
         "input", "output", "external", "delay", "clock", "network", "ideal", "rise", "fall", "Path", "Group",
         "Type", "max", "min", "library", "setup", "port", "unclocked", "reg", "wire", "assign", "Delay", "Time",
         "Description", "edge", "propagated", "in", "out", "ns", "_", "A", "B", "C", "D", "X", "Y", "Z", "Q"}


@dataclass
class View:
    mode: str                 # whole | focus
    code: str                 # what the prompt shows
    region: tuple | None      # (first, last) 1-based lines of the parent shown, focus mode only
    total_lines: int
    interface: str = ""       # the top module's header (focus mode)
    hits: list | None = None  # critical-path names found in the region


def path_names(report: dict | None) -> list[str]:
    """Identifiers the critical path names (RTL nets/instances survive synthesis in these names)."""
    sta = ((report or {}).get("stages") or {}).get("sta") or {}
    d = sta.get("data") or {}
    text = " ".join(str(d.get(k) or "") for k in ("startpoint", "endpoint", "critical_path"))
    names = []
    for tok in re.split(r"[\s/.\\\[\]()]+", text):
        for m in _ID.finditer(tok):
            w = m.group(0)
            if len(w) > 2 and w not in _SKIP and not re.fullmatch(r"_\d+_|[A-Z0-9_]+_X\d+|sky130_\w+|n\d+", w) \
                    and w not in names:
                names.append(w)
    return names


def interface(code: str, top: str) -> str:
    """The header of module `top` (up to its first `;` after the port list)."""
    m = re.search(r"\bmodule\s+" + re.escape(top) + r"\b", code)
    if not m:
        return ""
    depth, i = 0, m.end()
    while i < len(code):
        c = code[i]
        depth += c == "("
        depth -= c == ")"
        if c == ";" and depth == 0:
            return code[m.start():i + 1]
        i += 1
    return code[m.start():m.start() + 2000]


_DECL = re.compile(r"^\s*(?:input|output|inout|wire|reg|logic|integer|genvar|parameter|localparam)\b|^\s*//")


def choose(code: str, top: str, report: dict | None, fits) -> View:
    """The whole design if fits(View) says so, else the largest focus window around the critical
    path's names for which fits(View) holds (at least 10 lines; fits is called O(log n) times)."""
    lines = code.splitlines()
    n = len(lines)
    whole = View("whole", code, None, n)
    if fits(whole):
        return whole
    names = path_names(report)
    # declarations name every signal of the path, in one block: only logic lines count
    score = [0 if _DECL.match(ln) else sum(1 for w in names if re.search(r"\b" + re.escape(w) + r"\b", ln))
             for ln in lines]
    if any(score):
        # the densest 40-line stretch of hits holds the centre
        win = 40
        sums = [sum(score[i:i + win]) for i in range(0, max(1, n - win + 1))]
        i = max(range(len(sums)), key=lambda i: sums[i])
        hits = [j for j in range(i, min(n, i + win)) if score[j]]
        c = hits[len(hits) // 2]            # the middle hit: a small region still holds it
    else:
        c = n // 2
    iface = interface(code, top)

    def view(h):
        a, b = max(0, c - h), min(n, c + h)
        hits = sorted({w for w in names for ln in lines[a:b] if re.search(r"\b" + re.escape(w) + r"\b", ln)})
        return View("focus", "\n".join(lines[a:b]), (a + 1, b), n, iface, hits)
    lo, hi = 5, max(5, n)
    best = view(lo)
    while lo <= hi:
        mid = (lo + hi) // 2
        v = view(mid)
        if fits(v):
            best, lo = v, mid + 1
        else:
            hi = mid - 1
    return best
