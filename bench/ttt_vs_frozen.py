"""Test-time training vs a frozen policy (--no-train) at the same sample budget.

For each task and seed, two optimize runs with identical settings except training: the same
steps x batch x group samples, the same PUCT pool, the same per-step sampling seeds (so step 1,
drawn before any update, is identical in both). Per step: valid-candidate rate and best PPA ratio
(PPA_ref / PPA_best, 1.0 = the reference).

    .venv/bin/python bench/ttt_vs_frozen.py     # 3 tasks x 3 seeds x 2 modes x 3 steps x 2 samples x 128 tokens
                                                # (~40 min on 2 idle cores; longer when the machine is shared)
    .venv/bin/python bench/ttt_vs_frozen.py --tasks adder16 --seeds 1 --steps 2   # a quick look

On the headroom tasks (designs with a proven better design) at the optimize defaults, the same comparison is
`bench/find_rate.py --frozen` (bench/results/ttt_vs_frozen_headroom.md), which reuses this module's statistics.

Writes bench/results/ttt_vs_frozen.{csv,md,png}. Runs live in runs/ttt_vs_frozen_g2t128/<task>-<mode>-s<seed>
and are resumed, so an interrupted benchmark continues where it stopped.
"""
import argparse
import os
import sys
import time
from datetime import date
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import write_rows  # noqa: E402

RESULTS = ROOT / "bench" / "results"
MODES = ("ttt", "frozen")


def run_one(task, mode, seed, a, base: Path) -> list[dict]:
    from rtl_agent.jobs.optimize import OptimizeConfig, optimize
    from training.store import RunStore
    out = base / f"{task}-{mode}-s{seed}"
    cfg = OptimizeConfig(task=task, out=str(out), steps=a.steps, batch=a.batch, group=a.group,
                         max_tokens=a.max_tokens, seed=seed, train=(mode == "ttt"), resume=True, backend=a.backend,
                         adapter=a.adapter,
                         **({"actions": a.actions} if a.actions else {}), prefill=not a.no_prefill,
                         temperature=a.temperature)
    t0 = time.time()
    optimize(cfg)
    wall = time.time() - t0
    rows = []
    with RunStore(out / "run.sqlite") as st:
        for s in st.steps()[1:]:
            m = s["stats"]["metrics"]
            rows.append({"task": task, "mode": mode, "seed": seed, "step": s["step"], "samples": m["n"],
                         "valid": m["valid"], "valid_rate": m["valid_rate"], "best_ratio": m["best_ratio"],
                         "distinct": m["distinct"], "reward_mean": m["reward_mean"], "ref_kl": m["ref_kl"],
                         "eps": m["eps"], "step_s": m["seconds"]["total"], "run_wall_s": round(wall, 1)})
    return rows


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def write_md(rows, a, tools, elapsed):
    tasks = sorted({r["task"] for r in rows})
    steps = sorted({r["step"] for r in rows})
    lines = [f"# TTT vs frozen policy at the same sample budget ({date.today().isoformat()})", "",
             f"Model: bundled SmolLM2-135M-Instruct (backend {a.backend}, adapter {a.adapter}, CPU). Per run: {a.steps} steps x "
             f"{a.batch} parent x {a.group} samples, max {a.max_tokens} tokens, temperature {a.temperature}; a sample "
             "stops at endmodule (full rewrite) or at its line's end (one-line edit). "
             f"Seeds {', '.join(map(str, range(a.seeds)))}. Same seeds in both modes, so step 1 (before any update) "
             f"is the same draw. Machine: 2 CPU cores, shared with other jobs. Wall time {elapsed / 60:.1f} min.",
             f"Action kinds: {a.actions or 'OptimizeConfig default'}, "
             f"answer prefill {'off' if a.no_prefill else 'on'}. "
             f"Tools: {tools}.", "",
             "Mean over seeds. valid = fraction of samples that pass lint, simulation, equivalence, synthesis "
             "and STA; best = PPA_ref / PPA_best (1.0 = the reference; higher is better).", "",
             "| task | step | valid TTT | valid frozen | best TTT | best frozen |", "|---|---|---|---|---|---|"]
    for t in tasks:
        for s in steps:
            v = {m: [r for r in rows if r["task"] == t and r["mode"] == m and r["step"] == s] for m in MODES}
            lines.append(f"| {t} | {s} | {fmt(mean([r['valid_rate'] for r in v['ttt']]))} | "
                         f"{fmt(mean([r['valid_rate'] for r in v['frozen']]))} | "
                         f"{fmt(mean([r['best_ratio'] for r in v['ttt']]), '.4f')} | "
                         f"{fmt(mean([r['best_ratio'] for r in v['frozen']]), '.4f')} |")
    tot = {m: [r for r in rows if r["mode"] == m] for m in MODES}
    late = {m: [r for r in tot[m] if r["step"] > 1] for m in MODES}
    valid = {m: sum(r["valid"] for r in tot[m]) for m in MODES}
    n = {m: sum(r["samples"] for r in tot[m]) for m in MODES}
    lv = {m: (sum(r["valid"] for r in late[m]), sum(r["samples"] for r in late[m])) for m in MODES}
    final = {m: [r["best_ratio"] for r in tot[m] if r["step"] == max(steps)] for m in MODES}
    lines += ["", "## Totals", "",
              f"- valid samples, all steps: TTT {valid['ttt']}/{n['ttt']}, frozen {valid['frozen']}/{n['frozen']}",
              f"- valid samples after step 1 (where the policies differ): TTT {lv['ttt'][0]}/{lv['ttt'][1]}, "
              f"frozen {lv['frozen'][0]}/{lv['frozen'][1]}",
              f"- final best PPA ratio, mean over runs: TTT {fmt(mean(final['ttt']), '.4f')}, frozen "
              f"{fmt(mean(final['frozen']), '.4f')}; runs that beat the reference: TTT "
              f"{sum(x > 1.0 for x in final['ttt'])}/{len(final['ttt'])}, frozen "
              f"{sum(x > 1.0 for x in final['frozen'])}/{len(final['frozen'])}",
              f"- mean step time: TTT {fmt(mean([r['step_s'] for r in tot['ttt']]), '.0f')} s, frozen "
              f"{fmt(mean([r['step_s'] for r in tot['frozen']]), '.0f')} s", ""]
    lines += paired(rows, max(steps)) + ["## Verdict", "", verdict(lv, final), ""]
    return lines


def paired(rows, last) -> list[str]:
    """Per (task, seed) pair, TTT minus frozen: valid rate after step 1 and log final best ratio, with
    the mean and a 95% bootstrap interval over pairs (the pairs share seeds, so step 1 is the same draw)."""
    import math
    import random
    pairs = {}
    for r in rows:
        pairs.setdefault((r["task"], r["seed"]), {}).setdefault(r["mode"], []).append(r)
    dv, db = [], []
    for by in pairs.values():
        if set(by) != set(MODES):
            continue
        late = {m: [r for r in by[m] if r["step"] > 1] for m in MODES}
        rate = {m: sum(r["valid"] for r in late[m]) / max(1, sum(r["samples"] for r in late[m])) for m in MODES}
        fin = {m: next((r["best_ratio"] for r in by[m] if r["step"] == last), None) for m in MODES}
        dv.append(rate["ttt"] - rate["frozen"])
        if None not in fin.values():
            db.append(math.log(fin["ttt"]) - math.log(fin["frozen"]))

    def ci(xs):
        if not xs:
            return "-"
        rng = random.Random(0)
        means = sorted(sum(rng.choice(xs) for _ in xs) / len(xs) for _ in range(2000))
        return (f"{sum(xs) / len(xs):+.3f} [95% bootstrap {means[50]:+.3f}, {means[1949]:+.3f}]; "
                f"TTT ahead in {sum(x > 0 for x in xs)}, behind in {sum(x < 0 for x in xs)}, tied in "
                f"{sum(x == 0 for x in xs)} of {len(xs)} pairs")
    return ["## Paired comparison (TTT minus frozen, per task and seed)", "",
            f"- valid rate after step 1: {ci(dv)}",
            f"- log final best PPA ratio: {ci(db)}", ""]


def verdict(lv, final) -> str:
    """Plain words from the numbers: valid rate after step 1 and final best ratio, TTT vs frozen."""
    rate = {m: lv[m][0] / lv[m][1] if lv[m][1] else 0.0 for m in MODES}
    best = {m: mean(final[m]) or 1.0 for m in MODES}
    dv, db = rate["ttt"] - rate["frozen"], best["ttt"] - best["frozen"]
    what = (f"valid rate after step 1 {rate['ttt']:.2f} (TTT) vs {rate['frozen']:.2f} (frozen); "
            f"final best PPA ratio {best['ttt']:.4f} vs {best['frozen']:.4f}.")
    n = min(lv["ttt"][1], lv["frozen"][1])
    if n and abs(dv) * (n ** 0.5) < 1.0 and abs(db) < 1e-3:
        return f"No measurable difference: TTT did not help with the bundled model at this budget ({what})"
    if dv >= 0 and db >= 0:
        return f"TTT helped at this budget ({what})"
    if dv <= 0 and db <= 0:
        return f"TTT did not help; the frozen policy did as well or better ({what})"
    return f"Mixed: no clear winner ({what})"


def fmt(x, spec=".2f"):
    return "-" if x is None else format(x, spec)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tasks = sorted({r["task"] for r in rows})
    fig, axs = plt.subplots(2, len(tasks), figsize=(4 * len(tasks), 6), squeeze=False)
    for j, t in enumerate(tasks):
        for m, style in zip(MODES, ("-o", "--s")):
            steps = sorted({r["step"] for r in rows if r["task"] == t and r["mode"] == m})
            for i, key in enumerate(("valid_rate", "best_ratio")):
                ys = [mean([r[key] for r in rows if r["task"] == t and r["mode"] == m and r["step"] == s])
                      for s in steps]
                axs[i][j].plot(steps, ys, style, label=m)
        axs[0][j].set(title=t, ylabel="valid fraction", ylim=(-0.05, 1.05))
        axs[1][j].set(xlabel="step", ylabel="PPA_ref / PPA_best")
        axs[0][j].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="adder16,lzc16,prio_enc8")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--group", type=int, default=2)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--actions", default=None, metavar="KINDS",
                    help="optimize's action kinds, e.g. rewrite or line (default: OptimizeConfig's)")
    ap.add_argument("--temperature", type=float, default=0.8, help="sampling temperature (default 0.8)")
    ap.add_argument("--no-prefill", action="store_true", help="do not start the model's answer")
    ap.add_argument("--adapter", default="default", help="SFT adapter: default (the bundled one), none, or a folder")
    ap.add_argument("--backend", default="hf", choices=("hf", "vllm"),
                    help="sampling backend (vllm samples ~2.5x faster on CPU; training stays transformers+peft)")
    ap.add_argument("--runs", default=str(ROOT / "runs" / "ttt_vs_frozen_g2t128"))
    ap.add_argument("--name", default="ttt_vs_frozen", help="results file stem under bench/results")
    a = ap.parse_args(argv)
    from eda import tools
    tools_line = ", ".join(f"{k} {v}" for k, v in tools.versions().items())
    t0 = time.time()
    rows = []
    RESULTS.mkdir(parents=True, exist_ok=True)
    for seed in range(a.seeds):                    # seeds outermost: a partial run still covers every task
        for task in a.tasks.split(","):
            for mode in MODES:
                rows += run_one(task, mode, seed, a, Path(a.runs))
                print(f"[{(time.time() - t0) / 60:5.1f} min] {task} {mode} seed {seed}: valid "
                      f"{sum(r['valid'] for r in rows[-a.steps:])}/{sum(r['samples'] for r in rows[-a.steps:])}, "
                      f"best {rows[-1]['best_ratio']:.4f}", flush=True)
                write_rows(RESULTS / f"{a.name}.csv", rows)
                # md and png after every run, so an interrupted benchmark still leaves a readable summary
                (RESULTS / f"{a.name}.md").write_text("\n".join(write_md(rows, a, tools_line, time.time() - t0)))
                plot(rows, RESULTS / f"{a.name}.png")
    print(f"wrote {RESULTS / a.name}.{{csv,md,png}} in {(time.time() - t0) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
