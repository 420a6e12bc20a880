"""run_cover: one closure job (or its resumption) in a run folder, through training.loop."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from training.loop import Loop, LoopConfig

from .baseline import run_baseline
from .config import CoverConfig
from .env import CoverEnv, _limits
from .formal import run_formal
from .outputs import write_outputs


def run_cover(task, out: Path, cfg: CoverConfig, policy=None, policy_spec: str = "default", resume: bool = False,
              baseline: bool = False, on_sim=None, log=print, adapter=None) -> dict:
    """Run (or resume) a closure job in `out` (training.loop, the same loop as `optimize`); returns the
    summary (also written to summary.json). on_sim(record, db) is called after each simulation.
    adapter: the SFT adapter given to make_policy (None: cfg.adapter)."""
    if adapter is not None:
        cfg = replace(cfg, adapter=adapter)
    cfg.check()
    out = Path(out)
    env = CoverEnv(task, out, cfg, policy_spec, on_sim)

    def make_policy():
        pol = policy
        if pol is None:
            from rtl_agent.policy import make_policy as make
            log(f"loading policy {policy_spec} ...")
            pol = make(policy_spec, adapter=cfg.adapter)
        return pol, (pol if getattr(pol, "trainable", False) else None)
    loop = Loop(env, LoopConfig(seed=cfg.seed, train=cfg.train, max_tokens=cfg.max_tokens,
                                temperature=cfg.temperature, top_p=cfg.top_p, lr=cfg.lr),
                out, make_policy, resume=resume)
    try:
        loop.open()
        if resume and env.sims:
            log(f"resuming {out}: {len(env.sims)} simulations in {loop.step + 1} step(s) already done")
        if baseline:
            run_baseline(task, env.sources, out, cfg)
        loop.run()
        # the formal phase after random and model (eda.reach): results in formal.json, reused on resume
        run_formal(task, out, cfg, loop.store, log=log, limits=_limits(cfg))
        return write_outputs(task, out, loop.store, cfg)
    finally:
        loop.close()
