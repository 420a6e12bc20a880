"""`rtl-agent regress`: score a policy on a suite (pass@k, PPA against the reference)."""
import datetime
import json
import re
import time
from pathlib import Path

import pandas as pd
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from designs import load_suite, load_task
from rtl_agent.commands import design_args
from rtl_agent.commands import task as task_cmd
from eda import tools
from rtl_agent import executor
from rtl_agent.jobs.regress import candidates, report as regress_report
from rtl_agent.policy import policy_adapter
from rtl_agent.jobs.regress import run_regression, summarize_design


def register(sub):
    p = sub.add_parser("regress", help="regression of a policy on RTLLM or the project designs: pass@k and PPA",
                       description="Scores every design of a suite: n samples per design from the policy, each "
                       "checked by the design's own testbench (and, with --equiv, proven against the reference), "
                       "then synthesized for PPA. Writes results.csv, summary.md, summary.json and report.html "
                       "into the run folder. Re-running the same command resumes a killed run.")
    p.add_argument("--suite", default="rtllm",
                   help="rtllm | designs | verilog-eval | PATH to a folder of tasks | design files, comma-separated "
                   "(a one-task suite made on the fly, with -f/-I/-D/-P/--top as for optimize) (default rtllm)")
    task_cmd.add_design_task_args(p)
    p.add_argument("--policy", default="reference",
                   help="reference | files:DIR (DIR/t1/<design>.v|.sv ... DIR/tN/<design>.v|.sv) | default | hf:PATH | "
                        "vllm:PATH | openai:MODEL@URL (default reference)")
    p.add_argument("-n", type=int, default=5, help="samples per design (model policies; files: at most N tries)")
    p.add_argument("-k", default="1,5", help="comma list of k for pass@k (default 1,5)")
    p.add_argument("--pdk", default=None, help="override the tasks' PDK (nangate45 | sky130hd)")
    p.add_argument("--jobs", type=int, default=2, help="parallel workers for evaluation (default 2)")
    p.add_argument("--designs", default=None, help="comma list: only these designs")
    p.add_argument("--equiv", action="store_true", help="also require equivalence with the reference to pass")
    p.add_argument("--pnr", action="store_true", help="also place and route each reference (OpenROAD; ~30 s a "
                   "design): results.csv gains ref_routed_* columns, post-route delay, power, area, wirelength, DRC")
    p.add_argument("--max-tokens", type=int, default=512, help="model policies: tokens per sample")
    p.add_argument("--temperature", type=float, default=candidates.TEMPERATURE,
                   help=f"model policies: sampling temperature (default {candidates.TEMPERATURE}; top-p stays 0.95)")
    p.add_argument("--adapter", default="default",
                   help="model policies: SFT adapter merged into the model (default: the bundled Verilog adapter for "
                        "the bundled model; none: off; or a folder from `rtl-agent sft`)")
    p.add_argument("--out", default=None, help="run folder (default runs/regress/<suite>-<policy>[-<adapter>]-<pdk>)")
    executor.add_arguments(p)
    p.set_defaults(func=run)


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_")[:60]


def _same_policy(out: Path, policy: str, adapter: str, temperature: float = candidates.TEMPERATURE):
    """A run folder keeps the samples of one policy, adapter and temperature: resuming it with another is refused."""
    f = out / "policy.json"
    # folders from before --temperature existed were all sampled at the default and say nothing
    want = {"policy": policy, "adapter": adapter,
            **({"temperature": temperature} if temperature != candidates.TEMPERATURE else {})}
    if f.is_file():
        got = json.loads(f.read_text())
        if got != want:
            raise ValueError(f"{out} holds samples of {got}, not {want}; use another --out")
    else:
        out.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(want))


def run(args) -> int:
    ks = [int(k) for k in args.k.split(",") if k.strip()]
    args.task = [x for x in args.suite.split(",") if x] if args.suite.endswith((".v", ".sv")) else []
    made = task_cmd.resolve(args) if args.task or design_args.given(args) else None
    tasks = [load_task(made)] if made else load_suite(args.suite, only=args.designs)
    model = not (args.policy == "reference" or args.policy.startswith("files:"))
    adapter = policy_adapter(args.policy, args.adapter) if model else "none"
    n = 1 if args.policy == "reference" else args.n
    tag = f"-{_slug(adapter.split('@')[0])}" if adapter != "none" else ""
    out = Path(args.out or f"runs/regress/{_slug(Path(made or args.suite).name)}-{_slug(args.policy)}{tag}-{args.pdk or 'taskpdk'}")
    _same_policy(out, args.policy, adapter, args.temperature if model else candidates.TEMPERATURE)
    pol = candidates.make(args.policy, **({"max_tokens": args.max_tokens, "adapter": args.adapter,
                                           "temperature": args.temperature} if model else {}))
    ex = executor.from_args(args, jobs=args.jobs if pol.parallel_ok else 1)
    t0 = time.monotonic()
    with Progress(TextColumn("[bold]regress[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}")) as prog:
        bar = prog.add_task("", total=len(tasks))
        designs = run_regression(tasks, pol, out, n, ks, args.pdk, args.jobs, args.equiv,
                                 progress=lambda name: prog.update(bar, advance=1, description=name),
                                 log=prog.console.print, executor=ex, pnr=args.pnr)
        prog.update(bar, completed=len(tasks))
    df = pd.DataFrame([summarize_design(d, ks) for d in designs])
    s = regress_report.summary(df, ks)
    meta = {"suite": args.suite, "policy": pol.name, "adapter": adapter,
            **({"temperature": args.temperature, "max_tokens": args.max_tokens} if model else {}),
            "samples_per_design": n, "pdk": args.pdk or "per task",
            "equiv": args.equiv, **({"pnr": True} if args.pnr else {}), "executor": ex.kind, "date": datetime.date.today().isoformat(),
            "wall_s_this_invocation": round(time.monotonic() - t0, 1), **tools.versions()}
    df.to_csv(out / "results.csv", index=False)
    (out / "summary.md").write_text(regress_report.markdown(df, s, meta, ks))
    (out / "summary.json").write_text(json.dumps({"meta": meta, "summary": s}, indent=1, default=str))
    (out / "report.html").write_text(regress_report.html(df, s, meta, ks))
    print(f"{len(df)} designs: " + ", ".join(f"pass@{k} {s[f'pass@{k}']:.3f}" for k in ks if s[f"pass@{k}"] is not None)
          + f"; geomean PPA ratio {s['geomean_ppa_ratio']}; results in {out}/ (results.csv, summary.md, report.html)")
    return 0
