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
  with OptimizeConfig.screen (`--screen`, off by default) a candidate is synthesized and timed first, and one whose PPA is worse
  than the best design's goes no further (no lint, simulation or proof: the proof cost most of a step on a team's
  module) and scores screened (penalties["screened"], else valid_floor): not better, not proven either (a tie
  goes on: a design as good as the best is a parent of its own);
  a candidate that passes every stage but whose equivalence verdict is bounded(N) or cosim(K)
  (no proof) scores unproven -0.45 and is kept in the pool as "unproven" (never the best design),
  unless OptimizeConfig.accept_unproven / --accept-unproven;
  a verified candidate gets r = log(PPA_ref / PPA_candidate), clipped to [valid_floor, reward_cap].
  valid_floor (-0.25) sits above every penalty so a correct design always outranks a broken
  one; designs more than ~28% worse than the reference all score the floor.

Actions: the action kinds of OptimizeConfig.actions (kinds/, one module and one registry line each; actions.py:
the bandit that mixes them), each given the run's Toolkit (kinds/toolkit.py: the prompt view, prefill, stop and
edit group). Edits are SEARCH/REPLACE blocks against the parent (rtl_agent.edits: applied exactly, then ignoring
whitespace, then by closest match; a block that does not apply is re-prompted `repair` times with its error and
the closest lines). The prompt shows the whole parent when it fits the policy's context
(policy.count_tokens against policy.context_window - max_tokens); otherwise a focus region on the
critical path (rtl_agent.focus), where only edits inside the region are accepted. Each prompt's mode,
token count and action go to events.jsonl and candidates.csv (mode, prompt_tokens, action, applied).
"""
from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from designs import load_task
from designs.task import TaskError
from eda.flow import FlowJob, calibrate, evaluate
from eda.hdl import normalise
from eda.ranges import value_ranges
from eda.report import Report, is_proven, is_unproven
from rtl_agent.noise import NoiseFloor, noise_floor
from training.loop import Environment, Group, step_seed
from training.puct import Pool
from training.rows import Attempt, Candidate, Context, Retry, Row
from training.store import RunStore

from . import kinds as kinds_
from . import stop
from .actions import Bandit, split
from .kinds.toolkit import Toolkit
from .config import RESUME_KEYS, OptimizeConfig
from .estimate import STAGES as SCREEN
from .outputs import write_outputs
from .reward import _metrics, _slim, score


class OptimizeEnv(Environment):
    """Prompts from PUCT-selected parents, Verilog extraction, EDA verification and the PPA reward."""
    metric_columns = ("area", "delay", "power", "ppa")

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
        # the task's own job; open() replaces it by the calibrated one (the simulator the reference passes with)
        self.job: FlowJob = self.task.flow_job(self.pdk)
        self.policy = None
        self.kinds = kinds_.parse_kinds(cfg.actions)
        self.bandit = Bandit(self.kinds, cfg.bandit_c)
        self.noise = NoiseFloor()
        self._known = set()        # pool keys before the step being scored (refind_cap)
        self.ranges = {}
        self._screened = {}        # code -> its synthesized PPA, for candidates screened out this step
        self.kit = Toolkit(self)   # all an action kind sees of this run

    def attach(self, policy):
        self.policy = policy

    def settings(self) -> dict:
        from rtl_agent.policy import policy_adapter
        # the adapter by the hash of its weights: a resume with another adapter (or a retrained default) is refused
        return {**{k: getattr(self.cfg, k) for k in RESUME_KEYS},
                "adapter": policy_adapter(f"{self.cfg.backend}:{self.cfg.model}", self.cfg.adapter),
                # the task's don't-care rules decide the equivalence verdict, hence the reward
                "observe": self.task.observe.to_dict() if self.task.observe else None}

    def legacy_settings(self) -> dict:
        # runs from before adapters, don't-care rules, one-line edits and header prefill
        return {"adapter": "none", "observe": None, "line_edit": False, "header": False, "keep_lhs": False,
                "actions": "", "kinds_per_parent": 1, "bandit_c": 0.5, "ranges": False, "transforms": "all",
                "chooser": "policy", "refind_cap": None, "choice_group": 0,
                "option_memory": False, "explore": 0.0, "screen": False}

    def _eval(self, code: str, bar: float | None = None) -> Report:
        """The full flow, or (screening, bar = the best PPA so far) synthesis and timing alone when they show the
        design is worse than the bar: the proof is not worth its cost. The estimate's synthesis is the full
        flow's own (a cache hit), so a design that goes on pays nothing twice."""
        files = {f"{self.task.top}.v": code}
        if bar is not None:
            est = evaluate(self.job.replace(stages=SCREEN), files)
            if est.ok and est.ppa and est.ppa > bar:
                self._screened[code] = est.ppa
                return est
        return evaluate(self.job, files)

    def _screen_bar(self) -> float | None:
        # a routing job reports the routed PPA, which synthesis alone does not estimate: nothing is screened
        routed = [s for s in self.job.stages if s in ("synth", "sta", "pnr")] != list(SCREEN)
        return None if not self.cfg.screen or routed or not self.best else self.best["ppa"]

    def open(self, ctx: Context | None = None):
        emit = ctx.emit if ctx else (lambda kind, **data: None)
        emit("phase", step=None, phase="reference")
        # the task's own job (testbench verdict rule and flags, clock, don't-cares), with the simulator its
        # reference passes under: the same judgement as `regress --equiv`
        self.job, rep = calibrate(self.job, self.ref_src, against_itself=True)
        if not rep.ok or not rep.ppa or rep.ppa <= 0:
            why = (f"status {rep.status} at {rep.failed_stage}: {rep.failure_reason[:200]}" if not rep.ok
                   else f"PPA {rep.ppa} (no timing path to measure?)")
            raise TaskError(f"the reference of {self.task.name} does not pass its own flow "
                            f"({why}); cannot optimize against it")
        self.ref_report = rep
        self.ref_ppa = float(rep.ppa)
        eq = rep.equiv_status or ""
        if self.cfg.noise:
            emit("phase", step=None,
                 phase="noise floor: perturbed references (rename, operand order, statement order, added zeros)")
            self.noise = noise_floor(self.job, self.ref_src, self.task.top, self.ref_ppa)
            emit("noise", step=None, **self.noise.to_dict())
        if self.cfg.ranges:
            emit("phase", step=None, phase="value ranges: the reference's registers under its testbench")
            self.ranges = value_ranges(self.job, self.ref_src)
            emit("ranges", step=None, ranges={n: r.to_dict() for n, r in self.ranges.items()})
        ref = _join(self.ref_src)
        if not all(kinds_.get(k).available(self.kit, ref) for k in self.kinds):
            # e.g. no register the testbench leaves headroom in, no transformation that applies: a kind with
            # nothing to offer on this design is left out
            self.kinds = tuple(k for k in self.kinds if kinds_.get(k).available(self.kit, ref)) or ("decl",)
            self.bandit = Bandit(self.kinds, self.cfg.bandit_c)
        if "transform" in self.kinds:
            emit("transforms", step=None, options=[o.to_dict() for o in self.kit.transform_options(ref)],
                 skipped=self.kit.skipped)
        if not is_proven(eq) and not self.cfg.accept_unproven:
            # nothing can prove a candidate equivalent where the reference is not provable against itself
            emit("phase", step=None, phase=f"warning: the reference's equivalence with itself is only {eq}; "
                      "every candidate will score 'unproven' (pass --accept-unproven to reward PPA anyway)")

    def start(self, ctx: Context) -> list:
        cfg, ref_code, slim = self.cfg, _join(self.ref_src), _slim(self.ref_report)
        if cfg.from_spec:
            root = {"code": None, "report": None, "step": 0}
            self.pool_ = Pool(root, "", None, c=cfg.puct_c, seed=cfg.seed, no_pool=not cfg.pool, normaliser=normalise)
        else:
            root = {"code": ref_code, "report": slim, "step": 0, "ppa": self.ref_ppa}
            self.pool_ = Pool(root, ref_code, 0.0, c=cfg.puct_c, seed=cfg.seed, no_pool=not cfg.pool,
                              normaliser=normalise)
        self.best = {"source": "reference", "step": 0, "idx": None, "code": ref_code, "ppa": self.ref_ppa,
                     "ratio": 1.0, "report": slim, "kind": None, "noise_floor": self.noise.floor, "above_noise": False}
        r = self.ref_report
        return [Row(ref_code, 0.0, "reference", metrics=_metrics(r),
                    payload={"eda": r.to_dict(), "ratio": 1.0, "pool_id": self.pool_.root})]

    def state(self) -> dict:
        return {"best": self.best, "bandit": self.bandit.to_dict(), "noise": self.noise.to_dict()}

    def pool(self) -> dict:
        return self.pool_.to_dict()

    def restore(self, state: dict, store: RunStore):
        self.pool_ = Pool.from_dict(store.pool(), normalise)
        self.best = state["best"]
        self.bandit = Bandit(self.kinds, self.cfg.bandit_c, state.get("bandit"))

    def done(self, step: int) -> bool:
        return step > self.cfg.steps

    def stop_reason(self, step: int, store: RunStore) -> str | None:
        return stop.reason(self, step, store) if self.cfg.early_stop else None   # nothing left to try (stop.py)

    def groups(self, ctx: Context, step: int) -> list:
        out = []
        for j, sid in enumerate(self.pool_.select(self.cfg.batch)):
            seed = step_seed(self.cfg.seed, step, j)
            kinds = self.bandit.choose(self.cfg.kinds_per_parent, random.Random(seed))
            gs = [self._kind_group(self.pool_[sid], sid, seed + i, kind, self._group_size(kind, n))
                  for i, (kind, n) in enumerate(zip(kinds, split(self.cfg.group, len(kinds))))]
            for g in gs:
                ctx.emit("prompt", step=step, group=len(out), parent=sid, **g.info)
                out.append(g)
        return out

    def _kind_group(self, state, sid, seed: int, kind: str, n: int) -> Group:
        """One group of n samples of one action kind (kinds/) on the parent `state`."""
        return kinds_.get(kind).group(self.kit, state, sid, seed, n)

    def _group_size(self, kind: str, share: int) -> int:
        """A choice-style kind's answers cost one forward pass over its options, so it draws choice_group of
        them (a group that holds different options has reward variance to learn from); others their share."""
        return self.cfg.choice_group if self.cfg.choice_group and kinds_.get(kind).choice else share

    def extract(self, text: str, group=None, attempt: Attempt | None = None) -> Candidate | Retry:
        """The candidate in an answer, read by its action kind (kinds/)."""
        kind = ((group.info if group is not None else None) or {}).get("action_kind")
        if kind in kinds_.registry():
            return kinds_.get(kind).extract(self.kit, text, group, attempt)
        return self.kit.extract_answer(text, group, attempt)

    def score(self, ctx: Context, k: int, groups: list, cands: list) -> list:
        cands = [[c.value for c in g] for g in cands]
        codes = [[c["code"] if not c.get("duplicate") else None for c in g] for g in cands]
        # each distinct text is evaluated once (duplicates share one cache entry anyway)
        uniq = sorted({c for g in codes for c in g if c})
        ctx.emit("phase", step=k, phase=f"evaluating {len(uniq)} distinct designs")
        bar, self._screened = self._screen_bar(), {}
        with ThreadPoolExecutor(max_workers=max(1, self.cfg.workers)) as ex:
            reports = dict(zip(uniq, ex.map(lambda c: self._eval(c, bar), uniq)))
        if self._screened:
            ctx.emit("phase", step=k, phase=f"{len(self._screened)} of {len(uniq)} screened out: synthesis shows "
                     "them worse than the best design")
        self._known = set(self.pool_.by_key)        # designs found before this step
        out, idx = [], 0
        for j, (g, cs) in enumerate(zip(groups, codes)):
            rows = []
            for code, cand in zip(cs, cands[j]):
                rows.append(self._row(k, j, g, idx, code, cand, reports.get(code) if code else None))
                idx += 1
            out.append(rows)
            kind = (g.info or {}).get("action_kind")
            for row, cand in zip(rows, cands[j]):
                label = (cand.get("transform") or {}).get("label")
                if label and g.parent is not None:
                    self.kit.record(g.parent, label, row.failed not in (None, "duplicate"))   # screened too
            for row in rows:
                if kind:
                    self.bandit.update(kind, bandit_reward(row, self.cfg.penalties), row.failed is None,
                                       row.failed is None and self.noise.above(row.payload.get("ratio")))
        return out

    def _row(self, k, j, g, idx, code, cand, rep: Report | None) -> Row:
        r, status, failed, ratio = score(rep, self.ref_ppa, self.cfg)
        if cand.get("duplicate"):
            code = cand["code"]
            r, status, failed = self.cfg.penalties.get("duplicate", -0.3), "duplicate", "duplicate"
        elif cand.get("applied") is False:
            r, status, failed = self.cfg.penalties.get("apply", -1.0), "apply", "apply"
        elif code in self._screened:         # worse than the best by synthesis; never proven
            r, status, failed, ratio = (self.cfg.penalties.get("screened", self.cfg.valid_floor), "screened",
                                        "screened", None)
        known = failed is None and code is not None and normalise(code) in self._known
        if known and self.cfg.refind_cap is not None:
            # a design already in the pool is a known state: re-finding it is not paid again (the pool counts
            # the visit), so a group's reward goes to what is new; a re-found worse design keeps its penalty
            r = min(r, self.cfg.refind_cap)
        pid = None
        chain = self._chain(g, cand)
        # bounded/cosim: a parent to improve on, never the best
        if status == "unproven" and rep is not None and is_unproven(rep.equiv_status or ""):
            pid = self.pool_.add(code, r, g.parent, {"code": code, "report": _slim(rep), "step": k,
                                                     "ppa": rep.ppa, "unproven": True, "chain": chain})
        if failed is None:
            pid = self.pool_.add(code, r, g.parent, {"code": code, "report": _slim(rep), "step": k, "ppa": rep.ppa,
                                                     "chain": chain})
            if rep.ppa < self.best["ppa"]:
                self.best = {"source": "candidate", "step": k, "idx": idx, "code": code,
                             "ppa": rep.ppa, "ratio": ratio, "report": _slim(rep), "kind": (g.info or {}).get("action_kind"),
                             "noise_floor": self.noise.floor, "above_noise": self.noise.above(ratio),
                             "proof": rep.equiv_status, "chain": chain}
        return Row(code, r, status, failed, metrics={} if failed == "screened" else _metrics(rep), group=j,
                   parent=g.parent,
                   payload={"eda": rep.to_dict() if rep is not None else None, "ratio": ratio, "pool_id": pid, "known": known,
                            **({"estimate": self._screened[code]} if failed == "screened" else {}),
                            "candidate": {**{x: cand.get(x) for x in ("action", "applied", "how", "error",
                                                                      "repaired", "duplicate", "transform")},
                                          "kind": (g.info or {}).get("action_kind"), "chain": chain}})

    def _chain(self, g, cand) -> list:
        """How a design was reached from the reference: its parent's chain and this step (a transformation's
        kind and label, or the action kind that wrote it)."""
        parent = self.pool_[g.parent].payload if g.parent is not None and self.pool_ is not None else {}
        t = cand.get("transform")
        step = f"{t['kind']}: {t['label']}" if t else (g.info or {}).get("action_kind") or cand.get("action")
        return list(parent.get("chain") or []) + [step]

    def metrics(self, rows: list) -> dict:
        return {"best_ppa": self.best["ppa"], "best_ratio": self.ref_ppa / self.best["ppa"],
                "pool_size": len(self.pool_), "distinct": len({normalise(r.text) for r in rows if r.text})}

    def committed(self, ctx: Context, step: int, rows: list, store: RunStore):
        write_outputs(self.dir, store)


def bandit_reward(row: Row, penalties: dict) -> float:
    """What a kind earns for the bandit: the row's reward, but a copy of the parent earns the worst penalty.
    Its own -0.3 (mild, so the policy is not pushed into broken designs) made `decl`, whose small-model answers
    mostly repeat the old width, the bandit's favourite on wide_count (bench/results/find_rate.md)."""
    return penalties.get("extract", -1.0) if row.status == "duplicate" else row.reward


def _join(src: dict) -> str:
    return "\n".join(src.values())
