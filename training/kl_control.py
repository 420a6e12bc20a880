"""Adaptive KL budget: chooses eps (the per-group KL(w || uniform) target of
training/entropic.py) for the next RL step from what this step measured.

Signals, in priority order (the first that fires decides; the rest are logged
but ignored, so when signals conflict the safer one wins):
  1. fixed mode                         -> hold eps (the `--fixed-kl` baseline).
  2. ref-KL of the adapted policy from the base model > ref_kl_cap
                                        -> shrink eps x kl_shrink.  Drift from
     the base model is the failure that is hard to undo, so it beats all else.
  3. ESS/G of the weights < ess_low (mean over non-saturated groups): weights
     collapse onto a few samples -> shrink x ess_shrink (over-sharpening).
  4. saturation: fraction of groups whose rewards are constant or whose beta
     hit its search bound >= sat_frac -> grow x sat_grow, so a plateau keeps
     producing a signal instead of stalling.
  5. ESS/G > ess_high: weights nearly uniform, the step learns little
                                        -> grow x ess_grow.
  6. otherwise hold.
eps is always clamped to [eps_min, eps_max].  Every call returns a decision
record {"step", "eps_old", "eps_new", "cause", "signals"} and keeps it in
`history` (the last `keep` records) for logs and checkpoints.
"""
import math
from dataclasses import asdict, dataclass, fields


@dataclass
class KLConfig:
    eps0: float = math.log(2)   # TTT-Discover's default budget
    eps_min: float = 0.05
    eps_max: float = 2.0
    ref_kl_cap: float = 0.2     # nats per token, policy vs base on sampled tokens
    kl_shrink: float = 0.5
    ess_low: float = 0.1        # ESS/G under this: weights on ~10% of the group
    ess_shrink: float = 0.7
    sat_frac: float = 0.5       # half the groups saturated = reward plateau
    sat_grow: float = 1.5
    ess_high: float = 0.9       # ESS/G over this: weights almost uniform
    ess_grow: float = 1.25
    fixed: bool = False         # never change eps
    keep: int = 1000            # decision records kept in history

    def __post_init__(self):
        if not (0 < self.eps_min <= self.eps_max):
            raise ValueError(f"need 0 < eps_min <= eps_max, got {self.eps_min}, {self.eps_max}")
        for name in ("kl_shrink", "ess_shrink"):
            if not (0 < getattr(self, name) < 1):
                raise ValueError(f"{name} must be in (0, 1)")
        for name in ("sat_grow", "ess_grow"):
            if getattr(self, name) <= 1:
                raise ValueError(f"{name} must be > 1")
        if not (0 <= self.ess_low < self.ess_high <= 1):
            raise ValueError("need 0 <= ess_low < ess_high <= 1")


def summarise(group_stats: list[dict]) -> dict:
    """ESS/G (mean over groups that are not saturated) and the saturated fraction,
    from the per-group stats of entropic.group_advantages."""
    if not group_stats:
        return {"ess_frac": None, "sat_frac": None, "groups": 0}
    sat = [bool(g.get("saturated") or g.get("beta_at_bound")) for g in group_stats]
    # Constant-reward groups have uniform weights (ESS = G) and at-bound groups are
    # as sharp as their ties allow; neither says anything about eps being too big
    # or too small, so they are left out of the ESS mean.
    live = [g["ess_frac"] for g, s in zip(group_stats, sat) if not s]
    return {"ess_frac": sum(live) / len(live) if live else None,
            "sat_frac": sum(sat) / len(sat), "groups": len(group_stats)}


class KLController:
    def __init__(self, config: KLConfig | None = None, eps: float | None = None):
        self.config = config or KLConfig()
        c = self.config
        self.eps = min(c.eps_max, max(c.eps_min, c.eps0 if eps is None else float(eps)))
        self.history: list[dict] = []

    def _clamp(self, x: float) -> float:
        return min(self.config.eps_max, max(self.config.eps_min, x))

    def update(self, step: int, ref_kl: float | None = None, ess_frac: float | None = None,
               sat_frac: float | None = None) -> dict:
        """Decide eps for the next step. Any signal may be None (not measured)."""
        c, old = self.config, self.eps
        sig = {"ref_kl": ref_kl, "ess_frac": ess_frac, "sat_frac": sat_frac}
        for k, v in sig.items():
            if v is not None and not math.isfinite(v):
                raise ValueError(f"signal {k} is not finite: {v!r}")
        if c.fixed:
            new, cause = old, "fixed: hold"
        elif ref_kl is not None and ref_kl > c.ref_kl_cap:
            new, cause = old * c.kl_shrink, f"ref_kl {ref_kl:.3g} > cap {c.ref_kl_cap:g}: shrink x{c.kl_shrink:g}"
        elif ess_frac is not None and ess_frac < c.ess_low:
            new, cause = old * c.ess_shrink, f"ess_frac {ess_frac:.3g} < {c.ess_low:g}: shrink x{c.ess_shrink:g}"
        elif sat_frac is not None and sat_frac >= c.sat_frac:
            new, cause = old * c.sat_grow, f"sat_frac {sat_frac:.3g} >= {c.sat_frac:g}: grow x{c.sat_grow:g}"
        elif ess_frac is not None and ess_frac > c.ess_high:
            new, cause = old * c.ess_grow, f"ess_frac {ess_frac:.3g} > {c.ess_high:g}: grow x{c.ess_grow:g}"
        else:
            new, cause = old, "in range: hold"
        clamped = self._clamp(new)
        if clamped != new:
            cause += f" (clamped to {clamped:g})"
        new = clamped
        self.eps = new
        rec = {"step": int(step), "eps_old": old, "eps_new": new, "cause": cause, "signals": sig}
        self.history.append(rec)
        del self.history[:-c.keep]
        return rec

    def observe(self, step: int, ref_kl: float | None, group_stats: list[dict]) -> dict:
        """update() from the per-group stats of entropic.group_advantages."""
        s = summarise(group_stats)
        return self.update(step, ref_kl=ref_kl, ess_frac=s["ess_frac"], sat_frac=s["sat_frac"])

    def to_dict(self) -> dict:
        return {"config": asdict(self.config), "eps": self.eps, "history": list(self.history)}

    @classmethod
    def from_dict(cls, d: dict) -> "KLController":
        names = {f.name for f in fields(KLConfig)}
        cfg = KLConfig(**{k: v for k, v in d.get("config", {}).items() if k in names})
        ctl = cls(cfg, eps=d.get("eps"))
        ctl.history = list(d.get("history", []))
        return ctl
