"""The settings of one optimization run, its penalties, and the keys a resume must match."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from eda.stages import PENALTIES as STAGE_PENALTIES
from training.loop import LoopConfig

# the stages' own penalties are rows of eda.stages.TABLE; these are the optimizer's steps around them
PENALTIES = {"extract": -1.0, "apply": -1.0, "duplicate": -0.3, "unproven": -0.45, **STAGE_PENALTIES}
UNKNOWN_STAGE_PENALTY = -0.8      # a stage name this table does not know yet
# Environment fields that must match when a run is resumed (the loop adds its own: seed, lr, ...).
RESUME_KEYS = ("task", "model", "backend", "batch", "group", "pdk", "pool", "from_spec", "puct_c", "penalties",
               "valid_floor", "reward_cap", "prefill", "repair", "accept_unproven", "line_edit", "header",
               "keep_lhs", "actions", "kinds_per_parent", "bandit_c", "ranges", "transforms", "chooser", "refind_cap", "choice_group",
               "option_memory", "explore", "screen")


_LOOP = LoopConfig()      # the loop's settings take the loop's defaults: written once


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
    seed: int = _LOOP.seed
    train: bool = _LOOP.train
    pool: bool = True                 # False: every step starts from the root
    fixed_kl: bool = _LOOP.fixed_kl
    from_spec: bool = False
    max_tokens: int = _LOOP.max_tokens
    temperature: float = _LOOP.temperature
    stop: str = "endmodule"           # end a sample at its first endmodule ("" = run to max_tokens/EOS);
                                      # saves most of the tokens a small model spends rambling after the code
    top_p: float = _LOOP.top_p
    lr: float = _LOOP.lr
    puct_c: float = 0.5               # in reward units (log PPA ratios are ~0.1-1)
    eps0: float = _LOOP.eps0
    form: str = _LOOP.form
    penalties: dict = field(default_factory=lambda: dict(PENALTIES))
    valid_floor: float = -0.25
    reward_cap: float = 5.0
    workers: int = 2
    resume: bool = False
    keep_optimizer: int = _LOOP.keep_optimizer  # optimizer states kept (latest steps); adapters are all kept
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
    actions: str = "auto"             # action kinds mixed by a per-design bandit (jobs/optimize/kinds/): auto = the
                                      # registry's auto kinds (all but narrow); a comma list for some
    transforms: str = "all"           # the transformation kinds `transform` offers (rtl_agent/transforms)
    chooser: str = "policy"           # policy | random | exhaustive | estimate | learned | lm: who picks among a
                                      # parent's transformations (estimate: best synthesis-only estimate first,
                                      # estimate.py; learned: that estimate weighed by ranker.py; lm: by
                                      # the bundled model's `choose` adapter, choose_lm.py)
    choice_group: int = 8             # answers per parent of a choice-style kind (transform, narrow): scored, not
                                      # sampled, so cheap; 0: their share of --group like the free-text kinds
    refind_cap: float | None = 0.0    # a verified design already in the pool earns at most this (None: its full
                                      # reward again): re-finding a known design is not a new find
    option_memory: bool = False       # a transformation is not offered again on a parent that drew it, nor below a
                                      # parent where it failed the flow (a per-design memory of the options' outcomes)
    early_stop: bool = True           # end before the step budget when nothing is left to try (stop.py); off: every
                                      # step runs (comparisons at equal steps)
    explore: float = 0.0              # share of a choice group drawn uniformly among the options the policy did not
                                      # pick: an option its prior ranks low is evaluated, so the update can raise it
    kinds_per_parent: int = 2         # kinds per parent and step; the parent's G samples are split among them
    bandit_c: float = 0.5             # UCB exploration weight, in reward units
    ranges: bool = True               # simulate the reference with value probes (eda/ranges.py) when the run opens:
                                      # edit prompts name registers wider than the values the testbench gives them,
                                      # and decl edits go to those declarations first
    noise: bool = True                # measure the reference's noise floor (rtl_agent.noise) when the run opens
    cross_pdk: bool = True            # synthesize the best design on the other PDK and under strong synthesis
                                      # too (jobs/optimize/cross.py, strong.py)
    pnr: bool = True                  # place and route the best design and the reference (jobs/optimize/routed.py)
    accept_unproven: bool = False     # True: bounded(N)/cosim(K) equivalence verdicts earn the PPA reward too
    screen: bool = False              # synthesize and time a candidate first; one whose PPA is worse than the best
                                      # design's goes no further: no lint, simulation or proof (env.py: screened)

    def run_dir(self) -> Path:
        if self.out:
            return Path(self.out)
        name = Path(self.task).name or "task"
        return Path("runs") / f"{name}-s{self.seed}"

    def loop_config(self) -> LoopConfig:
        return LoopConfig(seed=self.seed, train=self.train, max_tokens=self.max_tokens, temperature=self.temperature,
                          top_p=self.top_p, stop=self.stop, lr=self.lr, eps0=self.eps0, fixed_kl=self.fixed_kl,
                          form=self.form, keep_optimizer=self.keep_optimizer)
