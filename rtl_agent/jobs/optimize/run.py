"""One run: the policies, the loop around the environment, and its summary."""
from __future__ import annotations

from pathlib import Path

from eda.sandbox import isolation_mode
from training.loop import Loop

from .config import OptimizeConfig
from .cross import cached_check
from .outputs import write_outputs
from .report import training_summary
from .routed import cached_check as routed_check
from .env import OptimizeEnv


def build_policies(cfg: OptimizeConfig):
    """(sampler, trainer): the same transformers policy for both, or a vLLM engine that carries its own
    transformers trainer (policy.vllm_backend, train=True) and serves its adapter after each sync().
    trainer is None with train=False."""
    from rtl_agent.policy import make_policy
    if cfg.backend == "hf":
        p = make_policy(f"hf:{cfg.model}", adapter=cfg.adapter)
    elif cfg.backend == "vllm":
        p = make_policy(f"vllm:{cfg.model}", adapter=cfg.adapter, train=cfg.train, seed=cfg.seed)
    elif cfg.backend == "openai":
        # a served model: search with a frozen policy (nothing here can update the server's weights)
        if cfg.train:
            raise ValueError("--policy-backend openai samples from a server whose weights this job cannot update: "
                             "add --no-train (frozen-policy search), or use hf/vllm for test-time training")
        if "@" not in cfg.model:
            raise ValueError(f"--policy-backend openai needs --model MODEL@BASE_URL, got {cfg.model!r}")
        p = make_policy(f"openai:{cfg.model}", adapter="none")
    else:
        raise ValueError(f"policy backend must be hf, vllm or openai, got {cfg.backend!r}")
    return p, (p if cfg.train else None)


def make_loop(cfg: OptimizeConfig, on_event=None, policies=None) -> tuple[Loop, OptimizeEnv]:
    """The loop and its environment for `cfg`; `policies` (sampler, trainer) lent by the caller, or built
    when the first step samples. on_event(kind, data) receives progress for the live view."""
    env = OptimizeEnv(cfg, cfg.run_dir())
    loop = Loop(env, cfg.loop_config(), cfg.run_dir(), lambda: policies or build_policies(cfg),
                resume=cfg.resume, on_event=on_event)
    return loop, env


def summary(loop: Loop, env: OptimizeEnv) -> dict:
    best = env.best
    cross = None
    if env.cfg.cross_pdk and best["source"] != "reference":
        cross = cached_check(Path(loop.dir), env.job, env.ref_src, env.task.top, best["code"], strong=True,
                             floor=env.noise.floor)
    pnr = None
    if env.cfg.pnr and best["source"] != "reference":
        pnr = routed_check(Path(loop.dir), env.job, env.ref_src, env.task.top, best["code"])
        if loop.store is not None:
            write_outputs(Path(loop.dir), loop.store)     # report.html gains the routed layouts
    return {"cross_pdk": cross, "pnr": pnr, "dir": str(loop.dir), "steps": loop.step, "best_ratio": env.ref_ppa / best["ppa"],
            "best_ppa": best["ppa"], "ref_ppa": env.ref_ppa, "best_source": best["source"],
            "best_step": best["step"], "pool_size": len(env.pool_), "isolation": isolation_mode(),
            "best_kind": best.get("kind"), "best_chain": best.get("chain"), "best_proof": best.get("proof"), "noise_floor": env.noise.floor,
            "above_noise": env.noise.above(env.ref_ppa / best["ppa"]) if best["source"] != "reference" else False,
            "kinds": env.bandit.to_dict(), "stopped": loop.stopped,
            "training": training_summary(loop.store.steps()) if loop.store is not None else None}


def optimize(cfg: OptimizeConfig, on_event=None, policies=None) -> dict:
    """Run (or resume) one optimization; returns the summary. Policies lent by the caller stay open."""
    loop, env = make_loop(cfg, on_event, policies)
    try:
        loop.open()
        loop.run()
        return summary(loop, env)
    finally:
        loop.close(policies=policies is None)
