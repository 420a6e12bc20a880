"""PUCT-indexed pool of states (designs) to start the next rollouts from.

Each state keeps: id, key (normalised text, for duplicate detection), payload
(dict: code, report summary, ...), reward (None for the root / unevaluated),
parent id, visits n, count (how many times this key was produced), and
Q = best reward in its subtree (itself included).

    score(s) = Q(s) + c * P(s) * sqrt(N) / (1 + n(s))

P is a rank prior: states ranked by reward, best first, ties sharing the best
rank ("competition" ranking); P(s) proportional to 1/(rank+1), normalised over
the pool; unrewarded states rank last.  N = number of selections made so far.
A state whose subtree has no reward yet uses Q = the lowest Q in the pool (0 in
an empty pool), so it neither wins nor is lost by default.  c is in reward
units: pick it on the scale of the reward spread.

select(B): B parents, distinct while the pool has enough states, highest score
first.  Tie-break (scores within 1e-12): a random order drawn from the pool's
seeded RNG, whose state is saved with the pool, so a run resumed from a
checkpoint selects exactly as an uninterrupted one.  When B exceeds the pool
size the ranking is repeated.  Each selection adds one visit to the selected
state and to each of its ancestors (as an MCTS backup), and 1 to N.

no_pool=True: select() always returns the root (B times); add() still records
states, so best() works.
"""
import json
import math
import os
import random
import re
from dataclasses import asdict, dataclass, field



def normalise(text: str) -> str:
    """Default key: whitespace collapsed. Jobs pass a language-aware one (rtl_agent.jobs.optimize uses
    eda.hdl.normalise, which also drops Verilog comments); training/ knows no HDL."""
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class State:
    id: int
    key: str
    payload: dict = field(default_factory=dict)
    reward: float | None = None
    parent: int | None = None
    n: int = 0
    q: float | None = None
    count: int = 1
    children: list = field(default_factory=list)


class Pool:
    def __init__(self, root_payload: dict | None = None, root_text: str = "", root_reward: float | None = None,
                 c: float = 1.0, seed: int = 0, no_pool: bool = False, normaliser=normalise):
        self.c = float(c)
        self.no_pool = bool(no_pool)
        self.normaliser = normaliser
        self.rng = random.Random(seed)
        self.total = 0                     # N: selections made so far
        self.states: dict[int, State] = {}
        self.by_key: dict[str, int] = {}
        self.root = self._new(root_text, root_payload or {}, root_reward, None)

    # -- building ---------------------------------------------------------
    def _new(self, text, payload, reward, parent) -> int:
        sid = len(self.states)
        key = self.normaliser(text)
        self.states[sid] = State(sid, key, dict(payload), reward, parent, q=reward)
        self.by_key.setdefault(key, sid)
        if parent is not None:
            self.states[parent].children.append(sid)
            self._backup_q(parent, reward)
        return sid

    def _backup_q(self, sid: int | None, reward: float | None):
        if reward is None:
            return
        while sid is not None:
            s = self.states[sid]
            if s.q is not None and s.q >= reward:
                break              # ancestors already have Q >= this one's
            s.q = reward
            sid = s.parent

    def add(self, text: str, reward: float | None, parent: int, payload: dict | None = None) -> int:
        """Add a child of `parent`; returns its id.  A text whose key is already in
        the pool is merged into that state: count += 1, and if the new reward is
        better it replaces the reward and payload.  The merged state keeps its
        first parent (re-parenting could make cycles)."""
        if parent not in self.states:
            raise KeyError(f"unknown parent state {parent!r}")
        if reward is not None:
            reward = float(reward)
            if not math.isfinite(reward):
                raise ValueError(f"reward must be finite or None, got {reward!r}")
        key = self.normaliser(text)
        sid = self.by_key.get(key)
        if sid is None:
            return self._new(text, payload or {}, reward, parent)
        s = self.states[sid]
        s.count += 1
        if reward is not None and (s.reward is None or reward > s.reward):
            s.reward = reward
            if payload is not None:
                s.payload = dict(payload)
            self._backup_q(sid, reward)
        return sid

    # -- selection --------------------------------------------------------
    def priors(self) -> dict[int, float]:
        rewarded = sorted((s.reward for s in self.states.values() if s.reward is not None), reverse=True)
        first = {}
        for i, r in enumerate(rewarded):
            first.setdefault(r, i)          # competition rank: ties share the best rank
        last = len(rewarded)
        raw = {sid: 1.0 / ((first[s.reward] if s.reward is not None else last) + 1)
               for sid, s in self.states.items()}
        z = sum(raw.values())
        return {sid: v / z for sid, v in raw.items()}

    def scores(self) -> dict[int, float]:
        qs = [s.q for s in self.states.values() if s.q is not None]
        qdef = min(qs) if qs else 0.0
        p = self.priors()
        sq = math.sqrt(self.total)
        return {sid: (s.q if s.q is not None else qdef) + self.c * p[sid] * sq / (1 + s.n)
                for sid, s in self.states.items()}

    def select(self, b: int) -> list[int]:
        if b < 0:
            raise ValueError("b must be >= 0")
        if self.no_pool:
            picks = [self.root] * b
        else:
            sc = self.scores()
            tie = {sid: self.rng.random() for sid in sorted(sc)}
            order = sorted(sc, key=lambda sid: (-round(sc[sid], 12), tie[sid]))
            picks = [order[i % len(order)] for i in range(b)]
        for sid in picks:
            self.total += 1
            while sid is not None:
                self.states[sid].n += 1
                sid = self.states[sid].parent
        return picks

    # -- queries ----------------------------------------------------------
    def best(self) -> State | None:
        """The state with the highest reward (earliest on ties); None if none rewarded."""
        rewarded = [s for s in self.states.values() if s.reward is not None]
        return max(rewarded, key=lambda s: (s.reward, -s.id)) if rewarded else None

    def __len__(self):
        return len(self.states)

    def __getitem__(self, sid: int) -> State:
        return self.states[sid]

    # -- checkpoints ------------------------------------------------------
    def to_dict(self) -> dict:
        st = self.rng.getstate()
        return {"c": self.c, "no_pool": self.no_pool, "total": self.total, "root": self.root,
                "rng": [st[0], list(st[1]), st[2]],
                "states": [asdict(s) for s in self.states.values()]}

    @classmethod
    def from_dict(cls, d: dict, normaliser=normalise) -> "Pool":
        """Rebuild a pool; pass the same normaliser the run used (it is code, not data)."""
        pool = cls.__new__(cls)
        pool.c, pool.no_pool, pool.total = float(d["c"]), bool(d["no_pool"]), int(d["total"])
        pool.normaliser = normaliser
        pool.rng = random.Random()
        v, internal, g = d["rng"]
        pool.rng.setstate((v, tuple(internal), g))
        pool.states, pool.by_key = {}, {}
        for sd in d["states"]:
            s = State(**sd)
            pool.states[s.id] = s
            pool.by_key.setdefault(s.key, s.id)
        pool.root = int(d["root"])
        return pool

    def save(self, path):
        """Atomic JSON write (temp file + rename), safe against a crash mid-write."""
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(self.to_dict(), f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path, normaliser=normalise) -> "Pool":
        with open(path) as f:
            return cls.from_dict(json.load(f), normaliser)
