"""`yosys` for the pyosys wheel (Yosys 0.70 as a Python extension, no executable): the part of the
yosys command line the adapters use, run as `python yosys_main.py ARGS` (inside the sandbox too, so
it imports only the standard library and pyosys, never `eda`).

    -V          print the version line
    -q          quiet: only warnings and errors, on stderr (as `yosys -q`)
    -l LOG      the full log in LOG
    -s SCRIPT   run a script file
    -p CMDS     run `;`-separated commands (repeatable; after -s, as yosys does)

A Yosys error ends its process from inside the library (exit status 1, no exception), so libyosys
runs in a forked child (this parent never imports pyosys) under `tee -q -a /dev/fd/W`: the whole log
comes through a pipe to the parent, which writes it to stdout (or, with -q, the warning and error
lines to stderr) and to LOG, then exits as the child did (its status, or its signal). The error
text of a command inside a `tee -q` of the script goes only to that tee's file (libyosys has no
error stream of its own); the parent then takes it from there."""
import os
import re
import shlex
import signal
import sys
import time
import traceback

USAGE = "usage: yosys_main.py [-V] [-q] [-l LOG] [-s SCRIPT] [-p COMMANDS]..."
_MSG = re.compile(rb"^(?:[^\s:]+:\d+[\d.\-]*:\s*)?(ERROR|Warning):")


def _args(argv: list) -> dict:
    a = {"version": False, "quiet": False, "log": None, "script": None, "commands": []}
    it = iter(argv)
    for x in it:
        if x in ("-V", "-q"):
            a["version" if x == "-V" else "quiet"] = True
        elif x in ("-l", "-s", "-p"):
            v = next(it, None)
            if v is None:
                raise SystemExit(f"yosys_main: option {x} needs an argument\n{USAGE}")
            if x == "-p":
                a["commands"].append(v)
            else:
                a["log" if x == "-l" else "script"] = v
        else:
            raise SystemExit(f"yosys_main: unknown argument '{x}'\n{USAGE}")
    if not a["version"] and not a["script"] and not a["commands"]:
        raise SystemExit(f"yosys_main: nothing to run (no -s or -p)\n{USAGE}")
    return a


def _child(runs: list, w: int):
    """In the forked child: each script under `tee -q -a /dev/fd/W`; never returns."""
    try:
        from pyosys import libyosys as ys
        design = ys.Design()
        for path in runs:
            ys.Pass.call(design, ["tee", "-q", "-a", f"/dev/fd/{w}", "script", path])
        sys.stdout.flush()
        os._exit(0)
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)


def _commands_file(commands: list) -> str:
    """The -p commands as a script the child can read (`tee` wraps only one `;`-separated command)."""
    fd = os.memfd_create("yosys-p")
    os.write(fd, ("\n".join(commands) + "\n").encode())
    return f"/dev/fd/{fd}"


class _Out:
    """Where each log line goes: everything to LOG; without -q everything to stdout but the error
    (stderr, as yosys does); with -q only warnings (and their indented continuation lines) and the
    error (from its first line to the end) to stderr."""

    def __init__(self, quiet: bool, log):
        self.quiet, self.log, self.state, self.errors, self.part = quiet, log, None, 0, b""

    def feed(self, data: bytes, final=False):
        lines = (self.part + data).split(b"\n")
        self.part = lines.pop()                     # the unfinished last line
        for ln in lines:
            self.line(ln + b"\n")
        if final and self.part:
            self.line(self.part)
            self.part = b""
        sys.stdout.buffer.flush()
        sys.stderr.buffer.flush()
        if self.log:
            self.log.flush()

    def line(self, ln: bytes):
        if self.log:
            self.log.write(ln)
        m = _MSG.match(ln)
        if self.state != "error":
            self.state = m.group(1).decode().lower() if m else (
                "warning" if self.state == "warning" and ln[:1] in (b" ", b"\t") and ln.strip() else None)
        self.errors += self.state == "error"
        if self.state == "error":
            sys.stderr.buffer.write(ln)
        elif self.state == "warning" and self.quiet:
            sys.stderr.buffer.write(ln)
        elif not self.quiet:
            sys.stdout.buffer.write(ln)


def _quiet_tee_files(texts: list) -> list:
    """Files the scripts' `tee -q -o/-a FILE` commands write (where an error inside them goes)."""
    out = []
    for text in texts:
        for cmd in re.split(r"[;\n]", text):
            try:
                t = shlex.split(cmd, comments=True)
            except ValueError:
                continue
            if t[:1] != ["tee"] or "-q" not in t:
                continue
            out += [t[i + 1] for i in range(1, len(t) - 1) if t[i] in ("-o", "-a") and t[i] != t[i + 1]]
    return out


def _lost_error(texts: list, t0: float) -> bytes:
    """The error of a failed run that went to a `tee -q` file written during the run."""
    for f in _quiet_tee_files(texts):
        try:
            if os.path.getmtime(f) < t0 - 1:
                continue
            with open(f, "rb") as fh:
                lines = fh.read()[-20000:].split(b"\n")
        except OSError:
            continue
        k = next((i for i in range(len(lines) - 1, -1, -1) if _MSG.match(lines[i]) and b"ERROR" in lines[i]), None)
        if k is not None:
            return b"\n".join(lines[k:]).rstrip(b"\n") + b"\n"
    return b""


def _script_texts(a: dict) -> list:
    texts = list(a["commands"])
    if a["script"]:
        try:
            with open(a["script"], errors="replace") as fh:
                texts.append(fh.read())
        except OSError:
            pass
    return texts


def _forward(pid: int):
    def f(sig, frame):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, f)


def _exit_as(status: int):
    sys.stdout.flush()
    sys.stderr.flush()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(argv: list) -> int:
    a = _args(argv)
    if a["version"]:
        from pyosys import libyosys as ys     # no child: a version probe cannot fail midway
        print(ys.yosys_maybe_version(), flush=True)
        return 0
    runs = ([a["script"]] if a["script"] else []) + ([_commands_file(a["commands"])] if a["commands"] else [])
    log = open(a["log"], "wb") if a["log"] else None
    out = _Out(a["quiet"], log)
    r, w = os.pipe()
    t0 = time.time()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(runs, w)
    os.close(w)
    _forward(pid)
    while True:
        data = os.read(r, 1 << 16)
        if not data:
            break
        out.feed(data)
    out.feed(b"", final=True)
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) != 0 and not out.errors:
        lost = _lost_error(_script_texts(a), t0)
        if lost:
            out.state = None
            for ln in lost.splitlines(keepends=True):
                out.line(ln)
            out.feed(b"", final=True)
    if log:
        log.close()
    _exit_as(status)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
