"""Build a programs testbench once and run options from it (eda.coverage's build and run steps, kept apart so
a chooser that waits for each result does not pay a Verilator build per simulation)."""
from __future__ import annotations

import shutil
import tempfile
import time
import weakref
from pathlib import Path

from eda import coverage as cov
from eda import stimulus as stim


class Built:
    """One Verilator build of `text` (a full testbench module) with `sources`; run(opt, seed) -> CoverageResult.
    A build failure is kept in .error (a CoverageResult) and returned by every run."""

    def __init__(self, sources: dict, top: str, text: str, limits: cov.CoverageLimits | None = None,
                 fsms=(), clock: str | None = None):
        self.lim = limits or cov.CoverageLimits()
        self.wd = Path(tempfile.mkdtemp(prefix="rtla-prog-"))
        weakref.finalize(self, shutil.rmtree, str(self.wd), True)     # an owner that never calls close()
        names = cov._names(sources)
        self.sources = {names[k]: v for k, v in sources.items()}
        self.fsms = list(fsms or []) if clock else []
        self.error, self.build_s = None, 0.0
        t0 = time.monotonic()

        def verdict(status, diags, **kw):
            kw.setdefault("seconds", time.monotonic() - t0)
            return cov.CoverageResult(status, [d if isinstance(d, cov.Diagnostic) else cov.Diagnostic(str(d)) for d in diags],
                                      sources=self.sources, **kw)
        self.verdict = verdict
        reasons = stim.screen_stimulus(text, cov.STIM_FILE, [m for t in self.sources.values() for m in cov.module_names(t)])
        if reasons:
            self.error = verdict("rejected", reasons)
            return
        self.prep = stim.prepare(text, top, None, clock)
        failed, self.build_s, self.data, _ = cov._build(self.wd, self.sources, self.prep, self.lim, t0, verdict,
                                                       self.fsms, clock)
        if failed is not None and "__pch.h" in (failed.log or ""):
            # this Verilator's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty, so a model split into several C++
            # files (a large testbench) passes its precompiled header as an input file: say `-include`
            from eda import sandbox
            from eda.tools import VERILATOR
            m = sandbox.run(VERILATOR.make_cmd() + ["CFG_CXXFLAGS_PCH_I=-include"], self.wd, self.lim.build)
            if m.ok and (self.wd / "obj_dir" / "Vsim").exists():
                failed, self.build_s = None, time.monotonic() - t0
        self.error = failed

    def run(self, opt: int, seed: int) -> cov.CoverageResult:
        if self.error is not None:
            return self.error
        return cov._run(self.wd, self.sources, self.prep, self.lim, plusargs(opt, seed), dict(self.data), self.verdict,
                        self.fsms)

    def close(self):
        shutil.rmtree(self.wd, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def plusargs(k: int, seed: int) -> list:
    """The simulation arguments that pick option k of a build and its seed."""
    return [f"+opt={int(k)}", f"+seed={int(seed)}"]
