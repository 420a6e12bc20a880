"""`rtl-agent cover`: coverage closure, constrained random first, then LLM-written stimulus on the holes."""
import re
import time
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from designs import load_task
from rtl_agent import suite_jobs
from rtl_agent.jobs import cover
from rtl_agent.commands import defaults
from rtl_agent.commands import task as task_cmd

D = defaults(cover.CoverConfig)   # the CLI's defaults are the config's
TARGET = ",".join(f"{k}={v:g}" for k, v in D["target"].items())   # line=95,branch=90,toggle=80

DESCRIPTION = """\
Closes coverage on one design, as verification engineers do: constrained-random stimulus first
(fresh, held, toggling and corner values, reset pulses; one Verilator build, a seed per run; every
other round of the four styles runs --random-long cycles instead of 200, for counters that take long
to wrap) until
--patience runs in a row add no point or --random-budget runs are spent; then, if the target is not met,
the policy writes stimulus for the holes left (the prompt names a few, with their source lines and
enclosing conditions, and shows the whole DUT when it fits the model's context), adapted after each
group (entropic LoRA step; --no-train turns it off) until every --target metric is met or --budget
simulations are spent. A design random closes never loads the model. A metric the design has no
points for is met vacuously; an unknown metric is an error before anything runs.

The model is asked for the statements of an initial block (after one worked example); from its
answer the first fenced block is taken, lines that cannot be stimulus are dropped (only lines
starting with a statement keyword, a delay/event control or a DUT input are kept), truncated text
is cut at the last statement, and the rest runs inside a generated testbench that declares the
ports and drives the clock (from reset), or, when the answer starts with `// from: random`, after
the last random run's testbench (from the state it left). A full `module` (instantiating the DUT as
`uut`) is used as is. A ```python answer defining a cocotb coroutine `async def stimulus(dut)` runs
under cocotb + Verilator coverage in the same sandbox (from reset; no FSM points; ~1 min per build).

Reward of a stimulus: the share of the still-uncovered target points it reaches first (0..1);
penalties when the completion holds no Verilog (-1), the sandbox refuses it (-1), it does not
compile (-0.5), or it crashes / writes no coverage / hits a limit (-0.3); $stop/$fatal end a run
with its coverage. Every random run kept and every sampled stimulus (compiled or not) costs one
simulation of the budget.

Then the formal phase (--formal, on by default; --no-formal skips it): every point still open (line,
branch, toggle, FSM state and arc) is decided with Yosys and ABC (eda.reach): a witness from reset
(bmc3/pdr), replayed under Verilator coverage and kept only when the replay hits the point (suite/formal.sv,
+w=N); a proof that no input sequence from reset reaches it (ABC pdr, else dprove: a waiver with method
and bound);
or undecided within --formal-budget seconds (per point at most --formal-point). summary.json gives every
point's status and source (random / model / formal / unreachable / undecided), coverage over all points
and over reachable points (all minus proven unreachable); --target-of reachable applies the target to
the latter. Its results (formal.json) are reused by --resume.

Run folder (--out, default runs/cover/<task>): suite/ (random.sv, the model's kept sim*.sv and the
formal witnesses' formal.sv, each added coverage; manifest.json: replay it with --replay RUN),
coverage.html (the points the model or a witness closed in blue; waivers and undecided points listed),
coverage.info (lcov, tests `random`, `model`, `formal`; waived points again under `proven_unreachable`),
coverage.txt (annotated source), coverage.csv (coverage vs simulations), coverage.png, summary.json
(target status, vacuous metrics, points closed by the model, uncovered points and why, every point's
source), formal.json, run.sqlite (every step). Kill it and re-run
with --resume: it continues after the last finished step.
"""

EPILOG = """examples:
  rtl-agent cover counter8 --target line=100,branch=100,toggle=90 --budget 8
  rtl-agent cover fsm --budget 4 --no-train --baseline          RTLLM design, random baseline beside
  rtl-agent cover designs/fifo8x4 --random-budget 0 --out runs/cover/fifo --resume   model from the start
  rtl-agent cover --replay runs/cover/counter8        re-run the kept suite, compare with the record
"""


def register(sub):
    import argparse
    p = sub.add_parser("cover", help="coverage closure: LLM-written stimulus until a coverage target is met",
                       description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task", nargs="*", default=None, help="project task name or folder (designs/<name>), or an RTLLM v2.0 "
                   "design name; or the design's files (design.v more.v --top T [-P N=V]): a task made on the fly "
                   "(runs/tasks/<top>)")
    task_cmd.add_design_task_args(p)
    p.add_argument("--target", default=TARGET,
                   help="METRIC=PERCENT list over line, branch, expr, toggle, user, fsm_state, fsm_arc (FSMs Yosys "
                        "finds; default %(default)s)")
    p.add_argument("--budget", type=int, default=D["budget"],
                   help="simulations at most: random runs kept + sampled stimuli (default %(default)s)")
    p.add_argument("--policy", default="default",
                   help="default (bundled SmolLM2-135M, CPU) | hf:PATH | vllm:PATH | openai:MODEL@URL")
    p.add_argument("--adapter", default=D["adapter"],
                   help="SFT adapter merged into a local model (default: the bundled Verilog adapter, bundled model "
                   "only; cover: that adapter trained on formal witnesses of coverage holes; none: off; or a folder from "
                   "`rtl-agent sft`)")
    p.add_argument("--group", type=int, default=D["group"], help="stimuli sampled per step, G (default %(default)s)")
    p.add_argument("--no-train", action="store_true", help="sample only; no LoRA update between steps")
    p.add_argument("--out", default=None, help="run folder (default runs/cover/<task>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out after its last finished step")
    p.add_argument("--seed", type=int, default=D["seed"],
                   help="run seed: sampling seeds derive from (seed, step, group) (default %(default)s)")
    p.add_argument("--max-tokens", type=int, default=D["max_tokens"],
                   help="tokens per stimulus sample (default %(default)s)")
    p.add_argument("--temperature", type=float, default=D["temperature"],
                   help="sampling temperature (default %(default)s)")
    p.add_argument("--lr", type=float, default=D["lr"], help="LoRA learning rate (default %(default)s)")
    p.add_argument("--random-budget", type=int, default=D["random_budget"],
                   help="constrained-random runs at most before the model (part of --budget; 0: the model from "
                        "the start; default %(default)s)")
    p.add_argument("--random-long", type=int, default=D["random_long"], metavar="CYCLES",
                   help="cycles of the random phase's long rounds (seeds 4-7, 12-15, ...; -1: as many as the "
                        "simulated-time limit allows, ~98k at 10 ns; 0: none; default %(default)s)")
    p.add_argument("--patience", type=int, default=D["patience"],
                   help="random runs in a row without a new point that end the random phase (default %(default)s)")
    p.add_argument("--formal", action=argparse.BooleanOptionalAction, default=D["formal"],
                   help="the formal phase on the points left open (witnesses, unreachability proofs; default on)")
    p.add_argument("--formal-budget", type=float, default=D["formal_budget_s"], metavar="SECONDS",
                   help="CPU seconds of the formal engines for the whole design (the same work under any load; each tool run is also capped at 6x its share in wall time; default %(default)s)")
    p.add_argument("--formal-point", type=float, default=D["formal_point_s"], metavar="SECONDS",
                   help="ABC seconds per open point at most (default %(default)s)")
    p.add_argument("--target-of", choices=("all", "reachable"), default=D["target_of"],
                   help="the target applies to all points, or to the reachable ones (all minus those proven "
                        "unreachable by the formal phase; default %(default)s)")
    p.add_argument("--stimulus", choices=("text", "programs", "mixed"), default=D["stimulus"],
                   help="what the model phase runs: free-text stimulus (text), the library's stimulus programs "
                        "chosen for the holes (programs: handshakes, frames, AXI-lite, fill/drain, resets, corners, "
                        "compared literals, long runs), or both, one free-text sample a step (default %(default)s)")
    p.add_argument("--chooser", choices=("policy", "random", "bandit", "lm"), default=D["chooser"],
                   help="with --stimulus programs|mixed: who chooses the programs: policy (trained on verified "
                        "outcomes, updated per design), random, bandit, or lm (the model scoring the menu's "
                        "labels; default %(default)s)")
    p.add_argument("--replay", default=None, metavar="RUN",
                   help="re-run the suite kept in run folder RUN and compare its coverage with the recorded one")
    p.add_argument("--threads", type=int, default=1,
                   help="torch CPU threads for the model (default 1: on a busy 2-core machine OpenMP spin-waiting "
                        "made 2 threads 8-60x slower than 1)")
    p.add_argument("--baseline", action="store_true",
                   help="also run the constrained-random baseline at the same budget and plot it beside the agent")
    suite_jobs.add_arguments(p)   # --suite, --executor local|ray, --ray-address (issue #17)
    p.set_defaults(func=run)


def run(args) -> int:
    args.task = task_cmd.resolve(args)
    if args.replay:
        r = cover.replay(Path(args.replay))
        got = ", ".join(f"{t} {c}/{n}" for t, (c, n) in r["coverage"].items())
        print(f"replayed {len(r['runs'])} run(s): {got}; "
              + ("same points as recorded" if r["same"] else f"DIFFERS from the recorded {r['recorded']}"))
        return 0 if r["same"] else 1
    if suite_jobs.wants_suite(args):
        return suite_jobs.run_suite(args, "cover", cover.config_from(vars(args)))
    if not args.task:
        raise ValueError("give a TASK (or --suite SUITE, or --replay RUN)")
    cfg = cover.config_from(vars(args))
    task = load_task(args.task)
    if args.threads > 0 and not args.policy.startswith(("openai:", "vllm:")):
        import torch
        torch.set_num_threads(args.threads)
    out = Path(args.out or f"runs/cover/{re.sub(r'[^A-Za-z0-9_.-]+', '_', task.name)}")
    t0 = time.monotonic()
    with Progress(TextColumn("[bold]cover[/] " + task.name), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.description}")) as prog:
        bar = prog.add_task("", total=cfg.budget)

        def on_sim(rec, db):
            st = cover.target_status(db, cfg.target)
            desc = " ".join(f"{t} {v['pct'] if v['pct'] is not None else '-'}%" for t, v in st.items())
            prog.update(bar, completed=rec["sim"] + 1, description=f"{rec['status']:8s} r={rec['reward']:+.2f} | {desc}")

        s = cover.run_cover(task, out, cfg, policy_spec=args.policy, resume=args.resume, baseline=args.baseline,
                            on_sim=on_sim, log=prog.console.print)
        prog.update(bar, completed=s["simulations"])
    cov = ", ".join(f"{t} no points (vacuously met)" if v["vacuous"] else
                    f"{t} {v['pct'] if v['pct'] is not None else '-'}% (target {v['target']:g}{' met' if v['met'] else ''})"
                    for t, v in s["coverage"].items())
    print(f"{task.name}: {'target met' if s['met'] else 'target not met'} after {s['simulations']} simulation(s) "
          f"({s['random_runs']} random, {s['model_samples']} model; {time.monotonic() - t0:.0f} s): {cov}; "
          f"{s['attribution']['model']} point(s) closed by the model; {len(s['accepted'])} file(s) kept in {out}/suite; "
          f"report {out}/coverage.html")
    if s.get("formal", {}).get("ran"):
        src = s["sources"]
        print(f"formal phase ({s['formal'].get('seconds', 0):.0f} s): {src['formal']} point(s) closed by a replayed "
              f"witness, {src['unreachable']} proven unreachable, {src['undecided']} undecided; coverage "
              f"{s['total_pct']}% of all points, {s['reachable_pct']}% of reachable points (target of {s['target_of']})")
    if s.get("baseline"):
        print(f"random baseline at the same budget: total {s['baseline']['percent']}% vs agent {s['total_pct']}%")
    return 0 if s["met"] else 1
