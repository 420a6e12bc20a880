"""Per-design test-time RL: adapt the policy to one design with EDA feedback, keep the best verified design.

One step:
  1. select B parents from the PUCT pool (root: the task's reference RTL and its report, or the
     spec alone with from_spec);
  2. sample G candidates per parent with the optimize prompt (seeded per step and parent);
  3. verify and score every candidate with `eda.flow.evaluate` (testbench, reference for
     equivalence, the task's PDK), `workers` at a time; valid designs enter the pool;
  4. entropic LoRA update (`training.lora_update.rl_step`) with eps from the KL controller
     (skipped with train=False);
  5. controller update; its decision and cause are logged;
  6. checkpoint: adapter + optimizer state in adapters/step_NNN/, then one SQLite transaction
     with every candidate, the pool, the controller, the RNG states and the best design.
     The transaction is the commit point: a run killed anywhere resumes from the last
     committed step, and redoes the unfinished one exactly (same seeds, same pool RNG).

Reward (documented, configurable through OptimizeConfig.penalties / valid_floor):
  a candidate that fails gets a fixed penalty by the first stage it fails
      extract -1.0 (no Verilog found), screen -0.8, lint -0.8, sim -0.6, interface -0.5,
      equiv -0.5, synth -0.4, sta -0.3;
  a verified candidate gets r = log(PPA_ref / PPA_candidate), clipped to [valid_floor, reward_cap].
  valid_floor (-0.25) sits above every penalty so a correct design always outranks a broken
  one; designs more than ~28% worse than the reference all score the floor.
"""
from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import math
import os
import random
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from designs import load_task
from eda.flow import evaluate
from training.kl_control import KLConfig, KLController
from training.puct import Pool, normalise
from training.store import RunStore

PENALTIES = {"extract": -1.0, "screen": -0.8, "lint": -0.8, "sim": -0.6, "interface": -0.5,
             "equiv": -0.5, "synth": -0.4, "sta": -0.3}
UNKNOWN_STAGE_PENALTY = -0.8      # a stage name this table does not know yet
# Fields that must match when a run is resumed: they decide what the next step computes.
RESUME_KEYS = ("task", "model", "backend", "batch", "group", "pdk", "seed", "train", "pool", "fixed_kl",
               "from_spec", "max_tokens", "temperature", "stop", "top_p", "lr", "puct_c", "penalties", "valid_floor",
               "reward_cap", "eps0", "form")


@dataclass
class OptimizeConfig:
    task: str
    out: str | None = None            # run folder; default runs/<task>-s<seed>
    model: str = "default"
    backend: str = "hf"               # hf | vllm
    steps: int = 5
    batch: int = 2                    # B parents per step
    group: int = 4                    # G samples per parent
    pdk: str | None = None            # default: the task's
    seed: int = 0
    train: bool = True
    pool: bool = True                 # False: every step starts from the root
    fixed_kl: bool = False
    from_spec: bool = False
    max_tokens: int = 256
    temperature: float = 0.8
    stop: str = "endmodule"           # end a sample at its first endmodule ("" = run to max_tokens/EOS);
                                      # saves most of the tokens a small model spends rambling after the code
    top_p: float = 0.95
    lr: float = 1e-4
    puct_c: float = 0.5               # in reward units (log PPA ratios are ~0.1-1)
    eps0: float = math.log(2)
    form: str = "weights"
    penalties: dict = field(default_factory=lambda: dict(PENALTIES))
    valid_floor: float = -0.25
    reward_cap: float = 5.0
    workers: int = 2
    resume: bool = False
    keep_optimizer: int = 1           # optimizer states kept (latest steps); adapters are all kept

    def run_dir(self) -> Path:
        if self.out:
            return Path(self.out)
        name = Path(self.task).name or "task"
        return Path("runs") / f"{name}-s{self.seed}"


# ---- rewards -------------------------------------------------------------------------------------
def score(rep_dict: dict | None, ref_ppa: float, cfg: OptimizeConfig) -> tuple[float, str, str | None, float | None]:
    """(reward, status, failed_stage, ppa_ratio) of one candidate; rep_dict None = extraction failed."""
    if rep_dict is None:
        return cfg.penalties.get("extract", -1.0), "extract", "extract", None
    if rep_dict["status"] != "pass":
        st = next((n for n, s in rep_dict["stages"].items() if s["status"] not in ("skipped",)
                   and not _stage_ok(s["status"])), None) or "screen"
        return cfg.penalties.get(st, UNKNOWN_STAGE_PENALTY), rep_dict["status"], st, None
    ppa = rep_dict.get("ppa")
    if ppa is None or not math.isfinite(ppa):
        return cfg.penalties.get("sta", -0.3), "no-ppa", "sta", None
    ratio = ref_ppa / ppa if ppa > 0 else math.inf
    r = cfg.reward_cap if ratio == math.inf else math.log(ratio)
    return min(cfg.reward_cap, max(cfg.valid_floor, r)), "pass", None, ratio


def _stage_ok(status: str) -> bool:
    from eda.report import is_pass
    return is_pass(status)


def _slim(rep_dict: dict) -> dict:
    """A report without tool logs, for the pool and the prompt (logs can be long)."""
    d = dict(rep_dict)
    d["stages"] = {k: {kk: vv for kk, vv in v.items() if kk != "log"} for k, v in rep_dict["stages"].items()}
    d.pop("cached", None)
    d.pop("seconds", None)
    for v in d["stages"].values():
        v.pop("seconds", None)
    return d


def step_seed(seed: int, step: int, j: int) -> int:
    """Sampling seed of parent j in step `step`: independent of how the run was interrupted."""
    h = hashlib.sha256(f"{seed}:{step}:{j}".encode()).digest()
    return int.from_bytes(h[:4], "little") & 0x7FFFFFFF


# ---- RNG state (python, numpy, torch) ------------------------------------------------------------
def rng_state() -> dict:
    import numpy as np
    import torch
    v, internal, g = random.getstate()
    ns = np.random.get_state()
    return {"python": [v, list(internal), g],
            "numpy": [ns[0], ns[1].tolist(), int(ns[2]), int(ns[3]), float(ns[4])],
            "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode()}


def set_rng_state(d: dict):
    import numpy as np
    import torch
    v, internal, g = d["python"]
    random.setstate((v, tuple(internal), g))
    n = d["numpy"]
    np.random.set_state((n[0], np.array(n[1], dtype=np.uint32), n[2], n[3], n[4]))
    torch.set_rng_state(torch.frombuffer(bytearray(base64.b64decode(d["torch"])), dtype=torch.uint8).clone())


def seed_all(seed: int):
    import numpy as np
    import torch
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


# ---- policies ------------------------------------------------------------------------------------
def build_policies(cfg: OptimizeConfig):
    """(sampler, trainer): the same transformers policy for both, or a vLLM engine that carries its own
    transformers trainer (policy.vllm_backend, train=True) and serves its adapter after each sync().
    trainer is None with train=False."""
    from rtl_agent.policy import make_policy
    if cfg.backend == "hf":
        p = make_policy(f"hf:{cfg.model}")
    elif cfg.backend == "vllm":
        p = make_policy(f"vllm:{cfg.model}", train=cfg.train, seed=cfg.seed)
    else:
        raise ValueError(f"policy backend must be hf or vllm, got {cfg.backend!r}")
    return p, (p if cfg.train else None)


# ---- the run -------------------------------------------------------------------------------------
class Optimizer:
    """Holds one run. `run()` executes steps until cfg.steps are committed; `on_event(kind, data)`
    receives progress ("phase", "step", "decision") for the live view."""

    def __init__(self, cfg: OptimizeConfig, on_event=None, policies=None):
        self.cfg = cfg
        self.on_event = on_event or (lambda kind, data: None)
        self.dir = cfg.run_dir()
        self.task = load_task(cfg.task)
        self.pdk = cfg.pdk or self.task.pdk
        self.ref_src = self.task.reference_sources()
        if not self.ref_src:
            raise ValueError(f"task {self.task.name} has no reference RTL: optimize needs one for "
                             "equivalence and the PPA baseline")
        self.tb_src = self.task.testbench_sources()
        self.port_dirs = {p.name: p.direction for p in self.task.ports}
        self._policies = policies
        self.sampler = self.trainer = None
        self.store = None

    # -- setup --
    def _eval(self, code: str) -> dict:
        t = self.task
        rep = evaluate({f"{t.top}.v": code}, t.top, pdk=self.pdk, tb=self.tb_src or None, tb_top=t.tb_top or None,
                       ref=self.ref_src, clock=t.clock, reset=t.reset, period=t.period_ns)
        return rep.to_dict()

    def _event(self, kind, **data):
        line = json.dumps({"time": round(time.time(), 3), "kind": kind, **data}, default=str)
        with open(self.dir / "events.jsonl", "a") as f:
            f.write(line + "\n")
        self.on_event(kind, data)

    def open(self):
        cfg = self.cfg
        db = self.dir / "run.sqlite"
        if db.exists() and not cfg.resume:
            raise ValueError(f"run folder {self.dir} already holds a run: pass --resume to continue it "
                                  "or --out to start a new one")
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "adapters").mkdir(exist_ok=True)
        self.store = RunStore(db)
        stored = self.store.meta("config")
        mine = {k: _norm(getattr(cfg, k)) for k in RESUME_KEYS}
        if stored is not None:
            diff = {k: (stored.get(k), mine[k]) for k in RESUME_KEYS if stored.get(k) != mine[k]}
            if diff:
                raise ValueError("--resume with settings that differ from the run's: " +
                                 ", ".join(f"{k} was {a!r}, now {b!r}" for k, (a, b) in diff.items()))
        else:
            self.store.set_meta("config", mine)
        self._event("phase", step=None, phase="reference")
        self.ref_report = self._eval(_join(self.ref_src))
        if self.ref_report["status"] != "pass" or not self.ref_report.get("ppa"):
            raise RuntimeError(f"the reference of {self.task.name} does not pass its own flow "
                               f"(status {self.ref_report['status']}); cannot optimize against it")
        self.ref_ppa = float(self.ref_report["ppa"])
        self._event("phase", step=None, phase="loading model")
        seed_all(cfg.seed)       # the LoRA's random init happens at construction: seed it, or runs differ
        self.sampler, self.trainer = self._policies or build_policies(cfg)
        last = self.store.last_step()
        if last is None:
            self._init_state()
        else:
            self._restore(last)

    def _init_state(self):
        cfg = self.cfg
        ref_code = _join(self.ref_src)
        slim = _slim(self.ref_report)
        if cfg.from_spec:
            root = Pool({"code": None, "report": None, "step": 0}, "", None, c=cfg.puct_c, seed=cfg.seed,
                        no_pool=not cfg.pool)
        else:
            root = Pool({"code": ref_code, "report": slim, "step": 0, "ppa": self.ref_ppa}, ref_code, 0.0,
                        c=cfg.puct_c, seed=cfg.seed, no_pool=not cfg.pool)
        self.pool = root
        self.ctl = KLController(KLConfig(eps0=cfg.eps0, fixed=cfg.fixed_kl))
        self.best = {"source": "reference", "step": 0, "idx": None, "code": ref_code, "ppa": self.ref_ppa,
                     "ratio": 1.0, "report": slim}
        self.step = 0
        ref_row = {"grp": None, "parent": None, "text": ref_code, "reward": 0.0, "status": "reference",
                   "failed_stage": None, "area": self.ref_report["area_um2"], "delay": self.ref_report["delay_ns"],
                   "power": self.ref_report["power_w"], "ppa": self.ref_ppa,
                   "report": {"eda": self.ref_report, "ratio": 1.0, "pool_id": self.pool.root}}
        self._commit(0, candidates=[ref_row], metrics=self._metrics([], self.ctl.eps), train_stats=None, decision=None)

    def _restore(self, last: int):
        self.store.truncate_after(last)
        row = self.store.steps()[-1]
        st = row["stats"]["state"]
        self.pool = Pool.from_dict(self.store.pool(last), normalise)
        self.ctl = KLController.from_dict(st["controller"])
        self.best = st["best"]
        self.step = last
        set_rng_state(st["rng"])
        if self.trainer is not None and st.get("adapter"):
            ad = self.dir / st["adapter"]
            self.trainer.load_adapter(ad)
            opt = ad / "optimizer.pt"
            if not opt.is_file():
                raise RuntimeError(f"cannot resume training: {opt} is missing")
            import torch
            self.trainer.optimizer.load_state_dict(torch.load(opt, weights_only=True))
        self._event("phase", step=last, phase=f"resumed after step {last}")

    # -- one step --
    def _prompt(self, state) -> list:
        from rtl_agent import prompts
        t, p = self.task, state.payload
        if not p.get("code"):          # --from-spec root: write the design from the spec
            return prompts.rtl_prompt(t.spec, t.top, self.port_dirs)
        return prompts.optimize_prompt(t.spec, p["code"], p.get("report"), t.top)

    def _text(self, c) -> str:
        """The completion with the stop string put back (backends cut it off; the tokens keep it)."""
        return c.text + "\n" + self.cfg.stop if self.cfg.stop and c.finish_reason == "stop" else c.text

    def _extract(self, text: str) -> str | None:
        """The candidate's Verilog, or None when there is nothing worth sending to the tools
        (no module, or a truncated one). Other extraction doubts (ports, names) are left to
        the EDA stages, which judge them exactly."""
        from rtl_agent import prompts
        ex = prompts.extract_verilog(text, self.task.top, self.port_dirs)
        if not ex.code.strip() or any("truncated" in r for r in ex.reasons):
            return None
        return ex.code

    def run(self) -> dict:
        if self.store is None:
            self.open()
        while self.step < self.cfg.steps:
            self.do_step(self.step + 1)
        write_outputs(self.dir, self.store)
        return self.summary()

    def do_step(self, k: int):
        from training.entropic import group_advantages
        cfg = self.cfg
        t0 = time.time()
        parents = self.pool.select(cfg.batch)
        self._event("phase", step=k, phase="sampling", parents=parents)
        groups = []
        for j, sid in enumerate(parents):
            prompt = self._prompt(self.pool[sid])
            comps = self.sampler.sample([prompt], n=cfg.group, temperature=cfg.temperature, top_p=cfg.top_p,
                                        max_tokens=cfg.max_tokens, stop=[cfg.stop] if cfg.stop else None,
                                        seed=step_seed(cfg.seed, k, j))[0]
            groups.append((sid, comps))
            self._event("phase", step=k, phase=f"sampled {j + 1}/{len(parents)}")
        t_sample = time.time() - t0
        # Extract, then evaluate each distinct text once (duplicates share one cache entry anyway).
        codes = [[self._extract(self._text(c)) for c in comps] for _, comps in groups]
        uniq = sorted({c for g in codes for c in g if c})
        self._event("phase", step=k, phase=f"evaluating {len(uniq)} distinct designs")
        t1 = time.time()
        with ThreadPoolExecutor(max_workers=max(1, cfg.workers)) as ex:
            reports = dict(zip(uniq, ex.map(self._eval, uniq)))
        t_eval = time.time() - t1
        rows, rl_groups, all_rewards, gstats = [], [], [], []
        for j, ((sid, comps), cs) in enumerate(zip(groups, codes)):
            rewards = []
            for c, code in zip(comps, cs):
                rep = reports.get(code) if code else None
                r, status, failed, ratio = score(rep, self.ref_ppa, cfg)
                pid = None
                if failed is None:
                    pid = self.pool.add(code, r, sid, {"code": code, "report": _slim(rep), "step": k,
                                                       "ppa": rep["ppa"]})
                    if rep["ppa"] < self.best["ppa"]:
                        self.best = {"source": "candidate", "step": k, "idx": len(rows), "code": code,
                                     "ppa": rep["ppa"], "ratio": ratio, "report": _slim(rep)}
                rewards.append(r)
                rows.append({"grp": j, "parent": sid, "text": code, "reward": r, "status": status,
                             "failed_stage": failed,
                             "area": rep and rep.get("area_um2"), "delay": rep and rep.get("delay_ns"),
                             "power": rep and rep.get("power_w"), "ppa": rep and rep.get("ppa"),
                             "report": {"eda": rep, "ratio": ratio, "pool_id": pid, "completion": c.text,
                                        "tokens": len(c.token_ids), "finish": c.finish_reason,
                                        "seed": step_seed(cfg.seed, k, j)}})
            rl_groups.append((comps[0].prompt_token_ids if comps else [], [c.token_ids for c in comps], rewards))
            all_rewards += rewards
        eps = self.ctl.eps
        t2 = time.time()
        train_stats, adapter_rel = None, None
        if self.trainer is not None:
            from training.lora_update import rl_step
            self._event("phase", step=k, phase="training")
            train_stats = rl_step(self.trainer, rl_groups, eps, controller=self.ctl, lr=cfg.lr, form=cfg.form,
                                  step=k)
            decision = train_stats.pop("decision")
            gstats = train_stats["groups"]
            adapter_rel = self._save_adapter(k)
        else:
            gstats = [group_advantages(g[2], eps, form=cfg.form)[1] for g in rl_groups]
            decision = self.ctl.observe(k, None, gstats)
        t_train = time.time() - t2
        self._event("decision", step=k, **{x: decision[x] for x in ("eps_old", "eps_new", "cause")})
        m = self._metrics(rows, eps, gstats, train_stats)
        m["seconds"] = {"sample": round(t_sample, 2), "eval": round(t_eval, 2), "train": round(t_train, 2),
                        "total": round(time.time() - t0, 2)}
        self._commit(k, rows, m, train_stats, decision, adapter_rel)
        self.step = k
        self._prune_optimizers(k)
        write_outputs(self.dir, self.store)
        self._event("step", step=k, **m)

    def _metrics(self, rows, eps, gstats=(), train_stats=None) -> dict:
        valid = [r for r in rows if r["failed_stage"] is None]
        betas = [g["beta"] for g in gstats if not g.get("saturated")]
        ess = [g["ess_frac"] for g in gstats]
        return {"n": len(rows), "valid": len(valid), "valid_rate": len(valid) / len(rows) if rows else None,
                "reward_mean": sum(r["reward"] for r in rows) / len(rows) if rows else None,
                "reward_max": max((r["reward"] for r in rows), default=None),
                "rewards": [r["reward"] for r in rows],
                "best_ppa": self.best["ppa"], "best_ratio": self.ref_ppa / self.best["ppa"],
                "eps": eps, "beta": sum(betas) / len(betas) if betas else None,
                "ess_frac": sum(ess) / len(ess) if ess else None,
                "ref_kl": train_stats and train_stats.get("ref_kl"), "pool_size": len(self.pool),
                "distinct": len({normalise(r["text"]) for r in rows if r["text"]})}

    def _save_adapter(self, k: int) -> str:
        """adapters/step_NNN/ (peft files + optimizer.pt), written to a temp folder then renamed."""
        import torch
        rel = f"adapters/step_{k:03d}"
        final, tmp = self.dir / rel, self.dir / f"adapters/.step_{k:03d}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        self.trainer.save_adapter(tmp)
        torch.save(self.trainer.optimizer.state_dict(), tmp / "optimizer.pt")
        shutil.rmtree(final, ignore_errors=True)      # a half-done earlier attempt at this step
        os.replace(tmp, final)
        if hasattr(self.trainer, "sync"):             # vLLM: serve the updated adapter from the next step on
            self.trainer.sync()
        return rel

    def _prune_optimizers(self, k: int):
        for d in sorted((self.dir / "adapters").glob("step_*")):
            n = int(d.name.split("_")[1])
            if n <= k - max(1, self.cfg.keep_optimizer):
                (d / "optimizer.pt").unlink(missing_ok=True)

    def _commit(self, k, candidates, metrics, train_stats, decision, adapter_rel=None):
        state = {"controller": self.ctl.to_dict(), "best": self.best, "rng": rng_state(), "adapter": adapter_rel}
        stats = {"metrics": metrics, "train": train_stats, "state": state}
        self.store.write_step(k, eps=metrics.get("eps"), stats=stats, candidates=candidates,
                              pool=self.pool.to_dict(), decision=decision)

    def summary(self) -> dict:
        return {"dir": str(self.dir), "steps": self.step, "best_ratio": self.ref_ppa / self.best["ppa"],
                "best_ppa": self.best["ppa"], "ref_ppa": self.ref_ppa, "best_source": self.best["source"],
                "best_step": self.best["step"], "pool_size": len(self.pool)}

    def close(self):
        for p in {id(x): x for x in (self.sampler, self.trainer) if x is not None}.values():
            p.close()
        if self.store:
            self.store.close()


def _norm(v):
    return json.loads(json.dumps(v))


def _join(src: dict) -> str:
    return "\n".join(src.values())


# ---- outputs (derived from the store, so a resumed run rewrites them whole) -----------------------
def write_outputs(out: Path, store: RunStore):
    steps = store.steps()
    if not steps:
        return
    last = steps[-1]["stats"]
    best = last["state"]["best"]
    _atomic(out / "best.v", best["code"])
    _atomic(out / "best.json", json.dumps({k: v for k, v in best.items() if k != "code"}, indent=2))
    cands = store.candidates()
    buf = io.StringIO()
    w = csv.writer(buf)
    cols = ["step", "idx", "grp", "parent", "pool_id", "status", "failed_stage", "reward", "ppa_ratio",
            "area_um2", "delay_ns", "power_w", "ppa", "tokens", "finish"]
    w.writerow(cols)
    for c in cands:
        rp = c["report"] or {}
        w.writerow([c["step"], c["idx"], c["grp"], c["parent"], rp.get("pool_id"), c["status"], c["failed_stage"],
                    c["reward"], rp.get("ratio"), c["area"], c["delay"], c["power"], c["ppa"], rp.get("tokens"),
                    rp.get("finish")])
    _atomic(out / "candidates.csv", buf.getvalue())
    from rtl_agent.optimize_report import render_html
    _atomic(out / "report.html", render_html(steps, cands, store.decisions(), best, store.meta("config")))


def _atomic(path: Path, text: str):
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def optimize(cfg: OptimizeConfig, on_event=None) -> dict:
    """Run (or resume) one optimization; returns the summary."""
    opt = Optimizer(cfg, on_event)
    try:
        opt.open()
        return opt.run()
    finally:
        opt.close()


__all__ = ["OptimizeConfig", "Optimizer", "optimize", "score", "PENALTIES", "step_seed", "write_outputs"]
