"""The closure job's settings: the coverage metrics it chases, the target, the budget and the rewards."""
from __future__ import annotations

from dataclasses import dataclass, field

CHASED = ("line", "branch", "expr", "toggle", "user", "fsm_state", "fsm_arc")
TARGET_OF = ("all", "reachable")
STIMULI = ("text", "programs", "mixed")    # what the model phase samples (see programs.py)
CHOOSERS = ("policy", "random", "bandit", "lm")
RANDOM = "random"          # kind of the random phase's simulations (the model's are "llm")

# Failed stimuli are verdicts with a reward, never exceptions (see the package doc).
REWARDS = {"extract": -1.0, "rejected": -1.0, "error": -0.5, "fail": -0.3, "timeout": -0.3}


def parse_target(text: str) -> dict:
    """"line=95,branch=90,toggle=80" -> {"line": 95.0, ...}; ValueError names what is wrong (before
    any simulation). A metric the design turns out to have no points for is met (vacuously)."""
    out = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        k, sep, v = part.partition("=")
        k = k.strip()
        if not sep:
            raise ValueError(f"--target: expected METRIC=PERCENT, got {part.strip()!r}")
        if k not in CHASED:
            raise ValueError(f"--target: unknown metric {k!r}; known: {', '.join(CHASED)}")
        try:
            x = float(v)
        except ValueError:
            raise ValueError(f"--target: {k}: {v.strip()!r} is not a number") from None
        if not 0 <= x <= 100:
            raise ValueError(f"--target: {k}: {x} is not a percentage in [0, 100]")
        out[k] = x
    if not out:
        raise ValueError("--target: give at least one METRIC=PERCENT, e.g. line=95,branch=90,toggle=80")
    return out


@dataclass
class CoverConfig:
    target: dict = field(default_factory=lambda: {"line": 95.0, "branch": 90.0, "toggle": 80.0})
    budget: int = 16              # simulations: random runs kept + sampled stimuli (compiled or not)
    random_budget: int = 8        # random runs at most before the model (0: the model from the start)
    patience: int = 4             # random runs in a row without a new point end the random phase
    random_cycles: int = 200      # clock cycles per random run
    random_long: int = -1         # cycles of the long rounds (seeds 4-7, 12-15, ...): -1 as long as the
                                  # simulated-time limit allows (eda.coverage.CoverageLimits), 0: none
    group: int = 4                # stimuli sampled per step (G)
    train: bool = True            # entropic LoRA step after each group
    max_tokens: int = 256
    temperature: float = 0.8
    top_p: float = 0.95
    seed: int = 0
    lr: float = 1e-4
    prompt_points: int = 6        # holes named in the prompt
    max_spec: int = 400           # spec characters in the prompt
    example: bool = True          # one worked example before the request (rtl_agent.prompts.stimulus)
    run_wall_s: float = 10.0      # per simulation (the build has its own limit)
    rewards: dict = field(default_factory=lambda: dict(REWARDS))
    adapter: str = "default"      # SFT adapter merged into a local model (policy.models.resolve_adapter)
    formal: bool = True           # the formal phase after random and model (eda.reach; see formal.py)
    formal_budget_s: float = 60.0     # CPU seconds of its engines for the whole design (load-independent; replay on top)
    formal_point_s: float = 8.0       # ABC time per open point at most
    target_of: str = "all"        # the target applies to all points, or to the reachable ones (all minus proven unreachable)
    stimulus: str = "text"        # text: free-text stimulus; programs: the library's stimulus programs
                                  # (eda.stim_programs), chosen; mixed: programs and one free-text sample a step
    chooser: str = "policy"       # who chooses programs: the policy (the chooser trained on verified outcomes, with its
                                  # test-time update), uniform random, a per-design bandit, or the LM scoring labels

    def check(self):
        if self.budget < 1 or self.group < 1 or self.max_tokens < 1 or self.patience < 1 or self.random_cycles < 1:
            raise ValueError("budget, group, max_tokens, patience and random_cycles must be >= 1")
        if self.random_budget < 0:
            raise ValueError("random_budget must be >= 0")
        if self.target_of not in TARGET_OF:
            raise ValueError(f"target_of must be one of {', '.join(TARGET_OF)}, got {self.target_of!r}")
        if self.stimulus not in STIMULI or self.chooser not in CHOOSERS:
            raise ValueError(f"stimulus must be one of {', '.join(STIMULI)} and chooser one of {', '.join(CHOOSERS)}, "
                             f"got {self.stimulus!r}, {self.chooser!r}")
        if self.formal_budget_s <= 0 or self.formal_point_s <= 0:
            raise ValueError("formal_budget_s and formal_point_s must be > 0")
        for k in self.rewards:
            if k not in REWARDS:
                raise ValueError(f"unknown reward key {k!r}; known: {', '.join(REWARDS)}")
        return self


def config_from(p: dict) -> CoverConfig:
    """CoverConfig from the CLI's arguments (vars(args)); the suite jobs pass the same dict."""
    return CoverConfig(target=parse_target(p["target"]), budget=p["budget"], random_budget=p["random_budget"],
                       patience=p["patience"], random_long=int(p.get("random_long", -1)), group=p["group"],
                       train=not p["no_train"], max_tokens=p["max_tokens"],
                       temperature=p["temperature"], seed=p["seed"], lr=p["lr"],
                       adapter=p.get("adapter") or "default", formal=p.get("formal", True),
                       formal_budget_s=float(p.get("formal_budget") or 60.0),
                       formal_point_s=float(p.get("formal_point") or 8.0),
                       target_of=p.get("target_of") or "all", stimulus=p.get("stimulus") or "text",
                       chooser=p.get("chooser") or "policy").check()
