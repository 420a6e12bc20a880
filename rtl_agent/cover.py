"""Coverage closure: the policy writes stimulus until the DUT's coverage meets a target.

    summary = run_cover(load_task("counter8"), Path("runs/cover/counter8"),
                        CoverConfig(target=parse_target("line=95,branch=90,toggle=80"), budget=16))

One step: prompt (spec + DUT RTL + the uncovered points of the target types, with their source
lines; short, the default model has a small context) -> G stimuli sampled from the policy ->
each compiled and run by `eda.coverage.coverage_run` (sandboxed, Verilator) -> reward ->
one entropic LoRA step (`training.lora_update.rl_step`, adaptive KL budget) unless `train` is off.
The loop stops when every target type reaches its percentage or the budget is spent.

Budget: every sampled stimulus costs one simulation, whether it compiles or not (a build is the
expensive part, and a weak model would otherwise loop for ever on unusable text). With
`seed_random` the run starts with one constrained-random stimulus (`eda.random_stim`, 200
cycles), which also costs one simulation; it gives the first prompt real uncovered points.

Reward of a stimulus (REWARDS, configurable):
  ran (status pass): gain = points of the target types it reaches that the union of all earlier
      steps had not, divided by the target-type points still uncovered before this step (the share
      of the remaining gap it closes, in [0, 1]); the G samples of a step are all scored against
      the union before the step, so the order inside a group does not matter.
  no Verilog in the completion: `extract`; refused by the sandbox screen: `rejected`;
  does not compile: `error`; no coverage written ($stop/$fatal/crash): `fail`; hit a limit: `timeout`.
A stimulus is accepted into the regression suite when it adds points (all types) to the union,
taken greedily in order of gain; the accepted ones are the closed suite (`suite/*.sv`).

Run folder (resumable through training.loop, the same loop as `optimize`: every step is one SQLite
transaction in run.sqlite, the LoRA adapter of step s is saved before step s is committed, sampling
is seeded per step and group; step 0 holds the random seed stimulus, if any):
  run.sqlite, adapters/step_NNN/, events.jsonl, suite/sim<NNN>.sv (NNN = the row `sim` of coverage.csv),
  coverage.csv, coverage.html, coverage.info, coverage.txt (annotated source), coverage.png, summary.json,
  baseline.json (with a baseline).
"""
from __future__ import annotations

import csv
import datetime
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from eda import coverage as cov
from eda import tools
from eda.fsutil import atomic_write
from eda.random_stim import random_stimulus, seeded_stimulus
from training.loop import Environment, Group, Loop, LoopConfig, RunFolderError  # noqa: F401 (RunFolderError: API)
from training.store import RunStore

CHASED = ("line", "branch", "expr", "toggle", "user")

# Failed stimuli are verdicts with a reward, never exceptions (see the module doc).
REWARDS = {"extract": -1.0, "rejected": -1.0, "error": -0.5, "fail": -0.3, "timeout": -0.3}


def parse_target(text: str) -> dict:
    """"line=95,branch=90,toggle=80" -> {"line": 95.0, ...}; ValueError names what is wrong."""
    out = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        k, sep, v = part.partition("=")
        k = k.strip()
        if not sep or k not in CHASED:
            raise ValueError(f"--target: expected TYPE=PERCENT with TYPE in {', '.join(CHASED)}, got {part.strip()!r}")
        try:
            x = float(v)
        except ValueError:
            raise ValueError(f"--target: {k}: {v.strip()!r} is not a number") from None
        if not 0 <= x <= 100:
            raise ValueError(f"--target: {k}: {x} is not a percentage in [0, 100]")
        out[k] = x
    if not out:
        raise ValueError("--target: give at least one TYPE=PERCENT, e.g. line=95,branch=90,toggle=80")
    return out


@dataclass
class CoverConfig:
    target: dict = field(default_factory=lambda: {"line": 95.0, "branch": 90.0, "toggle": 80.0})
    budget: int = 16              # simulations (sampled stimuli, compiled or not)
    group: int = 4                # stimuli sampled per step (G)
    train: bool = True            # entropic LoRA step after each group
    max_tokens: int = 256
    temperature: float = 0.8
    top_p: float = 0.95
    seed: int = 0
    seed_random: bool = False     # start with one constrained-random stimulus (counts in the budget)
    lr: float = 1e-4
    prompt_points: int = 10       # uncovered items listed in the prompt
    max_code: int = 1200          # DUT characters in the prompt when the policy cannot count tokens
                                  # (otherwise the whole DUT when it fits the context, else the longest clip that does)
    max_spec: int = 400           # spec characters in the prompt
    example: bool = True          # one worked example before the request (see build_prompt)
    run_wall_s: float = 10.0      # per simulation (the build has its own limit)
    rewards: dict = field(default_factory=lambda: dict(REWARDS))

    def check(self):
        if self.budget < 1 or self.group < 1 or self.max_tokens < 1:
            raise ValueError("budget, group and max_tokens must be >= 1")
        for k in self.rewards:
            if k not in REWARDS:
                raise ValueError(f"unknown reward key {k!r}; known: {', '.join(REWARDS)}")
        return self


# ---- coverage bookkeeping ------------------------------------------------------------

def _covered(points, types=None) -> set:
    return {p.key for p in points if p.count > 0 and (types is None or p.type in types)}


def target_status(db: cov.CoverageDB, target: dict) -> dict:
    """type -> {"covered", "total", "pct", "target", "met"}; a type the DUT lacks counts as met
    once the point set is known (an empty database meets nothing)."""
    s = db.summary()
    out = {}
    for t, want in target.items():
        c, n = s.get(t, (0, 0))
        out[t] = {"covered": c, "total": n, "pct": round(cov.pct((c, n)), 2) if n else None,
                  "target": want, "met": bool(db.points) and (n == 0 or cov.pct((c, n)) >= want - 1e-9)}
    return out


def met(db, target) -> bool:
    return all(v["met"] for v in target_status(db, target).values())


def points_of(pairs) -> list:
    """Points back from stored [key, count] pairs (a key is a coverage.dat record body)."""
    return cov.parse_coverage_dat("\n".join(f"C '{k}' {c}" for k, c in pairs))


# ---- prompt and extraction -------------------------------------------------------------

def uncovered_lines(db: cov.CoverageDB, types, limit: int) -> list:
    """Short descriptions of uncovered points for the prompt: toggles grouped per signal."""
    out, toggles = [], {}
    for p in db.uncovered(types):
        if p.type == "toggle":
            sig = re.sub(r"\[\d+\].*|:.*", "", p.comment) or p.comment
            toggles.setdefault(sig, []).append(p.comment[len(sig):].replace(":", " ").strip())
        else:
            src = p.source.strip()
            out.append(f"line {p.line} {p.type}{(' ' + p.comment) if p.comment else ''}: `{src[:80]}`")
    for sig, bits in toggles.items():
        out.append(f"signal {sig} not toggled: {', '.join(bits[:6])}")
    return out[:limit]


# One worked example (a different, tiny design) before the real request: the 135M default model
# copies the answer's shape (bare statements driving ports by name) far more often than it follows
# the instruction alone. It costs ~150 prompt tokens.
_EX_CODE = ("module acc(input clk, input rst, input [3:0] x, output reg [7:0] s);\n"
            "  always @(posedge clk) if (rst) s <= 0; else s <= s + x;\nendmodule")
_EX_TODO = ["line 2 branch else: `else s <= s + x;`", "signal x not toggled: [3] 0->1"]
_EX_ANSWER = ("```verilog\nrst = 1;\nrepeat (2) @(negedge clk);\nrst = 0;\nrepeat (20) begin\n"
              "  @(negedge clk);\n  x = $random;\nend\nx = 4'hf;\n@(negedge clk);\n$finish;\n```")


def build_prompt(task, db: cov.CoverageDB, cfg: CoverConfig, fits=None) -> list:
    """Chat messages: the stimulus prompt of rtl_agent.prompts (system, one worked example, then
    this DUT with this run's uncovered points). With `fits(messages) -> bool` (the policy's token
    count against its context), the whole DUT is shown when it fits, else the longest clip that
    does; without it the DUT is clipped to cfg.max_code characters."""
    from rtl_agent.prompts import stimulus_prompt
    code = "\n".join(task.reference_sources().values())
    todo = uncovered_lines(db, list(cfg.target), cfg.prompt_points) if db.points else []
    spec = (task.spec or "").strip()
    spec = spec if len(spec) <= cfg.max_spec else spec[:cfg.max_spec] + " ..."

    def build(max_code):
        msgs = stimulus_prompt(spec, code, task.top, todo, max_items=cfg.prompt_points, max_code=max_code)
        if not cfg.example:
            return msgs
        ex = stimulus_prompt("Accumulator: s adds x every clock; rst clears it.", _EX_CODE, "acc", _EX_TODO)
        return msgs[:1] + [ex[1], {"role": "assistant", "content": _EX_ANSWER}] + msgs[1:]
    if fits is None:
        return build(cfg.max_code)
    if fits(build(len(code) + 1)):
        return build(len(code) + 1)
    lo, hi, best = 200, len(code), 200
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(build(mid)):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return build(best)


_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_STARTERS = {"#", "@", "repeat", "for", "if", "else", "begin", "end", "fork", "join", "wait", "$finish",
             "$display", "$random", "while", "integer"}
_VCHARS = re.compile(r"^[\w\s\[\]:'\"$#@().,;=+\-*/&|^~<>!?{}%]*$")


def _salvage(text: str, inputs) -> str:
    """Keep the lines that look like procedural Verilog driving the DUT: only Verilog characters,
    starting with a statement keyword, a delay/event control, or an input port of the DUT.
    initial/always lines are dropped (the body is wrapped in one initial block; the clock is
    driven by the wrapper) and an `end` that closes nothing goes with them."""
    out, depth = [], 0
    for raw in text.splitlines():
        line = raw.split("//")[0].rstrip()
        if not line.strip() or not _VCHARS.match(line):
            continue
        first = re.match(r"\s*(\$?\w+|[#@])", line)
        word = first.group(1) if first else ""
        if word in ("initial", "always"):
            rest = re.sub(r"^\s*(initial|always)\b\s*(@\s*\([^)]*\)|#\s*[\d.]+)?", "", line)
            if rest.strip().startswith("begin"):
                depth += 1
                out.append(rest)
            continue
        if word not in _STARTERS and word not in inputs:
            continue
        opens = len(re.findall(r"\bbegin\b", line))
        closes = len(re.findall(r"\bend\b", line))
        if closes > depth + opens:
            continue
        depth += opens - closes
        out.append(line)
    return "\n".join(out)


def extract_stimulus(completion: str, inputs=None) -> tuple[str, str]:
    """(stimulus text, "") or ("", reason). Takes the first fenced block (else the whole text).
    A module stays as is (full-module form). Otherwise it is a body: with `inputs` (the DUT's input
    port names) lines that cannot be stimulus are dropped (`_salvage`); then it is cut after the
    last complete statement (the sample may be truncated), open begin/fork blocks are closed, and
    bare statements are wrapped in `initial begin ... $finish; end`."""
    if not isinstance(completion, str) or not completion.strip():
        return "", "empty completion"
    m = _FENCE.search(completion)
    text = (m.group(1) if m else completion).strip()
    if re.search(r"^\s*module\b", text, re.M):
        return text + "\n", ""
    if inputs is not None:
        text = _salvage(text, set(inputs))
    last = max(text.rfind(";"), *(mm.end() - 1 for mm in re.finditer(r"\bend\b", text)), -1)
    if last < 0:
        return "", "no Verilog statement (nothing ends with ';')"
    text = text[:last + 1]
    opened = len(re.findall(r"\bbegin\b", text)) - len(re.findall(r"\bend\b", text))
    forks = len(re.findall(r"\bfork\b", text)) - len(re.findall(r"\bjoin(?:_any|_none)?\b", text))
    text += "\njoin" * max(0, forks) + "\nend" * max(0, opened)
    if not re.search(r"^\s*(initial|always)\b", text, re.M):
        text = "initial begin\n" + text + "\n#10 $finish;\nend"
    return text + "\n", ""


# ---- one simulation ------------------------------------------------------------------------

def simulate(task, sources: dict, text: str, cfg: CoverConfig) -> cov.CoverageResult:
    lim = cov.CoverageLimits()
    lim.run.wall_s = float(cfg.run_wall_s)
    lim.run.cpu_s = max(1, int(cfg.run_wall_s))     # setrlimit takes whole seconds
    return cov.coverage_run(sources, task.top, text, limits=lim, ports=task.ports, clock=task.clock,
                            period_ns=task.period_ns or 10.0)


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
    """Stimulus prompts from the union's holes, Verilator coverage runs, the gain reward. The union
    and the simulation records are rebuilt from the store, so the checkpoint state is empty."""

    def __init__(self, task, out: Path, cfg: CoverConfig, policy_spec: str, on_sim=None):
        self.task, self.dir, self.cfg, self.policy_spec, self.on_sim = task, out, cfg, policy_spec, on_sim
        self.sources = task.reference_sources()
        self.types = list(cfg.target)
        self.inputs = [p.name for p in task.ports if p.direction == "input" and p.name != task.clock]
        self.sims, self.db = [], cov.CoverageDB(self.sources)

    def settings(self) -> dict:
        c = asdict(self.cfg)
        return {"task": self.task.name, "top": self.task.top, "policy": self.policy_spec,
                **{k: c[k] for k in ("target", "group", "seed_random", "prompt_points", "max_code", "max_spec",
                                     "example", "run_wall_s", "rewards")}}

    def start(self) -> list:
        if not self.cfg.seed_random or self.cfg.budget < 1:
            return []
        t = self.task
        text = random_stimulus(t.ports, t.top, clock=t.clock, reset=t.reset, reset_active_low=t.reset_active_low,
                               cycles=200, seed=self.cfg.seed, period_ns=t.period_ns or 10.0)
        return self._rows([text], [simulate(t, self.sources, text, self.cfg)], kind="seed-random")

    def restore(self, state: dict, store: RunStore):
        self.sims = _state(store)
        self.db = _union(self.sims, self.sources)

    def done(self, step: int) -> bool:
        return len(self.sims) >= self.cfg.budget or met(self.db, self.cfg.target)

    policy = None

    def attach(self, policy):
        self.policy = policy

    def groups(self, step: int) -> list:
        pol, fits, info = self.policy, None, {}
        if pol is not None and hasattr(pol, "count_tokens"):
            budget = int(getattr(pol, "context_window", 8192)) - self.cfg.max_tokens - 16

            def fits(msgs):
                return pol.count_tokens(msgs) <= budget
        msgs = build_prompt(self.task, self.db, self.cfg, fits)
        if fits is not None:
            code = "\n".join(self.sources.values()).strip()
            info = {"mode": "whole" if code in msgs[-1]["content"] else "clipped",
                    "prompt_tokens": pol.count_tokens(msgs), "budget": budget}
            self.emit("prompt", step=step, **info)
        return [Group(msgs, min(self.cfg.group, self.cfg.budget - len(self.sims)), info=info or None)]

    def extract(self, text: str, group=None) -> str | None:
        return extract_stimulus(text, self.inputs)[0] or None

    def score(self, step: int, groups: list, comps: list, stimuli: list) -> list:
        texts = [s or c.text for s, c in zip(stimuli[0], comps[0])]
        results = [simulate(self.task, self.sources, s, self.cfg) if s else None for s in stimuli[0]]
        return [self._rows(texts, results, kind="llm")]

    def _rows(self, texts, results, kind) -> list:
        """Rows of one group: scored against the union before it, accepted greedily by gain; the
        union and the simulation records move on."""
        scored = score(results, self.db, self.types, self.cfg.rewards)
        order = sorted(range(len(results)), key=lambda i: -scored[i][1])
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
                   "diagnostics": [] if r is None else [str(d) for d in r.diagnostics[:6]],
                   "build_s": 0.0 if r is None else round(r.build_s, 2),
                   "run_s": 0.0 if r is None else round(r.run_s, 3),
                   "stopped_by": None if r is None else r.data.get("stopped_by"),
                   "cov": [[p.key, p.count] for p in r.points] if r is not None and r.ok else None}
            rows.append({"grp": 0, "text": texts[i], "reward": float(scored[i][0]), "status": status,
                         "failed_stage": None if status == "pass" else ("extract" if r is None else "coverage"),
                         "report": rep})
        for r in results:
            if r is not None and r.ok:
                self.db.add(r.points)
        self.sims.extend({**row, **row["report"]} for row in rows)
        return rows

    def metrics(self, rows: list) -> dict:
        return {"simulations": len(self.sims), "total_pct": round(self.db.percent(), 2) if self.db.points else 0.0}

    def committed(self, step: int, rows: list, store: RunStore):
        write_outputs(self.task, self.dir, store, self.cfg)
        for row in rows:
            if self.on_sim:
                self.on_sim({**row, **row["report"], "step": step}, self.db)


def _state(store: RunStore):
    """Simulation records of the committed steps, in simulation order."""
    sims = [{**c, **(c["report"] or {})} for c in store.candidates()]
    sims.sort(key=lambda s: s["sim"])
    return sims


def _union(sims, sources) -> cov.CoverageDB:
    db = cov.CoverageDB(sources)
    for s in sims:
        if s.get("cov"):
            db.add(points_of(s["cov"]))
    return db


def run_cover(task, out: Path, cfg: CoverConfig, policy=None, policy_spec: str = "default", resume: bool = False,
              baseline: bool = False, on_sim=None, log=print) -> dict:
    """Run (or resume) a closure job in `out` (training.loop, the same loop as `optimize`); returns the
    summary (also written to summary.json). on_sim(record, db) is called after each simulation."""
    cfg.check()
    out = Path(out)
    env = CoverEnv(task, out, cfg, policy_spec, on_sim)

    def make_policy():
        pol = policy
        if pol is None:
            from rtl_agent.policy import make_policy as make
            log(f"loading policy {policy_spec} ...")
            pol = make(policy_spec)
        return pol, (pol if getattr(pol, "trainable", False) else None)
    loop = Loop(env, LoopConfig(seed=cfg.seed, train=cfg.train, max_tokens=cfg.max_tokens,
                                temperature=cfg.temperature, top_p=cfg.top_p, lr=cfg.lr),
                out, make_policy, resume=resume)
    try:
        loop.open()
        if resume and env.sims:
            log(f"resuming {out}: {len(env.sims)} simulations in {loop.step + 1} step(s) already done")
        if baseline:
            run_baseline(task, env.sources, out, cfg)
        loop.run()
        return write_outputs(task, out, loop.store, cfg)
    finally:
        loop.close()


# ---- baseline ------------------------------------------------------------------------------

def run_baseline(task, sources, out: Path, cfg: CoverConfig) -> dict:
    """Constrained-random stimulus at the same budget (seeded_stimulus: one build, `budget` runs,
    +seed=0..budget-1), cumulative coverage after each run. Kept in baseline.json (computed once)."""
    path = out / "baseline.json"
    if path.exists():
        try:
            return json.loads(path.read_text())
        except ValueError:
            pass
    text = seeded_stimulus(task.ports, task.top, clock=task.clock, reset=task.reset,
                           reset_active_low=task.reset_active_low, cycles=200, seed=0,
                           period_ns=task.period_ns or 10.0)
    res = cov.coverage_runs(sources, task.top, text, [[f"+seed={s}"] for s in range(cfg.budget)])
    db, curve = cov.CoverageDB(sources), []
    for r in res:
        if r.ok:
            db.add(r.points)
        curve.append({k: (list(v) if v else None) for k, v in _pcts(db).items()})
    data = {"budget": cfg.budget, "status": [r.status for r in res], "curve": curve,
            "final": {t: list(v) for t, v in db.summary().items()}, "percent": round(db.percent(), 2)}
    atomic_write(path, json.dumps(data, indent=1))
    return data


def _pcts(db) -> dict:
    s = db.summary()
    return {t: s.get(t) for t in CHASED if t in s}


# ---- outputs -------------------------------------------------------------------------------

def write_outputs(task, out: Path, store: RunStore, cfg: CoverConfig) -> dict:
    """Every output file, regenerated from the committed steps (so a resumed run never duplicates)."""
    sims = _state(store)
    sources = task.reference_sources()
    db = cov.CoverageDB(sources)
    suite = out / "suite"
    suite.mkdir(exist_ok=True)
    keep = set()
    rows = []
    for s in sims:
        if s.get("cov"):
            db.add(points_of(s["cov"]))
        if s.get("accepted"):
            name = f"sim{s['sim'] + 1:03d}.sv"
            keep.add(name)
            f = suite / name
            if not f.exists() or f.read_text() != s["text"]:
                f.write_text(s["text"])
        row = {"sim": s["sim"] + 1, "step": s["step"], "status": s["status"], "reward": round(s["reward"], 4),
               "gain": s.get("gain", 0), "accepted": int(bool(s.get("accepted")))}
        for t, ct in _pcts(db).items():
            row[f"{t}_pct"] = round(cov.pct(ct), 2)
        row["total_pct"] = round(db.percent(), 2) if db.points else 0.0
        rows.append(row)
    for f in suite.glob("*.sv"):
        if f.name not in keep:
            f.unlink()
    cols = ["sim", "step", "status", "reward", "gain", "accepted"] + [f"{t}_pct" for t in CHASED] + ["total_pct"]
    with open(out / "coverage.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, restval="")
        w.writeheader()
        w.writerows(rows)
    title = f"{task.name}: coverage after {len(sims)} simulation(s)"
    db.write_html(out / "coverage.html", title)
    (out / "coverage.info").write_text(db.to_lcov(task.name))
    (out / "coverage.txt").write_text(db.annotate())
    base = None
    if (out / "baseline.json").exists():
        try:
            base = json.loads((out / "baseline.json").read_text())
        except ValueError:
            base = None
    _plot(out / "coverage.png", rows, base, cfg, task.name)
    summary = _summary(task, sims, db, cfg, base, store)
    atomic_write(out / "summary.json", json.dumps(summary, indent=1, default=str))
    return summary


def _why(db, sims) -> str:
    """Why points are still uncovered, as far as the run can tell."""
    if not sims:
        return "no simulation ran yet"
    if not db.points:
        bad = {}
        for s in sims:
            bad[s["status"]] = bad.get(s["status"], 0) + 1
        return ("no stimulus ran to completion, so not even the point set is known: "
                + ", ".join(f"{n} {k}" for k, n in sorted(bad.items())))
    ok = [s for s in sims if s["status"] == "pass"]
    return (f"not reached by any of the {len(ok)} stimuli that ran ({len(sims) - len(ok)} of {len(sims)} "
            "simulations did not run: see coverage.csv status)")


def _summary(task, sims, db, cfg, base, store) -> dict:
    status = target_status(db, cfg.target)
    unc = [p.describe() for p in db.uncovered(list(cfg.target))]
    counts = {}
    for s in sims:
        counts[s["status"]] = counts.get(s["status"], 0) + 1
    return {"task": task.name, "top": task.top, "date": datetime.date.today().isoformat(),
            "isolation": cov.sandbox.isolation_mode(),   # bwrap, or off (--no-isolation)
            "target": cfg.target, "met": met(db, cfg.target), "coverage": status,
            "all_types": {t: list(v) for t, v in db.summary().items()},
            "total_pct": round(db.percent(), 2) if db.points else 0.0,
            "simulations": len(sims), "budget": cfg.budget, "steps": len({s["step"] for s in sims}),
            "verdicts": counts, "accepted": [f"suite/sim{s['sim'] + 1:03d}.sv" for s in sims if s.get("accepted")],
            "mean_reward": round(sum(s["reward"] for s in sims) / len(sims), 4) if sims else None,
            "uncovered": unc[:200], "uncovered_count": len(unc), "why_uncovered": _why(db, sims),
            "baseline": None if base is None else {"budget": base["budget"], "final": base["final"],
                                                   "percent": base["percent"]},
            "train": cfg.train, "seed_random": cfg.seed_random, "verilator": tools.version("verilator"),
            "kl_decisions": len(store.decisions())}


def _plot(path: Path, rows, base, cfg, name):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4))
    colors = {"line": "C0", "branch": "C1", "expr": "C2", "toggle": "C3", "user": "C4"}
    for t in CHASED:
        ys = [r.get(f"{t}_pct") for r in rows]
        pts = [(r["sim"], y) for r, y in zip(rows, ys) if y not in (None, "")]
        if pts:
            ax.plot(*zip(*pts), "-o", color=colors[t], label=f"{t} (agent)", ms=3)
        if base:
            bp = [(i + 1, cov.pct(c[t])) for i, c in enumerate(base["curve"]) if c.get(t)]
            if bp:
                ax.plot(*zip(*bp), "--", color=colors[t], label=f"{t} (random)", alpha=0.7)
        if t in cfg.target:
            ax.axhline(cfg.target[t], color=colors[t], lw=0.6, ls=":")
    ax.set_xlabel("simulations")
    ax.set_ylabel("coverage %")
    ax.set_ylim(0, 102)
    ax.set_xlim(0.5, max(cfg.budget, 1) + 0.5)
    ax.set_title(f"{name}: coverage vs simulations")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
