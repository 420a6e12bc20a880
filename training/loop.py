"""The one test-time RL loop: sample -> score -> entropic LoRA step -> KL controller -> checkpoint.

A job is an Environment (a prompt plus a verifier, as in TTT-Discover): it says what to prompt,
how to read a completion and what a candidate is worth. The loop owns everything else: sampling
seeds, the LoRA step, the KL controller, the run store and resume. `rtl_agent.jobs.optimize` and
`rtl_agent.jobs.cover` are two environments of it. No EDA code here.

Run folder:
  run.sqlite         one SQLite transaction per step (training.store): the commit point
  adapters/step_NNN/ the LoRA adapter after step NNN (+ optimizer.pt for the latest
                     `keep_optimizer` steps), written to a temp folder and renamed before the commit
  events.jsonl       progress events (phase, decision, step)
Step 0 holds the environment's starting rows (a reference, a random stimulus); nothing is sampled.
A run killed anywhere resumes from its last committed step and redoes the next one exactly:
sampling seeds come from (seed, step, group); the RNG states, the controller, the environment's
state, the adapter and the optimizer come from the checkpoint; a resume with other settings is
refused.
"""
from __future__ import annotations

import base64
import hashlib
import inspect
import json
import math
import os
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from training.entropic import group_advantages
from training.kl_control import KLConfig, KLController
from training.rows import Attempt, Candidate, Context, Retry
from training.store import RunStore

STORE = "run.sqlite"
# Loop settings that decide what the next step computes: a resume must not change them.
RESUME_KEYS = ("seed", "train", "max_tokens", "temperature", "top_p", "stop", "lr", "eps0", "fixed_kl", "form")


class RunFolderError(ValueError):
    """The run folder cannot be used as asked (already holds a run, or other settings)."""


@dataclass
class LoopConfig:
    seed: int = 0
    train: bool = True
    max_tokens: int = 256
    temperature: float = 0.8
    top_p: float = 0.95
    stop: str = ""                 # end each sample at this string ("" = run to max_tokens/EOS)
    lr: float = 1e-4
    eps0: float = math.log(2)      # starting KL budget per group
    fixed_kl: bool = False
    form: str = "weights"
    keep_optimizer: int = 1        # optimizer states kept (latest steps); adapters are all kept


@dataclass
class Group:
    """One prompt of a step and how many samples to draw from it."""
    prompt: list                   # chat messages
    n: int
    parent: object = None          # what the prompt is about, for the environment (a pool id)
    prefill: str = ""              # the start of the answer: backends that can continue an assistant
                                   # turn (hf, vllm) sample its continuation; the text holds it
    info: dict | None = None       # the environment's notes on the prompt (mode, action), logged
    stop: str | None = None        # this group's stop string (None: LoopConfig.stop)
    ban: tuple = ()                # strings the answer may not contain (an edit that must change them),
                                   # for samplers that can ban (can_ban); others ignore it
    choices: tuple = ()            # the answer is one of these continuations of the prefill, drawn from the
                                   # policy's own probabilities of them (a policy that can_choose); a policy
                                   # that cannot samples freely
    chooser: str = "policy"        # policy | random (uniform over choices) | exhaustive (each choice once, n of
                                   # them): the baselines a policy's choices are measured against
    explore: int = 0               # of the n answers of a policy's choice group, how many are drawn uniformly
                                   # among the choices the policy did not pick (they are trained on like the rest)


class Environment:
    """What a job supplies: a prompt plus a verifier. The loop calls it with a Context (the run folder and
    `emit(kind, **data)` for progress) and owns sampling, re-sampling, the update and the store."""
    metric_columns: tuple = ()     # names of the values each Row carries in `metrics` (e.g. area, ppa)

    def attach(self, policy):
        """Called once the policy is loaded (before the first groups()): for its tokenizer
        (policy.count_tokens(messages), policy.context_window)."""

    def settings(self) -> dict:
        """Environment settings that must match on resume (JSON values)."""
        return {}

    def legacy_settings(self) -> dict:
        """For settings added later: the value a run made before the key existed used (a resume of such a
        run compares against it, instead of refusing over a key the run never stored)."""
        return {}

    def open(self, ctx: Context):
        """Called once the run folder is checked and open, before start() or restore()."""

    def start(self, ctx: Context) -> list:
        """Called once on a fresh run: the Rows of step 0."""
        return []

    def state(self) -> dict:
        """JSON state checkpointed with every step."""
        return {}

    def restore(self, state: dict, store: RunStore):
        """Back to the state committed in `state` (the store holds every committed row)."""

    def pool(self) -> dict | None:
        """A snapshot stored beside the step (training.puct.Pool.to_dict), or None."""
        return None

    def done(self, step: int) -> bool:
        """True when step `step` should not run."""
        raise NotImplementedError

    def stop_reason(self, step: int, store: RunStore) -> str | None:
        """Why step `step` should not run although done(step) is False: the search has nothing left to try. None:
        go on. Read from the committed state alone, so a resumed run that had stopped stops with the same reason."""
        return None

    def groups(self, ctx: Context, step: int) -> list:
        raise NotImplementedError

    def extract(self, text: str, group: Group, attempt: Attempt) -> Candidate | Retry:
        """The Candidate in a completion (value None when there is none), or a Retry: the loop samples
        the retry's prompt and calls extract() again with its text (attempt.retries counts them)."""
        raise NotImplementedError

    def score(self, ctx: Context, step: int, groups: list, candidates: list) -> list:
        """Rows per group (one per candidate, each a complete Row), in sampling order."""
        raise NotImplementedError

    def metrics(self, rows: list) -> dict:
        return {}

    def committed(self, ctx: Context, step: int, rows: list, store: RunStore):
        """After each commit (step 0 included): write the job's outputs from the store."""


def step_seed(seed: int, step: int, j: int) -> int:
    """Sampling seed of group j in step `step`: independent of how the run was interrupted."""
    h = hashlib.sha256(f"{seed}:{step}:{j}".encode()).digest()
    return int.from_bytes(h[:4], "little") & 0x7FFFFFFF


def sample_seed(seed: int, step: int, j: int, i: int, tag: str = "") -> int:
    """Seed of one extra draw for sample i of group j (a re-prompt)."""
    h = hashlib.sha256(f"{seed}:{step}:{j}:{i}:{tag}".encode()).digest()
    return int.from_bytes(h[:4], "little") & 0x7FFFFFFF


def group_accounting(groups, rl_groups) -> tuple[list, dict]:
    """(indices of the groups the update can learn from, {why not: count} for the others)."""
    live, why = [], {}
    for j, (g, (_, toks, rewards)) in enumerate(zip(groups, rl_groups)):
        reason = ("not the policy's choice" if not any(toks) else
                  "no reward variance" if not has_variance(rewards) else None)
        if reason:
            why[reason] = why.get(reason, 0) + 1
        else:
            live.append(j)
    return live, why


def step_lr(cfg, eps: float) -> float:
    """The learning rate of a step: cfg.lr, scaled by the KL budget where the controller shrank it below its
    start (never above cfg.lr)."""
    return cfg.lr * min(1.0, eps / cfg.eps0) if cfg.eps0 > 0 else cfg.lr


def choice_drift(groups, comps, rows, before: dict, after: dict) -> list:
    """Per trained choice group: how far the update moved the policy's probabilities over its options (total
    variation) and the probability of the options that earned more than the group's mean reward, before and
    after the step."""
    out = []
    for j, p0 in before.items():
        p1, opts = after.get(j, p0), list(groups[j].choices)
        pre = groups[j].prefill or ""
        got = {}
        for c, r in zip(comps[j], rows[j]):
            o = c.text[len(pre):] if c.text.startswith(pre) else c.text
            got.setdefault(o, []).append(r.reward)
        mean = sum(r.reward for r in rows[j]) / max(1, len(rows[j]))
        good = [i for i, o in enumerate(opts) if o in got and sum(got[o]) / len(got[o]) > mean + 1e-12]
        out.append({"group": j, "options": len(opts), "tv": round(0.5 * sum(abs(a - b) for a, b in zip(p0, p1)), 5),
                    "p_rewarded_before": round(sum(p0[i] for i in good), 5),
                    "p_rewarded_after": round(sum(p1[i] for i in good), 5)})
    return out


@dataclass
class Pick:
    """A choice made without the policy (random or exhaustive chooser): no tokens, nothing to train on."""
    text: str
    token_ids: list = None
    logprobs: list = None
    prompt_token_ids: list = None
    finish_reason: str = "stop"

    def __post_init__(self):
        self.token_ids, self.logprobs, self.prompt_token_ids = [], [], []


def uniform_picks(g: Group, seed: int) -> list:
    """The n answers of a choice group drawn uniformly (random), or every choice once in order (exhaustive)."""
    opts = list(g.choices)
    picks = opts[:g.n] if g.chooser == "exhaustive" else \
        [opts[i] for i in random.Random(seed).choices(range(len(opts)), k=g.n)]
    return [Pick((g.prefill or "") + o) for o in picks]


def has_variance(rewards) -> bool:
    """A group whose rewards are all equal gives every sample the same weight: no signal to learn from."""
    return len(rewards) > 1 and max(rewards) - min(rewards) > 1e-12


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


def _norm(v):
    return json.loads(json.dumps(v))


class Loop:
    """One run of `env` in `out`. `make_policy()` -> (sampler, trainer or None) is called only when
    the first sampling step runs, so a job that is done at step 0 never loads a model."""

    def __init__(self, env: Environment, cfg: LoopConfig, out, make_policy, resume: bool = False,
                 on_event=None):
        self.env, self.cfg, self.dir = env, cfg, Path(out)
        self.make_policy, self.resume = make_policy, resume
        self.on_event = on_event or (lambda kind, data: None)
        self.ctx = Context(out=self.dir, emit=self.event)
        self.sampler = self.trainer = None
        self.store = None
        self.step = None
        self.ctl = None
        self.stopped = None        # {"after": step, "reason": ...} when the environment ended the run early

    def event(self, kind, **data):
        line = json.dumps({"time": round(time.time(), 3), "kind": kind, **data}, default=str)
        with open(self.dir / "events.jsonl", "a") as f:
            f.write(line + "\n")
        self.on_event(kind, data)

    def settings(self) -> dict:
        return {**{k: _norm(getattr(self.cfg, k)) for k in RESUME_KEYS}, **_norm(self.env.settings())}

    def open(self):
        """Open or resume the run folder; commit step 0 on a fresh run."""
        db = self.dir / STORE
        if db.exists() and not self.resume:
            with RunStore(db) as st:
                if st.last_step() is not None:
                    raise RunFolderError(f"run folder {self.dir} already holds a run: pass --resume to continue "
                                         "it or --out to start a new one")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.store = RunStore(db)
        mine, stored = self.settings(), self.store.meta("config")
        if stored is not None:
            stored = {**_norm(self.env.legacy_settings()), **stored}
            diff = [f"{k} was {stored.get(k)!r}, now {v!r}" for k, v in mine.items() if stored.get(k) != v]
            if diff:
                raise RunFolderError("--resume with settings that differ from the run's: " + ", ".join(diff))
        else:
            self.store.set_meta("config", mine)
        self.env.open(self.ctx)
        last = self.store.last_step()
        seed_all(self.cfg.seed)
        if last is None:
            self.ctl = KLController(KLConfig(eps0=self.cfg.eps0, fixed=self.cfg.fixed_kl))
            self.step = 0
            rows = self.env.start(self.ctx)
            self._commit(0, rows, self._metrics([], self.ctl.eps), None, None, None)
        else:
            self.store.truncate_after(last)
            st = self.store.steps()[-1]["stats"]["state"]
            self.ctl = KLController.from_dict(st["controller"])
            self.env.restore(st["env"], self.store)
            self.step = last
            set_rng_state(st["rng"])
            self.event("phase", step=last, phase=f"resumed after step {last}")
            self.env.committed(self.ctx, last, [], self.store)

    def _ensure_policy(self):
        if self.sampler is not None:
            return
        self.event("phase", step=self.step, phase="loading model")
        seed_all(self.cfg.seed)       # the LoRA's random init happens at construction: seed it
        self.sampler, trainer = self.make_policy()
        self.trainer = trainer if self.cfg.train else None
        self.env.attach(self.sampler)
        st = self.store.steps()[-1]["stats"]["state"]
        if self.trainer is not None and st.get("adapter"):
            ad = self.dir / st["adapter"]
            self.trainer.load_adapter(ad)
            opt = ad / "optimizer.pt"
            if not opt.is_file():
                raise RuntimeError(f"cannot resume training: {opt} is missing")
            import torch
            self.trainer.optimizer.load_state_dict(torch.load(opt, weights_only=True))
            if hasattr(self.trainer, "sync"):
                self.trainer.sync()
        set_rng_state(st["rng"])      # building the model used the RNG: continue from the commit

    def run(self, steps: int | None = None) -> int:
        """Steps until the environment is done (or `steps` are committed); returns the last step."""
        if self.store is None:
            self.open()
        self.stopped = None
        while (steps is None or self.step < steps) and not self.env.done(self.step + 1):
            why = self.env.stop_reason(self.step + 1, self.store)
            if why:
                self.stopped = {"after": self.step, "reason": why}
                self.event("stopped", step=self.step, reason=why)
                break
            self.do_step(self.step + 1)
        if self.store.meta("stopped") != self.stopped:
            self.store.set_meta("stopped", self.stopped)     # the run's own record of why it ended where it did
        return self.step

    def do_step(self, k: int):
        cfg = self.cfg
        t0 = time.time()
        self._ensure_policy()
        groups = self.env.groups(self.ctx, k)
        self.event("phase", step=k, phase="sampling", parents=[g.parent for g in groups])
        comps = []
        for j, g in enumerate(groups):
            chooser = self._chooser() if g.choices else None
            if g.choices and g.chooser != "policy":
                comps.append(uniform_picks(g, step_seed(cfg.seed, k, j)))
            elif chooser is not None:
                # distinct options while they last: a group of one option has nothing to compare
                params = inspect.signature(chooser.choose).parameters
                kw = {"distinct": True} if "distinct" in params else {}
                if g.explore and "explore" in params:
                    kw["explore"] = g.explore
                comps.append(chooser.choose(g.prompt, list(g.choices), g.n, temperature=cfg.temperature,
                                            seed=step_seed(cfg.seed, k, j), prefill=g.prefill, stop=g.stop, **kw))
            else:
                comps.append(self._sample(g.prompt, g.n, step_seed(cfg.seed, k, j), g.prefill, g.stop, g.ban))
            self.event("phase", step=k, phase=f"sampled {j + 1}/{len(groups)}")
        t_sample = time.time() - t0
        cands = [[self._extract(k, j, i, g, c) for i, c in enumerate(cs)] for j, (g, cs) in enumerate(zip(groups, comps))]
        t1 = time.time()
        rows = self.env.score(self.ctx, k, groups, cands)
        t_eval = time.time() - t1
        rl_groups = [(cs[0].prompt_token_ids if cs else [], [c.token_ids for c in cs], [r.reward for r in rs])
                     for cs, rs in zip(comps, rows)]
        for j, (g, cs, rs) in enumerate(zip(groups, comps, rows)):
            for c, r in zip(cs, rs):
                r.sample = {"completion": c.text, "tokens": len(c.token_ids), "finish": c.finish_reason,
                            "seed": step_seed(cfg.seed, k, j), "prefill": g.prefill, **(g.info or {}),
                            **({"explored": True} if getattr(c, "explored", False) else {})}
        # Flat groups (every reward equal) carry no signal: they are left out of the update, and a step
        # with none left trains nothing and leaves the KL controller where it is.
        # (groups of picks made without the policy hold no tokens: nothing to train on)
        live_idx, why = group_accounting(groups, rl_groups)
        live = [rl_groups[j] for j in live_idx]
        flat = len(rl_groups) - len(live)
        if flat:
            self.event("phase", step=k, phase=f"skipped {flat}/{len(rl_groups)} group(s): " +
                       ", ".join(f"{n} {w}" for w, n in why.items()))
        chooser = self._chooser() if self.trainer is not None else None
        before = self._choice_probs(groups, live_idx, chooser)
        eps, t2 = self.ctl.eps, time.time()
        train_stats, adapter, gstats = None, None, []
        if not live:
            decision = {"step": k, "eps_old": eps, "eps_new": eps, "cause": "no reward variance",
                        "skipped_groups": flat}
            if self.trainer is not None:
                adapter = self._save_adapter(k)      # unchanged, but every step has its adapter to resume from
        elif self.trainer is not None:
            from training.lora_update import rl_step
            self.event("phase", step=k, phase="training")
            # the step size follows the KL budget down: under Adam a smaller budget (sharper or flatter
            # weights) does not make a smaller step, so a budget shrunk for drift would not slow the drift
            lr = step_lr(cfg, eps)
            train_stats = rl_step(self.trainer, live, eps, controller=self.ctl, lr=lr, form=cfg.form, step=k)
            decision = train_stats.pop("decision")
            train_stats["skipped_groups"], train_stats["lr"] = flat, lr
            gstats = train_stats["groups"]
            adapter = self._save_adapter(k)
        else:
            gstats = [group_advantages(g[2], eps, form=cfg.form)[1] for g in live]
            decision = self.ctl.observe(k, None, gstats)
        t_train = time.time() - t2
        self.event("decision", step=k, **{x: decision[x] for x in ("eps_old", "eps_new", "cause")})
        allrows = [r for rs in rows for r in rs]
        m = self._metrics(allrows, eps, gstats, train_stats)
        m["flat_groups"], m["groups"], m["skipped"] = flat, len(groups), why
        m["signal_groups"], m["trained_groups"] = len(live), len(live) if train_stats else 0
        m["choice_drift"] = choice_drift(groups, comps, rows, before,
                                         self._choice_probs(groups, list(before), chooser) if train_stats else before)
        m["seconds"] = {"sample": round(t_sample, 2), "eval": round(t_eval, 2), "train": round(t_train, 2),
                        "total": round(time.time() - t0, 2)}
        self._commit(k, allrows, m, train_stats, decision, adapter)
        self._prune_optimizers(k)
        self.event("step", step=k, **m)

    def _choice_probs(self, groups, idx, chooser) -> dict:
        """{group: the policy's probability of each of its choices} for the policy-chosen choice groups in idx."""
        if chooser is None or not hasattr(chooser, "choice_probs"):
            return {}
        return {j: chooser.choice_probs(groups[j].prompt, list(groups[j].choices), groups[j].prefill, groups[j].stop)
                for j in idx if groups[j].choices and groups[j].chooser == "policy"}

    def _chooser(self):
        """The policy that scores a group's choices: the trainer (its weights are the ones being updated),
        else the sampler; None when neither can (a served model: the group is sampled freely)."""
        for p in (self.trainer, self.sampler):
            if getattr(p, "can_choose", False):
                return p
        return None

    def _sample(self, prompt, n, seed, prefill="", stop=None, ban=()):
        cfg = self.cfg
        stop = cfg.stop if stop is None else stop
        kw = {"prefill": prefill} if prefill else {}
        if ban and getattr(self.sampler, "can_ban", False):
            kw["ban"] = list(ban)
        return self.sampler.sample([prompt], n=n, temperature=cfg.temperature, top_p=cfg.top_p,
                                   max_tokens=cfg.max_tokens, stop=[stop] if stop else None,
                                   seed=seed, **kw)[0]

    def _extract(self, k, j, i, g, c) -> Candidate:
        """The candidate of sample i of group j; each Retry the environment asks for is one more draw,
        seeded by (seed, step, group, sample, tag), so a resumed step draws the same."""
        text, attempt = self.text(c, g.stop), Attempt(0, g.prompt)
        while True:
            got = self.env.extract(text, g, attempt)
            if not isinstance(got, Retry):
                return got
            more = self._sample(got.prompt, 1, sample_seed(self.cfg.seed, k, j, i, got.tag), got.prefill, got.stop)
            text, attempt = self.text(more[0], got.stop), Attempt(attempt.retries + 1, got.prompt)

    def text(self, c, stop=None) -> str:
        """The completion with the stop string put back (backends cut it off; the tokens keep it)."""
        stop = self.cfg.stop if stop is None else stop
        if not (stop and c.finish_reason == "stop"):
            return c.text
        # on a line of its own: "stop" also means EOS, after which the text may end anywhere
        return c.text + ("" if c.text.endswith("\n") or stop.startswith("\n") else "\n") + stop

    def _metrics(self, rows, eps, gstats=(), train_stats=None) -> dict:
        valid = [r for r in rows if r.valid]
        betas = [g["beta"] for g in gstats if not g.get("saturated")]
        ess = [g["ess_frac"] for g in gstats]
        rewards = [r.reward for r in rows]
        return {"n": len(rows), "valid": len(valid), "valid_rate": len(valid) / len(rows) if rows else None,
                "reward_mean": sum(rewards) / len(rewards) if rewards else None,
                "reward_max": max(rewards, default=None), "rewards": rewards,
                "eps": eps, "beta": sum(betas) / len(betas) if betas else None,
                "ess_frac": sum(ess) / len(ess) if ess else None,
                "ref_kl": train_stats and train_stats.get("ref_kl"), **self.env.metrics(rows)}

    def _save_adapter(self, k: int) -> str:
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
            if int(d.name.split("_")[1]) <= k - max(1, self.cfg.keep_optimizer):
                (d / "optimizer.pt").unlink(missing_ok=True)

    def _commit(self, k, rows, metrics, train_stats, decision, adapter):
        state = {"controller": self.ctl.to_dict(), "env": self.env.state(), "rng": rng_state(), "adapter": adapter}
        self.store.write_step(k, eps=metrics.get("eps"), stats={"metrics": metrics, "train": train_stats,
                                                               "state": state},
                              candidates=rows, pool=self.env.pool(), decision=decision)
        self.step = k
        self.env.committed(self.ctx, k, rows, self.store)

    def close(self, policies: bool = True):
        """policies=False leaves the sampler/trainer open: the caller lent them and reuses them."""
        for p in {id(x): x for x in (self.sampler, self.trainer) if x is not None and policies}.values():
            if callable(getattr(p, "close", None)):
                p.close()
        if self.store:
            self.store.close()
