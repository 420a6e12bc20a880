"""Formal counterexamples as per-cycle input vectors: the table Yosys `sat -show-*` prints,
and ABC's `write_cex -n` with the AIGER map (plus what the ABC wrapper forced at reset)."""
import re
from pathlib import Path

from .base import _bits_to_int

_ROW = re.compile(r"^\s*(init|\d+)?\s*(\\\S+)\s+.*?\s([01xz-]+)\s*$")


def _parse_trace(text: str) -> dict:
    """{step: {signal: bits}} from the table yosys `sat -show-*` prints after FAIL!"""
    tail = text[text.rfind("FAIL!"):]
    steps: dict = {}
    for line in tail.splitlines():
        m = _ROW.match(line)
        if m and m.group(1) != "init":
            steps.setdefault(int(m.group(1) or 1), {})[m.group(2).lstrip("\\")] = m.group(3)
    return steps


def _trace_vectors(trace: dict, inputs: list, fflogic: bool, clock) -> tuple[list, int]:
    """SAT trace -> per-cycle input dicts, and the 0-based cycle of the first difference."""
    steps = sorted(trace)
    vecs = []
    for s in steps:
        v = {}
        for name, w in inputs:
            if name == clock and not fflogic:
                continue
            b = trace[s].get(f"in_{name}")
            v[name] = _bits_to_int(b) if b is not None else 0
        vecs.append(v)
    first = next((i for i, s in enumerate(steps) if trace[s].get("trigger") == "1"), len(steps) - 1)
    return vecs, first


def _init_frames(reset, fflogic) -> int:
    """Frames the wrapper holds the reset (and masks the trigger): one clock cycle; with
    clk2fflogic three steps so that a clock edge (0 -> 1 -> 0) falls inside the reset."""
    return 0 if not reset else (3 if fflogic else 1)


def _parse_cex(cex: Path, amap: Path, inputs: list, clock, reset, active, fflogic, hold_reset=False) -> list:
    """ABC `write_cex -n` (pi<k>@<frame>=<bit>) + the AIGER map (input <k> <bit> p<i>) ->
    per-frame input dicts by port name, with what the wrapper forced in the first frames."""
    pi = {}
    for ln in amap.read_text().splitlines():
        f = ln.split()
        if len(f) == 4 and f[0] == "input" and f[3].startswith("p") and f[3][1:].isdigit():
            pi[int(f[1])] = (int(f[3][1:]), int(f[2]))
    frames: dict = {}
    last = 0
    for m in re.finditer(r"^pi(\d+)@(\d+)=([01])", cex.read_text(), re.M):
        k, fr, b = int(m.group(1)), int(m.group(2)), int(m.group(3))
        last = max(last, fr)
        if k in pi and b:
            i, bit = pi[k]
            v = frames.setdefault(fr, {})
            v[i] = v.get(i, 0) | (1 << bit)
    n_frames = last + 1          # every frame, also those whose inputs are all 0
    n = _init_frames(reset, fflogic)
    vecs = []
    for fr in range(n_frames):
        v = {nm: frames.get(fr, {}).get(i, 0) for i, (nm, w) in enumerate(inputs)}
        if fr < n and reset in v:
            v[reset] = active
            if fflogic and clock in v:
                v[clock] = 1 if fr == 1 else 0
        elif hold_reset and reset in v:
            v[reset] = 1 - active
        vecs.append(v)
    return vecs
