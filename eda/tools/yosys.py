"""Yosys 0.70 from the pyosys wheel: runs a script file (eda/scripts/*.ys) or a `;`-separated command
string through `yosys_main.py` (the `yosys` command line on top of libyosys), with the venv's Python."""
import sys

from .base import PROVIDED, YOSYS_MAIN, Tool, pyosys_file


def _main() -> str:
    """The entry that stands for the `yosys` binary (the wheel has none); needs the wheel installed."""
    pyosys_file("libyosys.so")
    return str(YOSYS_MAIN)


PROVIDED["yosys"] = _main


class Yosys(Tool):
    name = "yosys"
    exe = "yosys"
    version_args = ("-V",)

    def argv(self, *args) -> list:
        """`python yosys_main.py ARGS`: the sandbox binds yosys_main.py and the venv read-only."""
        return [sys.executable, self.path(), *args]

    def script_cmd(self, script: str, quiet: bool = True, log: str | None = None) -> list:
        """Run a script file; `quiet` keeps only warnings and errors (stderr; `tee -o` files are
        written as usual), `log` saves the full log."""
        return self.argv(*(["-q"] if quiet else []), *(["-l", log] if log else []), "-s", script)

    def commands_cmd(self, commands: str) -> list:
        """Run `;`-separated commands quietly."""
        return self.argv("-q", "-p", commands)


YOSYS = Yosys()
