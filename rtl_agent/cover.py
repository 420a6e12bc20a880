"""Coverage closure the way verification engineers do it: constrained random first, the model on the holes.

    summary = run_cover(load_task("counter8"), Path("runs/cover/counter8"),
                        CoverConfig(target=parse_target("line=95,branch=90,toggle=80"), budget=16))
    replay(Path("runs/cover/counter8"))        # re-run the kept suite, compare with the recorded coverage

Step 0, the random phase (no model): `eda.random_stim.seeded_stimulus` with styles (fresh, held,
toggling, corner values with reset pulses; the seed picks the style), one build, run with
+seed=S*1000+k for k = 0.. until `patience` runs in a row add no point once every style ran (the
plateau; a met target does not stop it) or `random_budget` runs are spent. When the target is then
met, no model runs and random gets the whole budget instead. One build runs `budget` seeds (a run
costs milliseconds); the runs not kept are discarded unseen and count nowhere. Metrics: Verilator's line/branch/expr/toggle/user, and fsm_state/fsm_arc (eda.fsm: FSMs
Yosys finds, measured by a monitor in the same simulation).
Then, while the target is not met and the budget lasts, the model phase: a prompt naming a few
holes (their source lines and the branch conditions that enclose them) with the whole DUT when it
fits the policy's context -> G stimuli sampled -> each compiled and run by `eda.coverage.coverage_run`
(sandboxed, Verilator) -> reward -> one entropic LoRA step (`training.lora_update.rl_step`) unless
`train` is off. The model loads only when a model step runs: a design random closes never loads it.

A body answer starting with `// from: random` continues from the state the random phase's last run
left: that run's testbench (same seed, so the same values and state; its points are the random
run's) with `finish=False`, the model's initial blocks waiting for its end. Otherwise (`// from:
reset`, nothing said, or a full module) the stimulus starts from reset in its own testbench. A
```python answer defining a cocotb coroutine `async def stimulus(dut)` runs from reset under cocotb +
Verilator coverage in the same sandbox (`eda.coverage.cocotb_coverage_run`; its points merge with
the Verilog ones; no FSM points).

Budget: every random run kept and every sampled stimulus (compiled or not) is one simulation.

Reward of a stimulus (REWARDS, configurable):
  ran (status pass): gain = points of the target types it reaches that the union of all earlier
      steps had not, divided by the target-type points still uncovered before this step (the share
      of the remaining gap it closes, in [0, 1]); the G samples of a step are all scored against
      the union before the step, so the order inside a group does not matter.
  no Verilog in the completion: `extract`; refused by the sandbox screen: `rejected`;
  does not compile: `error`; no coverage written (a crash; $stop/$fatal do write it): `fail`;
  hit a limit: `timeout`.
A stimulus is accepted into the regression suite when it adds points (all types) to the union;
random runs in run order, model stimuli greedily by gain. Each point is attributed to the kind of
the first simulation that reached it (random or model): summary.json, coverage.html, coverage.info.

Run folder (resumable through training.loop, the same loop as `optimize`: every step is one SQLite
transaction in run.sqlite, the LoRA adapter of step s is saved before step s is committed, sampling
is seeded per step and group; step 0 holds the random phase):
  run.sqlite, adapters/step_NNN/, events.jsonl,
  suite/random.sv + suite/sim<NNN>.sv|.py (the model's kept stimuli, as simulated) + suite/manifest.json
  (which file with which plusargs: `rtl-agent cover --replay RUN`),
  coverage.csv, coverage.html, coverage.info (lcov; tests `random` and `model`), coverage.txt
  (annotated source), coverage.png, summary.json, baseline.json (with a baseline).
"""
from __future__ import annotations

import csv
import datetime
import json
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from eda import coverage as cov
from eda import fsm
from eda import tools
from eda.fsutil import atomic_write
from eda.random_stim import STYLES, seeded_stimulus
from training.loop import Environment, Group, Loop, LoopConfig, RunFolderError  # noqa: F401 (RunFolderError: API)
from training.store import RunStore

CHASED = ("line", "branch", "expr", "toggle", "user", "fsm_state", "fsm_arc")
RANDOM = "random"          # kind of the random phase's simulations (the model's are "llm")

# Failed stimuli are verdicts with a reward, never exceptions (see the module doc).
REWARDS = {"extract": -1.0, "rejected": -1.0, "error": -0.5, "fail": -0.3, "timeout": -0.3}


def parse_target(text: str) -> dict:
    """"line=95,branch=90,toggle=80" -> {"line": 95.0, ...}; ValueError names what is wrong (before
    any simulation). A metric the design turns out to have no points for is met (vacuously)."""
    out = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        k, sep, v = part.partition("=")
        k = k.strip()
        if not sep:
            raise ValueError(f"--target: expected METRIC=PERCENT, got {part.strip()!r}")
        if k not in CHASED:
            raise ValueError(f"--target: unknown metric {k!r}; known: {', '.join(CHASED)}")
        try:
            x = float(v)
        except ValueError:
            raise ValueError(f"--target: {k}: {v.strip()!r} is not a number") from None
        if not 0 <= x <= 100:
            raise ValueError(f"--target: {k}: {x} is not a percentage in [0, 100]")
        out[k] = x
    if not out:
        raise ValueError("--target: give at least one METRIC=PERCENT, e.g. line=95,branch=90,toggle=80")
    return out


@dataclass
class CoverConfig:
    target: dict = field(default_factory=lambda: {"line": 95.0, "branch": 90.0, "toggle": 80.0})
    budget: int = 16              # simulations: random runs kept + sampled stimuli (compiled or not)
    random_budget: int = 8        # random runs at most before the model (0: the model from the start)
    patience: int = 4             # random runs in a row without a new point end the random phase
    random_cycles: int = 200      # clock cycles per random run
    group: int = 4                # stimuli sampled per step (G)
    train: bool = True            # entropic LoRA step after each group
    max_tokens: int = 256
    temperature: float = 0.8
    top_p: float = 0.95
    seed: int = 0
    lr: float = 1e-4
    prompt_points: int = 6        # holes named in the prompt
    max_spec: int = 400           # spec characters in the prompt
    example: bool = True          # one worked example before the request (see build_prompt)
    run_wall_s: float = 10.0      # per simulation (the build has its own limit)
    rewards: dict = field(default_factory=lambda: dict(REWARDS))
    adapter: str = "default"      # SFT adapter merged into a local model (policy.models.resolve_adapter)

    def check(self):
        if self.budget < 1 or self.group < 1 or self.max_tokens < 1 or self.patience < 1 or self.random_cycles < 1:
            raise ValueError("budget, group, max_tokens, patience and random_cycles must be >= 1")
        if self.random_budget < 0:
            raise ValueError("random_budget must be >= 0")
        for k in self.rewards:
            if k not in REWARDS:
                raise ValueError(f"unknown reward key {k!r}; known: {', '.join(REWARDS)}")
        return self


def config_from(p: dict) -> CoverConfig:
    """CoverConfig from the CLI's arguments (vars(args)); the suite jobs pass the same dict."""
    return CoverConfig(target=parse_target(p["target"]), budget=p["budget"], random_budget=p["random_budget"],
                       patience=p["patience"], group=p["group"], train=not p["no_train"], max_tokens=p["max_tokens"],
                       temperature=p["temperature"], seed=p["seed"], lr=p["lr"],
                       adapter=p.get("adapter") or "default").check()


# ---- coverage bookkeeping ------------------------------------------------------------

def _covered(points, types=None) -> set:
    return {p.key for p in points if p.count > 0 and (types is None or p.type in types)}


def target_status(db: cov.CoverageDB, target: dict) -> dict:
    """type -> {"covered", "total", "pct", "target", "met", "vacuous"}: a type the DUT has no points
    for is met, vacuously, once the point set is known (an empty database meets nothing)."""
    s = db.summary()
    out = {}
    for t, want in target.items():
        c, n = s.get(t, (0, 0))
        known = bool(db.points)
        out[t] = {"covered": c, "total": n, "pct": round(cov.pct((c, n)), 2) if n else None, "target": want,
                  "met": known and (n == 0 or cov.pct((c, n)) >= want - 1e-9), "vacuous": known and n == 0}
    return out


def met(db, target) -> bool:
    return all(v["met"] for v in target_status(db, target).values())


def points_of(pairs) -> list:
    """Points back from stored [key, count] pairs (a key is a coverage.dat record body)."""
    return cov.parse_coverage_dat("\n".join(f"C '{k}' {c}" for k, c in pairs))


def plateau(results, patience: int) -> int:
    """How many of the random runs to keep: up to the one after which `patience` runs in a row added
    no point, once every input style ran (all of them if that never happens). A met target does not
    stop it: random runs are cheap, and the union only grows."""
    trial, idle = cov.CoverageDB(), 0
    for i, r in enumerate(results):
        new = bool(r.ok and _covered(r.points) - _covered(trial.points.values()))
        if r.ok:
            trial.add(r.points)
        idle = 0 if new else idle + 1
        if idle >= patience and i + 1 >= STYLES:
            return i + 1
    return len(results)


# ---- prompt and extraction -------------------------------------------------------------

_HEADER = re.compile(r"(end\s+)?(else\b|if\s*\(|case[zx]?\s*\(|always\b|default\b|[\w'.]+(\s*,\s*[\w'.]+)*\s*:(?!=))")


def conditions(lines: list, line: int, limit: int = 3) -> list:
    """The if/else/case headers that enclose source line `line` (1-based), outermost first: what
    must hold to reach it. Read from indentation, so a rough guide for the prompt, not a proof."""
    def ind(s):
        return len(s) - len(s.lstrip())
    if not 0 < line <= len(lines):
        return []
    out, depth = [], ind(lines[line - 1])
    for i in range(line - 2, -1, -1):
        t = lines[i].strip()
        if not t or t.startswith("//") or ind(lines[i]) >= depth:
            continue
        depth = ind(lines[i])
        if t.startswith("module") or len(out) >= limit:
            break
        if _HEADER.match(t):
            out.append(t.split("//")[0].strip()[:100])
    return out[::-1]


def holes(db: cov.CoverageDB, types, limit: int) -> list:
    """A few uncovered points for the prompt: statement and branch holes first, each with its source
    line and the conditions around it; then toggles, grouped per signal."""
    out, toggles = [], {}
    for p in db.uncovered(types):
        if p.type.startswith("fsm_"):
            out.append(f"FSM {p.comment} never seen ({'state' if p.type == 'fsm_state' else 'transition'})")
            continue
        if p.type == "toggle":
            sig = re.sub(r"\[\d+\].*|:.*", "", p.comment) or p.comment
            toggles.setdefault(sig, []).append(p.comment[len(sig):].replace(":", " ").strip())
            continue
        lines = db.sources.get(p.file, "").splitlines()
        where = conditions(lines, p.line)
        arm = " (the condition false)" if p.type == "branch" and p.comment.startswith("else") else ""
        out.append(f"line {p.line} {p.type}{(' ' + p.comment) if p.comment else ''}{arm}: `{p.source.strip()[:80]}`"
                   + (f" inside {' -> '.join(f'`{w}`' for w in where)}" if where else ""))
    for sig, bits in toggles.items():
        out.append(f"signal {sig} not toggled: {', '.join(bits[:6])}")
    return out[:limit]


# One worked example (a different, tiny design) before the real request: the 135M default model
# copies the answer's shape (bare statements driving ports by name) far more often than it follows
# the instruction alone. It costs ~170 prompt tokens.
_EX_CODE = ("module acc(input clk, input rst, input [3:0] x, output reg [7:0] s);\n"
            "  always @(posedge clk) if (rst) s <= 0; else s <= s + x;\nendmodule")
_EX_TODO = ["line 2 branch else (the condition false): `always @(posedge clk) if (rst) s <= 0; else s <= s + x;`",
            "signal x not toggled: [3] 0->1"]
_EX_ANSWER = ("```verilog\n// from: reset\nrst = 1;\nrepeat (2) @(negedge clk);\nrst = 0;\nrepeat (20) begin\n"
              "  @(negedge clk);\n  x = $random;\nend\nx = 4'hf;\n@(negedge clk);\n$finish;\n```")


def build_prompt(task, db: cov.CoverageDB, cfg: CoverConfig, fits=None, random_runs: int = 0) -> list:
    """Chat messages: the stimulus prompt of rtl_agent.prompts (system, one worked example, then
    this DUT with a few of this run's holes). The whole DUT is shown when `fits(messages)` (the
    policy's token count against its context) says so, else the longest clip that fits; without
    `fits`, a count of ~3.5 characters per token against an 8192-token context."""
    from rtl_agent.prompts import stimulus_prompt
    code = "\n".join(task.reference_sources().values())
    todo = holes(db, list(cfg.target), cfg.prompt_points) if db.points else []
    spec = (task.spec or "").strip()
    spec = spec if len(spec) <= cfg.max_spec else spec[:cfg.max_spec] + " ..."
    if fits is None:
        def fits(msgs):
            return sum(len(m["content"]) for m in msgs) / 3.5 <= 8192 - cfg.max_tokens

    def build(max_code):
        msgs = stimulus_prompt(spec, code, task.top, todo, max_items=cfg.prompt_points, max_code=max_code,
                               random_runs=random_runs)
        if not cfg.example:
            return msgs
        ex = stimulus_prompt("Accumulator: s adds x every clock; rst clears it.", _EX_CODE, "acc", _EX_TODO,
                             random_runs=random_runs)
        return msgs[:1] + [ex[1], {"role": "assistant", "content": _EX_ANSWER}] + msgs[1:]
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


_FROM_RANDOM = re.compile(r"//\s*from\s*:?\s*(random|continue)", re.I)


def continue_random(random_text: str, stimulus: str) -> str:
    """A body stimulus run after the random testbench `random_text` (seeded_stimulus, finish=False):
    its initial blocks wait for the random run to end; the rest goes into the same module."""
    body = re.sub(r"\binitial\b", "initial wait (rtla_done)", stimulus)
    head, _, tail = random_text.rpartition("endmodule")
    return head + body.rstrip() + "\nendmodule" + tail


_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_PYFENCE = re.compile(r"```py(?:thon)?[^\n]*\n(.*?)(?:```|\Z)", re.S)


def extract_cocotb(completion: str) -> str:
    """A cocotb stimulus (a ```python block, or the text, defining `async def stimulus(dut)`), or ""."""
    m = _PYFENCE.search(completion or "")
    text = m.group(1) if m else (completion or "")
    return text.strip() + "\n" if cov.is_cocotb(text) else ""
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

def _limits(cfg: CoverConfig) -> cov.CoverageLimits:
    lim = cov.CoverageLimits()
    lim.run.wall_s = float(cfg.run_wall_s)
    lim.run.cpu_s = max(1, int(cfg.run_wall_s))     # setrlimit takes whole seconds
    return lim


def simulate(task, sources: dict, text: str, cfg: CoverConfig, plusargs=(), fsms=()) -> cov.CoverageResult:
    """One stimulus: Verilog (coverage_run), or a cocotb coroutine (cocotb_coverage_run, no FSM points)."""
    if cov.is_cocotb(text):
        return cov.cocotb_coverage_run(sources, task.top, text, task.clock, task.period_ns or 10.0, _limits(cfg))
    return cov.coverage_run(sources, task.top, text, limits=_limits(cfg), ports=task.ports, clock=task.clock,
                            period_ns=task.period_ns or 10.0, plusargs=plusargs, fsms=fsms)


def random_text(task, cfg: CoverConfig, sources: dict, finish: bool = True) -> str:
    """The random phase's testbench (one build; +seed=N picks the values and the style); sources are the
    DUT's (their slices of the inputs get per-field corners)."""
    from eda.hdl import input_fields
    ins = [(p.name, p.width) for p in task.ports if p.direction == "input"]
    fields = input_fields("\n".join(t for t in sources.values() if isinstance(t, str)), ins)
    return seeded_stimulus(task.ports, task.top, clock=task.clock, reset=task.reset,
                           reset_active_low=task.reset_active_low, cycles=cfg.random_cycles, seed=cfg.seed * 1000,
                           period_ns=task.period_ns or 10.0, styles=True, finish=finish, fields=fields)


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

    def __init__(self, task, out: Path, cfg: CoverConfig, policy_spec: str, on_sim=None):
        self.task, self.dir, self.cfg, self.policy_spec, self.on_sim = task, out, cfg, policy_spec, on_sim
        self.sources = task.reference_sources()
        self.types = list(cfg.target)
        self.inputs = [p.name for p in task.ports if p.direction == "input" and p.name != task.clock]
        self.fsms = fsm.extract(self.sources, task.top) if task.clock else []
        self.sims, self.db = [], cov.CoverageDB(self.sources)

    def settings(self) -> dict:
        c = asdict(self.cfg)
        from rtl_agent.policy import policy_adapter
        return {"task": self.task.name, "top": self.task.top, "policy": self.policy_spec,
                "adapter": policy_adapter(self.policy_spec, self.cfg.adapter),
                **{k: c[k] for k in ("target", "group", "random_budget", "patience", "random_cycles", "prompt_points",
                                     "max_spec", "example", "run_wall_s", "rewards")}}

    def legacy_settings(self) -> dict:
        return {"adapter": "none"}          # runs from before SFT adapters ran without one

    def start(self) -> list:
        n = min(self.cfg.random_budget, self.cfg.budget)
        if n < 1:
            return []
        t, text = self.task, random_text(self.task, self.cfg, self.sources)
        args = [[f"+seed={self.cfg.seed * 1000 + k}"] for k in range(self.cfg.budget)]
        res = cov.coverage_runs(self.sources, t.top, text, args, limits=_limits(self.cfg), clock=t.clock, fsms=self.fsms)
        keep = plateau(res[:n], self.cfg.patience)
        if met(cov.merge(res[:keep]), self.cfg.target):
            keep = len(res)      # no model will run: the budget it would have used goes to random
        self.emit("phase", step=0, phase=f"random phase: {keep} run(s) kept")
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
        rs = [s for s in self.sims if s.get("kind") == RANDOM]
        return rs[-1] if rs else None

    def groups(self, step: int) -> list:
        pol, fits, info = self.policy, None, {}
        if pol is not None and hasattr(pol, "count_tokens"):
            budget = int(getattr(pol, "context_window", 8192)) - self.cfg.max_tokens - 16

            def fits(msgs):
                return pol.count_tokens(msgs) <= budget
        n_random = sum(s.get("kind") == RANDOM for s in self.sims)
        msgs = build_prompt(self.task, self.db, self.cfg, fits, random_runs=n_random)
        if fits is not None:
            code = "\n".join(self.sources.values()).strip()
            info = {"mode": "whole" if code in msgs[-1]["content"] else "clipped",
                    "prompt_tokens": pol.count_tokens(msgs), "budget": budget}
            self.emit("prompt", step=step, **info)
        return [Group(msgs, min(self.cfg.group, self.cfg.budget - len(self.sims)), info=info or None)]

    def extract(self, text: str, group=None):
        """(stimulus as simulated, plusargs) or None: a cocotb coroutine as it is; a body answer saying
        `// from: random` runs after the last random run (its testbench and seed), any other from reset."""
        py = extract_cocotb(text)
        if py:
            return [py, []]
        stim = extract_stimulus(text, self.inputs)[0]
        if not stim:
            return None
        last = self._last_random()
        if last is None or not _FROM_RANDOM.search(text or "") or re.search(r"^\s*module\b", stim, re.M):
            return [stim, []]
        return [continue_random(random_text(self.task, self.cfg, self.sources, finish=False), stim), list(last["plusargs"])]

    def score(self, step: int, groups: list, comps: list, stimuli: list) -> list:
        texts = [s[0] if s else c.text for s, c in zip(stimuli[0], comps[0])]
        results = [simulate(self.task, self.sources, s[0], self.cfg, s[1], self.fsms) if s else None for s in stimuli[0]]
        return [self._rows(texts, results, kind="llm", plusargs=[s[1] if s else [] for s in stimuli[0]])]

    def _rows(self, texts, results, kind, plusargs) -> list:
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
              baseline: bool = False, on_sim=None, log=print, adapter=None) -> dict:
    """Run (or resume) a closure job in `out` (training.loop, the same loop as `optimize`); returns the
    summary (also written to summary.json). on_sim(record, db) is called after each simulation.
    adapter: the SFT adapter given to make_policy (None: cfg.adapter)."""
    if adapter is not None:
        cfg = replace(cfg, adapter=adapter)
    cfg.check()
    out = Path(out)
    env = CoverEnv(task, out, cfg, policy_spec, on_sim)

    def make_policy():
        pol = policy
        if pol is None:
            from rtl_agent.policy import make_policy as make
            log(f"loading policy {policy_spec} ...")
            pol = make(policy_spec, adapter=cfg.adapter)
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
    res = cov.coverage_runs(sources, task.top, text, [[f"+seed={s}"] for s in range(cfg.budget)], clock=task.clock,
                            fsms=fsm.extract(sources, task.top) if task.clock else [])
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

def _origin(kind) -> str:
    return RANDOM if kind == RANDOM else "model"


def write_outputs(task, out: Path, store: RunStore, cfg: CoverConfig) -> dict:
    """Every output file, regenerated from the committed steps (so a resumed run never duplicates)."""
    sims = _state(store)
    sources = task.reference_sources()
    db = cov.CoverageDB(sources)
    by = {RANDOM: cov.CoverageDB(sources), "model": cov.CoverageDB(sources)}
    first = {}                                   # point key -> (origin, sim) of the first run reaching it
    suite = out / "suite"
    suite.mkdir(exist_ok=True)
    keep, manifest, rows = set(), [], []
    for s in sims:
        if s.get("cov"):
            pts = points_of(s["cov"])
            db.add(pts)
            by[_origin(s.get("kind"))].add(pts)
            for k in _covered(pts) - set(first):
                first[k] = (_origin(s.get("kind")), s["sim"] + 1)
        if s.get("accepted"):
            name = ("random.sv" if s.get("kind") == RANDOM else
                    f"sim{s['sim'] + 1:03d}.{'py' if cov.is_cocotb(s['text']) else 'sv'}")
            keep.add(name)
            manifest.append({"file": name, "plusargs": s.get("plusargs") or [], "sim": s["sim"] + 1,
                             "origin": _origin(s.get("kind"))})
            f = suite / name
            if not f.exists() or f.read_text() != s["text"]:
                f.write_text(s["text"])
        row = {"sim": s["sim"] + 1, "step": s["step"], "kind": s.get("kind", ""), "status": s["status"],
               "reward": round(s["reward"], 4), "gain": s.get("gain", 0), "accepted": int(bool(s.get("accepted")))}
        for t, ct in _pcts(db).items():
            row[f"{t}_pct"] = round(cov.pct(ct), 2)
        row["total_pct"] = round(db.percent(), 2) if db.points else 0.0
        rows.append(row)
    for f in [*suite.glob("*.sv"), *suite.glob("*.py")]:
        if f.name not in keep:
            f.unlink()
    atomic_write(suite / "manifest.json", json.dumps(
        {"task": task.name, "top": task.top, "entries": manifest,
         "covered": {t: c for t, (c, n) in db.summary().items()}}, indent=1))
    cols = ["sim", "step", "kind", "status", "reward", "gain", "accepted"] + [f"{t}_pct" for t in CHASED] + ["total_pct"]
    with open(out / "coverage.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, restval="")
        w.writeheader()
        w.writerows(rows)
    title = f"{task.name}: coverage after {len(sims)} simulation(s)"
    closed = {k: f"model (sim {n})" for k, (o, n) in first.items() if o == "model"}
    db.write_html(out / "coverage.html", title, closed_by=closed)
    # lcov: one test per origin, so genhtml --show-details tells random's hits from the model's
    (out / "coverage.info").write_text("".join(d.to_lcov(o) for o, d in by.items() if d.points) or db.to_lcov(RANDOM))
    (out / "coverage.txt").write_text(db.annotate())
    base = None
    if (out / "baseline.json").exists():
        try:
            base = json.loads((out / "baseline.json").read_text())
        except ValueError:
            base = None
    _plot(out / "coverage.png", rows, base, cfg, task.name)
    summary = _summary(task, sims, db, cfg, base, store, first, sorted(keep))
    atomic_write(out / "summary.json", json.dumps(summary, indent=1, default=str))
    return summary


def _why(db, sims) -> str:
    """Why points are still uncovered, as far as the run can tell."""
    if not sims:
        return "no simulation ran yet"
    if not db.points:
        bad = _count(s["status"] for s in sims)
        return ("no stimulus ran to completion, so not even the point set is known: "
                + ", ".join(f"{n} {k}" for k, n in sorted(bad.items())))
    ok = [s for s in sims if s["status"] == "pass"]
    return (f"not reached by any of the {len(ok)} stimuli that ran ({len(sims) - len(ok)} of {len(sims)} "
            "simulations did not run: see coverage.csv status)")


def _count(items) -> dict:
    out = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out


def _summary(task, sims, db, cfg, base, store, first, kept) -> dict:
    status = target_status(db, cfg.target)
    unc = [p.describe() for p in db.uncovered(list(cfg.target))]
    counts = _count(s["status"] for s in sims)
    closed = [p for p in db.all() if first.get(p.key, ("",))[0] == "model"]
    return {"task": task.name, "top": task.top, "date": datetime.date.today().isoformat(),
            "isolation": cov.sandbox.isolation_mode(),   # bwrap, or off (--no-isolation)
            "target": cfg.target, "met": met(db, cfg.target), "coverage": status,
            "vacuous": [t for t, v in status.items() if v["vacuous"]],
            "all_types": {t: list(v) for t, v in db.summary().items()},
            "total_pct": round(db.percent(), 2) if db.points else 0.0,
            "simulations": len(sims), "budget": cfg.budget, "steps": len({s["step"] for s in sims}),
            "random_runs": sum(s.get("kind") == RANDOM for s in sims),
            "model_samples": sum(s.get("kind") != RANDOM for s in sims),
            "model_verdicts": _count(s["status"] for s in sims if s.get("kind") != RANDOM),
            "model_from_random": sum(bool(s.get("plusargs")) for s in sims if s.get("kind") != RANDOM),
            "attribution": {o: sum(v[0] == o for v in first.values()) for o in (RANDOM, "model")},
            "closed_by_model": [f"{p.describe()} <- sim {first[p.key][1]}" for p in closed][:200],
            "verdicts": counts, "accepted": [f"suite/{f}" for f in kept],
            "mean_reward": round(sum(s["reward"] for s in sims) / len(sims), 4) if sims else None,
            "uncovered": unc[:200], "uncovered_count": len(unc), "why_uncovered": _why(db, sims),
            "baseline": None if base is None else {"budget": base["budget"], "final": base["final"],
                                                   "percent": base["percent"]},
            "train": cfg.train, "random_budget": cfg.random_budget, "verilator": tools.version("verilator"),
            "kl_decisions": len(store.decisions())}


def replay(run_dir: Path, log=print) -> dict:
    """`rtl-agent cover --replay RUN`: run the kept suite again (suite/manifest.json) and compare the
    points it reaches with the ones recorded. Returns {"coverage", "recorded", "same", "runs"}."""
    from designs import load_task
    run_dir = Path(run_dir)
    mf = run_dir / "suite" / "manifest.json"
    if not mf.is_file():
        raise ValueError(f"{run_dir}: no suite/manifest.json (not a cover run folder, or one from before --replay)")
    m = json.loads(mf.read_text())
    task = load_task(m["task"])
    sources = task.reference_sources()
    db, runs, files = cov.CoverageDB(sources), [], {}
    for e in m["entries"]:
        files.setdefault(e["file"], []).append(e["plusargs"])
    lim = _limits(CoverConfig())
    fsms = fsm.extract(sources, task.top) if task.clock else []
    for name, args in files.items():
        text = (run_dir / "suite" / name).read_text()
        if name.endswith(".py"):
            res = [simulate(task, sources, text, CoverConfig())]
        else:
            res = cov.coverage_runs(sources, task.top, text, args, limits=lim, ports=task.ports, clock=task.clock,
                                    period_ns=task.period_ns or 10.0, fsms=fsms)
        for a, r in zip(args, res):
            runs.append({"file": name, "plusargs": a, "status": r.status})
            log(f"{name} {' '.join(a)}: {r.status}")
            if r.ok:
                db.add(r.points)
    got = {t: c for t, (c, n) in db.summary().items()}
    rec = {t: c for t, c in m["covered"].items()}
    return {"coverage": {t: list(v) for t, v in db.summary().items()}, "recorded": rec,
            "same": all(got.get(t, 0) == c for t, c in rec.items()), "runs": runs}


def _plot(path: Path, rows, base, cfg, name):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4))
    colors = {t: f"C{i}" for i, t in enumerate(CHASED)}
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
