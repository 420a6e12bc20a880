"""OpenSTA: timing and power from a Tcl script (eda/scripts/sta.tcl)."""
from .base import Tool, first_line


class OpenSTA(Tool):
    name = "opensta"
    exe = "sta"
    version_args = ("-version",)

    def label(self, out: str) -> str:
        return f"OpenSTA {first_line(out)}"

    def script_cmd(self, script: str) -> list:
        return [self.path(), "-no_init", "-no_splash", "-exit", script]


OPENSTA = OpenSTA()
