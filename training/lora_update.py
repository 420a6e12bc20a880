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
Sequences are backpropagated one at a time (gradient accumulation), so memory
is that of one sequence.  Groups whose advantages are all zero (constant
rewards) cost no forward pass with gradient.

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


def rl_step(policy, groups, eps: float, controller=None, lr: float | None = None, optimizer=None,
            form: str = "weights", beta_max: float = 1e4, max_grad_norm: float | None = 1.0,
            step: int = 0, measure_kl: bool = True) -> dict:
    """One optimizer step; returns stats (and the controller's decision if given).

    groups: iterable of Group, (prompt_ids, completions, rewards) tuples or dicts.
    lr: if given, set on every param group of the optimizer before stepping.
    Returns {"loss", "eps", "ref_kl" (k3), "ref_kl_k1", "tokens", "sequences",
    "trained_sequences", "grad_norm", "groups": [per-group stats], and with a
    controller: "decision" (its record) and "eps_next"}.
    """
    opt = optimizer if optimizer is not None else getattr(policy, "optimizer", None)
    if opt is None:
        raise ValueError("no optimizer: pass optimizer= or give the policy an .optimizer")
    groups = [_as_group(g) for g in groups]
    if not groups:
        raise ValueError("no groups")
    if lr is not None:
        for pg in opt.param_groups:
            pg["lr"] = lr

    plan, gstats = [], []
    for g in groups:
        adv, st = group_advantages(g.rewards, eps, form=form, beta_max=beta_max)
        gstats.append(st)
        plan.append(adv)
    n_seq = sum(len(g.completions) for g in groups)

    opt.zero_grad(set_to_none=True)
    loss_total, k1_sum, k3_sum, n_tok, trained = 0.0, 0.0, 0.0, 0, 0
    for g, adv in zip(groups, plan):
        for comp, a in zip(g.completions, adv):
            train = a != 0.0
            if not train and not measure_kl:
                continue
            with torch.set_grad_enabled(bool(train)):
                lp = policy.logprobs(g.prompt_ids, comp, adapter=True)
            if lp.dim() != 1:
                raise ValueError(f"policy.logprobs must return a 1-D tensor, got shape {tuple(lp.shape)}")
            if train and lp.numel():
                # sum over sequences / n_seq: the batch mean of entropic_loss terms
                loss = entropic_loss([lp], [a]) / n_seq
                loss.backward()
                loss_total += float(loss.detach())
                trained += 1
            if measure_kl and lp.numel():
                with torch.no_grad():
                    base = policy.logprobs(g.prompt_ids, comp, adapter=False).to(lp.dtype)
                    if base.shape != lp.shape:
                        raise ValueError(f"base logprobs shape {tuple(base.shape)} != adapter {tuple(lp.shape)}")
                    d = base - lp.detach()
                    k1_sum += float((-d).sum())
                    k3_sum += float((torch.expm1(d) - d).sum())
                    n_tok += lp.numel()

    params = [p for pg in opt.param_groups for p in pg["params"] if p.grad is not None]
    grad_norm = 0.0
    if params:
        if max_grad_norm is not None:
            grad_norm = float(torch.nn.utils.clip_grad_norm_(params, max_grad_norm))
        else:
            grad_norm = float(torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in params)))
        if math.isfinite(grad_norm):
            opt.step()
        # a non-finite gradient skips the step rather than corrupting the adapter
    opt.zero_grad(set_to_none=True)

    stats = {"loss": loss_total, "eps": float(eps),
             "ref_kl": k3_sum / n_tok if n_tok else None,
             "ref_kl_k1": k1_sum / n_tok if n_tok else None,
             "tokens": n_tok, "sequences": n_seq, "trained_sequences": trained,
             "grad_norm": grad_norm, "stepped": bool(params) and math.isfinite(grad_norm),
             "groups": gstats}
    if controller is not None:
        rec = controller.observe(step, stats["ref_kl"], gstats)
        stats["decision"] = rec
        stats["eps_next"] = rec["eps_new"]
    return stats
