"""Witness pairs for `rtl-agent sft --kind witness`: the cover job's own hole prompt -> stimulus that reaches a
named hole, taught by the formal phase's witnesses (eda.reach).

Per design: a short random phase (the "stimulus so far": the cover job's random testbench, few runs and cycles so
that holes are left), then eda.reach.decide on the holes of the target types; each witness becomes a body answer in
the cover job's format (`// from: reset`, one line per cycle, only the inputs that change). The prompt is
rtl_agent.jobs.cover.build_prompt on the union so far, the very prompt the model phase sends. A pair is kept only
when the prompt names its point and the answer, extracted and simulated as the cover job does (extract_stimulus,
cover.simulate: Verilator coverage), hits it; its points then join the union and the next prompt names the
holes left (the job's model phase also moves on).

Stage 1 pairs (stimulus that runs and drives the inputs) are data.stim_pair's; generated designs only (no project
tasks: those are the measured designs), checked by their Verilator build rather than data._check_design's
equivalence and synthesis (the answer needs the reference only)."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from eda import coverage as cov
from eda import fsm, reach
from eda.ports import Port

from . import data

KIND = "witness"
MAX_ANSWER = 700            # characters: the cover bench samples 128 tokens, so long witnesses teach truncation


def _lit(width: int, value: int) -> str:
    return str(value & 1) if width == 1 else f"{width}'h{value & ((1 << width) - 1):x}"


def witness_body(vectors: list, ports, clock=None, period_ns: float = 10.0) -> str:
    """A witness (per-cycle {input: value}, from reset) as a body answer: cycle 0 at #1 (as eda.reach_replay
    does), cycle k after the k-th falling edge, only the inputs that change; idle cycles folded into repeat."""
    widths = {p.name: p.width for p in ports if p.direction == "input" and p.name != clock}
    step = f"@(negedge {clock});" if clock else f"#{period_ns:g};"
    cur = {n: 0 for n in widths}             # the body wrapper starts every input at 0
    lines, idle = ["#1;"], 0
    for k, v in enumerate(vectors):
        ch = [f"{n} = {_lit(widths[n], x)};" for n, x in v.items() if n in widths and cur[n] != x]
        cur.update({n: x for n, x in v.items() if n in widths})
        if k == 0:
            lines[0] += (" " + " ".join(ch)) if ch else ""
            continue
        if not ch:
            idle += 1
            continue
        if idle:
            lines.append(f"repeat ({idle}) {step}" if idle > 1 else step)
        idle = 0
        lines.append(f"{step} " + " ".join(ch))
    lines += [f"repeat ({idle + 2}) {step}", "$finish;"]
    return "```verilog\n// from: reset\n" + "\n".join(lines) + "\n```"


def _signal(p) -> str:
    return re.sub(r"\[\d+\].*|:.*", "", p.comment) or p.comment


def _hole_named(db: cov.CoverageDB, key: str, content: str) -> bool:
    """Whether the prompt text lists point `key` (in the form of cover.targets.holes)."""
    from rtl_agent.jobs.cover.targets import holes
    p = db.points[key]
    if p.type == "toggle":
        sig = _signal(p)
        bit = p.comment[len(sig):].replace(":", " ").strip()
        head = f"- signal {sig} not toggled:"
        return any(ln.startswith(head) and bit in [b.strip() for b in ln[len(head):].split(",")]
                   for ln in content.splitlines())
    one = cov.CoverageDB(db.sources)
    one.add([p])
    text = holes(one, [p.type], 1)
    return bool(text) and f"- {text[0]}" in content


def design_task(d, work: Path):
    """A designs.task.Task for a generated design (its first variant is the reference)."""
    from designs.task import Task
    from eda.hdl import detect_clock_reset
    f = Path(work) / f"{d.top}.v"
    f.write_text(d.variants[0])
    ports = [Port(n, dr, d.widths.get(n, 1)) for n, dr in d.ports.items()]
    low = detect_clock_reset(ports, d.variants[0])[2] if d.reset else False
    return Task(name=f"gen_{d.family}_{d.top}", top=d.top, spec=d.spec, ports=ports, root=Path(work), reference=[f],
                testbenches=[], clock=d.clock, reset=d.reset, reset_active_low=low)


def witness_pairs(task, source: str, cfg=None, random_runs: int = 1, cycles: int = 6, max_pairs: int = 4,
                  budget_s: float = 30.0, point_s: float = 4.0, log=print) -> tuple[list, dict]:
    """(pairs, counts) for one task: witness pairs in the cover job's prompt, each replayed and hitting the point
    its prompt names. cfg: the cover job's CoverConfig (its target, prompt_points, example, max_tokens)."""
    from rtl_agent.jobs import cover
    from rtl_agent.jobs.cover.env import _limits
    cfg = cfg or cover.CoverConfig(max_tokens=128)
    rc = cover.CoverConfig(**{**cfg.__dict__, "random_cycles": cycles})
    sources = task.reference_sources()
    fsms = fsm.extract(sources, task.top) if task.clock else []
    n = {"holes": 0, "witness": 0, "named": 0, "hit": 0, "missed": 0, "long": 0, "mode": ""}
    text = cover.random_text(task, rc, sources)
    res = cov.coverage_runs(sources, task.top, text, [[f"+seed={k}"] for k in range(random_runs)],
                            limits=_limits(cfg), clock=task.clock, fsms=fsms)
    if not all(r.ok for r in res):
        n["mode"] = f"random phase {res[0].status}"
        return [], n
    db = cov.CoverageDB(sources)
    for r in res:
        db.add(r.points)
    types = list(cfg.target)
    keys = [p.key for p in db.uncovered(types) if p.type in reach.TYPES]
    n["holes"] = len(keys)
    if not keys:
        return [], n
    rep = reach.decide(sources, task.top, db.all(), keys, task.ports, task.clock, task.reset, task.reset_active_low,
                       fsms, budget_s, point_s)
    n["mode"] = rep.mode or rep.error[:60]
    if rep.mode != "normal":            # clk2fflogic witnesses set clocks phase by phase: not a body answer
        return [], n
    wit = {k: v.vectors for k, v in rep.verdicts.items() if v.status == "witness"}
    n["witness"] = len(wit)
    inputs = [p.name for p in task.ports if p.direction == "input" and p.name != task.clock]
    # an input's own toggle is no lesson: its answer drives the signal the hole names, and the model then writes
    # to internal registers the holes name (seen on div_16bit: `b_reg = 8'h8;`); random toggles inputs anyway
    tried = {k for k in wit if db.points[k].type == "toggle" and _signal(db.points[k]) in inputs}
    n["input_toggles"] = len(tried)
    pairs = []
    while len(pairs) < max_pairs:
        msgs = cover.build_prompt(task, db, cfg, random_runs=random_runs)
        named = [k for k in wit if k not in tried and db.points[k].count == 0 and _hole_named(db, k, msgs[-1]["content"])]
        if not named:
            break
        k = named[0]
        tried.add(k)
        n["named"] += 1
        answer = witness_body(wit[k], task.ports, task.clock, task.period_ns)
        if len(answer) > MAX_ANSWER:
            n["long"] += 1
            continue
        stim = cover.extract_stimulus(answer, inputs)[0]
        r = cover.simulate(task, sources, stim, cfg, fsms=fsms)
        if not (r.ok and any(p.key == k and p.count > 0 for p in r.points)):
            n["missed"] += 1             # a witness whose replay misses its point teaches nothing
            continue
        n["hit"] += 1
        pairs.append({**data.example(KIND, source, msgs, "", answer), "point": db.points[k].describe(), "key": k})
        db.add(r.points)
    return pairs, n


def generated_witness(seed=0, per_family=3, families="every", log=print, max_pairs=6) -> tuple[list, dict]:
    """Stage-1 stim pairs and stage-2 witness pairs from rtl_agent.jobs.sft.generator designs; (pairs, counts)."""
    from rtl_agent.jobs.sft.generator import designs
    pairs, tot = [], {"designs": 0, "stim": 0, "witness": 0, "holes": 0, "witnesses": 0, "missed": 0, "long": 0,
                      "families": families, "per_family": per_family}
    for i, d in enumerate(designs(seed, per_family, families)):
        tot["designs"] += 1
        src = f"gen:{d.family}"
        pairs.append(data.stim_pair(src, d.spec, d.variants[0], d.top, d.ports, d.widths, d.clock, d.reset))
        tot["stim"] += 1
        with tempfile.TemporaryDirectory(prefix="rtla-wit-") as work:
            task = design_task(d, Path(work))
            # the stimulus so far: 1 or 2 short random runs, so a design random would close still has holes
            got, n = witness_pairs(task, src, random_runs=1 + i % 2, cycles=3 + 3 * (i % 3), max_pairs=max_pairs, log=log)
        pairs += got
        for k, key in (("witness", None), ("holes", "holes"), ("witnesses", "witness"), ("missed", "missed"),
                       ("long", "long")):
            tot[k] += len(got) if key is None else n[key]
        log(f"{d.family:10s} {d.top:12s} holes {n['holes']:3d} witnesses {n['witness']:3d} pairs {len(got)} "
            f"(input toggles {n.get('input_toggles', 0)}, missed {n['missed']}, long {n['long']}, {n['mode']})")
    return pairs, tot
