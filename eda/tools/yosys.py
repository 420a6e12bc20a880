"""Yosys: runs a script file (eda/scripts/*.ys) or a `;`-separated command string."""
from .base import Tool


class Yosys(Tool):
    name = "yosys"
    exe = "yosys"
    version_args = ("-V",)

    def script_cmd(self, script: str, quiet: bool = True, log: str | None = None) -> list:
        """Run a script file; `quiet` keeps only errors (and what `tee` writes), `log` saves the full log."""
        return [self.path()] + (["-q"] if quiet else []) + (["-l", log] if log else []) + ["-s", script]

    def commands_cmd(self, commands: str) -> list:
        """Run `;`-separated commands quietly."""
        return [self.path(), "-q", "-p", commands]


YOSYS = Yosys()
