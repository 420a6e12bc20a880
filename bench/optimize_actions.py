"""Which action format lets the bundled model produce a new, verified design? full (the `rewrite` kind) or
diff (the `line` kind), with the answer prefilled or not, at the same sampling settings (issue #14; the `mixed`
arm went with the single --edit action).

For every task, seed and arm: one optimize step from the reference (the root of the pool), G
samples, no training (this measures the action format, not learning). A candidate counts as a
success when it passes every check (lint, simulation, equivalence, synthesis, STA) and differs
from its parent after normalisation (comments and whitespace ignored). Re-prompts of an edit that
did not apply are extra samples and are counted in the denominator, so every arm is charged for
what it drew.

    .venv/bin/python bench/optimize_actions.py                    # the default grid (see --help)
    .venv/bin/python bench/optimize_actions.py --tasks adder16 --seeds 1 --arms diff+pre

Writes bench/results/optimize_actions.{csv,md}; runs live in runs/optimize_actions/ and are reused
(a run folder that already holds step 1 is read, not redone).
"""
import argparse
import os
import sys
import time
from collections import defaultdict
from datetime import date
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import write_rows  # noqa: E402
RESULTS = ROOT / "bench" / "results"

PROJECT = ["adder16", "alu8", "counter8", "crc8", "fifo8x4", "fsm_seq", "gray_counter", "lzc16", "mult8",
           "prio_enc8", "c910_lza"]
RTLLM = ["comparator_3bit", "comparator_4bit", "sub_64bit", "multi_8bit", "JC_counter", "ring_counter", "LFSR",
         "right_shifter", "pe", "counter_12"]
ARMS = ["full+pre", "diff+pre", "full", "diff"]
# the action kind that writes what the removed `--edit full|diff` did (there is no kind for its `mixed`)
KIND_OF = {"full": "rewrite", "diff": "line"}


def run_one(task, arm, seed, a, policy) -> list[dict]:
    from rtl_agent.jobs.optimize import OptimizeConfig, optimize
    from training.store import RunStore
    edit, pre = arm.split("+")[0], arm.endswith("+pre")
    out = Path(a.runs) / f"{task}-{arm.replace('+', '_')}-s{seed}"
    cfg = OptimizeConfig(task=task, out=str(out), steps=1, batch=1, group=a.group, max_tokens=a.max_tokens,
                         seed=seed, train=False, pool=False, actions=KIND_OF[edit], kinds_per_parent=1,
                         prefill=pre, repair=a.repair,
                         workers=1, resume=True, adapter=a.adapter, temperature=a.temperature,
                         line_edit=a.line_edit == "on", header=a.header == "on",
                         keep_lhs=a.keep_lhs == "on")
    t0 = time.time()
    optimize(cfg, policies=(policy, None))
    wall = time.time() - t0
    rows = []
    with RunStore(out / "run.sqlite") as st:
        parent = st.candidates(0)[0]["text"]
        from rtl_agent.edits import same_design
        for c in st.candidates(1):
            rp, sm = c["payload"], c["sample"]
            cd = rp.get("candidate") or {}
            ok = c["failed"] is None and not same_design(c["text"], parent)
            rows.append({"task": task, "arm": arm, "seed": seed, "action": cd.get("action"),
                         "applied": cd.get("applied"), "repaired": cd.get("repaired") or 0,
                         "status": c["status"], "failed_stage": c["failed"] or "",
                         "success": int(ok), "ratio": rp.get("ratio"), "mode": sm.get("mode"),
                         "prompt_tokens": sm.get("prompt_tokens"), "tokens": sm.get("tokens"),
                         "wall_s": round(wall, 1)})
    return rows


def summarise(rows, a, elapsed, skipped) -> list[str]:
    by = defaultdict(list)
    for r in rows:
        by[r["arm"]].append(r)
    arms = [x for x in ARMS if x in by]
    lines = [f"# Action formats: full / diff, prefill on / off ({date.today().isoformat()})", "",
             f"Model: bundled SmolLM2-135M-Instruct (policy `{a.policy}`, adapter `{a.adapter}`, CPU), no training. Per task, seed and arm: "
             f"one step from the reference, {a.group} samples of at most {a.max_tokens} tokens, temperature {a.temperature}, "
             f"re-prompts of a failed edit: {a.repair}. One-line edits: {a.line_edit} (left-hand side kept: {a.keep_lhs}); full rewrites prefilled with "
             f"the parent's header: {a.header}. Seeds: {a.seeds}. Wall time {elapsed / 60:.1f} min on 2 "
             "shared CPU cores.", "",
             f"Tasks ({len({r['task'] for r in rows})}): {', '.join(sorted({r['task'] for r in rows}))}.",
             *( [f"Not run (reference does not pass its own flow, or the run failed): {', '.join(skipped)}."]
                if skipped else []), "",
             "success = passes lint, simulation, equivalence, synthesis and STA and differs from the parent "
             "(comments/whitespace ignored). Draws = samples + re-prompts (every draw is charged).", "",
             "| arm | draws | success | rate | better than ref | no module | edit not applied | duplicate | "
             "lint/screen | sim/equiv | other |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for arm in arms:
        rs = by[arm]
        draws = len(rs) + sum(r["repaired"] for r in rs)
        succ = sum(r["success"] for r in rs)
        fs = defaultdict(int)
        for r in rs:
            fs[r["failed_stage"]] += 1
        better = sum(1 for r in rs if r["success"] and (r["ratio"] or 0) > 1.0)
        other = len(rs) - succ - sum(fs[k] for k in ("extract", "apply", "duplicate", "lint", "screen", "sim",
                                                      "equiv", "interface"))
        lines.append(f"| {arm} | {draws} | {succ} | {succ / draws:.1%} | {better} | {fs['extract']} | {fs['apply']} | "
                     f"{fs['duplicate']} | {fs['lint'] + fs['screen']} | {fs['sim'] + fs['equiv'] + fs['interface']} | "
                     f"{other} |")
    best = max(arms, key=lambda x: sum(r["success"] for r in by[x]) / max(1, len(by[x]) + sum(
        r["repaired"] for r in by[x]))) if arms else None
    top = sum(r["success"] for r in by[best]) if best else 0
    lines += ["", f"Best arm: **{best}**." if top else
              "No arm produced a success: there is no best arm by this measure.", "", "## Per task (successes / samples, all arms)", "",
              "| task | " + " | ".join(arms) + " |", "|---|" + "---|" * len(arms)]
    for t in sorted({r["task"] for r in rows}):
        cells = []
        for arm in arms:
            rs = [r for r in by[arm] if r["task"] == t]
            cells.append(f"{sum(r['success'] for r in rs)}/{len(rs)}" if rs else "-")
        mode = next((r["mode"] for r in rows if r["task"] == t), "")
        lines.append(f"| {t} ({mode}) | " + " | ".join(cells) + " |")
    return lines


def compare(rows, name) -> list[str]:
    """This run against bench/results/<name>.csv on the (task, arm, seed) cells both hold."""
    import csv
    path = RESULTS / f"{name}.csv"
    if not path.exists():
        return []
    base = list(csv.DictReader(path.open()))
    cells = {(r["task"], r["arm"], str(r["seed"])) for r in base} & {(r["task"], r["arm"], str(r["seed"])) for r in rows}
    if not cells:
        return []

    def stats(rs):
        rs = [r for r in rs if (r["task"], r["arm"], str(r["seed"])) in cells]
        draws = len(rs) + sum(int(r["repaired"] or 0) for r in rs)
        succ = sum(int(r["success"]) for r in rs)
        eda = sum(1 for r in rs if r["failed_stage"] not in ("extract", "apply", "duplicate"))
        return f"{succ}/{draws} ({succ / max(1, draws):.1%}), reach EDA {eda}/{len(rs)}"
    lines = ["", f"## Against `{name}` (same tasks, arms and seeds: {len(cells)} cells)", "",
             f"| arm | {name} | this run |", "|---|---|---|"]
    for arm in sorted({c[1] for c in cells}, key=ARMS.index):
        lines.append(f"| {arm} | {stats([r for r in base if r['arm'] == arm])} | "
                     f"{stats([r for r in rows if r['arm'] == arm])} |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default=",".join(PROJECT + RTLLM))
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--arms", default=",".join(ARMS))
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=192)
    ap.add_argument("--repair", type=int, default=1)
    ap.add_argument("--line-edit", default="on", choices=("on", "off"),
                    help="one-line replacement of a prefilled one-line SEARCH (OptimizeConfig.line_edit)")
    ap.add_argument("--keep-lhs", default="on", choices=("on", "off"),
                    help="one-line edits prefilled up to the statement's `=` (OptimizeConfig.keep_lhs)")
    ap.add_argument("--header", default="on", choices=("on", "off"),
                    help="full rewrites prefilled with the parent's port header (OptimizeConfig.header)")
    ap.add_argument("--temperature", type=float, default=0.8, help="sampling temperature (default 0.8, the jobs' own)")
    ap.add_argument("--runs", default=str(ROOT / "runs" / "optimize_actions"))
    ap.add_argument("--name", default="optimize_actions")
    ap.add_argument("--policy", default="default", help="policy spec, e.g. vllm:default (faster sampling on CPU)")
    ap.add_argument("--against", default=None, help="results stem to compare with (e.g. optimize_actions)")
    ap.add_argument("--adapter", default="default", help="SFT adapter merged into the model (default: the bundled "
                    "Verilog adapter; none: off; or a folder)")
    a = ap.parse_args(argv)
    if set(a.arms.split(",")) - set(ARMS):
        ap.error(f"--arms: choose from {', '.join(ARMS)}")
    from designs.task import TaskError
    from rtl_agent.policy import make_policy
    from training.loop import RunFolderError
    policy = make_policy(a.policy, adapter=a.adapter)
    RESULTS.mkdir(parents=True, exist_ok=True)
    t0, rows, skipped = time.time(), [], []
    for seed in [int(s) for s in a.seeds.split(",")]:
        for task in a.tasks.split(","):         # arms innermost: a partial run still compares every arm
            for arm in a.arms.split(","):
                if task in skipped:
                    continue
                try:
                    got = run_one(task, arm, seed, a, policy)
                except (TaskError, RunFolderError) as e:   # a broken task, a reference failing its own flow;
                    # anything else (a dead model engine) ends the bench instead of skipping every later task
                    print(f"{task}: skipped: {type(e).__name__}: {str(e)[:200]}", flush=True)
                    skipped.append(task)
                    continue
                rows += got
                print(f"[{(time.time() - t0) / 60:5.1f} min] {task} {arm} s{seed}: "
                      f"{sum(r['success'] for r in got)}/{len(got)} "
                      f"({', '.join(r['status'] for r in got)})", flush=True)
                write_rows(RESULTS / f"{a.name}.csv", rows)
                (RESULTS / f"{a.name}.md").write_text("\n".join(
                    summarise(rows, a, time.time() - t0, skipped) + (compare(rows, a.against) if a.against else [])) + "\n")
    print(f"wrote {RESULTS / a.name}.{{csv,md}} in {(time.time() - t0) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
