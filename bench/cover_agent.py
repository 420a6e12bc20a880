"""Coverage closure benchmark, agent half: LLM-written stimulus (`rtl_agent.cover`) against the
constrained-random baseline at the SAME simulation budget, on every RTLLM v2.0 reference that
Verilator builds and every project task. Writes bench/results/cover_rtllm.{csv,md}.

    .venv/bin/python bench/cover_agent.py                                # full run (resumable)
    .venv/bin/python bench/cover_agent.py --only counter8,fsm --budget 4

Per task: `run_cover(..., baseline=True)` in runs/bench-cover/<task>: the agent samples `--budget`
stimuli (one group, --no-train, --max-tokens) from the bundled model (a group is drawn with one
shared prompt prefill, `shared_prefix_sample`, where HFPolicy.sample prefills every copy); the baseline is
`eda.random_stim.seeded_stimulus` run with +seed=0..budget-1 (one build). Both are scored with
the same Verilator coverage of the reference RTL; the target is `--target`. Then a TTT run
(training on, `--ttt-budget` simulations in groups of `--ttt-group`) on the `--ttt` designs.
Run folders persist, so re-running resumes (shards: run it with disjoint --only lists in
parallel, then once more without --only to write the tables). torch uses 1 thread (--threads). Tasks whose reference Verilator cannot build
(baseline status not pass) are listed and left out of the fractions.
"""
import argparse
import csv
import datetime
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from designs import load_suite  # noqa: E402
from eda import tools  # noqa: E402
from eda.coverage import pct  # noqa: E402
from rtl_agent import cover  # noqa: E402

TYPES = ("line", "branch", "expr", "toggle")
COLUMNS = (["suite", "task", "budget", "base_status", "base_total_pct"] + [f"base_{t}" for t in TYPES]
           + ["base_met", "agent_total_pct"] + [f"agent_{t}" for t in TYPES]
           + ["agent_met", "agent_ran", "agent_no_code", "agent_rejected", "agent_compile_err", "agent_other_fail",
                "agent_kept", "mode"])


def shared_prefix_sample(pol, prompt, n, temperature, top_p, max_tokens, seed):
    """n samples of one prompt from an HFPolicy with ONE prompt prefill: the KV cache of the
    prompt (all but its last token) is computed once and repeated n times, where generate(n)
    would prefill n copies; on this CPU prefill of a ~900-token prompt dominated. Same model,
    same sampling settings and the same Completion fields as HFPolicy.sample."""
    import torch
    from rtl_agent.policy.base import Completion
    ids = pol.encode(prompt)
    torch.manual_seed(seed)
    with torch.no_grad():
        cache = pol.model(input_ids=torch.tensor([ids[:-1]], device=pol.device), use_cache=True).past_key_values
        cache.batch_repeat_interleave(n)
        inp = torch.tensor([ids] * n, device=pol.device)
        g = pol.model.generate(input_ids=inp, attention_mask=torch.ones_like(inp), past_key_values=cache,
                               do_sample=True, temperature=float(temperature), top_p=float(top_p), top_k=0,
                               max_new_tokens=max_tokens, pad_token_id=pol.tok.pad_token_id,
                               output_logits=True, return_dict_in_generate=True)
    new = g.sequences[:, len(ids):]
    lps = torch.log_softmax(torch.stack(g.logits, 1).float(), -1).gather(-1, new.unsqueeze(-1)).squeeze(-1)
    out = []
    for r in range(n):
        toks, finish = new[r].tolist(), "length"
        for j, t in enumerate(toks):
            if t in pol.eos_ids:
                toks, finish = toks[:j], "stop"
                break
        out.append(Completion(pol.tok.decode(toks, skip_special_tokens=True), toks, lps[r, :len(toks)].tolist(),
                              list(ids), finish))
    return out


class SharedPrefill:
    """The real HFPolicy with `sample` replaced by shared_prefix_sample (one prefill per prompt);
    everything else (logprobs, optimizer, adapters: what rl_step and run_cover use) is the policy's."""

    def __init__(self, policy):
        self._pol = policy

    def __getattr__(self, name):
        return getattr(self._pol, name)

    def sample(self, prompts, n=1, temperature=1.0, top_p=1.0, max_tokens=256, stop=None, seed=None):
        return [shared_prefix_sample(self._pol, p, n, temperature, top_p, max_tokens, 0 if seed is None else seed)
                for p in prompts]


def _frac(final: dict, t: str) -> str:
    v = final.get(t)
    return f"{v[0]}/{v[1]}" if v else ""


def _met(final: dict, target: dict, known: bool) -> bool:
    if not known:
        return False
    return all(not final.get(t) or pct(final[t]) >= want - 1e-9 for t, want in target.items())


def bench_task(t, suite, args, policy, target, train=False, budget=None, group=None, tag="") -> dict:
    budget = budget or args.budget
    cfg = cover.CoverConfig(target=target, budget=budget, group=group or min(args.group, budget), train=train,
                            max_tokens=args.max_tokens, seed=args.seed)
    out = Path(args.runs) / f"{t.name}{tag}"
    t0 = time.monotonic()
    s = cover.run_cover(t, out, cfg, policy=policy, policy_spec="default", resume=True, baseline=True,
                        log=lambda *a: None)
    base = s["baseline"] or {}
    bfinal = {k: tuple(v) for k, v in (base.get("final") or {}).items()}
    bstat = "pass" if bfinal else "error"
    afinal = {k: tuple(v) for k, v in s["all_types"].items()}
    v = s["verdicts"]
    row = {"suite": suite, "task": t.name, "budget": budget, "base_status": bstat,
           "base_total_pct": base.get("percent", ""), "base_met": _met(bfinal, target, bool(bfinal)),
           "agent_total_pct": s["total_pct"], "agent_met": s["met"], "agent_ran": v.get("pass", 0),
           "agent_compile_err": v.get("error", 0),
           "agent_no_code": v.get("extract", 0), "agent_rejected": v.get("rejected", 0),
           "agent_other_fail": sum(n for k, n in v.items() if k not in ("pass", "error", "extract", "rejected")),
           "agent_kept": len(s["accepted"]), "agent_s": round(time.monotonic() - t0, 1),
           "mode": ("ttt" if train else "sample") + f" G={cfg.group}"}
    for ty in TYPES:
        row[f"base_{ty}"] = _frac(bfinal, ty)
        row[f"agent_{ty}"] = _frac(afinal, ty)
    return row


def write_md(rows, ttt, path: Path, args, target, secs):
    ok = [r for r in rows if r["base_status"] == "pass"]
    bad = [r for r in rows if r["base_status"] != "pass"]
    n = len(ok)

    def mean(k, rs):
        return sum(float(r[k] or 0) for r in rs) / len(rs) if rs else 0.0
    lines = [f"# Coverage closure: LLM stimulus (bundled SmolLM2-135M) vs constrained random, {args.budget} simulations each",
             "", f"Date {datetime.date(2026, 11, 30)}; {tools.version('verilator')}; torch CPU, 2 cores shared with "
             f"other jobs. Generated by `bench/cover_agent.py`: "
             + (args.wall_note or f"{secs / 60:.1f} min."), "",
             f"Target `{','.join(f'{k}={v:g}' for k, v in target.items())}` (percent of Verilator points reached at "
             "least once). Budget: every sampled stimulus is one simulation whether it compiles or not; the random "
             f"baseline gets the same number of runs ({args.budget} x 200 cycles, `seeded_stimulus`). Agent: one group of "
             f"{min(args.group, args.budget)} samples, max_tokens {args.max_tokens}, temperature 0.8, no training; "
             "prompt = system + one worked example + spec (400 chars) + RTL (1200 chars), no coverage data yet at the "
             "first group. Extraction (`rtl_agent.cover.extract_stimulus`): first fenced block; lines that cannot be "
             "stimulus (not starting with a statement keyword, a delay/event or a DUT input) dropped; truncated text "
             "cut at the last statement; wrapped in `initial begin ... $finish; end`. `x/y` = covered/total points.", "",
             "## Totals", "",
             "| | random baseline | agent (LLM stimulus) |", "|---|---|---|",
             f"| designs built and measured | {n} | {n} |",
             f"| mean total coverage | {mean('base_total_pct', ok):.1f}% | {mean('agent_total_pct', ok):.1f}% |",
             f"| designs reaching the target | {sum(bool(r['base_met']) for r in ok)}/{n} | "
             f"{sum(bool(r['agent_met']) for r in ok)}/{n} |",
             f"| designs where the agent's coverage >= baseline | | {sum(float(r['agent_total_pct'] or 0) >= float(r['base_total_pct'] or 0) for r in ok)}/{n} |",
             f"| stimuli that compiled and ran | {n * args.budget}/{n * args.budget} | "
             f"{sum(int(r['agent_ran']) for r in ok)}/{sum(int(r['budget']) for r in ok)} |",
             f"| stimuli that did not compile | 0 | {sum(int(r['agent_compile_err']) for r in ok)} |",
             f"| answers with no usable Verilog statement | 0 | {sum(int(r['agent_no_code']) for r in ok)} |",
             f"| stimuli refused by the sandbox screen | 0 | {sum(int(r['agent_rejected']) for r in ok)} |", ""]
    best = sorted(ok, key=lambda r: -float(r["agent_total_pct"] or 0))[:5]
    lines += [f"In plain words: at {args.budget} simulations the random baseline reaches the target on "
              f"{sum(bool(r['base_met']) for r in ok)} of {n} designs and the bundled 135M model on "
              f"{sum(bool(r['agent_met']) for r in ok)}; most of its answers hold no usable Verilog statement or do not "
              "compile, and the stimuli that run exercise little (best: "
              + ", ".join(f"{r['task']} {r['agent_total_pct']}% vs {r['base_total_pct']}%" for r in best) + ").", ""]
    if bad:
        lines += [f"Left out (reference does not build under Verilator): {', '.join(r['task'] for r in bad)}.", ""]
    if ttt:
        lines += ["## Test-time training (entropic LoRA steps between groups)", "",
                  "| task | budget | mode | random total | agent total | agent ran | kept |", "|---|---|---|---|---|---|---|"]
        for r in ttt:
            lines.append(f"| {r['task']} | {r['budget']} | {r['mode']} | {r['base_total_pct']}% | {r['agent_total_pct']}% | "
                         f"{r['agent_ran']}/{r['budget']} | {r['agent_kept']} |")
        lines.append("")
    lines += ["## Per design", "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows + ttt:
        lines.append("| " + " | ".join(str(r.get(c, "")) for c in COLUMNS) + " |")
    path.write_text("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", default="rtllm,designs")
    ap.add_argument("--only", default="", help="comma-separated task names")
    ap.add_argument("--budget", type=int, default=4)
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=192)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target", default="line=95,branch=90,toggle=80")
    ap.add_argument("--ttt", default="counter8,multi_booth_8bit", help="designs for the TTT run ('' for none)")
    ap.add_argument("--ttt-budget", type=int, default=8)
    ap.add_argument("--ttt-group", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--wall-note", default="", help="text for the md in place of this invocation's wall time "
                    "(when the runs were made by earlier, sharded invocations)")
    ap.add_argument("--ttt-only", action="store_true", help="only the TTT runs (tables then hold only them)")
    ap.add_argument("--runs", default=str(ROOT / "runs" / "bench-cover"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "cover_rtllm"))
    args = ap.parse_args(argv)
    target = cover.parse_target(args.target)
    only = {x for x in args.only.split(",") if x}
    import torch
    # one thread: on this shared 2-core machine OpenMP spin-waiting made 2 threads 8-60x slower
    torch.set_num_threads(args.threads)
    from rtl_agent.policy import make_policy
    policy = make_policy("default")
    rows, ttt, t0 = [], [], time.monotonic()
    todo = []
    for suite in args.suites.split(","):
        for t in load_suite(suite):
            if not only or t.name in only:
                todo.append((suite, t))
    tasks = {t.name: t for _, t in todo}
    suites = {t.name: suite for suite, t in todo}
    fast = SharedPrefill(policy)
    for suite, t in ([] if args.ttt_only else todo):
        try:
            row = bench_task(t, suite, args, fast, target)
        except Exception as e:               # one broken task is a row, not the end of the benchmark
            row = {"suite": suite, "task": t.name, "budget": args.budget, "base_status": f"error: {e}"[:120]}
        rows.append(row)
        print(f"{suite:8s} {t.name:24s} base {row.get('base_total_pct', '')!s:>6}% agent "
              f"{row.get('agent_total_pct', '')!s:>6}% ran {row.get('agent_ran', '')}/{args.budget} "
              f"({row.get('agent_s', '')} s, {time.monotonic() - t0:.0f} s total)", flush=True)
    for name in [x for x in args.ttt.split(",") if x]:
        if name not in tasks:
            continue
        row = bench_task(tasks[name], suites[name], args, fast, target, train=True, budget=args.ttt_budget,
                         group=args.ttt_group, tag="-ttt")
        ttt.append(row)
        print(f"TTT {name:24s} base {row['base_total_pct']}% agent {row['agent_total_pct']}% "
              f"ran {row['agent_ran']}/{row['budget']} ({row['agent_s']} s)", flush=True)
    secs = time.monotonic() - t0
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows + ttt:
            w.writerow({c: r.get(c, "") for c in COLUMNS})
    write_md(rows, ttt, out.with_suffix(".md"), args, target, secs)
    print(f"wrote {out.with_suffix('.csv')} and .md ({secs / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
