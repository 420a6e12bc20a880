"""Run EDA tools on untrusted input: own temp dir, rlimits, wall timeout, output cap.

Every tool process goes through `run`. Candidate sources go through `screen`
before any tool sees them.
"""
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .hdl import STRING_RE, module_names, strip_comments


@dataclass
class Limits:
    wall_s: float = 60.0
    cpu_s: int = 120
    mem_mb: int = 4096          # address space per process
    out_mb: int = 64            # largest file a process may write (incl. its stdout log)
    nproc: int | None = None


@dataclass
class RunResult:
    cmd: list
    rc: int | None
    out: str                    # stdout+stderr interleaved, capped
    seconds: float
    timed_out: bool = False
    limit: str | None = None    # which limit stopped it: wall, cpu, memory, output

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.timed_out


MAX_KEEP = 200_000  # characters of output kept for reports


def _preexec(lim: Limits):
    def f():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (lim.cpu_s, lim.cpu_s + 5))
        mem = lim.mem_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        fs = lim.out_mb * 2**20
        resource.setrlimit(resource.RLIMIT_FSIZE, (fs, fs))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return f


def run(cmd, cwd, limits: Limits | None = None, env: dict | None = None, stdin_text: str | None = None) -> RunResult:
    """Run `cmd` in `cwd` under `limits`; never raises for tool failures."""
    lim = limits or Limits()
    cwd = Path(cwd)
    log = cwd / f".run_{os.getpid()}_{time.monotonic_ns()}.log"
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), "LANG": "C.UTF-8",
                "TMPDIR": str(cwd)}
    for k in ("VERILATOR_ROOT", "PYTHONPATH"):
        if k in os.environ:
            full_env[k] = os.environ[k]
    full_env.update(env or {})
    t0 = time.monotonic()
    timed_out = False
    with open(log, "wb") as fh:
        try:
            p = subprocess.Popen([str(c) for c in cmd], cwd=cwd, stdout=fh, stderr=subprocess.STDOUT,
                                 stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                                 env=full_env, preexec_fn=_preexec(lim))
        except OSError as e:
            return RunResult(list(cmd), None, f"cannot start {cmd[0]}: {e}", 0.0, limit="start")
        try:
            p.communicate(stdin_text.encode() if stdin_text is not None else None, timeout=lim.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(p)
    secs = time.monotonic() - t0
    raw = log.read_bytes()
    log.unlink(missing_ok=True)
    out = raw.decode("utf-8", "replace")
    if len(out) > MAX_KEEP:
        out = out[:MAX_KEEP // 2] + "\n...[output cut]...\n" + out[-MAX_KEEP // 2:]
    rc = p.returncode
    limit = "wall" if timed_out else _which_limit(rc, out, len(raw), lim)
    return RunResult(list(cmd), rc, out, secs, timed_out, limit)


def _kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def _which_limit(rc, out, nbytes, lim: Limits):
    if rc is None or rc == 0:
        return None
    if rc == -signal.SIGXCPU:
        return "cpu"
    if rc == -signal.SIGXFSZ or nbytes >= lim.out_mb * 2**20:
        return "output"
    low = out.lower()
    if ("bad_alloc" in low or "out of memory" in low or "cannot allocate" in low
            or "memory exhausted" in low or rc == -signal.SIGSEGV and "alloc" in low):
        return "memory"
    return None


class Sandbox:
    """A private temp dir; removed on exit unless `keep`."""

    def __init__(self, prefix="rtla-", keep=False):
        self.path = Path(tempfile.mkdtemp(prefix=prefix))
        self.keep = keep

    def write(self, name: str, text: str | bytes) -> Path:
        p = self.path / Path(name).name
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
        return p

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.keep:
            shutil.rmtree(self.path, ignore_errors=True)


# ---- source screening -------------------------------------------------------

FORBIDDEN_TASKS = ("system", "fopen", "fclose", "fdisplay", "fwrite", "fstrobe", "fmonitor", "fscanf",
                   "fgets", "fgetc", "fread", "fflush", "fseek", "rewind", "ungetc", "readmemh", "readmemb",
                   "writememh", "writememb", "dumpfile", "dumpvars", "dumpall", "dumpon", "dumpoff",
                   "dumpports", "dumplimit", "dumpflush", "sdf_annotate", "save", "restart", "incsave")
_TASK_RE = re.compile(r"\$(" + "|".join(FORBIDDEN_TASKS) + r")\b")
_DPI_RE = re.compile(r"\b(import|export)\s+\"DPI(-C)?\"")
# Verilator pastes these into the generated C++: arbitrary code execution at simulation time
_CPP_RE = re.compile(r"\$c(?:pure|\d+)?\s*\(|`systemc_\w+|`verilator_config")
_INCLUDE_RE = re.compile(r"`include\s+[\"<]([^\">]*)[\">]")
_PASS_RE = re.compile(r"pass(ed)?\b|failures?\b", re.I)


def screen(text: str, name: str = "candidate.v", max_bytes: int = 2_000_000,
           allow_verdict_strings: bool = False) -> list[str]:
    """Reasons to refuse a candidate source before any tool runs (empty list: accepted).

    `allow_verdict_strings`: a stimulus (eda/stimulus.py) may print "passed"/"failed";
    only candidate RTL is refused for imitating a testbench verdict."""
    if len(text.encode()) > max_bytes:
        return [f"{name}: {len(text.encode())} bytes is over the {max_bytes}-byte limit"]
    if not text.strip():
        return [f"{name}: empty source"]
    code = strip_comments(text)
    reasons = []

    def line_of(pos):
        return code.count("\n", 0, pos) + 1
    for m in _TASK_RE.finditer(code):
        reasons.append(f"{name}:{line_of(m.start())}: system task ${m.group(1)} is not allowed in a candidate (file/OS access)")
    for m in _DPI_RE.finditer(code):
        reasons.append(f"{name}:{line_of(m.start())}: DPI import/export is not allowed in a candidate")
    for m in _CPP_RE.finditer(code):
        reasons.append(f"{name}:{line_of(m.start())}: embedded C++ ({m.group(0).rstrip('(').strip()}) is not allowed")
    for m in _INCLUDE_RE.finditer(code):
        inc = m.group(1)
        if inc.startswith("/") or ".." in Path(inc).parts or inc.startswith("~"):
            reasons.append(f"{name}:{line_of(m.start())}: `include \"{inc}\" points outside the candidate's folder")
    for m in ([] if allow_verdict_strings else STRING_RE.finditer(code)):
        if _PASS_RE.search(m.group(0)):
            reasons.append(f"{name}:{line_of(m.start())}: string {m.group(0)[:60]} imitates a testbench verdict")
    if not module_names(text) and not reasons:
        reasons.append(f"{name}: no module declaration found")
    return reasons
