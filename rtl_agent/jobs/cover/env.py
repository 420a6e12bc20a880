"""The environment of training.loop: the random phase as step 0, then hole-naming prompts, one
Verilator coverage run per stimulus, and the gain reward (the share of the remaining gap it closes)."""
from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path

from eda import coverage as cov
from eda import fsm
from eda.random_stim import is_long, seeded_stimulus
from rtl_agent.policy.base import prompt_budget
from training.loop import Environment, Group
from training.rows import Candidate, Context, Row
from training.store import RunStore

from .config import RANDOM, CoverConfig
from .extract import _FROM_RANDOM, continue_random, extract_cocotb, extract_stimulus
from .outputs import write_outputs
from .programs import ProgramPhase, index_of
from .prompt import build_prompt
from .records import _record, _state, _union
from .targets import _covered, met, plateau


# ---- one simulation ------------------------------------------------------------------------

def _limits(cfg: CoverConfig) -> cov.CoverageLimits:
    lim = cov.CoverageLimits()
    lim.run.wall_s = float(cfg.run_wall_s)
    lim.run.cpu_s = max(1, int(cfg.run_wall_s))     # setrlimit takes whole seconds
    return lim


def simulate(task, sources: dict, text: str, cfg: CoverConfig, plusargs=(), fsms=()) -> cov.CoverageResult:
    """One stimulus: Verilog (coverage_run), or a cocotb coroutine (cocotb_coverage_run, no FSM points)."""
    if cov.is_cocotb(text):
        return cov.cocotb_coverage_run(sources, task.top, text, task.clock, task.period_ns, _limits(cfg))
    return cov.coverage_run(sources, task.top, text, limits=_limits(cfg), ports=task.ports, clock=task.clock,
                            period_ns=task.period_ns, plusargs=plusargs, fsms=fsms)


def random_text(task, cfg: CoverConfig, sources: dict, finish: bool = True) -> str:
    """The random phase's testbench (one build; +seed=N picks the values and the style); sources are the
    DUT's (their slices of the inputs get per-field corners)."""
    from eda.hdl import input_fields
    ins = [(p.name, p.width) for p in task.ports if p.direction == "input"]
    fields = input_fields("\n".join(t for t in sources.values() if isinstance(t, str)), ins)
    return seeded_stimulus(task.ports, task.top, clock=task.clock, reset=task.reset,
                           reset_active_low=task.reset_active_low, cycles=cfg.random_cycles, seed=cfg.seed * 1000,
                           period_ns=task.period_ns, styles=True, finish=finish, fields=fields,
                           long_cycles=long_cycles(task, cfg))


def long_cycles(task, cfg: CoverConfig) -> int:
    """Cycles of the random phase's long rounds: cfg.random_long, or (-1) all the simulated-time limit
    leaves after the reset and 2% for the harness."""
    if cfg.random_long >= 0:
        return cfg.random_long
    return max(cfg.random_cycles, int(cov.CoverageLimits().max_time_ns / task.period_ns * 0.98) - 10)


def score(results, union: cov.CoverageDB, types, rewards: dict) -> list:
    """One (reward, gain_points) per result ("extract" for None) against `union` (not changed)."""
    before = _covered(union.points.values(), types)
    out = []
    for r in results:
        if r is None:
            out.append((rewards["extract"], 0))
            continue
        if not r.ok:
            out.append((rewards.get(r.status, rewards["error"]), 0))
            continue
        universe = {p.key for p in union.points.values() if p.type in types} | {p.key for p in r.points if p.type in types}
        gap = len(universe - before)
        new = len(_covered(r.points, types) - before)
        out.append((new / gap if gap else 0.0, new))
    return out


# ---- the environment -----------------------------------------------------------------------

class CoverEnv(Environment):
    """Random phase (step 0), then hole-naming prompts, Verilator coverage runs, the gain reward. The
    union and the simulation records are rebuilt from the store, so the checkpoint state is empty."""
    metric_columns = ("gain",)

    def __init__(self, task, out: Path, cfg: CoverConfig, policy_spec: str, on_sim=None):
        self.task, self.dir, self.cfg, self.policy_spec, self.on_sim = task, out, cfg, policy_spec, on_sim
        self.sources = task.reference_sources()
        self.types = list(cfg.target)
        self.inputs = [p.name for p in task.ports if p.direction == "input" and p.name != task.clock]
        self.fsms = fsm.extract(self.sources, task.top) if task.clock else []
        self.sims, self.db = [], cov.CoverageDB(self.sources)
        self.programs = ProgramPhase(task, self.sources, cfg, self.fsms, _limits(cfg)) if cfg.stimulus != "text" else None

    def settings(self) -> dict:
        c = asdict(self.cfg)
        from rtl_agent.policy import policy_adapter
        return {"task": self.task.name, "top": self.task.top, "policy": self.policy_spec,
                "adapter": policy_adapter(self.policy_spec, self.cfg.adapter),
                **{k: c[k] for k in ("target", "group", "random_budget", "patience", "random_cycles", "random_long",
                                     "prompt_points",
                                     "max_spec", "example", "run_wall_s", "rewards", "stimulus", "chooser")}}

    def legacy_settings(self) -> dict:
        # runs from before SFT adapters ran without one, from before long rounds without them
        return {"adapter": "none", "random_long": 0, "stimulus": "text", "chooser": "policy"}

    def start(self, ctx: Context) -> list:
        n = min(self.cfg.random_budget, self.cfg.budget)
        if n < 1:
            return []
        t, text = self.task, random_text(self.task, self.cfg, self.sources)
        args = [[f"+seed={self.cfg.seed * 1000 + k}"] for k in range(self.cfg.budget)]
        res = cov.coverage_runs(self.sources, t.top, text, args, limits=_limits(self.cfg), clock=t.clock, fsms=self.fsms)
        if res and all(r.status == "error" for r in res):
            # the generated testbench builds on any design that compiles: the design itself does not
            first = next((x.strip() for r in res for x in r.log.splitlines() if "rror" in x), res[0].log.strip()[:200])
            raise ValueError(f"{t.top} does not build under Verilator, so nothing can be covered: {first[:240]}")
        keep = plateau(res[:n], self.cfg.patience)
        if met(cov.merge(res[:keep]), self.cfg.target):
            keep = len(res)      # no model will run: the budget it would have used goes to random
        ctx.emit("phase", step=0, phase=f"random phase: {keep} run(s) kept")
        return self._rows([text] * keep, res[:keep], kind=RANDOM, plusargs=args[:keep])

    def restore(self, state: dict, store: RunStore):
        self.sims = _state(store)
        self.db = _union(self.sims, self.sources)

    def done(self, step: int) -> bool:
        return len(self.sims) >= self.cfg.budget or met(self.db, self.cfg.target)

    policy = None

    def attach(self, policy):
        self.policy = policy

    def _last_random(self):
        """The random run a `// from: random` answer continues: the last short one (a long round leaves no
        simulated time for the continuation)."""
        rs = [s for s in self.sims if s.get("kind") == RANDOM]
        short = [s for s in rs if not is_long(s.get("plusargs") or [])]
        return (short or rs)[-1] if rs else None

    def groups(self, ctx: Context, step: int) -> list:
        n = min(self.cfg.group, self.cfg.budget - len(self.sims))
        if self.programs is None or not self.programs.opts:
            return self._text_groups(ctx, step, n)
        # mixed: free text stays one option among the programs, one sample a step
        text = 1 if self.cfg.stimulus == "mixed" and n > 1 else 0
        g = self.programs.group(self.db, self.types, self.sims, n - text, self.cfg.seed * 7919 + step)
        return [g] + (self._text_groups(ctx, step, text) if text else [])

    def _text_groups(self, ctx: Context, step: int, n: int) -> list:
        pol, info = self.policy, {}
        count, budget = prompt_budget(pol, self.cfg.max_tokens)

        def fits(msgs):
            return count(msgs) <= budget
        n_random = sum(s.get("kind") == RANDOM for s in self.sims)
        msgs = build_prompt(self.task, self.db, self.cfg, fits, random_runs=n_random)
        if pol is not None and hasattr(pol, "count_tokens"):
            code = "\n".join(self.sources.values()).strip()
            info = {"mode": "whole" if code in msgs[-1]["content"] else "clipped",
                    "prompt_tokens": count(msgs), "budget": budget}
            ctx.emit("prompt", step=step, **info)
        return [Group(msgs, n, info=info or None)]

    def extract(self, text: str, group=None, attempt=None) -> Candidate:
        """Candidate([stimulus as simulated, plusargs]), value None when there is no stimulus (the row
        then records the completion): a cocotb coroutine as it is; a body answer saying `// from: random`
        runs after the last random run (its testbench and seed), any other from reset. A program group's answer
        is the option it names (["program", index]; the seed is given when it runs)."""
        if group is not None and (group.info or {}).get("kind") == "program":
            k = index_of((text or "").strip(), self.programs.labels)
            return Candidate(None, text=text) if k is None else Candidate(["program", k])
        py = extract_cocotb(text)
        if py:
            return Candidate([py, []])
        stim = extract_stimulus(text, self.inputs)[0]
        if not stim:
            return Candidate(None, text=text)
        last = self._last_random()
        if last is None or not _FROM_RANDOM.search(text or "") or re.search(r"^\s*module\b", stim, re.M):
            return Candidate([stim, []])
        return Candidate([continue_random(random_text(self.task, self.cfg, self.sources, finish=False), stim),
                          list(last["plusargs"])])

    def score(self, ctx: Context, step: int, groups: list, candidates: list) -> list:
        out = []
        for j, (g, cands) in enumerate(zip(groups, candidates)):
            stimuli = [c.value for c in cands]
            if g is not None and (g.info or {}).get("kind") == "program":
                out.append(self._program_rows(stimuli, cands, j, (g.info or {}).get("pred") or {}))
                continue
            texts = [s[0] if s else c.text for s, c in zip(stimuli, cands)]
            results = [simulate(self.task, self.sources, s[0], self.cfg, s[1], self.fsms) if s else None for s in stimuli]
            out.append(self._rows(texts, results, kind="llm", plusargs=[s[1] if s else [] for s in stimuli], group=j))
        return out

    def _program_rows(self, stimuli, cands, group: int, pred: dict | None = None) -> list:
        """Each chosen option run from reset with its own seed (+opt=K +seed=S on the one programs build); the
        row's text is that testbench, so the suite replays it with the plusargs."""
        from eda.stim_programs import plusargs
        base = self.cfg.seed * 1000 + 500 + len(self.sims)
        args = [plusargs(s[1], base + i) if s else [] for i, s in enumerate(stimuli)]
        results = [self.programs.run(s[1], base + i) if s else None for i, s in enumerate(stimuli)]
        texts = [self.programs.text if s else c.text for s, c in zip(stimuli, cands)]
        return self._rows(texts, results, kind="program", plusargs=args, group=group,
                          extra=[{"option": self.programs.labels[s[1]] if s else None, "batch": base,
                                  "pred": (pred or {}).get(self.programs.labels[s[1]]) if s else None} for s in stimuli])

    def _rows(self, texts, results, kind, plusargs, extra=None, group: int = 0) -> list:
        """Rows of one group: scored against the union before it; accepted when they add points (random
        runs in run order, model stimuli greedily by gain); the union and the simulation records move on."""
        scored = score(results, self.db, self.types, self.cfg.rewards)
        order = range(len(results)) if kind == RANDOM else sorted(range(len(results)), key=lambda i: -scored[i][1])
        accepted, trial = set(), cov.CoverageDB(self.db.sources)
        trial.add(self.db.points.values())
        for i in order:
            r = results[i]
            if r is not None and r.ok:
                if _covered(r.points) - _covered(trial.points.values()):
                    accepted.add(i)
                trial.add(r.points)
        rows = []
        for i, r in enumerate(results):
            status = "extract" if r is None else r.status
            rep = {"sim": len(self.sims) + i, "kind": kind, "accepted": i in accepted, "gain": scored[i][1],
                   "plusargs": list(plusargs[i]),
                   "diagnostics": [] if r is None else [str(d) for d in r.diagnostics[:6]],
                   "build_s": 0.0 if r is None else round(r.build_s, 2),
                   "run_s": 0.0 if r is None else round(r.run_s, 3),
                   "stopped_by": None if r is None else r.data.get("stopped_by"),
                   "cov": [[p.key, p.count] for p in r.points] if r is not None and r.ok else None,
                   **(extra[i] if extra else {})}
            rows.append(Row(texts[i], float(scored[i][0]), status,
                            None if status == "pass" else ("extract" if r is None else "coverage"),
                            metrics={"gain": scored[i][1]}, payload=rep, group=group))
        for r in results:
            if r is not None and r.ok:
                self.db.add(r.points)
        self.sims.extend(_record(row.to_store()) for row in rows)
        return rows

    def metrics(self, rows: list) -> dict:
        return {"simulations": len(self.sims), "total_pct": round(self.db.percent(), 2) if self.db.points else 0.0}

    def committed(self, ctx: Context, step: int, rows: list, store: RunStore):
        write_outputs(self.task, self.dir, store, self.cfg)
        for row in rows:
            if self.on_sim:
                self.on_sim({**_record(row.to_store()), "step": step}, self.db)
