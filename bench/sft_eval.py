"""Bundled model with and without the SFT adapter, same prompts and seeds: spec -> RTL through `rtl-agent regress`
(vLLM backend), on VerilogEval v2 and on the project's tasks; syntax-pass rate, pass@1, pass@5 by the project's
own verdicts. Writes bench/results/sft_eval.{md,csv}; the regress run folders (resumable) are under --runs.

    .venv/bin/python bench/sft_eval.py --every 4 -n 5          # VerilogEval problems 1, 5, 9, ... and the tasks
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import header, md_table, write_rows  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def subset(every: int) -> list[str]:
    from designs import verilog_eval
    return verilog_eval.problem_names()[::every]


def regress(suite, adapter, designs, a) -> Path:
    out = Path(a.runs) / f"{suite}-{Path(adapter).name}"
    from designs import load_suite
    want = len(designs) if designs else len(load_suite(suite))
    if (out / "results.csv").is_file() and len(pd.read_csv(out / "results.csv")) == want:
        return out          # finished earlier: no model start-up just to read it back
    cmd = [sys.executable, "-m", "rtl_agent.cli", "regress", "--suite", suite, "--policy", a.policy,
           "--adapter", adapter, "-n", str(a.n), "-k", "1,5", "--max-tokens", str(a.max_tokens),
           "--temperature", str(a.temperature), "--jobs", "2",
           "--out", str(out)] + (["--designs", ",".join(designs)] if designs else [])
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)
    return out


def complete_modules(out: Path, designs) -> int:
    """Samples holding a whole module of the asked name (through endmodule): the answer format, right or wrong."""
    from designs import load_task
    from rtl_agent.prompts import extract_verilog
    n = 0
    for name in designs:
        top = load_task(name).top if (out / "samples" / name).is_dir() else None
        for f in sorted((out / "samples" / name).glob("s*.txt")) if top else []:
            n += extract_verilog(f.read_text(), top).ok
    return n


def row(suite, adapter, out: Path) -> dict:
    df = pd.read_csv(out / "results.csv")
    n = int(df["samples"].sum())
    return {"suite": suite, "adapter": adapter, "designs": len(df), "samples": n,
            "complete_module_rate": round(complete_modules(out, list(df["design"])) / n, 3),
            "syntax_pass_rate": round(df["syntax_pass"].sum() / n, 3), "func_pass_rate": round(df["func_pass"].sum() / n, 3),
            "pass@1": round(df["pass@1"].mean(), 3), "pass@5": round(df["pass@5"].mean(), 3),
            "fail_extract": int(df.get("fail_extract", pd.Series([0])).sum()),
            # regress's own wall time (its last invocation: sampling + checks), not this script's
            "regress_wall_s": json.loads((out / "summary.json").read_text())["meta"]["wall_s_this_invocation"]}


CUT = 0.2       # the share at which a VerilogEval problem counts as overlapping the training data


def overlap_shares(data: Path) -> dict:
    """{VerilogEval problem: share}: the larger of its reference's and its prompt's fraction of n-grams that
    occur anywhere in the training pairs (all kinds built, data.jsonl of the adapter folder)."""
    from rtl_agent.jobs.sft import data as sft_data
    train = sft_data.train_ngrams([json.loads(x) for x in data.read_text().splitlines()])
    shares = {}
    for name, share in sft_data.item_shares(sft_data.eval_items()["VerilogEval"], train).items():
        prob = name.rsplit("_", 1)[0]
        shares[prob] = max(shares.get(prob, 0.0), share)
    return shares


def split_rows(shares: dict, runs: dict, cut=CUT) -> list:
    """Metrics of each adapter's VerilogEval run on all problems, those under cut and those at or above it."""
    out = []
    for adapter, folder in runs.items():
        df = pd.read_csv(folder / "results.csv")
        sh = df["design"].map(shares).fillna(0.0)
        for label, part in ((f"all {len(df)}", df), (f"share < {cut:.0%}", df[sh < cut]), (f"share >= {cut:.0%}", df[sh >= cut])):
            n = int(part["samples"].sum())
            out.append({"adapter": adapter, "problems": f"{label} ({len(part)})",
                        "syntax_pass_rate": round(part["syntax_pass"].sum() / n, 3) if n else None,
                        "func_pass_rate": round(part["func_pass"].sum() / n, 3) if n else None,
                        "pass@1": round(part["pass@1"].mean(), 3) if n else None,
                        "pass@5": round(part["pass@5"].mean(), 3) if n else None})
    return out


def train_record(adapter: Path, command: str, load: str):
    """bench/results/sft_train.md (+ sft_train_loss.png) from an adapter folder's manifest.json and loss.csv."""
    import shutil
    m = json.loads((adapter / "manifest.json").read_text())
    t, pr = m["training"], m["pairs"]
    shutil.copy(adapter / "loss.png", RESULTS / "sft_train_loss.png")
    text = header("SFT training record: the bundled adapter", {"adapter": f"{adapter} (sha256 {m['adapter_sha256'][:16]})",
                                                              "command": command, "machine load": load})
    text += ("\n" + md_table(pd.DataFrame([{
        "steps": t["steps"], "tokens_seen": t["tokens_seen"], "final_loss": t["final_loss"],
        "train_s": t["seconds"], "threads": t["threads"], "peak_rss_mb": t["peak_rss_mb"], "lr": t["lr"],
        "batch_tokens": t["batch_tokens"]}])) + "\n\n")
    text += (f"Pairs: {pr['built']} built, {pr['within_max_len']} used (kinds and length limit); by kind "
             f"{pr['by_kind']}; by source {pr['by_source']}; {pr['prompt_tokens']} prompt + {pr['answer_tokens']} "
             f"answer tokens (the loss is on answer tokens only).\n\n")
    g = m.get("generated") or {}
    text += (f"Generated designs: {g.get('designs')} designs, {g.get('verified')}/{g.get('variants')} variants passed "
             "lint, equivalence (proven) and synthesis; the others were dropped.\n\n")
    ov = m["overlap"]
    text += (f"Overlap with the evaluation sets ({ov['ngram']}-token n-grams; a pair sharing >= {ov['drop_at']:.0%} of "
             f"its n-grams with one item, or equal to one by hash, is dropped): dropped {ov['dropped']}; largest share "
             f"kept {ov['max_pair_share_kept']}.\n\n" + md_table(pd.DataFrame(
                 [{"suite": k, **v} for k, v in ov["suites"].items()])) + "\n\n![loss](sft_train_loss.png)\n")
    (RESULTS / "sft_train.md").write_text(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--adapters", default="none,default", help="comma list: none, default, or adapter folders")
    ap.add_argument("--suites", default="verilog-eval,designs")
    ap.add_argument("--every", type=int, default=1, help="VerilogEval: every k-th problem (default all 156)")
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--max-tokens", type=int, default=384)
    ap.add_argument("--temperature", type=float, default=0.8, help="sampling temperature (default 0.8, top-p 0.95)")
    ap.add_argument("--policy", default="vllm:default")
    ap.add_argument("--runs", default=str(ROOT / "runs" / "sft_eval"),
                    help="regress run folders (samples are reused from there: a new adapter needs a new folder)")
    ap.add_argument("--name", default="sft_eval", help="results file stem under bench/results (default sft_eval)")
    ap.add_argument("--note", default="", help="a sentence for the results file (what else ran, restarts)")
    ap.add_argument("--train-record", nargs=3, metavar=("ADAPTER", "COMMAND", "LOAD"),
                    help="only write sft_train.md from an adapter folder, the command that made it and the load seen")
    ap.add_argument("--split-by-overlap", metavar="DATA_JSONL",
                    help="also split the VerilogEval rows by each problem's n-gram share with these training pairs")
    a = ap.parse_args(argv)
    if a.train_record:
        train_record(Path(a.train_record[0]), a.train_record[1], a.train_record[2])
        return 0
    rows = []
    for suite in a.suites.split(","):
        designs = subset(a.every) if suite == "verilog-eval" and a.every > 1 else None
        for adapter in a.adapters.split(","):
            out = regress(suite, adapter, designs, a)
            rows.append(row(suite, adapter, out))
            write_rows(RESULTS / f"{a.name}.csv", rows)
    from rtl_agent.policy import policy_adapter
    ids = {ad: policy_adapter(a.policy, ad) for ad in a.adapters.split(",")}
    ve = f"every {a.every}th problem ({len(subset(a.every))} of 156)" if a.every > 1 else "all 156 problems"
    text = header("SFT adapter: spec -> RTL with and without it", {
        "policy": f"{a.policy} (CPU), temperature {a.temperature:g}, top-p 0.95, seed 0, {a.n} samples per design, "
                  f"max {a.max_tokens} tokens, answer prefilled with the fence and the module header built from the "
                  "task's ports (prompts.rtl_prefill, as regress does)",
        "adapters": ", ".join(f"{k} = {v}" for k, v in ids.items()),
        "VerilogEval v2": ve, "command": "python bench/sft_eval.py " + " ".join(argv or sys.argv[1:])})
    text += ("\nComplete module: the answer holds `module <top> ... endmodule` (the format, right or wrong); "
             "syntax pass: the sample compiles (screen + lint); pass@k: unbiased estimator over the samples, the "
             "suite's own testbench deciding (regress). The project's tasks are in the SFT data (spec -> reference), "
             "so their numbers measure recall of trained answers, not generalization; VerilogEval is held out "
             "(overlap check in the adapter's manifest.json).\n\n")
    text += md_table(pd.DataFrame(rows)) + "\n"
    if a.split_by_overlap and "verilog-eval" in a.suites.split(","):
        shares = overlap_shares(Path(a.split_by_overlap))
        runs = {ad: Path(a.runs) / f"verilog-eval-{Path(ad).name}" for ad in a.adapters.split(",")}
        high = sorted((p for p, v in shares.items() if v >= CUT), key=lambda p: -shares[p])
        from rtl_agent.jobs.sft.data import NGRAM
        text += (f"\n## Held out by overlap\n\nShare: the larger of a problem's reference's and prompt's fraction of "
                 f"{NGRAM}-grams found anywhere in `{a.split_by_overlap}` (every pair built, not only those trained "
                 "on).\n\n" + md_table(pd.DataFrame(split_rows(shares, runs))) + f"\n\nProblems with share >= {CUT:.0%}: "
                 + (", ".join(f"{p} {shares[p]:.2f}" for p in high) or "none") + ".\n")
    text += f"\nMachine: load average {os.getloadavg()[0]:.1f} at the end. {a.note}\n"
    (RESULTS / f"{a.name}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
