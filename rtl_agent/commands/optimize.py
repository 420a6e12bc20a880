"""`rtl-agent optimize`: per-design test-time RL with EDA feedback."""
import argparse

from eda.pdk import PDKS
from rtl_agent import suite_jobs
from rtl_agent.commands import defaults
from rtl_agent.commands import task as task_cmd
from rtl_agent.jobs.optimize import OptimizeConfig
from rtl_agent.jobs.optimize.kinds import names as kind_names
from rtl_agent.jobs.optimize.cross import describe
from rtl_agent.jobs.optimize.routed import describe as describe_routed

D = defaults(OptimizeConfig)   # the CLI's defaults are the config's

DESCRIPTION = """\
Adapt the policy to one design. Each step picks B parent designs from a PUCT pool (starting at the
task's reference RTL), samples G candidates per parent, verifies each (lint, simulation against the
task's testbench, equivalence with the reference, synthesis, timing and power), rewards verified
designs by log(PPA_ref / PPA) and failures by a fixed penalty per failed stage, then takes one
entropic LoRA step within an adaptive KL budget. The best verified design so far (never worse than
the reference) is kept in OUT/best.v with its report in OUT/best.json.

Run folder: run.sqlite (every candidate, metric, pool snapshot and controller decision),
adapters/step_NNN/, candidates.csv, report.html, events.jsonl. The run checkpoints after every
step; kill it at any time and re-run with --resume to continue exactly where it stopped.

Defaults fit the bundled SmolLM2-135M model on a CPU: 4 samples of up to 256 tokens and one LoRA step\n(skipped when every reward is equal) per step, 5 steps; the answer is prefilled."""

EXAMPLES = """examples:
  rtl-agent optimize designs/adder16 --steps 5
  rtl-agent optimize mult8 --steps 20 --batch 4 --group 8 --out runs/mult8
  rtl-agent optimize mult8 --out runs/mult8 --resume --steps 30     continue (and extend) a run
  rtl-agent optimize adder16 --no-train                               best-of-N baseline, same budget
"""


def add_choice_args(p):
    """How the transform action's choices are offered and drawn."""
    p.add_argument("--transforms", default=D["transforms"], metavar="KINDS",
                   help="transformation kinds the transform action offers: all, or a comma list of "
                   "rtl_agent/transforms kinds (narrow, cond_arith, share, recognise, ...); default %(default)s")
    p.add_argument("--choice-group", type=int, default=D["choice_group"],
                   help="answers per parent of a choice-style kind (transform, narrow): the policy scores the listed "
                   "options in one forward pass, so a large group costs little sampling (each distinct design is "
                   "still one flow run); 0 gives them their share of --group; default %(default)s")
    p.add_argument("--option-memory", action="store_true",
                   help="do not offer a transformation again on a parent that drew it, nor below a parent where "
                   "it failed the flow (a per-design memory of outcomes, for every chooser); off by default")
    p.add_argument("--explore", type=float, default=D["explore"], metavar="SHARE",
                   help="share of each choice group the policy chooser draws uniformly among the options it did not "
                   "pick (at least one answer when above 0, never the whole group): without it an option the "
                   "model ranks low is never tried, earns nothing and is never trained up; default %(default)s")
    p.add_argument("--chooser", default=D["chooser"],
                   choices=("policy", "random", "exhaustive", "estimate", "learned", "lm"),
                   help="who picks among a parent's transformations: the policy (its own probabilities, trained "
                   "by the run), random (uniform over the same options), exhaustive (every option of the "
                   "parent once; small designs) or estimate (every option synthesized and timed alone first, "
                   "the best estimates sent to the full flow; costs a synthesis per option) or learned (the "
                   "estimate weighed by a ranker trained on verified outcomes of the corpus's training split: "
                   "rtl_agent/jobs/optimize/ranker.py) or lm (the bundled model with the `choose` adapter: "
                   "choose_lm.py). random/exhaustive/estimate/learned/lm imply --no-train; "
                   "default %(default)s")


def register(sub):
    p = sub.add_parser("optimize", help="test-time RL on one design: keep the best verified PPA",
                       description=DESCRIPTION, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task", nargs="*", default=None, help="task name (designs/<name>, an RTLLM design) or a task folder; "
                   "or the design's files (design.v more.v --top T [-P N=V]): a task made on the fly, judged by "
                   "equivalence to the design (runs/tasks/<top>; `rtl-agent task init` writes one to edit)")
    task_cmd.add_design_task_args(p)
    p.add_argument("--model", default=D["model"], help="model folder or cached HF id (default: bundled SmolLM2-135M)")
    p.add_argument("--adapter", default=None,
                   help="SFT adapter merged into the model: edit, the bundled adapter trained further on one-line "
                   "edits (the default, bundled model only); default, the bundled Verilog adapter, better at full "
                   "rewrites and from a spec (the default with --from-spec); improve, edit trained on verified "
                   "improvements of generated designs; improve2, that one after a round of expert iteration "
                   "(bench/results/find_rate_improve_r2.md); none: off; or a folder from `rtl-agent sft`")
    p.add_argument("--policy-backend", dest="backend", default=D["backend"], choices=("hf", "vllm", "openai"),
                   help="sampling backend: hf (transformers, CPU or GPU), vllm (LoRA hot-swap after each update; "
                   "training stays on hf) or openai (an OpenAI-compatible server, --model MODEL@BASE_URL, with "
                   "--no-train: frozen-policy search)")
    p.add_argument("--steps", type=int, default=D["steps"], help="steps to run in total (default %(default)s); with "
                   "--resume, the total to reach")
    p.add_argument("--batch", type=int, default=D["batch"], metavar="B", help="parents per step (default %(default)s)")
    p.add_argument("--group", type=int, default=D["group"], metavar="G", help="samples per parent (default %(default)s)")
    p.add_argument("--pdk", default=D["pdk"], choices=sorted(PDKS), help="standard-cell library (default: the task's)")
    p.add_argument("--out", default=D["out"], metavar="DIR", help="run folder (default runs/<task>-s<seed>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    p.add_argument("--seed", type=int, default=D["seed"], help="run seed; same seed, same run (default %(default)s)")
    p.add_argument("--no-train", dest="train", action="store_false",
                   help="never update the policy (frozen best-of-N baseline with the same pool and budget)")
    p.add_argument("--no-pool", dest="pool", action="store_false",
                   help="always start from the root design instead of PUCT over past designs")
    p.add_argument("--fixed-kl", action="store_true", help="hold the KL budget eps at its start value")
    p.add_argument("--accept-unproven", action="store_true",
                   help="let bounded(N)/cosim(K) equivalence verdicts earn the PPA reward (default: only a proof "
                   "does; unproven designs score the 'unproven' penalty)")
    p.add_argument("--from-spec", action="store_true",
                   help="start from the specification alone, not the reference RTL (the reference still "
                   "judges equivalence and sets the PPA baseline)")
    p.add_argument("--max-tokens", type=int, default=D["max_tokens"], help="tokens per sample (default %(default)s)")
    p.add_argument("--temperature", type=float, default=D["temperature"],
                   help="sampling temperature (default %(default)s)")
    p.add_argument("--stop", default=D["stop"], help="end each sample at this string (default %(default)s; "
                   "'' for none, e.g. for designs with submodules)")
    p.add_argument("--lr", type=float, default=D["lr"], help="LoRA learning rate (default %(default)s)")
    p.add_argument("--eps", type=float, default=None, help="starting KL budget per group (default log 2)")
    auto, every = kind_names(auto_only=True), kind_names()
    p.add_argument("--actions", default=D["actions"], metavar="KINDS",
                   help="action kinds the sampler mixes, chosen per parent by a bandit on the reward each kind earned "
                   f"on this design: auto (= {','.join(auto)}; transform: the policy chooses among the verified "
                   "transformations of rtl_agent/transforms, offered where one applies; tried first), or a comma "
                   f"list of {', '.join(every)} (not in auto: {', '.join(k for k in every if k not in auto)}); "
                   "default %(default)s")
    add_choice_args(p)
    p.add_argument("--kinds-per-parent", type=int, default=D["kinds_per_parent"],
                   help="action kinds per parent and step; its G samples are split among them (default %(default)s)")
    p.add_argument("--no-noise", dest="noise", action="store_false",
                   help="skip measuring the reference's noise floor (perturbed references) when the run opens")
    p.add_argument("--screen", action=argparse.BooleanOptionalAction, default=False,
                   help="synthesize and time each candidate first; one worse than the best design goes no further (no "
                   "lint, simulation or proof). Off by default until measured: a chain through a worse design is lost")
    p.add_argument("--no-cross-pdk", dest="cross_pdk", action="store_false",
                   help="skip synthesizing the best design on the other PDK (Nangate45 <-> Sky130) and under strong "
                   "synthesis (its best of several ABC scripts) at the end; by default the find line says whether the "
                   "gain holds there, above the noise floor")
    p.add_argument("--no-pnr", dest="pnr", action="store_false",
                   help="skip placing and routing the best design and the reference at the end (OpenROAD, ~1 min); "
                   "by default the find line gives the ratio after place and route beside the one after synthesis")
    p.add_argument("--no-early-stop", dest="early_stop", action="store_false",
                   help="run every step of --steps even when nothing is left to try (by default the run ends early "
                   "and says why when every listed transformation was drawn and the free-text answers all failed)")
    p.add_argument("--no-ranges", dest="ranges", action="store_false",
                   help="skip the value-range probe of the reference (eda/ranges.py: which values its testbench gives "
                        "each register); by default edit prompts name registers declared wider than those values "
                        "and decl edits go to them first")
    p.add_argument("--no-prefill", dest="prefill", action="store_false",
                   help="do not start the answer for the model (by default the answer begins with the code fence "
                   "and `module <top>` or a SEARCH marker, on backends that can continue an assistant turn)")
    p.add_argument("--repair", type=int, default=D["repair"],
                   help="re-prompts of an edit that does not apply (default %(default)s)")
    p.add_argument("--no-line-edit", dest="line_edit", action="store_false",
                   help="let the replacement of a prefilled one-line SEARCH run over several lines (by default the "
                   "sample stops at the line's end: one statement for one statement)")
    p.add_argument("--no-keep-lhs", dest="keep_lhs", action="store_false",
                   help="let a one-line edit rewrite its statement's left-hand side too (by default the answer is "
                   "prefilled up to the statement's `=`/`<=`, so the model writes only the new expression)")
    p.add_argument("--no-header", dest="header", action="store_false",
                   help="start a prefilled full rewrite with `module <top>` only (by default with the parent's own "
                   "port header, so the model writes the body)")
    p.add_argument("--workers", type=int, default=D["workers"], help="parallel EDA evaluations (default %(default)s)")
    p.add_argument("--quiet", action="store_true", help="no live view; print one line per step")
    p.add_argument("--module", default=None, metavar="NAME",
                   help="with a design that has submodules: optimize submodule NAME in its hierarchy (its text is the "
                   "design the kinds see, each candidate is proven equivalent to the original NAME, with the "
                   "parameters of its instance) and report NAME's PPA and the whole core's before and after; a comma "
                   "list, or all (every submodule in turn, leaves first, largest first, --steps each); writes "
                   "OUT/hier.json, OUT/core/ (default OUT: runs/<top>-hier-s<seed>)")
    p.add_argument("--module-budget", type=float, default=None, metavar="SECONDS",
                   help="with --module: start no further module once this much wall time has passed (the rest are "
                   "reported as not tried); default: no limit")
    suite_jobs.add_arguments(p)   # --suite, --executor local|ray, --ray-address (issue #17)
    p.set_defaults(func=run)


def config_from_args(args) -> OptimizeConfig:
    for name in ("steps", "batch", "group", "max_tokens", "workers"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1")
    if not 0 <= args.explore < 1:
        raise ValueError("--explore must be a share in [0, 1)")
    # the edit adapter lost most of its spec -> RTL skill (its README), which --from-spec needs first
    adapter = args.adapter or ("default" if args.from_spec else OptimizeConfig.adapter)
    if args.adapter is None and (args.model != "default" or args.backend == "openai"):
        adapter = "none"            # the bundled adapters are LoRAs of the bundled model only
    task = args.task[0] if isinstance(args.task, list) and len(args.task) == 1 else args.task   # resolved by run()
    return OptimizeConfig(task=task, out=args.out, model=args.model, adapter=adapter, backend=args.backend,
                          steps=args.steps,
                          batch=args.batch, group=args.group, pdk=args.pdk, seed=args.seed,
                          train=args.train and args.chooser == "policy",
                          pool=args.pool, fixed_kl=args.fixed_kl, from_spec=args.from_spec,
                          max_tokens=args.max_tokens, temperature=args.temperature, stop=args.stop, lr=args.lr,
                          eps0=D["eps0"] if args.eps is None else args.eps, workers=args.workers,
                          resume=args.resume, prefill=args.prefill, repair=args.repair,
                          line_edit=args.line_edit, header=args.header, keep_lhs=args.keep_lhs,
                          accept_unproven=args.accept_unproven, actions=args.actions,
                          kinds_per_parent=args.kinds_per_parent, noise=args.noise, screen=args.screen,
                          ranges=args.ranges, cross_pdk=args.cross_pdk, transforms=args.transforms,
                          chooser=args.chooser, choice_group=args.choice_group,
                          option_memory=args.option_memory, explore=args.explore,
                          pnr=args.pnr, early_stop=args.early_stop)


def run(args) -> int:
    args.task = task_cmd.resolve(args)
    if suite_jobs.wants_suite(args):
        return suite_jobs.run_suite(args, "optimize", config_from_args(args))
    if not args.task:
        raise ValueError("give a TASK (or --suite SUITE)")
    if args.module:
        return run_modules(args)
    run_one(config_from_args(args), args.quiet)
    return 0


def run_modules(args) -> int:
    """--module: the submodules of the core optimized in turn (jobs/optimize/hier_run.py)."""
    import dataclasses
    from pathlib import Path

    from designs import load_task
    from rtl_agent.jobs.optimize import hier_run
    from rtl_agent.jobs.optimize import build_policies
    cfg = config_from_args(args)
    core = load_task(args.task)
    out = Path(args.out or f"runs/{core.top}-hier-s{args.seed}")
    lent = []      # a frozen policy is loaded once for every module; a trained one starts afresh on each

    def one(c):
        if c.train:
            return run_one(c, args.quiet)
        if not lent:
            lent.append(build_policies(c))
        return run_one(c, args.quiet, lent[0])
    try:
        hier_run.run(core, dataclasses.replace(cfg, out=None), args.module, out, one, budget_s=args.module_budget)
    finally:
        for p in {id(x): x for x in (lent[0] if lent else ()) if x is not None}.values():
            p.close()
    return 0


def run_one(cfg, quiet: bool, policies=None) -> dict:
    """One optimize run with its live view and its last lines; returns its summary."""
    from rich.console import Console

    from rtl_agent.jobs.optimize import make_loop, summary as summarize
    from rtl_agent.jobs.optimize.report import training_line
    from rtl_agent.jobs.optimize.view import LiveView
    console = Console()
    view = LiveView(console, cfg, quiet=quiet)
    loop, env = make_loop(cfg, on_event=view.event, policies=policies)
    try:
        with view:
            loop.open()
            view.ref(env.ref_ppa, loop.step)
            loop.run()
            summary = summarize(loop, env)
    finally:
        loop.close(policies=policies is None)
    console.print(f"best PPA ratio {summary['best_ratio']:.4f} (ref {summary['ref_ppa']:.4g}, best "
                  f"{summary['best_ppa']:.4g} um2*ns*W, {summary['best_source']} from step {summary['best_step']}); "
                  f"{summary['steps']} steps; pool {summary['pool_size']}")
    console.print(f"run folder {summary['dir']}: best.v, best.json, candidates.csv, report.html")
    best_v = f"{summary['dir']}/best.v"
    if summary.get("training"):
        console.print(training_line(summary["training"], cfg.train))
    console.print(find_line(summary, best_v))
    return summary


def find_line(summary: dict, best_v: str) -> str:
    """The run's last word: the find (path, ratio, proof, kind, against the noise floor) or why there is none."""
    floor = summary.get("noise_floor", 1.0)
    kinds = summary.get("kinds") or {}
    tried = ", ".join(f"{k} {v['valid']}/{v['n']} valid" for k, v in kinds.items() if v["n"])
    if summary["best_source"] == "reference" or summary["best_ratio"] <= 1.0:
        return (f"no find: nothing the model wrote beat the reference ({best_v} is the reference itself; this "
                f"design's noise floor is {floor:.3f}x){'; kinds tried: ' + tried if tried else ''}")
    where = "above" if summary.get("above_noise") else "NOT above"
    return (f"find: {best_v}, PPA ratio {summary['best_ratio']:.3f}x against the reference "
            f"({(summary['best_ratio'] - 1) * 100:.1f}% better area*delay*power), equivalence {summary.get('best_proof')}, "
            f"from a {summary.get('best_kind') or '?'} action"
            + (f" ({' > '.join(summary['best_chain'])})" if summary.get("best_chain") else "")
            + f"; {where} this design's noise floor of {floor:.3f}x"
            + ("" if summary.get("above_noise") else " (so it may be synthesis noise, not a better design)")
            + describe(summary.get("cross_pdk")) + describe_routed(summary.get("pnr")))
