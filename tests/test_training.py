"""Tests of the generic test-time RL machinery in training/ (no EDA tools involved:
this is math on numpy and on a real, tiny torch model)."""
import json
import math

import numpy as np
import pytest

from conftest import require_module
from training.entropic import advantages, ess, find_beta, group_advantages, kl_uniform, weights
from training.kl_control import KLConfig, KLController, summarise
from eda.hdl import normalise
from training.loop import Environment, Loop, LoopConfig
from training.puct import Pool

torch = require_module("torch")      # installed by scripts/setup.sh: missing is a failure, not a skip

from training.entropic import entropic_loss  # noqa: E402
from training.lora_update import Group, rl_step  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    # the toy model is tiny: thread hand-offs cost more than they save, badly so on a busy box
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


# ---------------------------------------------------------------- entropic
def test_weights_and_advantages_by_hand():
    r, beta = [0.0, 1.0, 2.0], math.log(2)       # exp(beta r) = 1, 2, 4
    w = weights(r, beta)
    assert np.allclose(w, [1 / 7, 2 / 7, 4 / 7])
    assert np.allclose(advantages(r, beta, "weights"), [3 / 7 - 1, 6 / 7 - 1, 12 / 7 - 1])
    # leave-one-out: e_i / mean_{j != i} e_j - 1
    assert np.allclose(advantages(r, beta, "loo"), [1 / 3 - 1, 2 / 2.5 - 1, 4 / 1.5 - 1])
    assert math.isclose(ess(w), 49 / 21)
    kl = sum(x * math.log(3 * x) for x in (1 / 7, 2 / 7, 4 / 7))
    assert math.isclose(kl_uniform(w), kl)


def test_large_rewards_are_stable():
    w = weights([1e6, 1e6 + 1, 1e6 + 2], 500.0)      # exp(5e8) would overflow without the shift
    assert np.all(np.isfinite(w)) and math.isclose(w.sum(), 1.0) and w[2] > 0.999
    a = advantages([1e6, 1e6 + 1, 1e6 + 2], 50.0, "loo")
    assert np.all(np.isfinite(a[:2])) and a[0] < 0


@pytest.mark.parametrize("eps", [0.01, 0.1, math.log(2), 1.5])
def test_beta_bisection_hits_budget(eps):
    rng = np.random.default_rng(1)
    for scale in (1e-2, 1.0, 1e3):
        r = rng.normal(size=32) * scale
        st = find_beta(r, eps)
        assert not st["saturated"] and not st["beta_at_bound"]
        assert abs(kl_uniform(weights(r, st["beta"])) - eps) < 1e-3
        assert abs(st["kl"] - eps) < 1e-3


def test_beta_edge_cases():
    st = find_beta([2.0, 2.0, 2.0], 0.5)
    assert st["saturated"] and st["beta"] == 1e4 and st["kl"] == 0.0
    assert find_beta([1.0], 0.5)["saturated"]
    # two of four tied at the max: KL can reach at most log(4/2); a budget of 1.0 cannot be met
    st = find_beta([0, 0, 1, 1], 1.0)
    assert st["beta_at_bound"] and st["beta"] == 1e4
    assert math.isclose(st["kl_target"], math.log(2)) and math.isclose(st["kl"], math.log(2), rel_tol=1e-6)
    # reward gaps too small for beta_max
    assert find_beta([0.0, 1e-9], 0.1)["beta_at_bound"]
    assert find_beta([0.0, 1.0], 0.0)["beta"] == 0.0
    with pytest.raises(ValueError):
        find_beta([0.0, float("nan")], 0.1)
    with pytest.raises(ValueError):
        find_beta([0.0, 1.0], -1.0)
    with pytest.raises(ValueError):
        find_beta([], 0.1)


def test_group_advantages_stats():
    adv, st = group_advantages([0.0, 1.0, 2.0, 3.0], math.log(2))
    assert abs(adv.mean()) < 1e-12 and adv[3] > 0 > adv[0]
    assert math.isclose(st["ess_frac"], st["ess"] / 4) and 1 <= st["ess"] <= 4
    adv, st = group_advantages([5.0] * 4, math.log(2), form="loo")
    assert st["saturated"] and not adv.any() and st["ess_frac"] == 1.0


def test_entropic_loss_list_and_padded_agree():
    a = torch.tensor([-1.0, -2.0, -3.0], requires_grad=True)
    b = torch.tensor([-0.5], requires_grad=True)
    adv = [2.0, -1.0]
    loss = entropic_loss([a, b], adv)
    assert math.isclose(float(loss.detach()), -(2.0 * -2.0 + -1.0 * -0.5))
    loss.backward()
    assert torch.allclose(a.grad, torch.full((3,), -2.0 / 3)) and torch.allclose(b.grad, torch.tensor([1.0]))
    pad = torch.tensor([[-1.0, -2.0, -3.0], [-0.5, 9.0, 9.0]])
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]])
    assert math.isclose(float(entropic_loss(pad, adv, mask)), float(loss.detach()))
    with pytest.raises(ValueError):
        entropic_loss([a], adv)


# ---------------------------------------------------------------- KL control
def test_controller_shrinks_on_ref_kl_drift():
    ctl = KLController(KLConfig(ref_kl_cap=0.2))
    assert math.isclose(ctl.eps, math.log(2))
    eps = []
    for step, kl in enumerate([0.05, 0.1, 0.25, 0.4, 0.6, 0.8, 1.0, 1.2]):
        rec = ctl.update(step, ref_kl=kl, ess_frac=0.5, sat_frac=0.0)
        eps.append(rec["eps_new"])
    assert eps[0] == eps[1] == math.log(2)                  # under the cap: hold
    assert math.isclose(eps[2], math.log(2) / 2)             # first drift over cap: x0.5
    assert "ref_kl 0.25 > cap 0.2" in ctl.history[2]["cause"]
    assert eps[-1] == 0.05 and "clamped" in ctl.history[-1]["cause"]   # floor


def test_step_size_follows_a_shrunk_budget_down_never_up():
    from training.loop import step_lr
    cfg = LoopConfig(lr=1e-4)
    assert step_lr(cfg, cfg.eps0) == 1e-4 and step_lr(cfg, 2.0) == 1e-4        # a grown budget: the set rate
    assert math.isclose(step_lr(cfg, cfg.eps0 / 4), 2.5e-5)                    # shrunk twice for drift: a quarter


def test_controller_ess_collapse_and_uniform():
    ctl = KLController(KLConfig())
    rec = ctl.update(0, ref_kl=0.0, ess_frac=0.05, sat_frac=0.0)
    assert math.isclose(rec["eps_new"], math.log(2) * 0.7) and "ess_frac" in rec["cause"]
    rec = ctl.update(1, ref_kl=0.0, ess_frac=0.95, sat_frac=0.0)
    assert math.isclose(rec["eps_new"], math.log(2) * 0.7 * 1.25)


def test_controller_plateau_grows_and_kl_cap_wins():
    ctl = KLController(KLConfig())
    for step in range(10):
        rec = ctl.update(step, ref_kl=0.01, ess_frac=0.5, sat_frac=0.75)
        assert rec["eps_new"] >= rec["eps_old"]
    assert ctl.eps == 2.0                                     # grew to the ceiling
    rec = ctl.update(10, ref_kl=0.5, ess_frac=0.95, sat_frac=1.0)   # every signal says grow but KL
    assert rec["eps_new"] == 1.0 and rec["cause"].startswith("ref_kl")


def test_controller_fixed_and_observe_and_roundtrip():
    ctl = KLController(KLConfig(fixed=True))
    for step in range(3):
        assert ctl.update(step, ref_kl=9.0, ess_frac=0.0, sat_frac=1.0)["eps_new"] == math.log(2)
    groups = [{"ess_frac": 0.02, "saturated": False, "beta_at_bound": False},
              {"ess_frac": 1.0, "saturated": True, "beta_at_bound": False}]
    s = summarise(groups)
    assert s == {"ess_frac": 0.02, "sat_frac": 0.5, "groups": 2}
    ctl2 = KLController()
    rec = ctl2.observe(0, 0.0, groups)
    assert rec["eps_new"] < rec["eps_old"]                    # ESS collapse outranks saturation
    back = KLController.from_dict(json.loads(json.dumps(ctl2.to_dict())))
    assert back.eps == ctl2.eps and back.history == ctl2.history and back.config == ctl2.config
    with pytest.raises(ValueError):
        KLConfig(eps_min=1.0, eps_max=0.5)
    with pytest.raises(ValueError):
        ctl2.update(1, ref_kl=float("nan"))


# ---------------------------------------------------------------- PUCT pool
def _pool():
    p = Pool(root_payload={"code": ""}, c=1.0, seed=0, normaliser=normalise)   # the Verilog-aware key
    a = p.add("module a; endmodule", 1.0, p.root)
    b = p.add("module b; endmodule", 3.0, p.root)
    d = p.add("module d; endmodule", 2.0, a)
    return p, a, b, d


def test_puct_q_propagation_and_scores_by_hand():
    p, a, b, d = _pool()
    assert (p[p.root].q, p[a].q, p[b].q, p[d].q) == (3.0, 2.0, 3.0, 2.0)
    pr = p.priors()       # ranks b0 d1 a2 root3 -> 1, 1/2, 1/3, 1/4 over 25/12
    assert math.isclose(pr[b], 12 / 25) and math.isclose(pr[d], 6 / 25)
    assert math.isclose(pr[a], 4 / 25) and math.isclose(pr[p.root], 3 / 25)
    p.total = 4
    for sid, n in ((p.root, 4), (a, 2), (b, 1), (d, 1)):
        p[sid].n = n
    sc = p.scores()       # Q + P * sqrt(4) / (1 + n)
    assert math.isclose(sc[p.root], 3 + 3 / 25 * 2 / 5)
    assert math.isclose(sc[a], 2 + 4 / 25 * 2 / 3)
    assert math.isclose(sc[b], 3 + 12 / 25 * 2 / 2)
    assert math.isclose(sc[d], 2 + 6 / 25 * 2 / 2)
    assert p.select(2) == [b, p.root]
    assert p[b].n == 2 and p[p.root].n == 6 and p.total == 6
    assert len(set(p.select(4))) == 4                         # distinct while the pool allows
    assert len(p.select(6)) == 6


def test_puct_duplicate_merge():
    p, a, b, d = _pool()
    dup = p.add("module  b;  // same design\n /* c */ endmodule", 5.0, d, payload={"code": "v2"})
    assert dup == b and p[b].count == 2 and p[b].reward == 5.0 and p[b].payload == {"code": "v2"}
    assert p[p.root].q == 5.0 and p[b].parent == p.root       # not re-parented
    assert p[d].q == 2.0                                      # d's subtree did not change
    assert p.add("module b; endmodule", 0.5, a) == b
    assert p[b].reward == 5.0 and p[b].count == 3 and p[b].payload == {"code": "v2"}
    assert len(p) == 4 and p.best().id == b
    assert normalise('a  /* x */ b // y\n c "//s"') == 'a b c "//s"'
    with pytest.raises(KeyError):
        p.add("x", 1.0, 99)
    with pytest.raises(ValueError):
        p.add("x", float("inf"), a)


def test_puct_tie_break_seeded_and_no_pool():
    def make(seed):
        p = Pool(seed=seed)
        for i in range(6):
            p.add(f"m{i}", 1.0, p.root)
        return p
    sel = [make(7).select(3) for _ in range(2)]
    assert sel[0] == sel[1]                                   # same seed, same picks
    assert any(make(s).select(3) != sel[0] for s in range(1, 6))
    p = Pool(no_pool=True)
    p.add("x", 1.0, p.root)
    assert p.select(3) == [p.root] * 3 and p.best().reward == 1.0


def test_puct_roundtrip(tmp_path):
    p, a, b, d = _pool()
    p.select(2)
    path = tmp_path / "pool.json"
    p.save(path)
    q = Pool.load(path, normalise)
    assert q.to_dict() == p.to_dict()
    assert q.select(3) == p.select(3)                         # RNG state travelled too
    assert q.add("module a;\nendmodule", 9.0, b) == a and p.add("module a; endmodule", 9.0, b) == a
    assert q.to_dict() == p.to_dict()


# ---------------------------------------------------------------- rl_step
class ToyLM(torch.nn.Module):
    """Real torch LM: a bigram MLP with a LoRA adapter on the output layer."""

    def __init__(self, vocab=16, dim=16, rank=4):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.emb = torch.nn.Embedding(vocab, dim)
        self.hid = torch.nn.Linear(dim, dim)
        self.out = torch.nn.Linear(dim, vocab)
        for p in self.parameters():
            p.requires_grad_(False)
            p.copy_(torch.randn(p.shape, generator=g) * 0.5) if p.dim() > 1 else p.zero_()
        self.lora_a = torch.nn.Parameter(torch.randn(dim, rank, generator=g) * 0.1)
        self.lora_b = torch.nn.Parameter(torch.zeros(rank, vocab))   # zero: adapter starts as the base
        self.optimizer = torch.optim.Adam([self.lora_a, self.lora_b], lr=0.05)

    version = 0

    def logprobs(self, prompt_ids, completion_ids, adapter=True):
        if prompt_ids and isinstance(prompt_ids[0], list):       # batched form, as HFPolicy
            return [self.logprobs(p, c, adapter) for p, c in zip(prompt_ids, completion_ids)]
        ids = torch.tensor(list(prompt_ids) + list(completion_ids))
        h = torch.tanh(self.hid(self.emb(ids[:-1])))
        logits = self.out(h) + (h @ self.lora_a @ self.lora_b if adapter else 0)
        lp = torch.log_softmax(logits, dim=-1)
        tgt = ids[1:]
        return lp.gather(1, tgt[:, None])[:, 0][len(prompt_ids) - 1:]


def test_rl_step_raises_logprob_of_good_samples():
    torch.manual_seed(0)
    pol = ToyLM()
    prompt, comps, rewards = [1, 2], [[3, 4, 5], [6, 7], [8, 9, 10, 11], [12]], [1.0, 0.0, 0.2, 0.0]
    with torch.no_grad():
        before = [float(pol.logprobs(prompt, c).mean()) for c in comps]
    ctl = KLController()
    st = rl_step(pol, [Group(prompt, comps, rewards), (prompt, [[5], [5]], [0.3, 0.3])],
                 eps=ctl.eps, controller=ctl, step=0)
    assert abs(st["ref_kl"]) < 1e-9 and abs(st["ref_kl_k1"]) < 1e-9   # adapter starts at the base
    assert st["stepped"] and st["trained_sequences"] == 4 and st["sequences"] == 6
    assert st["groups"][1]["saturated"] and st["decision"]["step"] == 0
    for step in range(1, 5):
        st = rl_step(pol, [Group(prompt, comps, rewards)], eps=ctl.eps, controller=ctl, step=step)
    with torch.no_grad():
        after = [float(pol.logprobs(prompt, c).mean()) for c in comps]
    adv, _ = group_advantages(rewards, math.log(2))
    assert adv[0] > 0 and after[0] > before[0] + 0.05        # best sample more likely
    assert adv[1] < 0 and after[1] < before[1]               # bad ones less likely
    assert st["ref_kl"] > 0.01                               # the policy moved away from the base
    with torch.no_grad():                                    # base model untouched
        base = pol.logprobs(prompt, comps[0], adapter=False)
    assert torch.allclose(base.mean(), torch.tensor(before[0]), atol=1e-6)
    assert len(ctl.history) == 5


def test_ref_kl_estimators_match_exact_kl():
    # On tokens sampled from the adapted policy, k1 and k3 both estimate
    # KL(pi_adapter || pi_base); with one-token completions the exact value is a sum over the vocab.
    pol = ToyLM()
    with torch.no_grad():
        pol.lora_b.copy_(torch.randn(pol.lora_b.shape, generator=torch.Generator().manual_seed(3)))
        la = pol.logprobs([1, 2], [0], adapter=True)       # any target: we need the full distribution
        h = torch.tanh(pol.hid(pol.emb(torch.tensor([2]))))
        pa = torch.log_softmax(pol.out(h) + h @ pol.lora_a @ pol.lora_b, -1)[0]
        pb = torch.log_softmax(pol.out(h), -1)[0]
        exact = float((pa.exp() * (pa - pb)).sum())
        assert math.isclose(float(la[0]), float(pa[0]), rel_tol=1e-5)
        d = pb - pa
        sd1, sd3 = (float((pa.exp() * (k - exact) ** 2).sum().sqrt()) for k in (-d, torch.expm1(d) - d))
        toks = torch.multinomial(pa.exp(), 1600, replacement=True, generator=torch.Generator().manual_seed(4))
    groups = [([1, 2], [[int(t)] for t in toks[i:i + 200]], [0.0] * 200) for i in range(0, 1600, 200)]
    st = rl_step(pol, groups, eps=0.5)            # constant rewards: measures, does not step
    assert not st["stepped"] and st["tokens"] == 1600 and exact > 0.1
    # within 4 standard errors (k3 has the smaller variance; here sd3 = 0.35 vs sd1 = 0.51)
    assert abs(st["ref_kl"] - exact) < 4 * sd3 / 40 and abs(st["ref_kl_k1"] - exact) < 4 * sd1 / 40
    assert sd3 < sd1


def test_rl_step_micro_batched_equals_sequential():
    groups = [([1, 2], [[3, 4, 5], [6, 7], [8, 9, 10, 11], [12]], [1.0, 0.0, 0.2, 0.0]),
              ([4], [[5, 5], [6]], [0.0, 1.0]), ([7], [[1], [2]], [0.5, 0.5])]
    pols = [ToyLM(), ToyLM()]
    for pol in pols:
        with torch.no_grad():
            pol.lora_b.copy_(torch.randn(pol.lora_b.shape, generator=torch.Generator().manual_seed(5)) * 0.1)
    a = rl_step(pols[0], groups, eps=0.5, micro_batch=1, lr=0.01)
    b = rl_step(pols[1], groups, eps=0.5, micro_batch=3, lr=0.01)
    assert a["stepped"] and pols[0].version == pols[1].version == 1
    assert math.isclose(a["loss"], b["loss"], rel_tol=1e-5) and math.isclose(a["ref_kl"], b["ref_kl"], rel_tol=1e-5)
    assert a["trained_sequences"] == b["trained_sequences"] == 6 and a["tokens"] == b["tokens"] == 15
    assert torch.allclose(pols[0].lora_b, pols[1].lora_b, atol=1e-6)
    assert pols[0].optimizer.param_groups[0]["lr"] == 0.01


def test_rl_step_bad_input():
    pol = ToyLM()
    with pytest.raises(ValueError):
        rl_step(pol, [([1], [[2], [3]], [1.0])], eps=0.5)
    with pytest.raises(ValueError):
        rl_step(pol, [], eps=0.5)
    st = rl_step(pol, [([1], [[2], [3]], [1.0, 1.0])], eps=0.5)   # nothing to learn: no step
    assert not st["stepped"] and st["trained_sequences"] == 0


@pytest.mark.slow
@pytest.mark.requires(modules=("transformers", "peft", "gguf"), model=True)
def test_rl_step_on_hf_policy():
    # The real transformers+peft backend (default SmolLM2-135M, installed by scripts/setup.sh): rl_step
    # fits its interface. Any error loading it is a failure (the toy-model tests above run the math fast).
    from rtl_agent.policy.hf import HFPolicy
    pol = HFPolicy("default")
    prompt = pol.encode("Write a Verilog inverter.")
    comps = [pol.tok.encode(t, add_special_tokens=False) for t in ("assign y = ~a;", "always @* y = a;")]
    with torch.no_grad():
        before = [float(pol.logprobs(prompt, c).mean()) for c in comps]
    st = rl_step(pol, [(prompt, comps, [1.0, 0.0])], eps=0.5, lr=1e-3)
    assert st["stepped"] and pol.version == 1 and abs(st["ref_kl"]) < 1e-6
    with torch.no_grad():
        after = [float(pol.logprobs(prompt, c).mean()) for c in comps]
    assert after[0] > before[0] and after[1] < before[1]
    assert not pol.model.training                    # left in eval mode, as it was


def test_choose_draws_among_options_by_the_models_probabilities_and_the_update_moves_it():
    """A `narrow` group's answer is one of a few widths, drawn by the policy's own sequence probabilities;
    an RL step that rewards the less likely one makes it more likely: test-time RL can move the choice."""
    from rtl_agent.policy.hf import HFPolicy
    pol = HFPolicy("default")
    msgs, pre = [{"role": "user", "content": "Declare a register for a counter that counts 0..24."}], "reg ["
    opts = ["4:0] cnt;", "7:0] cnt;"]
    got = pol.choose(msgs, opts, 6, temperature=1.0, seed=3, prefill=pre, stop="\n")
    assert len(got) == 6 and {c.text for c in got} <= {pre + o for o in opts}
    assert [c.text for c in got] == [c.text for c in pol.choose(msgs, opts, 6, temperature=1.0, seed=3,
                                                                    prefill=pre, stop="\n")]    # seeded
    assert all(c.finish_reason == "stop" and c.prompt_token_ids == pol.encode(msgs, pre) for c in got)
    assert all(pol.tok.decode(c.token_ids).endswith("\n") for c in got)     # the stop, as a sample holds it

    def logp(c):
        with torch.no_grad():
            return float(pol.logprobs(c.prompt_token_ids, c.token_ids).sum())
    a, b = (pol.choose(msgs, [o], 1, prefill=pre, stop="\n")[0] for o in opts)
    lo, hi = sorted((a, b), key=logp)
    greedy = pol.choose(msgs, opts, 4, temperature=1e-4, seed=0, prefill=pre, stop="\n")
    assert {c.text for c in greedy} == {hi.text}                  # a cold draw is the likelier option
    gap = logp(hi) - logp(lo)
    for _ in range(3):
        rl_step(pol, [(lo.prompt_token_ids, [lo.token_ids, hi.token_ids], [1.0, -0.5])], eps=0.5, lr=3e-3)
    assert logp(hi) - logp(lo) < gap


def test_explore_draws_options_the_cold_policy_never_picks():
    """--explore: a share of a distinct choice group is drawn uniformly among the options the policy did not
    pick, so an option it ranks low is evaluated (and trained on); the policy keeps its own top picks."""
    from rtl_agent.policy.hf import HFPolicy
    pol = HFPolicy("default")
    msgs, pre = [{"role": "user", "content": "Declare a register for a counter that counts 0..24."}], "reg ["
    opts = [f"{w - 1}:0] cnt;" for w in (5, 6, 7, 8, 9, 10, 12, 16)]
    cold = pol.choose(msgs, opts, 3, temperature=1e-4, seed=0, prefill=pre, stop="\n", distinct=True)
    assert not any(c.explored for c in cold)
    seen = set()
    for seed in range(6):
        got = pol.choose(msgs, opts, 3, temperature=1e-4, seed=seed, prefill=pre, stop="\n", distinct=True,
                         explore=1)
        assert [c.text for c in got[:2]] == [c.text for c in cold[:2]]        # the policy's own top two stay
        assert [c.explored for c in got] == [False, False, True] and len({c.text for c in got}) == 3
        assert got[2].token_ids and got[2].logprobs                         # trainable like any answer
        seen.add(got[2].text)
    assert len(seen) >= 2 and not seen & {c.text for c in cold[:2]}
    whole = pol.choose(msgs, opts[:3], 3, seed=0, prefill=pre, stop="\n", distinct=True, explore=2)
    assert not any(c.explored for c in whole) and {c.text for c in whole} == {pre + o for o in opts[:3]}


class _SettingsEnv(Environment):
    def __init__(self, settings, legacy=None):
        self._s, self._legacy = settings, legacy or {}

    def settings(self):
        return self._s

    def legacy_settings(self):
        return self._legacy

    def done(self, step):
        return True


def test_resume_of_a_run_older_than_a_setting(tmp_path):
    """A run stored before a setting existed resumes when it used that setting's legacy value, and is refused
    when the value asked for now differs from it (the README's older runs: no `adapter` key)."""
    from training.loop import RunFolderError
    from training.store import RunStore
    def opened(env, resume=True):
        loop = Loop(env, LoopConfig(train=False), tmp_path, lambda: None, resume=resume)
        try:
            loop.open()
        finally:
            loop.close()
    opened(_SettingsEnv({"mode": "a"}), resume=False)
    with RunStore(tmp_path / "run.sqlite") as st:       # as stored before the setting existed
        assert "adapter" not in st.meta("config")
    opened(_SettingsEnv({"mode": "a", "adapter": "none"}, {"adapter": "none"}))
    with pytest.raises(RunFolderError, match="adapter was 'none', now 'x'"):
        opened(_SettingsEnv({"mode": "a", "adapter": "x"}, {"adapter": "none"}))
    with pytest.raises(RunFolderError, match="adapter was None"):      # no legacy value: still refused
        opened(_SettingsEnv({"mode": "a", "adapter": "none"}))
