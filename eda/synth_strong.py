"""Strong synthesis: each design's best PPA over several open synthesis scripts, to tell a gain of the RTL
from a weakness of the default script.

Yosys can exaggerate the PPA difference between two RTL versions that a stronger flow maps alike (RTL-OPT,
arXiv 2601.01765). No one open ABC script is stronger everywhere under area x delay x power (9 RTLLM finds and
their references, 18 netlists): `&deepsyn` (area-oriented resynthesis) cuts multi_8bit's reference 1.7x but makes
its `a * b` rewrite 1.5x worse; OpenROAD-flow-scripts' abc_speed with its gate sizing made adder_32bit's reference
1.3x worse (delay bought with area and power); its rounds without sizing beat the default on 3 of the 18 netlists,
5 after `&deepsyn`. A commercial flow explores such structures and keeps the best; so here each design keeps the
lowest PPA of:

    default   the flow's own script (eda/scripts/synth.ys: Yosys's `abc -liberty` script, `&dch -f; &nf`)
    deep      the same front, then ABC's `&deepsyn` (rounds of `&dch; &if -a; &mfs` and `compress2rs` that
              keep the smallest AIG) before `&dch -f; &nf`: the deepest area restructuring open ABC has
    speed     `&deepsyn` again, then OpenROAD-flow-scripts' abc_speed rounds (`&syn2; &if -g; &synch2; &nf`:
              SOP balancing and structural choices for depth), without its gate sizing (sizing is the place-and-
              route stage's job; unconstrained here it only buys delay with area and power)

Every script is deterministic: `&deepsyn` is bounded by rounds without improvement (-J), never by its wall-time
option (-T), so a number never depends on the machine's load; a script stopped by the sandbox's limit is left
out for both designs of a comparison (compare() keeps the scripts that measured both). Flip-flops stay where the
RTL puts them (no `abc -dff` retiming): a retimed netlist has other registers than the RTL names, and the
flow's proof and the find's own gain (a removed register, a narrower counter) are about those registers.
`synth -booth` was tried and left out: on those 18 netlists it changed nothing but multi_8bit's `a * b`, 1.5x
worse. Each script goes through the flow's own synthesis (eda/synth.py) and timing/power (eda/sta.py), so
their PPA is comparable with the default's; results are cached like the flow's (eda/cache.py).

    got = strong_ppa(texts, "mult8", pdk="nangate45", corner=None, clock="auto", period=10.0)
    got["ppa"], got["script"], got["scripts"]["deep"]["ppa"]
    compare(ref, design)     # {"ratio": 1.12, "ref_ppa": ..., "ppa": ..., "ref_script": ..., "script": ...}
"""
from __future__ import annotations

import time
from pathlib import Path

from . import pdk as pdks
from . import tools
from .cache import Cache, code_version, key, text_hash
from .sandbox import Limits, Sandbox, isolation_mode
from .sources import as_texts
from .sta import timing_power
from .synth import synthesize

# Yosys's own `abc -liberty` front (flop-free logic: `dretime` moves nothing here), as eda/scripts/synth.ys runs it
FRONT = ("strash", "&get -n", "&fraig -x", "&put", "scorr", "dc2", "dretime", "strash", "&get -n")
# 10 rounds without a smaller AIG end it: deterministic; -J 20 gave the same netlists on multi_8bit and
# adder_32bit in 1.2-2x the time, -J 5 a larger reference for multi_8bit
_DEEP = "&deepsyn -J 10"
_SPEED_ROUND = ("&st", "&syn2", "&if -g -K 6", "&synch2", "&nf")
SCRIPTS = {
    "deep": FRONT + (_DEEP, "&dch -f", "&nf", "&put"),
    "speed": FRONT + (_DEEP, "&st", "&dch", "&nf") + _SPEED_ROUND * 5 + ("&put",),
}
NAMES = ("default",) + tuple(SCRIPTS)
LIMITS = Limits(wall_s=300, cpu_s=600, mem_mb=6144)


def recipe(name: str) -> dict:
    """eda.synth.synthesize's `recipe` for one script ({} for the default)."""
    if name == "default":
        return {}
    return {"abc_flags": " -script strong.abc", "files": {"strong.abc": "\n".join(SCRIPTS[name]) + "\n"}}


def measure(texts: dict, top: str, script: str, pdk: str = "nangate45", corner: str | None = None,
            clock: str | None = "auto", period: float = 10.0, limits: Limits | None = None,
            cache: Cache | None = None) -> dict:
    """One script's synthesis, timing and power of `texts`: {"ppa", "area_um2", "delay_ns", "power_w",
    "seconds"}, or {"why": ...} where a stage fails. Cached; a stopped run (limits, load) is not."""
    k = key({"src": text_hash(texts), "top": top, "script": script, "pdk": pdk, "corner": corner,
             "clock": clock, "period": period, "lib": pdks.lib_hash(pdk, corner), "code": code_version(),
             "tools": tools.key_versions(), "isolation": isolation_mode(), "what": "strong synthesis"})
    cache = cache or Cache()
    hit = cache.get(k)
    if hit:
        return {**hit, "cached": True}
    got = _run(texts, top, script, pdk, corner, clock, period, limits or LIMITS)
    if not got.get("stopped"):
        cache.put(k, got)
    return got


def _run(texts, top, script, pdk, corner, clock, period, limits) -> dict:
    t0 = time.monotonic()
    lib = pdks.liberty(pdk, corner)
    with Sandbox(prefix="rtla-strong-") as sb:
        st = synthesize(texts, top, lib, sb.path, limits=limits, cells=pdks.get(pdk).cells, recipe=recipe(script))
        if not st.ok:
            return _failed(st, t0)
        tp = timing_power(Path(st.data["netlist"]), top, lib, clock=clock, period=period)
        if not tp.ok:
            return _failed(tp, t0)
    a, d, p = st.data["area_um2"], tp.data["delay_ns"], tp.data["power_w"]
    if a is None or d is None or p is None:
        return {"why": f"{script}: no area, delay or power", "seconds": time.monotonic() - t0}
    return {"ppa": a * d * p, "area_um2": a, "delay_ns": d, "power_w": p, "cells": st.data["cells"],
            "seconds": round(time.monotonic() - t0, 2)}


def _failed(st, t0) -> dict:
    why = st.diagnostics[0].message if st.diagnostics else st.status
    return {"why": f"{st.name} {st.status}: {why}"[:300], "stopped": st.status in ("timeout", "error"),
            "seconds": round(time.monotonic() - t0, 2)}


def strong_ppa(sources, top: str, pdk: str = "nangate45", corner: str | None = None, clock: str | None = "auto",
               period: float = 10.0, scripts=NAMES, cache: Cache | None = None) -> dict:
    """Every script's numbers ({"scripts": name -> measure()}) and the best: "ppa" and its "script" (None
    when none measured)."""
    texts = as_texts(sources)
    got = {s: measure(texts, top, s, pdk, corner, clock, period, cache=cache) for s in scripts}
    return {"scripts": got, **_best(got, scripts)}


def _best(got: dict, names) -> dict:
    ok = [n for n in names if got[n].get("ppa")]
    b = min(ok, key=lambda n: got[n]["ppa"]) if ok else None
    return {"ppa": got[b]["ppa"] if b else None, "script": b}


def compare(ref: dict, design: dict) -> dict:
    """The reference's best PPA over the design's (strong_ppa() results), over the scripts that measured both
    (a script that fails or stops on one is no evidence either way)."""
    both = [n for n in ref["scripts"] if ref["scripts"][n].get("ppa") and design["scripts"].get(n, {}).get("ppa")]
    if not both:
        why = next((g["why"] for g in (*ref["scripts"].values(), *design["scripts"].values()) if "why" in g), "?")
        return {"ratio": None, "why": why}
    r, d = _best(ref["scripts"], both), _best(design["scripts"], both)
    return {"ratio": r["ppa"] / d["ppa"], "ref_ppa": r["ppa"], "ppa": d["ppa"], "ref_script": r["script"],
            "script": d["script"], "scripts": both}
