"""The transformers policy path on a CUDA GPU: sampling, one entropic LoRA step, adapter save and load.

    python bench/gpu_policy_check.py --tokenizer DIR --out OUT [--shapes 135m,7b] [--group 8] [--max-tokens 1024]

What the optimize loop does on a GPU with `--model <folder>` (rtl_agent.policy.hf.HFPolicy, bf16 on CUDA, a
trainable LoRA on every linear layer; training.lora_update.rl_step), without the EDA flow: the device machine
lent to this project has no Yosys, Icarus or OpenSTA and cannot fetch them. Per model shape:
  - sample G completions of one optimize-style prompt (mult8's spec and reference), seeded;
  - one entropic policy-gradient step on made-up rewards (the step's cost does not depend on their values);
  - checks: every completion has tokens and finite log-probabilities; the step ran and moved the LoRA; the
    model's log-probabilities moved with it; a saved adapter loaded back gives the same log-probabilities;
  - sampling again after the step, with the trained LoRA folded into the weights (the default) and without;
  - seconds per phase, tokens per second, peak GPU memory.
The weights are random, in the real shapes: nothing larger than the bundled SmolLM2-135M is obtainable
here, and the bundled model (a 98 MB GGUF) is more than the device tool carries (64 MiB a call). So the
texts are noise, and the times and memory are what those shapes cost. `7b` is Qwen2.5-Coder-7B's body
(28 layers, 3584 wide, GQA 28/4 heads, MLP 18944) with the bundled tokenizer's 49152-token vocabulary.
Writes OUT/gpu_policy_check.json after each phase; exit 0 when every check holds, 1 otherwise, 2 without CUDA.
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHAPES = {
    "135m": None,       # the tokenizer folder's own config.json: SmolLM2-135M (Llama, 30 layers, 576 wide)
    "7b": dict(model_type="qwen2", architectures=["Qwen2ForCausalLM"], hidden_size=3584, intermediate_size=18944,
               num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4, max_position_embeddings=32768,
               rope_theta=1e6, rms_norm_eps=1e-6, tie_word_embeddings=False, vocab_size=49152,
               bos_token_id=1, eos_token_id=2, pad_token_id=2),
    "tiny": dict(model_type="llama", architectures=["LlamaForCausalLM"], hidden_size=64, intermediate_size=128,
                 num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, vocab_size=49152,
                 bos_token_id=1, eos_token_id=2, pad_token_id=2),     # the tests' CPU dry run
}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json")


def _sync():
    import torch
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def build(shape: str, tok_dir: Path, dest: Path, device: str) -> dict:
    """A random-weight bf16 model of `shape` saved as a local model folder with the bundled tokenizer."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM
    t0 = time.time()
    if SHAPES[shape] is None:
        cfg = AutoConfig.from_pretrained(str(tok_dir))
    else:
        kw = dict(SHAPES[shape])
        cfg = AutoConfig.for_model(kw.pop("model_type"), **kw)
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
    n = sum(p.numel() for p in model.parameters())
    model.save_pretrained(str(dest))
    del model
    torch.cuda.empty_cache()
    for f in TOKENIZER_FILES:
        if (tok_dir / f).is_file():
            shutil.copy(tok_dir / f, dest / f)
    return {"params": n, "build_s": round(time.time() - t0, 1)}


def prompt() -> list:
    spec = (ROOT / "designs" / "mult8" / "spec.md").read_text()
    ref = (ROOT / "designs" / "mult8" / "reference.v").read_text()
    return [{"role": "system", "content": "You are an expert digital hardware designer. Answer with Verilog only."},
            {"role": "user", "content": f"{spec}\n\nReference design:\n```verilog\n{ref}```\n\nWrite a design "
                                        "with the same behaviour and a smaller area-delay-power product."}]


def timed_sample(pol, msgs, n: int, max_tokens: int, seed: int = 0):
    """n completions of one prompt at temperature 1, and {"seconds", "tokens", "tokens_per_s"}."""
    _sync()
    t0 = time.time()
    comps = pol.sample([msgs], n=n, temperature=1.0, max_tokens=max_tokens, seed=seed)[0]
    _sync()
    dt, toks = time.time() - t0, sum(len(c.token_ids) for c in comps)
    return comps, {"seconds": round(dt, 2), "tokens": toks, "tokens_per_s": round(toks / dt, 1)}


def lora_norm(pol) -> float:
    return float(sum(p.detach().float().norm() ** 2 for n, p in pol.model.named_parameters() if "lora_B" in n) ** 0.5)


def check_shape(shape: str, tok_dir: Path, work: Path, group: int, max_tokens: int, rec: dict, save, device: str,
                grad_ckpt: str = "auto"):
    import torch
    from rtl_agent.policy.hf import HFPolicy
    from training.lora_update import rl_step
    r = rec.setdefault(shape, {})
    folder = work / shape
    r.update(build(shape, tok_dir, folder, device))
    save()
    cuda = device == "cuda"
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    # checkpointing trades a second forward for activation memory: worth it from about a billion parameters
    gc = grad_ckpt == "on" or (grad_ckpt == "auto" and r["params"] >= 1e9)
    r["gradient_checkpointing"] = gc
    pol = HFPolicy(model=str(folder), base_adapter=None, device=device, micro_batch=2, batch_size=group,
                   gradient_checkpointing=gc)
    r["load_s"], r["dtype"], r["device"] = round(time.time() - t0, 1), str(pol.dtype), pol.device
    msgs = prompt()
    ids = pol.encode(msgs)
    r["prompt_tokens"] = len(ids)
    comps, timing = timed_sample(pol, msgs, group, max_tokens)
    r["sample"] = {**timing, "completions": len(comps), "finish": sorted({c.finish_reason for c in comps})}
    r["check_sampled"] = len(comps) == group and all(
        c.token_ids and len(c.logprobs) == len(c.token_ids) and all(math.isfinite(x) for x in c.logprobs)
        for c in comps)
    save()
    rewards = [float(i % 3) for i in range(group)]          # any spread: the step's cost is the same
    before = lora_norm(pol)
    lp0 = pol.logprobs(comps[0].prompt_token_ids, comps[0].token_ids).float().sum().item()
    _sync()
    t0 = time.time()
    st = rl_step(pol, [(comps[0].prompt_token_ids, [c.token_ids for c in comps], rewards)], eps=0.5, lr=1e-4)
    _sync()
    r["rl_step"] = {"seconds": round(time.time() - t0, 2), "stepped": bool(st.get("stepped")),
                    "loss": float(st.get("loss", float("nan"))), "tokens": st.get("tokens"),
                    "trained_sequences": st.get("trained_sequences")}
    after = lora_norm(pol)
    lp1 = pol.logprobs(comps[0].prompt_token_ids, comps[0].token_ids).float().sum().item()
    r["lora_B_norm"] = [round(before, 6), round(after, 6)]
    r["logprob_sum"] = [round(lp0, 4), round(lp1, 4)]
    r["check_stepped"] = bool(st.get("stepped")) and math.isfinite(r["rl_step"]["loss"]) and after > before \
        and abs(lp1 - lp0) > 1e-4
    r["sample_trained"] = {}      # the trained LoRA folded into the weights for decoding (the default) or not
    for merge in (True, False):
        pol.merge_sampling = merge
        again, timing = timed_sample(pol, msgs, group, max_tokens)
        r["sample_trained"]["merged" if merge else "unmerged"] = {
            **timing, "first_tokens": [c.token_ids[:16] for c in again]}
    m, u = r["sample_trained"]["merged"], r["sample_trained"]["unmerged"]
    # bf16 rounds W + BA once where the adapter path rounds twice: samples may part after a while
    r["sample_trained"]["same_first_tokens"] = m.pop("first_tokens") == u.pop("first_tokens")
    pol.merge_sampling = True
    t0 = time.time()
    pol.save_adapter(work / f"{shape}-adapter")
    with torch.no_grad():
        for n, p in pol.model.named_parameters():
            if "lora_B" in n:
                p.zero_()
    lp_zero = pol.logprobs(comps[0].prompt_token_ids, comps[0].token_ids).float().sum().item()
    pol.load_adapter(work / f"{shape}-adapter")
    lp2 = pol.logprobs(comps[0].prompt_token_ids, comps[0].token_ids).float().sum().item()
    r["adapter_roundtrip"] = {"seconds": round(time.time() - t0, 2), "zeroed": round(lp_zero, 4),
                              "reloaded": round(lp2, 4)}
    r["check_adapter"] = abs(lp2 - lp1) < 1e-2 * max(1.0, abs(lp1)) and abs(lp_zero - lp1) > 1e-4
    r["peak_gpu_gib"] = round(torch.cuda.max_memory_allocated() / 2 ** 30, 2) if cuda else None
    save()
    del pol
    torch.cuda.empty_cache()
    shutil.rmtree(folder, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokenizer", required=True, help="folder with the bundled model's config and tokenizer files")
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="/tmp/gpu_policy_check")
    ap.add_argument("--shapes", default="135m,7b")
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--max-tokens", type=int, default=1024)
    ap.add_argument("--grad-ckpt", choices=("auto", "on", "off"), default="auto",
                    help="gradient checkpointing in the LoRA step (auto: from 1e9 parameters on)")
    ap.add_argument("--cpu-dry-run", action="store_true", help="run on the CPU (to check the script; slow for 7b)")
    a = ap.parse_args(argv)
    import torch
    if not torch.cuda.is_available() and not a.cpu_dry_run:
        print("gpu_policy_check: no CUDA GPU visible (--cpu-dry-run checks the script itself on the CPU)",
              file=sys.stderr)
        return 2
    device = "cuda" if torch.cuda.is_available() else "cpu"
    import peft
    import transformers
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rec = {"gpu": torch.cuda.get_device_name(0) if device == "cuda" else "none (cpu dry run)", "torch": torch.__version__, "transformers": transformers.__version__,
           "peft": peft.__version__, "python": sys.version.split()[0], "group": a.group, "max_tokens": a.max_tokens,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}

    def save():
        (out / "gpu_policy_check.json").write_text(json.dumps(rec, indent=1))
    for shape in a.shapes.split(","):
        t0 = time.time()
        try:
            check_shape(shape, Path(a.tokenizer), Path(a.work), a.group, a.max_tokens, rec, save, device,
                        a.grad_ckpt)
        except Exception as e:      # one shape failing leaves the other's record
            import traceback
            rec.setdefault(shape, {})["error"] = traceback.format_exc()[-2000:]
            print(f"{shape}: {type(e).__name__}: {e}", file=sys.stderr)
        rec[shape]["wall_s"] = round(time.time() - t0, 1)
        save()
        print(json.dumps({shape: rec[shape]}, indent=1), flush=True)
    ok = all(rec[s].get(k) for s in a.shapes.split(",") for k in ("check_sampled", "check_stepped", "check_adapter"))
    rec["all_checks"] = ok
    save()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
