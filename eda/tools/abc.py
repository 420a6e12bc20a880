"""ABC as Yosys ships it (`yosys-abc`): the command and its version for now."""
from .base import Tool, first_line


class Abc(Tool):
    name = "abc"
    exe = "yosys-abc"
    version_args = ("-c", "version")     # prints the command echo, a blank line, then the version

    def label(self, out: str) -> str:
        return next((ln.strip()[:120] for ln in out.splitlines() if "ABC " in ln and "command line" not in ln),
                    first_line(out))

    def commands_cmd(self, commands: str) -> list:
        """Run `;`-separated ABC commands."""
        return [self.path(), "-c", commands]


ABC = Abc()
