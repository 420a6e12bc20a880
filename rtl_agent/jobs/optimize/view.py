"""Live terminal view of an optimize run (rich): one row per step plus the current phase."""
from __future__ import annotations

from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from .report import drift_text, trained_text

COLS = ("step", "best PPA ratio", "valid", "reward mean/max", "eps", "beta", "ref-KL", "ESS/G", "pool", "s", "trained",
        "choice drift")


def _f(x, spec=".3g"):
    return "-" if x is None else format(x, spec)


class LiveView:
    def __init__(self, console, cfg, quiet=False):
        self.console, self.cfg = console, cfg
        self.rows, self.phase, self.decision, self.stopped = [], "starting", "", ""
        self.live = None
        self.quiet = quiet or not console.is_terminal
        self.ref_ppa = None

    def __enter__(self):
        if not self.quiet:
            self.live = Live(self._render(), console=self.console, refresh_per_second=4, transient=False)
            self.live.__enter__()
        return self

    def __exit__(self, *exc):
        if self.live:
            self.live.update(self._render(final=True))
            self.live.__exit__(*exc)

    def ref(self, ref_ppa, step):
        self.ref_ppa = ref_ppa
        msg = f"reference PPA {ref_ppa:.4g} um2*ns*W" + (f"; resuming after step {step}" if step else "")
        self._say(msg)

    def _say(self, msg):
        if self.quiet:
            self.console.print(msg)
        else:
            self.phase = msg
            self.live.update(self._render())

    def _render(self, final=False):
        c = self.cfg
        t = Table(title=f"optimize {c.task}: {c.steps} steps x {c.batch} parents x {c.group} samples"
                  + ("" if c.train else " (no training)"))
        for col in COLS:
            t.add_column(col, justify="right")
        for r in self.rows[-15:]:
            t.add_row(*r)
        parts = [t]
        if self.decision:
            parts.append(Text(f"KL controller: {self.decision}", style="dim"))
        if self.stopped:
            parts.append(Text(self.stopped, style="bold"))
        if not final:
            parts.append(Text(f"... {self.phase}", style="cyan"))
        return Group(*parts)

    def event(self, kind, data):
        if kind == "phase":
            step = data.get("step")
            self._say((f"step {step}: " if step else "") + str(data.get("phase")))
        elif kind == "decision":
            self.decision = f"step {data['step']}: eps {data['eps_old']:.3g} -> {data['eps_new']:.3g} ({data['cause']})"
            if self.quiet:
                self.console.print(self.decision)
        elif kind == "stopped":
            self.stopped = stopped_line(data, self.cfg.steps)
            if self.quiet:
                self.console.print(self.stopped)
        elif kind == "step":
            row = (str(data["step"]), _f(data.get("best_ratio"), ".4f"),
                   f"{data.get('valid')}/{data.get('n')}",
                   f"{_f(data.get('reward_mean'))}/{_f(data.get('reward_max'))}", _f(data.get("eps")),
                   _f(data.get("beta")), _f(data.get("ref_kl")), _f(data.get("ess_frac")), str(data.get("pool_size")),
                   _f((data.get("seconds") or {}).get("total"), ".0f"), trained_text(data) or "-",
                   drift_text(data.get("choice_drift")) or "-")
            self.rows.append(row)
            if self.quiet:
                self.console.print("  ".join(f"{k}={v}" for k, v in zip(COLS, row)))
            elif self.live:
                self.live.update(self._render())


def stopped_line(data: dict, steps: int) -> str:
    """Why a run ended before its step budget (jobs/optimize/stop.py)."""
    return f"stopped after step {data['step']} of {steps}: {data['reason']}"
