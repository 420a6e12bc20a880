"""OpenROAD: place and route (eda/scripts/pnr.py run by OpenROAD's own Python module).

PyPI's `openroad==0.0.1` wheel is OpenROAD compiled as one Python module; it needs glibc 2.38, so
scripts/setup-openroad.sh unpacks it with Debian 13's libc6 into `.venv/openroad/` (or
$RTL_AGENT_OPENROAD), and only the OpenROAD process runs under that glibc's loader:

    ld-linux-x86-64.so.2 --library-path GLIBC:/lib... PYTHON pnr.py pnr.json

Missing, it is an error of the pnr stage alone (ToolMissing naming the setup step); nothing else needs it.
"""
import functools
import os
import sys
from pathlib import Path

from .base import HINT, Tool, ToolMissing, _probe_argv

LIBDIR = "usr/lib/x86_64-linux-gnu"


def home() -> Path:
    """Where the wheel (wheel/) and the private glibc (glibc/) were unpacked."""
    env = os.environ.get("RTL_AGENT_OPENROAD")
    return Path(env) if env else Path(sys.prefix) / "openroad"


class OpenRoad(Tool):
    name = "openroad"
    exe = "openroad"

    def paths(self) -> dict:
        h = home().resolve()
        p = {"home": h, "wheel": h / "wheel", "loader": h / "glibc" / LIBDIR / "ld-linux-x86-64.so.2",
             "python": Path(os.path.realpath(sys.executable))}
        if not (p["loader"].is_file() and (p["wheel"] / "openroadpy.py").is_file()):
            raise ToolMissing(f"OpenROAD (the pnr stage) is not installed in {h} (its wheel and private glibc); "
                              f"{HINT}, or bash scripts/setup-openroad.sh")
        return p

    def path(self, exe: str | None = None) -> str:
        return str(self.paths()["loader"])

    def argv(self, *args) -> list:
        p = self.paths()
        libs = ":".join([str(p["home"] / "glibc" / LIBDIR), "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"])
        return [str(p["loader"]), "--library-path", libs, str(p["python"]), *args]

    def env(self) -> dict:
        w = self.paths()["wheel"]
        return {"PYTHONPATH": str(w), "TCL_LIBRARY": str(w / "library"), "PYTHONNOUSERSITE": "1"}

    def ro(self) -> list:
        """What the sandbox must see read-only besides the venv: the unpacked wheel and glibc."""
        return [self.paths()["home"]]

    def script_cmd(self, script: str, config: str) -> list:
        return self.argv(script, config)

    @functools.cache
    def version(self) -> str:
        try:
            p = self.paths()
        except ToolMissing:
            return "missing"
        code = "import openroad; print(openroad.openroad_version(), openroad.openroad_git_describe())"
        try:
            out = _probe_argv(["env", *[f"{k}={v}" for k, v in self.env().items()], *self.argv("-c", code)])
        except Exception as e:   # a version is information, never fatal
            return f"unknown ({e.__class__.__name__})"
        libc = (p["home"] / "glibc" / "VERSION")
        libc = libc.read_text().strip() if libc.is_file() else "?"
        return f"OpenROAD {(out.strip().splitlines() or ['?'])[-1]} (openroad==0.0.1 wheel; {libc})"


OPENROAD = OpenRoad()
