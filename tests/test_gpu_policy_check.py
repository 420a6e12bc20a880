"""bench/gpu_policy_check.py, the GPU check of the policy path, runs its own checks on the CPU (tiny shape)."""
import json

from bench.gpu_policy_check import main
from rtl_agent.policy.models import default_model_dir


def test_the_gpu_check_refuses_without_cuda_and_its_dry_run_passes(tmp_path):
    import torch
    tok = default_model_dir()           # the bundled model's config and tokenizer
    if not torch.cuda.is_available():
        assert main(["--tokenizer", str(tok), "--out", str(tmp_path / "no")]) == 2
    rc = main(["--tokenizer", str(tok), "--out", str(tmp_path), "--work", str(tmp_path / "w"), "--shapes", "tiny",
               "--group", "3", "--max-tokens", "6", "--cpu-dry-run"])
    rec = json.loads((tmp_path / "gpu_policy_check.json").read_text())
    assert rc == 0 and rec["all_checks"], rec
    r = rec["tiny"]
    assert r["sample"]["completions"] == 3 and r["sample"]["tokens"] > 0 and r["gradient_checkpointing"] is False
    assert r["lora_B_norm"][0] == 0.0 < r["lora_B_norm"][1]           # the step moved the LoRA
    assert r["adapter_roundtrip"]["reloaded"] == r["logprob_sum"][1] != r["adapter_roundtrip"]["zeroed"]
    st = r["sample_trained"]           # fp32 on the CPU: folding the trained LoRA in changes no sample
    assert st["merged"]["tokens"] > 0 and st["unmerged"]["tokens"] > 0 and st["same_first_tokens"]
    # the 7B shape's setting (checkpointed LoRA step) passes the same checks
    rc = main(["--tokenizer", str(tok), "--out", str(tmp_path / "gc"), "--work", str(tmp_path / "w2"), "--shapes",
               "tiny", "--group", "2", "--max-tokens", "4", "--cpu-dry-run", "--grad-ckpt", "on"])
    rec = json.loads((tmp_path / "gc" / "gpu_policy_check.json").read_text())
    assert rc == 0 and rec["all_checks"] and rec["tiny"]["gradient_checkpointing"] is True
