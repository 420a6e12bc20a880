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
  6. checkpoint (training.loop: the same loop as `cover`): adapter + optimizer state in
     adapters/step_NNN/, then one SQLite transaction with every candidate, the pool, the
     controller, the RNG states and the best design. The transaction is the commit point: a run
     killed anywhere resumes from the last committed step, and redoes the unfinished one exactly.
Steps 2-6 are `training.loop.Loop`; this module is the environment: prompts, extraction, scoring.

Reward (documented, configurable through OptimizeConfig.penalties / valid_floor):
  a candidate that fails gets a fixed penalty by the first stage it fails
      extract -1.0 (no Verilog found), apply -1.0 (an edit that matches nowhere, even after its
      re-prompt), duplicate -0.3 (the parent again, after normalisation: no EDA run), screen -0.8,
      lint -0.8, sim -0.6, interface -0.5,
      equiv -0.5, synth -0.4, sta -0.3;
  a candidate that passes every stage but whose equivalence verdict is bounded(N) or cosim(K)
  (no proof) scores unproven -0.45 and is kept in the pool as "unproven" (never the best design),
  unless OptimizeConfig.accept_unproven / --accept-unproven;
  a verified candidate gets r = log(PPA_ref / PPA_candidate), clipped to [valid_floor, reward_cap].
  valid_floor (-0.25) sits above every penalty so a correct design always outranks a broken
  one; designs more than ~28% worse than the reference all score the floor.

Actions (OptimizeConfig.edit): full (the whole new module), diff (SEARCH/REPLACE blocks against the
parent, rtl_agent.edits: applied exactly, then ignoring whitespace, then by closest match; a block
that does not apply is re-prompted `repair` times with its error and the closest lines) or mixed
(either; the answer decides). The prompt shows the whole parent when it fits the policy's context
(policy.count_tokens against policy.context_window - max_tokens); otherwise a focus region on the
critical path (rtl_agent.focus), where only edits inside the region are accepted. Each prompt's mode,
token count and action go to events.jsonl and candidates.csv (mode, prompt_tokens, action, applied).
"""
from __future__ import annotations

import csv
import io
import json
import math
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from designs import load_task
from designs.task import TaskError
from eda.flow import evaluate
from eda.fsutil import atomic_write
from eda.hdl import normalise
from eda.report import is_unproven
from eda.sandbox import isolation_mode
from eda.stages import STAGES
from training.loop import Environment, Group, Loop, LoopConfig, step_seed
from training.puct import Pool
from training.store import RunStore

PENALTIES = {"extract": -1.0, "apply": -1.0, "duplicate": -0.3, "screen": -0.8, "lint": -0.8, "sim": -0.6,
             "interface": -0.5,
             "equiv": -0.5, "unproven": -0.45, "synth": -0.4, "sta": -0.3}
assert {"extract", *STAGES} <= set(PENALTIES), "a penalty for every stage of eda.stages.STAGES"
UNKNOWN_STAGE_PENALTY = -0.8      # a stage name this table does not know yet
# Environment fields that must match when a run is resumed (the loop adds its own: seed, lr, ...).
RESUME_KEYS = ("task", "model", "backend", "batch", "group", "pdk", "pool", "from_spec", "puct_c", "penalties",
               "valid_floor", "reward_cap", "edit", "prefill", "repair", "accept_unproven", "line_edit", "header",
               "keep_lhs")


@dataclass
class OptimizeConfig:
    task: str
    out: str | None = None            # run folder; default runs/<task>-s<seed>
    model: str = "default"
    adapter: str = "edit"             # SFT adapter merged into the model (policy.models.resolve_adapter); edit:
                                      # 32% new verified designs per draw, against 0.6% for default
                                      # (bench/results/optimize_actions_v7.md, optimize_actions_line.md)
    backend: str = "hf"               # hf | vllm
    steps: int = 5
    batch: int = 1                    # B parents per step (the README run: 5 steps x 1 x 4 samples)
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
    edit: str = "diff"                # full | diff | mixed: rewrite the design, SEARCH/REPLACE edits, or either;
                                      # diff: most candidates reach the EDA checks (bench/results/optimize_actions.md)
    prefill: bool = True              # start the answer (fence + module header / SEARCH marker) where the
                                      # backend can continue an assistant turn
    repair: int = 1                   # re-prompts of an edit that does not apply (with its error)
    line_edit: bool = True            # a prefilled one-line SEARCH gets a one-line replacement (the sample stops at
                                      # the line's end): the bundled model's next lines were mostly junk that failed
                                      # lint (bench/results/optimize_actions_line.md)
    header: bool = True               # a prefilled full rewrite starts with the parent's own module header
    keep_lhs: bool = True             # a one-line edit keeps its statement's left-hand side (prefilled up to the
                                      # `=`), so the model writes only the new expression: it used to drop the
                                      # target or turn `q <= 0` into `assign q = 0` (bench/results/optimize_actions_lhs.md)
    accept_unproven: bool = False     # True: bounded(N)/cosim(K) equivalence verdicts earn the PPA reward too

    def run_dir(self) -> Path:
        if self.out:
            return Path(self.out)
        name = Path(self.task).name or "task"
        return Path("runs") / f"{name}-s{self.seed}"

    def loop_config(self) -> LoopConfig:
        return LoopConfig(seed=self.seed, train=self.train, max_tokens=self.max_tokens, temperature=self.temperature,
                          top_p=self.top_p, stop=self.stop, lr=self.lr, eps0=self.eps0, fixed_kl=self.fixed_kl,
                          form=self.form, keep_optimizer=self.keep_optimizer)


# ---- rewards -------------------------------------------------------------------------------------
def score(rep_dict: dict | None, ref_ppa: float, cfg: OptimizeConfig) -> tuple[float, str, str | None, float | None]:
    """(reward, status, failed_stage, ppa_ratio) of one candidate; rep_dict None = extraction failed."""
    if rep_dict is None:
        return cfg.penalties.get("extract", -1.0), "extract", "extract", None
    if rep_dict["status"] != "pass":
        st = rep_dict.get("failed_stage") or "screen"
        return cfg.penalties.get(st, UNKNOWN_STAGE_PENALTY), rep_dict["status"], st, None
    eq = (rep_dict.get("stages") or {}).get("equiv") or {}
    if is_unproven(eq.get("status", "")) and not cfg.accept_unproven:
        # passes the flow, but nothing proved it equivalent: no PPA reward (a bounded check or a
        # co-simulation is not evidence an optimizer cannot learn to game)
        return cfg.penalties.get("unproven", -0.45), "unproven", "equiv", None
    ppa = rep_dict.get("ppa")
    if ppa is None or not math.isfinite(ppa):
        return cfg.penalties.get("sta", -0.3), "no-ppa", "sta", None
    ratio = ref_ppa / ppa if ppa > 0 else math.inf
    r = cfg.reward_cap if ratio == math.inf else math.log(ratio)
    return min(cfg.reward_cap, max(cfg.valid_floor, r)), "pass", None, ratio


def _slim(rep_dict: dict) -> dict:
    """A report without tool logs, for the pool and the prompt (logs can be long)."""
    d = dict(rep_dict)
    d["stages"] = {k: {kk: vv for kk, vv in v.items() if kk not in ("log", "seconds")}
                   for k, v in rep_dict["stages"].items()}
    d.pop("cached", None)
    d.pop("seconds", None)
    return d


# ---- policies ------------------------------------------------------------------------------------
def build_policies(cfg: OptimizeConfig):
    """(sampler, trainer): the same transformers policy for both, or a vLLM engine that carries its own
    transformers trainer (policy.vllm_backend, train=True) and serves its adapter after each sync().
    trainer is None with train=False."""
    from rtl_agent.policy import make_policy
    if cfg.backend == "hf":
        p = make_policy(f"hf:{cfg.model}", adapter=cfg.adapter)
    elif cfg.backend == "vllm":
        p = make_policy(f"vllm:{cfg.model}", adapter=cfg.adapter, train=cfg.train, seed=cfg.seed)
    else:
        raise ValueError(f"policy backend must be hf or vllm, got {cfg.backend!r}")
    return p, (p if cfg.train else None)


# ---- the environment -----------------------------------------------------------------------------
class OptimizeEnv(Environment):
    """Prompts from PUCT-selected parents, Verilog extraction, EDA verification and the PPA reward."""

    def __init__(self, cfg: OptimizeConfig, out: Path):
        self.cfg, self.dir = cfg, out
        self.task = load_task(cfg.task)
        self.pdk = cfg.pdk or self.task.pdk
        self.ref_src = self.task.reference_sources()
        if not self.ref_src:
            raise TaskError(f"task {self.task.name} has no reference RTL: optimize needs one for "
                             "equivalence and the PPA baseline")
        self.tb_src = self.task.testbench_sources()
        self.port_dirs = {p.name: p.direction for p in self.task.ports}
        self.ref_report = self.ref_ppa = self.pool_ = self.best = None
        self.policy = None

    def attach(self, policy):
        self.policy = policy

    def _fits(self, msgs) -> tuple[int, int]:
        """(prompt tokens, budget): the prompt must leave room for max_tokens of answer."""
        pol = self.policy
        if pol is not None and hasattr(pol, "count_tokens"):
            n, window = pol.count_tokens(msgs), int(getattr(pol, "context_window", 8192))
        else:
            from rtl_agent.policy.base import Policy
            n, window = Policy.count_tokens(Policy(), msgs), 8192
        return n, window - self.cfg.max_tokens - 16

    def _prefill(self, action: str, spec: bool = False, parent: str | None = None) -> str:
        from rtl_agent import prompts
        if not self.cfg.prefill or (self.policy is not None and not getattr(self.policy, "prefill_ok", False)):
            return ""
        if spec:                        # writing from the spec: the task's interface is the header
            return prompts.rtl_prefill(self.task.top, self.task.ports)
        head = prompts.parent_header(parent, self.task.top) if parent and action == "full" and self.cfg.header \
            else None
        return f"```verilog\n{head}" if head else prompts.prefill_for(action, self.task.top)

    def settings(self) -> dict:
        from rtl_agent.policy import policy_adapter
        # the adapter by the hash of its weights: a resume with another adapter (or a retrained default) is refused
        return {**{k: getattr(self.cfg, k) for k in RESUME_KEYS},
                "adapter": policy_adapter(f"{self.cfg.backend}:{self.cfg.model}", self.cfg.adapter),
                # the task's don't-care rules decide the equivalence verdict, hence the reward
                "observe": self.task.observe.to_dict() if self.task.observe else None}

    def legacy_settings(self) -> dict:
        # runs from before adapters, don't-care rules, one-line edits and header prefill
        return {"adapter": "none", "observe": None, "line_edit": False, "header": False, "keep_lhs": False}

    def _eval(self, code: str) -> dict:
        t = self.task
        rep = evaluate({f"{t.top}.v": code}, t.top, pdk=self.pdk, tb=self.tb_src or None, tb_top=t.tb_top or None,
                       ref=self.ref_src, clock=t.clock, reset=t.reset, period=t.period_ns, observe=t.observe)
        return rep.to_dict()

    def open(self):
        self.emit("phase", step=None, phase="reference")
        self.ref_report = self._eval(_join(self.ref_src))
        if self.ref_report["status"] != "pass" or not self.ref_report.get("ppa"):
            raise TaskError(f"the reference of {self.task.name} does not pass its own flow "
                               f"(status {self.ref_report['status']}); cannot optimize against it")
        self.ref_ppa = float(self.ref_report["ppa"])
        eq = (self.ref_report.get("stages") or {}).get("equiv", {}).get("status", "")
        if is_unproven(eq) and not self.cfg.accept_unproven:
            # nothing can prove a candidate equivalent where the reference is not provable against itself
            self.emit("phase", step=None, phase=f"warning: the reference's equivalence with itself is only {eq}; "
                      "every candidate will score 'unproven' (pass --accept-unproven to reward PPA anyway)")

    def start(self) -> list:
        cfg, ref_code, slim = self.cfg, _join(self.ref_src), _slim(self.ref_report)
        if cfg.from_spec:
            root = {"code": None, "report": None, "step": 0}
            self.pool_ = Pool(root, "", None, c=cfg.puct_c, seed=cfg.seed, no_pool=not cfg.pool, normaliser=normalise)
        else:
            root = {"code": ref_code, "report": slim, "step": 0, "ppa": self.ref_ppa}
            self.pool_ = Pool(root, ref_code, 0.0, c=cfg.puct_c, seed=cfg.seed, no_pool=not cfg.pool,
                              normaliser=normalise)
        self.best = {"source": "reference", "step": 0, "idx": None, "code": ref_code, "ppa": self.ref_ppa,
                     "ratio": 1.0, "report": slim}
        r = self.ref_report
        return [{"grp": None, "parent": None, "text": ref_code, "reward": 0.0, "status": "reference",
                 "failed_stage": None, "area": r["area_um2"], "delay": r["delay_ns"], "power": r["power_w"],
                 "ppa": self.ref_ppa, "report": {"eda": r, "ratio": 1.0, "pool_id": self.pool_.root}}]

    def state(self) -> dict:
        return {"best": self.best}

    def pool(self) -> dict:
        return self.pool_.to_dict()

    def restore(self, state: dict, store: RunStore):
        self.pool_ = Pool.from_dict(store.pool(), normalise)
        self.best = state["best"]

    def done(self, step: int) -> bool:
        return step > self.cfg.steps

    def groups(self, step: int) -> list:
        out = []
        for j, sid in enumerate(self.pool_.select(self.cfg.batch)):
            g = self._group(self.pool_[sid], sid, step_seed(self.cfg.seed, step, j))
            self.emit("prompt", step=step, group=j, parent=sid, **g.info)
            out.append(g)
        return out

    def _group(self, state, sid, seed=0) -> Group:
        from rtl_agent import edits, focus, prompts
        t, p = self.task, state.payload
        if not p.get("code"):          # --from-spec root: write the design from the spec
            msgs = prompts.rtl_prompt(t.spec, t.top, self.port_dirs)
            n, budget = self._fits(msgs)
            return Group(msgs, self.cfg.group, sid, self._prefill("full", spec=True),
                         {"mode": "spec", "prompt_tokens": n, "budget": budget, "action": "full", "region": None})
        action = self.cfg.edit
        built = {}

        def fits(view):
            msgs = prompts.edit_prompt(t.spec, view, p.get("report"), t.top, action)
            built[id(view)] = msgs
            n, budget = self._fits(msgs)
            return n <= budget
        view = focus.choose(p["code"], t.top, p.get("report"), fits)
        msgs = built.get(id(view)) or prompts.edit_prompt(t.spec, view, p.get("report"), t.top, action)
        if view.mode == "focus":
            action = "diff"            # a region is edited, never rewritten whole
        n, budget = self._fits(msgs)
        pre = self._prefill(action, parent=p["code"])
        target, stop = None, self._stop(action, pre)
        if pre and action == "diff":
            # the edit's SEARCH part is prefilled too: one statement of the parent (critical-path names
            # first, chosen by the group's seed), so the model writes only its replacement
            cand = edits.targets(p["code"], focus.path_names(p.get("report")), view.region)[:8]
            if cand:
                target = random.Random(seed).choice(cand)
                pre += prompts.target_prefill(p["code"].splitlines()[target], self.cfg.line_edit,
                                               self.cfg.keep_lhs)
                stop = "\n" if self.cfg.line_edit else ">>>>>>> REPLACE"    # one line for one line
        return Group(msgs, self.cfg.group, sid, pre,
                     {"mode": view.mode, "prompt_tokens": n, "budget": budget, "action": action,
                      "region": list(view.region) if view.region else None,
                      "target_line": None if target is None else target + 1,
                      **({"line_edit": True} if target is not None and self.cfg.line_edit else {})},
                     stop)

    def _stop(self, action: str, prefill: str):
        """An edit ends at the closing fence when the prefill opened it, else after its first block;
        a full design at cfg.stop (endmodule)."""
        if action == "full":
            return None
        if prefill:
            return "```"
        return ">>>>>>> REPLACE" if action == "diff" else None

    def _verilog(self, text: str) -> str | None:
        from rtl_agent import prompts
        ex = prompts.extract_verilog(text, self.task.top, self.port_dirs)
        if not ex.code.strip() or any("truncated" in r for r in ex.reasons):
            return None
        return ex.code

    def extract(self, text: str, group=None) -> dict:
        """The candidate: {"code": Verilog or None, "action": full|diff, "applied", "how", "error",
        "repaired", "duplicate"}. A full answer is the module in it (None when there is nothing worth
        sending to the tools: no module, or a truncated one; other doubts are left to the EDA stages).
        An edit is applied to the parent; when it does not apply it is re-prompted (self.resample)
        up to cfg.repair times with its error and the closest lines."""
        from rtl_agent import edits, prompts
        info = (group.info if group is not None else None) or {}
        parent = None
        if group is not None and self.pool_ is not None and group.parent is not None:
            parent = self.pool_[group.parent].payload.get("code")
        action = info.get("action", "full")
        if parent and (action == "diff" or (action == "mixed" and edits.has_blocks(text))):
            action = "diff"
        elif action == "mixed":
            action = "full"
        out = {"code": None, "action": action, "applied": None, "how": [], "error": "", "repaired": 0,
               "duplicate": False}
        if action == "full":
            out["code"] = self._verilog(text)
        else:
            region = tuple(info["region"]) if info.get("region") else None
            if info.get("line_edit"):   # the sample stopped at its line's end: close the block
                text = text.rstrip("\n") + "\n>>>>>>> REPLACE\n```"
            res = edits.apply_blocks(parent, edits.parse_blocks(text), region=region)
            prompt = group.prompt
            for _ in range(self.cfg.repair if self.resample is not None else 0):
                if res.applied:
                    break
                msgs = prompts.repair_prompt(prompt, text, res.error, res.closest)
                n, budget = self._fits(msgs)
                if n > budget:
                    break
                out["repaired"] += 1
                pre = self._prefill("diff")
                _, text = self.resample(msgs, pre, self._stop("diff", pre))
                res = edits.apply_blocks(parent, edits.parse_blocks(text), region=region)
                prompt = msgs
            out.update(applied=res.applied, how=res.how, error=res.error)
            if res.applied:
                out["code"] = self._verilog(res.code) if region is None else res.code
                if out["code"] is None:
                    out["error"] = "the edited design holds no complete module"
        if parent and out["code"] is not None and edits.same_design(out["code"], parent):
            out["duplicate"] = True
        return out

    def score(self, k: int, groups: list, comps: list, cands: list) -> list:
        cands = [[c if isinstance(c, dict) else {"code": c, "action": "full"} for c in g] for g in cands]
        codes = [[c["code"] if not c.get("duplicate") else None for c in g] for g in cands]
        # each distinct text is evaluated once (duplicates share one cache entry anyway)
        uniq = sorted({c for g in codes for c in g if c})
        self.emit("phase", step=k, phase=f"evaluating {len(uniq)} distinct designs")
        with ThreadPoolExecutor(max_workers=max(1, self.cfg.workers)) as ex:
            reports = dict(zip(uniq, ex.map(self._eval, uniq)))
        out, idx = [], 0
        for j, (g, cs) in enumerate(zip(groups, codes)):
            rows = []
            for code, cand in zip(cs, cands[j]):
                rep = reports.get(code) if code else None
                r, status, failed, ratio = score(rep, self.ref_ppa, self.cfg)
                if cand.get("duplicate"):
                    code = cand["code"]
                    r, status, failed = self.cfg.penalties.get("duplicate", -0.3), "duplicate", "duplicate"
                elif cand.get("applied") is False:
                    r, status, failed = self.cfg.penalties.get("apply", -1.0), "apply", "apply"
                pid = None
                if status == "unproven" and rep is not None:     # a parent to improve on, never the best
                    pid = self.pool_.add(code, r, g.parent, {"code": code, "report": _slim(rep), "step": k,
                                                             "ppa": rep["ppa"], "unproven": True})
                if failed is None:
                    pid = self.pool_.add(code, r, g.parent, {"code": code, "report": _slim(rep), "step": k,
                                                             "ppa": rep["ppa"]})
                    if rep["ppa"] < self.best["ppa"]:
                        self.best = {"source": "candidate", "step": k, "idx": idx, "code": code,
                                     "ppa": rep["ppa"], "ratio": ratio, "report": _slim(rep)}
                rows.append({"grp": j, "parent": g.parent, "text": code, "reward": r, "status": status,
                             "failed_stage": failed, "area": rep and rep.get("area_um2"),
                             "delay": rep and rep.get("delay_ns"), "power": rep and rep.get("power_w"),
                             "ppa": rep and rep.get("ppa"),
                             "report": {"eda": rep, "ratio": ratio, "pool_id": pid,
                                        "candidate": {x: cand.get(x) for x in ("action", "applied", "how", "error",
                                                                               "repaired", "duplicate")}}})
                idx += 1
            out.append(rows)
        return out

    def metrics(self, rows: list) -> dict:
        return {"best_ppa": self.best["ppa"], "best_ratio": self.ref_ppa / self.best["ppa"],
                "pool_size": len(self.pool_), "distinct": len({normalise(r["text"]) for r in rows if r["text"]})}

    def committed(self, step: int, rows: list, store: RunStore):
        write_outputs(self.dir, store)


# ---- the run -------------------------------------------------------------------------------------
class Optimizer:
    """One run: `open()`, then `run()` executes steps until cfg.steps are committed; `on_event(kind, data)`
    receives progress ("phase", "step", "decision") for the live view."""

    def __init__(self, cfg: OptimizeConfig, on_event=None, policies=None):
        self.cfg = cfg
        self.dir = cfg.run_dir()
        self.env = OptimizeEnv(cfg, self.dir)
        self.task = self.env.task
        self.loop = Loop(self.env, cfg.loop_config(), self.dir, lambda: policies or build_policies(cfg),
                         resume=cfg.resume, on_event=on_event)
        self._lent = policies is not None     # policies passed in belong to the caller, who closes them

    @property
    def step(self) -> int:
        return self.loop.step

    @property
    def ref_ppa(self) -> float:
        return self.env.ref_ppa

    @property
    def sampler(self):
        return self.loop.sampler

    def open(self):
        self.loop.open()

    def do_step(self, k: int):
        self.loop.do_step(k)

    def run(self) -> dict:
        self.loop.run()
        return self.summary()

    def summary(self) -> dict:
        best = self.env.best
        return {"dir": str(self.dir), "steps": self.step, "best_ratio": self.ref_ppa / best["ppa"],
                "best_ppa": best["ppa"], "ref_ppa": self.ref_ppa, "best_source": best["source"],
                "best_step": best["step"], "pool_size": len(self.env.pool_), "isolation": isolation_mode()}

    def close(self):
        self.loop.close(policies=not self._lent)


def _join(src: dict) -> str:
    return "\n".join(src.values())


# ---- outputs (derived from the store, so a resumed run rewrites them whole) -----------------------
def write_outputs(out: Path, store: RunStore):
    steps = store.steps()
    if not steps:
        return
    best = steps[-1]["stats"]["state"]["env"]["best"]
    atomic_write(out / "best.v", best["code"])
    atomic_write(out / "best.json", json.dumps({**{k: v for k, v in best.items() if k != "code"},
                                                "isolation": isolation_mode()}, indent=2))   # bwrap | off
    cands = store.candidates()
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["step", "idx", "grp", "parent", "pool_id", "status", "failed_stage", "reward", "ppa_ratio",
                "area_um2", "delay_ns", "power_w", "ppa", "tokens", "finish", "action", "applied", "mode",
                "prompt_tokens", "prefill"])
    for c in cands:
        rp = c["report"] or {}
        cd = rp.get("candidate") or {}
        w.writerow([c["step"], c["idx"], c["grp"], c["parent"], rp.get("pool_id"), c["status"], c["failed_stage"],
                    c["reward"], rp.get("ratio"), c["area"], c["delay"], c["power"], c["ppa"], rp.get("tokens"),
                    rp.get("finish"), cd.get("action"), "" if cd.get("applied") is None else int(cd["applied"]),
                    rp.get("mode"), rp.get("prompt_tokens"), int(bool(rp.get("prefill")))])
    atomic_write(out / "candidates.csv", buf.getvalue())
    from rtl_agent.optimize_report import render_html
    atomic_write(out / "report.html", render_html(steps, cands, store.decisions(), best, store.meta("config")))


def optimize(cfg: OptimizeConfig, on_event=None) -> dict:
    """Run (or resume) one optimization; returns the summary."""
    opt = Optimizer(cfg, on_event)
    try:
        opt.open()
        return opt.run()
    finally:
        opt.close()


__all__ = ["OptimizeConfig", "Optimizer", "OptimizeEnv", "optimize", "score", "PENALTIES", "step_seed",
           "write_outputs"]
