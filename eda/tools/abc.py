"""ABC as the pyosys wheel ships it (its own `yosys-abc`, the one libyosys's `abc` pass runs): the
command and its version."""
from .base import PROVIDED, Tool, first_line, pyosys_file

PROVIDED["yosys-abc"] = lambda: pyosys_file("yosys-abc")


class Abc(Tool):
    name = "abc"
    exe = "yosys-abc"
    version_args = ("-c", "version")     # prints the command echo, a blank line, then the version

    def label(self, out: str) -> str:
        return next((ln.strip()[:120] for ln in out.splitlines() if "ABC " in ln and "command line" not in ln),
                    first_line(out))

    def commands_cmd(self, commands: str) -> list:
        """Run `;`-separated ABC commands."""
        return self.argv("-c", commands)


ABC = Abc()
