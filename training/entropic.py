"""Entropic objective J_beta = log E[exp(beta r)] for one group of G rewards.

Per group (completions of one prompt) the Boltzmann weights are
    w_i = exp(beta r_i) / sum_j exp(beta r_j)
and beta is chosen by bisection so that KL(w || uniform) equals a budget eps
(TTT-Discover uses eps = log 2).  KL(w_beta || U) = log G - H(w_beta) grows
monotonically with beta >= 0 for non-constant rewards, from 0 at beta = 0 to
log(G / m) as beta -> inf, where m is the number of rewards tied at the max.

Two advantage forms:
  "weights": adv_i = w_i * G - 1                      (mean zero, the issue's form)
  "loo":     adv_i = exp(beta r_i) / mean_{j!=i} exp(beta r_j) - 1   (TTT-Discover)
"weights" advantages lie in [-1, G-1]; "loo" ones are unbounded above (with G = 2
and eps near log 2 the best sample gets ~1e4), so prefer "loo" only for large G.

Rewards must be finite: map failed candidates to a finite reward before calling.
beta is in units of 1/reward, so beta_max must suit the reward scale (default
1e4 resolves reward gaps down to ~1e-4).
"""
import math

import numpy as np

FORMS = ("weights", "loo")


def _rewards(rewards) -> np.ndarray:
    r = np.asarray(rewards, dtype=np.float64).reshape(-1)
    if r.size == 0:
        raise ValueError("empty reward group")
    if not np.all(np.isfinite(r)):
        raise ValueError(f"rewards must be finite (map failures to a finite reward): {r.tolist()}")
    return r


def _log_weights(r: np.ndarray, beta: float) -> np.ndarray:
    z = beta * (r - r.max())          # subtract max so exp never overflows
    return z - np.log(np.exp(z).sum())


def weights(rewards, beta: float) -> np.ndarray:
    """Normalised Boltzmann weights w_i proportional to exp(beta r_i)."""
    return np.exp(_log_weights(_rewards(rewards), float(beta)))


def kl_uniform(w) -> float:
    """KL(w || uniform) = sum_i w_i log(G w_i), with 0 log 0 = 0."""
    w = np.asarray(w, dtype=np.float64)
    nz = w > 0
    return float(np.sum(w[nz] * np.log(w[nz] * w.size)))


def ess(w) -> float:
    """Effective sample size 1 / sum w^2 (G for uniform weights, 1 for a point mass)."""
    w = np.asarray(w, dtype=np.float64)
    return float(1.0 / np.sum(w * w))


def _kl_at(r: np.ndarray, beta: float) -> float:
    lw = _log_weights(r, beta)
    w = np.exp(lw)
    # lw is finite for every entry (r finite), so no 0*log0 issue here
    return float(max(0.0, np.sum(w * (lw + math.log(r.size)))))


def find_beta(rewards, kl_budget: float, beta_max: float = 1e4, tol: float = 1e-4) -> dict:
    """beta >= 0 with KL(w_beta || uniform) = kl_budget, by bisection.

    Returns {"beta", "kl", "kl_target", "saturated", "beta_at_bound"}:
      saturated      rewards are constant (or G == 1): KL is 0 for every beta,
                     beta = beta_max and the weights are uniform.
      beta_at_bound  the budget is not reachable below beta_max (the budget is
                     >= log(G/m), the sup of KL, or reward gaps are too small
                     for beta_max); beta = beta_max, kl = what it reaches.
      kl_target      the budget clamped to [0, log(G/m)].
    tol is on |KL - kl_budget| (and a relative bracket width of 1e-12 as a backstop).
    """
    r = _rewards(rewards)
    eps = float(kl_budget)
    if not math.isfinite(eps) or eps < 0:
        raise ValueError(f"kl_budget must be a finite number >= 0, got {kl_budget!r}")
    if beta_max <= 0:
        raise ValueError(f"beta_max must be > 0, got {beta_max!r}")
    out = {"beta": float(beta_max), "kl": 0.0, "kl_target": 0.0,
           "saturated": False, "beta_at_bound": False}
    if r.size == 1 or r.max() == r.min():
        out["saturated"] = True
        return out
    m = int(np.sum(r == r.max()))
    out["kl_target"] = min(eps, math.log(r.size / m))
    if eps <= 0:
        out.update(beta=0.0, kl=0.0)
        return out
    kl_hi = _kl_at(r, beta_max)
    if kl_hi <= eps + tol:
        out.update(kl=kl_hi, beta_at_bound=kl_hi < eps - tol)
        if out["beta_at_bound"]:
            return out
    # Grow the bracket geometrically from a beta scaled to the reward spread,
    # so both tiny and huge reward scales converge in few iterations.
    lo, hi = 0.0, min(beta_max, 1.0 / (r.max() - r.min()))
    while _kl_at(r, hi) < eps and hi < beta_max:
        lo, hi = hi, min(beta_max, hi * 4.0)
    beta, kl = hi, _kl_at(r, hi)
    for _ in range(200):
        if abs(kl - eps) <= tol or hi - lo <= 1e-12 * hi:
            break
        beta = 0.5 * (lo + hi)
        kl = _kl_at(r, beta)
        if kl < eps:
            lo = beta
        else:
            hi = beta
    out.update(beta=float(beta), kl=float(kl))
    return out


def advantages(rewards, beta: float, form: str = "weights") -> np.ndarray:
    """Per-sample advantages for a fixed beta (see module doc for the forms)."""
    r = _rewards(rewards)
    g = r.size
    if form not in FORMS:
        raise ValueError(f"advantage form must be one of {FORMS}, got {form!r}")
    if g == 1:
        return np.zeros(1)
    if form == "weights":
        return np.exp(_log_weights(r, float(beta))) * g - 1.0
    # Leave-one-out in log space: log e_i - log(mean_{j!=i} e_j); O(G^2) is fine
    # for group sizes in the hundreds and avoids cancellation in (sum - e_i).
    z = float(beta) * (r - r.max())
    others = np.where(np.eye(g, dtype=bool), -np.inf, z[None, :])
    zmax = others.max(axis=1, keepdims=True)
    lse = zmax[:, 0] + np.log(np.exp(others - zmax).sum(axis=1))
    return np.exp(z - (lse - math.log(g - 1))) - 1.0


def group_advantages(rewards, kl_budget: float, form: str = "weights",
                     beta_max: float = 1e4, tol: float = 1e-4) -> tuple[np.ndarray, dict]:
    """(advantages, stats) for one group.

    stats: beta, kl, kl_target, ess, ess_frac (= ess / G), saturated,
    beta_at_bound, G, reward_mean, reward_max.  A saturated group (constant
    rewards) gets all-zero advantages: it carries no learning signal.
    """
    r = _rewards(rewards)
    st = find_beta(r, kl_budget, beta_max=beta_max, tol=tol)
    w = np.exp(_log_weights(r, st["beta"]))
    adv = np.zeros(r.size) if st["saturated"] else advantages(r, st["beta"], form)
    e = ess(w)
    st.update(ess=e, ess_frac=e / r.size, G=int(r.size),
              reward_mean=float(r.mean()), reward_max=float(r.max()))
    return adv, st


def entropic_loss(token_logprobs, advantages, mask=None):
    """-sum_i adv_i * mean_t log pi(y_i,t | x), a torch scalar.

    token_logprobs: a list of 1-D tensors (one per sequence), or a padded 2-D
    tensor [n, T] with `mask` [n, T] (1 for real tokens).  Empty sequences
    contribute 0.  advantages: sequence of n floats (or a tensor); they are
    constants (no gradient flows into them).
    """
    import torch  # torch only here, so the rest of the module stays numpy-only

    if isinstance(token_logprobs, torch.Tensor):
        if token_logprobs.dim() != 2:
            raise ValueError("padded token_logprobs must be 2-D [n, T]")
        m = torch.ones_like(token_logprobs) if mask is None else mask.to(token_logprobs.dtype)
        if m.shape != token_logprobs.shape:
            raise ValueError(f"mask shape {tuple(m.shape)} != logprobs shape {tuple(token_logprobs.shape)}")
        lens = m.sum(dim=1)
        means = (token_logprobs * m).sum(dim=1) / lens.clamp(min=1)
        ref = token_logprobs
    else:
        seqs = list(token_logprobs)
        if not seqs:
            raise ValueError("no sequences")
        ref = seqs[0]
        means = torch.stack([s.mean() if s.numel() else s.sum() for s in seqs])
    adv = torch.as_tensor(np.asarray(advantages, dtype=np.float64) if not isinstance(advantages, torch.Tensor)
                          else advantages.detach(), dtype=ref.dtype, device=ref.device).reshape(-1)
    if adv.numel() != means.numel():
        raise ValueError(f"{adv.numel()} advantages for {means.numel()} sequences")
    return -(adv * means).sum()
