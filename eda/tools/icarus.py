"""Icarus Verilog: `iverilog` compiles (and preprocesses), `vvp` runs what it compiled."""
from pathlib import Path

from ..sandbox import Limits, run
from .base import Simulator


class Icarus(Simulator):
    name = "icarus"
    exe = "iverilog"
    version_args = ("-V",)
    FLAGS = ("-g2012",)           # the language every stage compiles as

    def compile_cmd(self, files, out: str, top: str | None = None, extra=()) -> list:
        """iverilog command: compile `files` into `out` (a vvp program, or text with -E)."""
        return [self.path(), *self.FLAGS, *extra, "-o", out] + (["-s", top] if top else []) + list(files)

    def preprocess_cmd(self, files, out: str) -> list:
        """Preprocess only (`define, `include from the folder) into one text file."""
        return self.compile_cmd(files, out, extra=("-E", "-I."))

    def run_cmd(self, program: str) -> list:
        """vvp command that runs a compiled program (no interactive prompt on $stop)."""
        return [self.path("vvp"), "-n", program]

    def build(self, files, top, wd: Path, limits: Limits, flags=(), ro=()):
        """Compile into `wd` (`ro`: folders outside it the compiler reads); (run argv or None, log)."""
        r = run(self.compile_cmd(files, "sim.vvp", top, extra=tuple(flags)), wd,
                Limits(wall_s=max(limits.wall_s, 30), cpu_s=60, mem_mb=limits.mem_mb), ro=ro)
        if not r.ok:
            return None, r.out
        return self.run_cmd(str(Path(wd) / "sim.vvp")), r.out


ICARUS = Icarus()
