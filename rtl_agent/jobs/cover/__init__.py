"""Coverage closure the way verification engineers do it: constrained random first, the model on the holes.

    summary = run_cover(load_task("counter8"), Path("runs/cover/counter8"),
                        CoverConfig(target=parse_target("line=95,branch=90,toggle=80"), budget=16))
    replay(Path("runs/cover/counter8"))        # re-run the kept suite, compare with the recorded coverage

Step 0, the random phase (no model): `eda.random_stim.seeded_stimulus` with styles (fresh, held,
toggling, corner values with reset pulses; the seed picks the style; seeds 4-7 mod 8 run as long as the
simulated-time limit allows, for counters that wrap late, and a `// from: random` answer continues the last
short run), one build, run with
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

Then the formal phase (cfg.formal, on by default; `formal.run_formal`, after loop.run, so a design the random
or model phase closes pays nothing but the check that nothing is open): every point still open in the
union (line, branch, toggle, fsm_state, fsm_arc; expr stays undecided) goes to `eda.reach.decide` within
cfg.formal_budget_s (at most cfg.formal_point_s of ABC per point): Yosys reads the DUT, each line/branch
hole becomes a flag on its process arm (by Verilator's file/line/column), toggles and FSM points are
monitors in a wrapper that forces the testbench's reset (task.reset / reset_active_low, as the random
phase applies it) in the first cycle; ABC `pdr` (one joint run over all targets first, then per target, then
`dprove`) on a model with free initial registers proves "never from reset" (a waiver: method abc-pdr or
abc-dprove, bound unbounded), else `bmc3` then `pdr` on the zero-initialised model look for a witness.
Witnesses become one stimulus (suite/formal.sv, +w=N picks one; `eda.reach_replay`) replayed under
Verilator coverage in the sandbox: a witness counts only when its own replay hits its point (a replay that misses is recorded as rejected and the point stays undecided), and then joins the kept
suite. Anything else is undecided with its reason (Yosys cannot read the design, unmapped point kind,
clk2fflogic mode has proofs only, time). Results go to formal.json, keyed by a fingerprint of the DUT, the
open points and the formal settings: outputs merge them while it matches, and a resumed run reuses them.
Every point's source (random / model / formal / unreachable / undecided / open) is in summary.json
(`points`, `sources`), coverage over all points and over reachable ones (all minus proven unreachable:
`reachable_pct`, `coverage_reachable`), and `met` follows cfg.target_of ("all" or "reachable"; the model
phase still stops on the target over all points, as before).

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
  suite/random.sv + suite/sim<NNN>.sv|.py (the model's kept stimuli, as simulated) + suite/formal.sv (the
  confirmed witnesses) + suite/manifest.json (which file with which plusargs: `rtl-agent cover --replay RUN`),
  formal.json, coverage.csv, coverage.html (waivers and undecided points listed), coverage.info (lcov; tests
  `random`, `model`, `formal`, and the waived points again as `proven_unreachable`), coverage.txt
  (annotated source), coverage.png, summary.json, baseline.json (with a baseline).

Modules:
  config    CoverConfig, parse_target, config_from, REWARDS, the chased metrics
  targets   covered points, target_status / met, the random plateau, holes and their conditions
  prompt    build_prompt: the holes in rtl_agent.prompts.stimulus, sized by policy.base.prompt_budget
  extract   stimulus out of a completion (cocotb, module, salvaged body; `// from: random`)
  records   simulation records from the store and the union rebuilt from them
  env       CoverEnv (the training.loop environment), simulate, random_text, score
  outputs   suite/, coverage.csv/.html/.info/.txt/.png, summary.json (from the store and formal.json)
  formal    the formal phase: run_formal, formal.json, its part of the outputs
  programs  --stimulus programs|mixed: the model phase chooses among eda.stim_programs' stimulus programs
            (policy: the chooser trained on verified outcomes, stim_chooser.py; random / bandit / lm) instead
            of writing free text (mixed: one free-text sample a step)
  baseline  run_baseline;  replay: `--replay RUN`;  run: run_cover
"""
from training.loop import RunFolderError

from .baseline import run_baseline
from .config import CHASED, RANDOM, REWARDS, CoverConfig, config_from, parse_target
from .env import CoverEnv, random_text, score, simulate
from .extract import continue_random, extract_cocotb, extract_stimulus
from .formal import run_formal
from .outputs import write_outputs
from .prompt import build_prompt
from .records import _state, _union
from .replay import replay
from .run import run_cover
from .targets import conditions, holes, met, plateau, points_of, target_status

__all__ = ["CHASED", "RANDOM", "REWARDS", "CoverConfig", "CoverEnv", "RunFolderError", "build_prompt", "conditions",
           "config_from", "continue_random", "extract_cocotb", "extract_stimulus", "holes", "met", "parse_target",
           "plateau", "points_of", "random_text", "replay", "run_baseline", "run_formal", "run_cover", "score", "simulate",
           "target_status", "write_outputs", "_state", "_union"]
