"""A design's synthesis noise floor: how far PPA moves under edits that change nothing.

Published RTL gains often shrink or vanish under plain signal renaming; here one operand swap moved
c910_lza's PPA by 4% while renaming left 8 RTLLM references exactly unchanged. So the floor is measured
per design, from semantics-preserving perturbations of its reference:

    rename     every internal wire/reg/integer renamed (ports and modules keep their names)
    commute    the first two operands of every commutative top-level operator swapped (association kept)
    reorder    consecutive one-line continuous assignments and plain declarations in reverse order
    all        the three together
    neutral    a zero folded into the first operand of every top-level `+`, `|` or `^` of an assignment
               (`count = count + 5'd1` -> `count = (count + 1'b0) + 5'd1`): popcount16's one-line "find"
               was exactly this edit, 1.258x on Nangate45 (bench/results/find_rate_improve_r2.md)

The floor is max(r, 1/r) over the perturbations proven equivalent by the task's own flow, r = PPA_ref /
PPA_perturbed (1.0 when none moved it, or none applied). A find counts only when its ratio is above the floor:

    nf = noise_floor(job, task.reference_sources(), task.top, ref_ppa)
    nf.floor, nf.above(1.3), nf.describe(1.3)   # "1.30x, above this design's noise floor of 1.04x"

Cost. Proving every perturbation cost five full flows: 352 s on axis_cobs_encode before its first step
(bench/results/real_designs_jobs.md). Only a perturbation that moved PPA can set the floor, so each one is first
synthesized and timed alone (the flow's back stages, cached apart from the proof), and the full flow (lint,
simulation, proof) runs only on those that could raise it, largest move first, until one proves: the floor is
the same number the five proofs gave (a perturbation the flow rejects is skipped in both), at the price of one
proof where a perturbation moved PPA (more only where the largest mover fails its proof). Where nothing moved,
`all` is still proven (a check that the perturbations are sound here), unless the design is big (the reference
synthesizes to BIG_CELLS cells or more: axis_cobs_encode's 16.5k take 37 s a synthesis): there only BIG_KINDS
run and nothing is proven that cannot raise the floor. `ratios` holds the proven ones, `measured` every ratio
synthesis gave. A job that routes (pnr) has every perturbation proven, as before. The result is kept on
disk per (reference, job, tool versions, this code), so a second run of the same design pays nothing.
"""
from __future__ import annotations

import functools
import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from eda import pdk as pdks
from eda import tools
from eda.cache import Cache, code_version, key, text_hash
from eda.flow import FlowJob, _timed_out, evaluate
from eda.hdl import module_names, strip_comments
from eda.report import is_proven
from eda.sandbox import isolation_mode
from eda.verdict import rule_key
from rtl_agent.rewrites import _LEVEL, _LINE, _top_ops, commute

_DECL = re.compile(r"\b(?:wire|reg|integer|logic|genvar)\b(?:\s+signed)?\s*(?:\[[^\]]*\]\s*)*([^;()]*);")
_PORT = re.compile(r"\b(?:input|output|inout)\b(?:\s+(?:wire|reg|logic|signed))*\s*(?:\[[^\]]*\]\s*)*"
                   r"([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)")
_ONE_DECL = re.compile(r"^\s*(?:wire|reg|integer)\b[^=;()]*;\s*(?://.*)?$")
_ONE_ASSIGN = re.compile(r"^\s*assign\b[^;]*;\s*(?://.*)?$")
KINDS = ("rename", "commute", "reorder", "all", "neutral")
BIG_CELLS = 5000                  # a reference this big (cells) gets BIG_KINDS only and no proof that cannot matter
BIG_KINDS = ("all", "neutral")    # rename, commute and reorder at once; the added zeros (popcount16's 1.258x)
SCREEN = ("synth", "sta")
_NEUTRAL = ("+", "|", "^")


def _internal_names(text: str) -> list[str]:
    code = strip_comments(text)
    ports = {n.strip() for m in _PORT.finditer(code) for n in m.group(1).split(",")}
    names = []
    for m in _DECL.finditer(code):
        if re.search(r"\b(?:input|output|inout)\b[^;]*$", code[max(0, m.start() - 80):m.start()].split(";")[-1]):
            continue                    # `output reg q`: a port
        for part in m.group(1).split(","):
            n = re.match(r"\s*([A-Za-z_]\w*)", part)
            if n and n.group(1) not in ports and n.group(1) not in names:
                names.append(n.group(1))
    mods = set(module_names(text))
    return [n for n in names if n not in mods]


def rename(text: str) -> str:
    for i, n in enumerate(_internal_names(text)):
        text = re.sub(rf"(?<![\w$.`]){re.escape(n)}(?![\w$])", f"rn{i}_{n[::-1]}", text)
    return text


def swap(e: str) -> str | None:
    """The first two operands of a commutative top-level chain swapped, the association kept: `a + b + c` ->
    `b + a + c` (a rotation, `c + a + b`, is a different adder tree: Yosys feeds a trailing 1-bit operand to
    the carry-in of one adder, a leading one costs a second adder; that is structure, not noise)."""
    if commute(e) is None:             # the same conditions: one commutative kind at the loosest level
        return None
    ops = _top_ops(e)
    low = min(_LEVEL[o] for _, o in ops)
    cut = [(i, o) for i, o in ops if _LEVEL[o] == low]
    op = cut[0][1]
    first, second_end = cut[0][0], (cut[1][0] if len(cut) > 1 else len(e))
    x, y = e[:first].strip(), e[first + len(op):second_end].strip()
    if x == y:
        return None
    rest = e[second_end:]
    return f"{y} {op} {x}" + (f" {rest}" if rest else "")


def _each_expression(text: str, fn) -> str:
    """fn applied to the right-hand side of every one-line assignment (None: the line stays)."""
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        new = fn(m.group(4)) if m else None
        out.append(line[:m.start(4)] + new + line[m.end(4):] if new else line)
    return "\n".join(out) + "\n"


def commute_all(text: str) -> str:
    return _each_expression(text, swap)


def add_zero(e: str) -> str | None:
    """`x + y` -> `(x + 1'b0) + y` where the loosest top-level operator is `+`, `|` or `^` (None otherwise).
    A signed expression can change meaning (an unsigned operand makes it unsigned); the flow's proof then
    fails and the perturbation does not count."""
    ops = _top_ops(e)
    if not ops or any(o in "?:" for _, o in ops):
        return None
    low = min(_LEVEL[o] for _, o in ops)
    i, op = next((i, o) for i, o in ops if _LEVEL[o] == low)
    if op not in _NEUTRAL or not e[:i].strip():
        return None
    return f"({e[:i].strip()} {op} 1'b0) {op}{e[i + len(op):]}"


def neutral(text: str) -> str:
    return _each_expression(text, add_zero)


def reorder(text: str) -> str:
    """Runs of consecutive one-line assigns (or plain declarations) reversed; order is meaningless for both."""
    lines, out, i = text.splitlines(), [], 0
    while i < len(lines):
        for pat in (_ONE_ASSIGN, _ONE_DECL):
            j = i
            while j < len(lines) and pat.match(lines[j]):
                j += 1
            if j - i >= 2:
                out += lines[i:j][::-1]
                i = j
                break
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out) + "\n"


def perturbations(text: str) -> dict[str, str]:
    """kind -> perturbed text, only those that change the text."""
    got = {"rename": rename(text), "commute": commute_all(text), "reorder": reorder(text)}
    got["all"] = reorder(commute_all(rename(text)))
    got["neutral"] = neutral(text)
    norm = text.rstrip() + "\n"
    return {k: v for k, v in got.items() if v.rstrip() + "\n" != norm}


@dataclass
class NoiseFloor:
    floor: float = 1.0
    ratios: dict = field(default_factory=dict)      # kind -> PPA_ref / PPA_perturbed (proven ones)
    failed: dict = field(default_factory=dict)      # kind -> why it did not count
    measured: dict = field(default_factory=dict)    # kind -> the ratio by synthesis alone (every one that ran)
    seconds: float = 0.0                            # what measuring it cost (0 when served from the cache)
    cached: bool = False

    def above(self, ratio: float | None) -> bool:
        return bool(ratio) and ratio > self.floor

    def describe(self, ratio: float) -> str:
        where = "above" if self.above(ratio) else "not above"
        return f"{ratio:.3f}x, {where} this design's noise floor of {self.floor:.3f}x"

    def to_dict(self) -> dict:
        return {"floor": self.floor, "ratios": self.ratios, "failed": self.failed, "measured": self.measured,
                "seconds": round(self.seconds, 2), "cached": self.cached}

    @classmethod
    def from_dict(cls, d: dict | None) -> "NoiseFloor":
        d = d or {}
        return cls(d.get("floor", 1.0), d.get("ratios", {}), d.get("failed", {}), d.get("measured", {}),
                   d.get("seconds", 0.0), d.get("cached", False))


def top_files(src: dict, top: str) -> dict:
    """A one-file design as `<top>.v` (the name the flow gives a candidate); several files as they are."""
    return {f"{top}.v": next(iter(src.values()))} if len(src) == 1 else src


def noise_floor(job: FlowJob, ref_src: dict, top: str, ref_ppa: float, kinds=KINDS) -> NoiseFloor:
    """The floor of the reference under `job` (every file perturbed alike), from the disk cache when this
    reference, job and code measured it before."""
    if not ref_ppa:
        return NoiseFloor(failed={"all": "the reference has no PPA"})
    t0 = time.monotonic()
    cache = Cache((job.cache.root if job.cache else Cache().root).parent / "noise") if job.use_cache else None
    k = _key(job, ref_src, top, ref_ppa, kinds)
    hit = cache.get(k) if cache else None
    if hit:
        return NoiseFloor.from_dict({**hit, "seconds": 0.0, "cached": True})
    nf, reports = _measure(job, ref_src, top, ref_ppa, kinds)
    nf.seconds = time.monotonic() - t0
    if cache and not any(_timed_out(r) for r in reports):     # a load-dependent verdict is measured again
        cache.put(k, nf.to_dict())
    return nf


def _measure(job: FlowJob, ref_src: dict, top: str, ref_ppa: float, kinds,
             prove_all: bool = False) -> tuple[NoiseFloor, list]:
    """Synthesis and timing of each perturbation, then the full flow on those that could raise the floor
    (prove_all: every perturbation through the full flow, the way it was measured before)."""
    nf, reports = NoiseFloor(), []
    # a job that routes (pnr) reports the routed PPA, which synthesis alone does not estimate: all proven
    lazy = not prove_all and [s for s in job.stages if s in ("synth", "sta", "pnr")] == list(SCREEN)
    screen = job.replace(stages=SCREEN) if lazy else job
    ref = evaluate(screen, ref_src) if lazy else None
    big = lazy and ref.stages.get("synth") is not None and (ref.stages["synth"].data.get("cells") or 0) >= BIG_CELLS
    per_file = {name: perturbations(text) for name, text in ref_src.items()}
    designs = {}
    for kind in kinds:
        if (big and kind not in BIG_KINDS) or not any(kind in p for p in per_file.values()):
            continue
        designs[kind] = top_files({name: per_file[name].get(kind, text) for name, text in ref_src.items()}, top)
        rep = evaluate(screen, designs[kind])
        reports.append(rep)
        if not (rep.ok and rep.ppa):
            nf.failed[kind] = f"{rep.status} at {rep.failed_stage}"
            continue
        nf.measured[kind] = ref_ppa / rep.ppa
        if not lazy:                                # the old way: every one judged by the full flow
            _count(nf, kind, rep, ref_ppa)
    if not lazy:
        return nf, reports
    moved = sorted((kd for kd in nf.measured if _dev(nf.measured[kd]) > 1.0), key=lambda kd: -_dev(nf.measured[kd]))
    # nothing moved: on a small design the widest perturbation is proven all the same (a check they are sound here)
    todo = moved or ([] if big or not nf.measured else ["all" if "all" in nf.measured else next(iter(nf.measured))])
    for kind in todo:
        rep = evaluate(job, designs[kind])          # its synthesis and timing are cache hits
        reports.append(rep)
        if _count(nf, kind, rep, ref_ppa):
            break                                   # the rest moved PPA less: none can raise the floor
    return nf, reports


def _count(nf: NoiseFloor, kind: str, rep, ref_ppa: float) -> bool:
    """Count one perturbation's full-flow report in the floor; False (and why, in nf.failed) when not proven."""
    if not (rep.ok and rep.ppa and is_proven(rep.equiv_status or "")):
        nf.failed[kind] = f"{rep.status} at {rep.failed_stage}, equiv {rep.equiv_status}"
        return False
    r = ref_ppa / rep.ppa
    nf.ratios[kind] = r
    nf.floor = max(nf.floor, r, 1 / r)
    return True


def _dev(r: float) -> float:
    return max(r, 1 / r)


@functools.cache
def _code() -> str:
    """This module's and the rewrites' source: a change to a perturbation measures the floor again."""
    here = Path(__file__).resolve().parent
    return hashlib.sha256(b"".join((here / f).read_bytes() for f in ("noise.py", "rewrites.py"))).hexdigest()[:16]


def _key(job: FlowJob, ref_src: dict, top: str, ref_ppa: float, kinds) -> str:
    try:
        lib = pdks.lib_hash(job.pdk, job.corner)
    except Exception:           # a PDK without a Liberty file here: the reference had no PPA either
        lib = None
    return key({"src": text_hash(ref_src), "top": top, "ref_ppa": repr(ref_ppa), "kinds": list(kinds),
                "tb": text_hash(job.tb), "ref": text_hash(job.ref), "tb_top": job.tb_top,
                "verdict": rule_key(job.verdict), "sim_flags": job.sim_flags, "sims": list(job.simulators),
                "fallback": job.sim_fallback_on_fail, "clock": job.clock, "reset": job.reset, "period": job.period,
                "observe": job.observe.to_dict() if job.observe else None, "pdk": job.pdk, "corner": job.corner,
                "lib": lib, "stages": list(job.stages), "limits": job.limits, "options": job.options,
                "code": code_version(), "noise": _code(), "tools": tools.key_versions(), "isolation": isolation_mode(),
                "big": [BIG_CELLS, list(BIG_KINDS)]})
