"""Decoding with the trained LoRA folded into the weights (HFPolicy.merge_sampling, the default) against
decoding through peft's adapter layers, on the CPU with the bundled model.

    .venv/bin/python bench/merged_sampling.py [--rounds 3] [--group 4] [--max-tokens 256]
        -> bench/results/merged_sampling.{md,json}

The optimize defaults: G=4 samples of up to 256 tokens for one optimize-style prompt (mult8's spec and
reference). The LoRA gets random B matrices so that folding it in changes the weights, as after any RL step
(the cost does not depend on the values). Rounds alternate the two modes with the same seed; each round
also checks the samples are the same tokens (fp32: they should be).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "merged_sampling"))
    a = ap.parse_args(argv)
    import torch
    from bench.common import header, md_table
    from bench.gpu_policy_check import prompt, timed_sample
    from rtl_agent.policy.hf import HFPolicy
    load0 = os.getloadavg()
    pol = HFPolicy("default", threads=a.threads, batch_size=a.group)
    torch.manual_seed(0)
    with torch.no_grad():
        for n, w in pol.model.named_parameters():
            if "lora_B" in n:
                w.normal_(0, 2e-3)
    msgs = prompt()
    pol.sample([msgs], n=1, max_tokens=8, seed=0)          # warm-up
    rows = []
    for r in range(a.rounds):
        toks = {}
        for merge in (r % 2 == 0, r % 2 != 0):            # alternate which mode goes first
            pol.merge_sampling = merge
            out, timing = timed_sample(pol, msgs, a.group, a.max_tokens, seed=100 + r)
            toks[merge] = [c.token_ids for c in out]
            rows.append({"round": r, "mode": "merged" if merge else "adapter layers", **timing})
        for row in rows[-2:]:
            row["same_tokens"] = toks[True] == toks[False]
    med = {m: round(statistics.median(x["tokens_per_s"] for x in rows if x["mode"] == m), 1)
           for m in ("merged", "adapter layers")}
    res = {"rows": rows, "median_tokens_per_s": med, "speedup": round(med["merged"] / med["adapter layers"], 3),
           "all_same_tokens": all(x["same_tokens"] for x in rows), "prompt_tokens": len(pol.encode(msgs)),
           "group": a.group, "max_tokens": a.max_tokens, "threads": a.threads,
           "load_before": [round(x, 2) for x in load0], "load_after": [round(x, 2) for x in os.getloadavg()]}
    Path(a.out + ".json").write_text(json.dumps(res, indent=1))
    md = header("Sampling with the LoRA folded into the weights vs through the adapter layers (CPU)",
                {"torch": torch.__version__, "command": "python bench/merged_sampling.py",
                 "load (1/5/15 min)": f"before {res['load_before']}, after {res['load_after']}"})
    md += (f"\nBundled SmolLM2-135M (fp32, {a.threads} threads), G={a.group} samples of up to {a.max_tokens} tokens, "
           f"a {res['prompt_tokens']}-token optimize prompt, LoRA r=8 on every linear layer with random B.\n\n"
           f"- median tokens/s: merged {med['merged']}, adapter layers {med['adapter layers']} "
           f"(speed-up {res['speedup']}x)\n- the same tokens in every round: {res['all_same_tokens']}\n\n")
    import pandas as pd
    md += md_table(pd.DataFrame(rows)) + "\n"
    Path(a.out + ".md").write_text(md)
    print(md)
    return 0 if res["all_same_tokens"] else 1


if __name__ == "__main__":
    sys.exit(main())
