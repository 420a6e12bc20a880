"""One test-time RL step on an adapter (LoRA) with the entropic objective.

The policy object needs:
    policy.logprobs(prompt_ids, completion_ids, adapter=True)  -> 1-D tensor of
        per-token log pi(y_t | x, y_<t) over the completion tokens, differentiable
        w.r.t. the adapter parameters;
    policy.logprobs(..., adapter=False) -> the same under the base model (the
        adapter disabled); called under torch.no_grad();
    policy.optimizer (unless an optimizer is passed) over the adapter parameters.

Loss: per group, beta from the KL budget eps, advantages from
entropic.group_advantages, then entropic_loss divided by the number of
sequences in the batch (so the step size does not grow with the batch).
Sequences are backpropagated one micro-batch at a time (gradient
accumulation), so memory is that of one micro-batch.  Sequences whose
advantage is zero (constant-reward groups) cost no backward pass.

Ref-KL: measured on the sampled tokens, before the update, with
    k1 = mean_t (logp_adapter - logp_base)            (unbiased, can be < 0)
    k3 = mean_t (exp(d) - 1 - d),  d = logp_base - logp_adapter
        (Schulman's k3: unbiased for KL(pi_adapter || pi_base) when the tokens
         were sampled from pi_adapter, and never negative)
averaged over all tokens of the step.  "ref_kl" in the returned stats is k3,
the one the KL controller reads; k1 is reported beside it.
"""
import math
from dataclasses import dataclass

import torch

from training.entropic import entropic_loss, group_advantages


@dataclass
class Group:
    prompt_ids: object            # whatever policy.logprobs takes (list of ints, tensor)
    completions: list             # one entry per sample
    rewards: list                 # one float per sample


def _as_group(g) -> Group:
    if isinstance(g, Group):
        out = g
    elif isinstance(g, dict):
        out = Group(g["prompt_ids"], list(g["completions"]), list(g["rewards"]))
    else:
        p, c, r = g
        out = Group(p, list(c), list(r))
    if len(out.completions) != len(out.rewards):
        raise ValueError(f"group has {len(out.completions)} completions but {len(out.rewards)} rewards")
    if not out.completions:
        raise ValueError("empty group")
    return out


def _score(policy, chunk, adapter: bool, batched: bool) -> list:
    if not batched:
        return [policy.logprobs(p, c, adapter=adapter) for p, c, _ in chunk]
    out = policy.logprobs([p for p, _, _ in chunk], [c for _, c, _ in chunk], adapter=adapter)
    if not isinstance(out, (list, tuple)) or len(out) != len(chunk):
        raise ValueError("policy.logprobs on lists must return one tensor per sequence")
    return list(out)


def _chunks(trainer, items, mb):
    """Batches to score: a whole group at once where the policy can run a shared prompt once
    (shared_logprobs), else micro-batches of mb sequences."""
    if callable(getattr(trainer, "shared_logprobs", None)):
        by = {}
        for it in items:
            by.setdefault(id(it[0]), []).append(it)
        return [(True, chunk) for chunk in by.values()]
    return [(False, items[k:k + mb]) for k in range(0, len(items), mb)]


def _score_chunk(trainer, shared, chunk, adapter, mb):
    if shared:
        out = trainer.shared_logprobs(chunk[0][0], [c for _, c, _ in chunk], adapter=adapter)
        if len(out) != len(chunk):
            raise ValueError("policy.shared_logprobs must return one tensor per completion")
        return list(out)
    return _score(trainer, chunk, adapter, mb > 1)


def rl_step(policy, groups, eps: float, controller=None, lr: float | None = None, optimizer=None,
            form: str = "weights", beta_max: float = 1e4, max_grad_norm: float | None = 1.0,
            step: int = 0, measure_kl: bool = True, micro_batch: int | None = None) -> dict:
    """One optimizer step; returns stats (and the controller's decision if given).

    groups: iterable of Group, (prompt_ids, completions, rewards) tuples or dicts.
    lr: if given, set on every param group of the optimizer before stepping.
    micro_batch: sequences per logprobs call; default policy.micro_batch or 1.  Above 1
      the policy is called with lists (prompt_ids list, completion_ids list) and must
      return a list of tensors, as rtl_agent.policy.hf.HFPolicy does.
    Fits rtl_agent.policy: HFPolicy directly (its .optimizer, .model, .version), and a
    VLLMPolicy built with train=True (its .trainer is scored and stepped, then .sync()
    hot-swaps the new adapter into the engine).
    Returns {"loss", "eps", "ref_kl" (k3), "ref_kl_k1", "tokens", "sequences",
    "trained_sequences", "grad_norm", "stepped", "groups": [per-group stats], and with
    a controller: "decision" (its record) and "eps_next"}.
    """
    trainer = getattr(policy, "trainer", None) or policy     # VLLMPolicy keeps its trainer aside
    opt = optimizer if optimizer is not None else getattr(trainer, "optimizer", None)
    if opt is None:
        raise ValueError("no optimizer: pass optimizer= or give the policy an .optimizer")
    groups = [_as_group(g) for g in groups]
    if not groups:
        raise ValueError("no groups")
    mb = int(micro_batch or getattr(trainer, "micro_batch", 1) or 1)
    if lr is not None:
        for pg in opt.param_groups:
            pg["lr"] = lr

    gstats, items = [], []
    for g in groups:
        adv, st = group_advantages(g.rewards, eps, form=form, beta_max=beta_max)
        gstats.append(st)
        items += [(g.prompt_ids, c, float(a)) for c, a in zip(g.completions, adv)]
    n_seq = len(items)
    # sequences to train first, so no-gradient ones (zero advantage, scored only for
    # the KL) share as few micro-batches with them as possible
    items = [it for it in items if it[2] != 0.0] + ([it for it in items if it[2] == 0.0] if measure_kl else [])

    model = getattr(trainer, "model", None)
    was_training = getattr(model, "training", None)
    if was_training is not None:
        model.train()        # gradient checkpointing needs train mode
    opt.zero_grad(set_to_none=True)
    loss_total, k1_sum, k3_sum, n_tok, trained = 0.0, 0.0, 0.0, 0, 0
    try:
        for shared, chunk in _chunks(trainer, items, mb):
            with torch.set_grad_enabled(any(a != 0.0 for _, _, a in chunk)):
                lps = _score_chunk(trainer, shared, chunk, True, mb)
            for lp in lps:
                if lp.dim() != 1:
                    raise ValueError(f"policy.logprobs must return 1-D tensors, got shape {tuple(lp.shape)}")
            live = [(lp, a) for lp, (_, _, a) in zip(lps, chunk) if a != 0.0 and lp.numel()]
            if live:
                # sum over sequences / n_seq: the batch mean of the entropic_loss terms
                loss = entropic_loss([lp for lp, _ in live], [a for _, a in live]) / n_seq
                loss.backward()
                loss_total += float(loss.detach())
                trained += len(live)
            if measure_kl:
                with torch.no_grad():
                    for lp, base in zip(lps, _score_chunk(trainer, shared, chunk, False, mb)):
                        if base.shape != lp.shape:
                            raise ValueError(f"base logprobs shape {tuple(base.shape)} != adapter {tuple(lp.shape)}")
                        d = base.to(lp.dtype) - lp.detach()
                        k1_sum += float((-d).sum())
                        k3_sum += float((torch.expm1(d) - d).sum())
                        n_tok += lp.numel()

        params = [p for pg in opt.param_groups for p in pg["params"] if p.grad is not None]
        grad_norm, stepped = 0.0, False
        if params:
            limit = max_grad_norm if max_grad_norm is not None else float("inf")
            grad_norm = float(torch.nn.utils.clip_grad_norm_(params, limit))
            # a non-finite gradient skips the step rather than corrupting the adapter
            if math.isfinite(grad_norm):
                opt.step()
                stepped = True
        opt.zero_grad(set_to_none=True)
    finally:
        if was_training is False:
            model.eval()
    if stepped:
        if isinstance(getattr(trainer, "version", None), int):
            trainer.version += 1
        if trainer is not policy and callable(getattr(policy, "sync", None)):
            policy.sync()       # new adapter version into the sampling engine

    stats = {"loss": loss_total, "eps": float(eps),
             "ref_kl": k3_sum / n_tok if n_tok else None,
             "ref_kl_k1": k1_sum / n_tok if n_tok else None,
             "tokens": n_tok, "sequences": n_seq, "trained_sequences": trained,
             "grad_norm": grad_norm, "stepped": stepped, "groups": gstats}
    if controller is not None:
        rec = controller.observe(step, stats["ref_kl"], gstats)
        stats["decision"] = rec
        stats["eps_next"] = rec["eps_new"]
    return stats
