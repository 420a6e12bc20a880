"""Code coverage of a DUT under a stimulus, with Verilator 5 (`--coverage`).

    r = coverage_run({"dut.v": text}, "counter", stimulus_text)        # one stimulus
    db = merge([r1, r2, ...])                                           # sum counts per point
    db.summary()            # {"line": (covered, total), "branch": ..., "toggle": ..., "expr": ..., "user": ...}
    db.uncovered(["line", "branch"])   # Points, each with .source (the DUT line) for prompts
    db.to_lcov(); db.annotate(); db.write_html(path)

What is a point: one record of Verilator's coverage.dat (format below) whose file is a DUT
source. Types are Verilator's: line (a block of statements; `S` lists its lines), branch
(if/else/case arm), toggle (each bit, 0->1 and 1->0 separately), expr (one term assignment of
a condition), user (`cover property`); fsm_state and fsm_arc come from eda.fsm (Verilator's FSM coverage is off,
see eda/tools/verilator.py), only when `fsms` are given. $stop and $fatal end
the run with coverage written, like $finish (`eda.stimulus.harness`; stopped_by "stop").
A point is covered when its count >= 1 (verilator_coverage's annotate threshold is 10; we
report reached-at-all, which is what a closure loop chases).

coverage.dat: `# SystemC::Coverage-3` then lines `C '<\\1key\\2value...>' <count>`,
keys f file, l line, n column, t type, page v_<type>/<module>, o comment, h hierarchy,
S lines covered by a line point. Only the DUT is instrumented: stimulus and harness files
are wrapped in `/*verilator coverage_off*/`, and points outside DUT files are dropped.

Build cost: a Verilator build compiles its runtime (verilated*.cpp, ~10 s on 2 cores) and the
model (~1.5 s). The runtime objects depend only on Verilator, the compiler and the flags, so
they are built once and kept under `eda.config.cache_dir()/verilator-rt/<key>`; every later
stimulus pays ~2 s (verilate + model compile + link), see `CoverageResult.build_s`.
"""
import hashlib
import html
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import sandbox, stimulus as stim
from .hdl import detect_clock_reset, module_names, safe_name
from .config import cache_dir
from .coverage_point import Point
from .report import Diagnostic, StageResult, parse_diagnostics
from .screen import screen
from .tools import VERILATOR, setup_env, verilator_root

TYPES = ("line", "branch", "expr", "toggle", "user", "fsm_state", "fsm_arc")
STIM_FILE = "stimulus.sv"
HARNESS_FILE = "rtla_harness.sv"


@dataclass
class CoverageLimits:
    build: sandbox.Limits = field(default_factory=lambda: sandbox.Limits(wall_s=180, cpu_s=300, mem_mb=6144, out_mb=256))
    run: sandbox.Limits = field(default_factory=lambda: sandbox.Limits(wall_s=30, cpu_s=30, mem_mb=2048, out_mb=32))
    max_time_ns: int = 1_000_000      # simulated-time limit (harness); 100k cycles of a 10 ns clock


def _lines_spec(spec: str, default: int) -> tuple:
    """Verilator's S value, e.g. "3,6" or "6-8" -> (3, 6) / (6, 7, 8)."""
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        if a.strip().isdigit():
            lo = int(a)
            hi = int(b) if b.strip().isdigit() else lo
            out.extend(range(lo, min(hi, lo + 10000) + 1))
    return tuple(out) or (default,)


def _norm_hier(h: str) -> str:
    """Hierarchy relative to the DUT instance, so points of different stimuli share keys."""
    m = re.search(r"(?:^|\.)(uut(?:\..*)?)$", h)
    if m:
        return m.group(1)
    return h[len(stim.HARNESS) + 1:] if h.startswith(stim.HARNESS + ".") else h


def parse_coverage_dat(text: str, files=None) -> list:
    """Points of a coverage.dat; `files` (basenames) keeps only points in those files.
    Records with the same key (as verilator_coverage does) are summed into one point."""
    pts, seen = [], {}
    for raw in text.splitlines():
        if not raw.startswith("C '"):
            continue
        body, _, cnt = raw[3:].rpartition("' ")
        if not cnt.strip().isdigit():
            continue
        kv = {}
        for item in body.split("\x01"):
            k, sep, v = item.partition("\x02")
            if sep:
                kv[k] = v
        f = kv.get("f", "")
        if files is not None and Path(f).name not in files:
            continue
        page = kv.get("page", "")
        typ = kv.get("t") or page.split("/", 1)[0].removeprefix("v_")
        module = page.split("/", 1)[1] if "/" in page else ""
        line = int(kv["l"]) if kv.get("l", "").isdigit() else 0
        hier = _norm_hier(kv.get("h", ""))
        kv_norm = dict(kv, h=hier)
        key = "\x01".join(f"{k}\x02{kv_norm[k]}" for k in sorted(kv_norm))
        if key in seen:
            seen[key].count += int(cnt)
            continue
        pts.append(Point(Path(f).name, line, typ, module, hier, kv.get("o", ""), int(cnt),
                         int(kv["n"]) if kv.get("n", "").isdigit() else 0,
                         _lines_spec(kv["S"], line) if "S" in kv else (line,), key))
        seen[key] = pts[-1]
    return pts


# ---- results and the merged database ------------------------------------------

@dataclass
class CoverageResult:
    status: str                    # pass | error (does not build) | rejected | timeout | fail (no coverage written)
    diagnostics: list = field(default_factory=list)     # list[Diagnostic]
    points: list = field(default_factory=list)          # list[Point] of the DUT
    summary: dict = field(default_factory=dict)         # type -> (covered, total)
    seconds: float = 0.0
    build_s: float = 0.0
    run_s: float = 0.0
    sources: dict = field(default_factory=dict)         # DUT file -> text (for annotation)
    log: str = ""
    data: dict = field(default_factory=dict)            # stopped_by, runtime_cached, tb, form

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    def db(self) -> "CoverageDB":
        return merge([self])

    def to_stage(self) -> StageResult:
        d = dict(self.data, summary={k: list(v) for k, v in self.summary.items()},
                 build_s=round(self.build_s, 3), run_s=round(self.run_s, 3), points=len(self.points))
        return StageResult("coverage", self.status, self.seconds, "verilator", VERILATOR.version(),
                           list(self.diagnostics), d, self.log[-4000:])


def _summarize(points, by=lambda p: p.type) -> dict:
    out = {}
    for p in points:
        c, t = out.get(by(p), (0, 0))
        out[by(p)] = (c + (p.count > 0), t + 1)
    return dict(sorted(out.items(), key=lambda kv: (TYPES.index(kv[0]) if kv[0] in TYPES else 99, str(kv[0]))))


def pct(ct) -> float:
    c, t = ct
    return 100.0 * c / t if t else 0.0


class CoverageDB:
    """Points of one DUT from one or more runs; counts of the same point (key) are summed."""

    def __init__(self, sources: dict | None = None):
        self.points: dict = {}     # key -> Point
        self.sources: dict = dict(sources or {})
        self.runs = 0

    def add(self, points, sources: dict | None = None):
        for p in points:
            q = self.points.get(p.key)
            if q is None:
                self.points[p.key] = Point(**{**p.__dict__})
            else:
                q.count += p.count
        self.sources.update(sources or {})
        self.runs += 1
        return self

    def _src(self, file, line) -> str:
        text = self.sources.get(file)
        if text is None:
            return ""
        lines = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def all(self, types=None) -> list:
        pts = [p for p in self.points.values() if types is None or p.type in types]
        for p in pts:
            p.source = self._src(p.file, p.line)
        return sorted(pts, key=lambda p: (p.file, p.line, p.column, TYPES.index(p.type) if p.type in TYPES else 99, p.comment))

    def uncovered(self, types=None) -> list:
        """Points never reached, with their source line, in file/line order."""
        return [p for p in self.all(types) if p.count == 0]

    def summary(self, by: str = "type") -> dict:
        """type -> (covered, total); by="module": (module, type) -> (covered, total)."""
        if by == "module":
            return _summarize(self.points.values(), lambda p: (p.module, p.type))
        return _summarize(self.points.values())

    def percent(self, types=None) -> float:
        pts = [p for p in self.points.values() if types is None or p.type in types]
        return pct((sum(p.count > 0 for p in pts), len(pts)))

    def line_counts(self, file: str) -> dict:
        """line -> smallest count of the non-toggle points on it (0: something there was never reached).
        Toggles are left out: they sit on declarations and would mark most of them."""
        out = {}
        for p in self.points.values():
            if p.file != file or p.type == "toggle":
                continue
            for ln in (p.lines if p.type == "line" else (p.line,)):
                out[ln] = min(out.get(ln, p.count), p.count)
        return out

    def annotate(self, file: str | None = None) -> str:
        """The DUT source with a count column; `%000000` (Verilator's style) marks uncovered lines."""
        files = [file] if file else sorted(self.sources)
        out = []
        for f in files:
            counts = self.line_counts(f)
            out.append(f"// ---- {f}")
            for i, text in enumerate(self.sources.get(f, "").splitlines(), 1):
                if i in counts:
                    mark = f"%{counts[i]:06d}" if counts[i] == 0 else f" {min(counts[i], 999999):06d}"
                else:
                    mark = " " * 7
                out.append(f"{mark} {text}")
        return "\n".join(out) + "\n"

    def to_lcov(self, test_name: str = "rtla") -> str:
        """lcov .info: line points -> DA (per line of the block), branch and expr points -> BRDA."""
        out = [f"TN:{test_name}"]
        files = sorted({p.file for p in self.points.values()})
        for f in files:
            out.append(f"SF:{f}")
            lines = {}
            for p in self.points.values():
                if p.file == f and p.type == "line":
                    for ln in p.lines:
                        lines[ln] = max(lines.get(ln, 0), p.count)
            brs = sorted((p for p in self.points.values() if p.file == f and p.type in ("branch", "expr")),
                         key=lambda p: (p.line, p.column, p.comment))
            per_line = {}
            for p in brs:
                i = per_line.get(p.line, 0)
                per_line[p.line] = i + 1
                out.append(f"BRDA:{p.line},{p.column},{i},{p.count if p.count else '-'}")
            out.append(f"BRF:{len(brs)}")
            out.append(f"BRH:{sum(p.count > 0 for p in brs)}")
            for ln in sorted(lines):
                out.append(f"DA:{ln},{lines[ln]}")
            out.append(f"LF:{len(lines)}")
            out.append(f"LH:{sum(c > 0 for c in lines.values())}")
            out.append("end_of_record")
        return "\n".join(out) + "\n"

    def html(self, title: str = "coverage", closed_by: dict | None = None) -> str:
        """A static page: per-type and per-module tables, then the annotated source. closed_by (point
        key -> who reached it first, e.g. "model (sim 9)") adds a table of those points and marks their
        lines blue; every other covered point is the random stimulus's."""
        e = html.escape
        closed_by = closed_by or {}
        closed_lines = {(p.file, ln) for p in self.points.values() if p.key in closed_by and p.type != "toggle"
                        for ln in (p.lines if p.type == "line" else (p.line,))}
        crows = "".join(f"<tr><td>{e(p.describe())}</td><td>{e(closed_by[p.key])}</td></tr>"
                        for p in self.all() if p.key in closed_by)
        rows = "".join(f"<tr><td>{e(t)}</td><td>{c}</td><td>{n}</td><td>{pct((c, n)):.1f}%</td></tr>"
                       for t, (c, n) in self.summary().items())
        mrows = "".join(f"<tr><td>{e(m)}</td><td>{e(t)}</td><td>{c}</td><td>{n}</td><td>{pct((c, n)):.1f}%</td></tr>"
                        for (m, t), (c, n) in self.summary("module").items())
        src = []
        for f in sorted(self.sources):
            counts = self.line_counts(f)
            src.append(f"<h3>{e(f)}</h3><pre>")
            for i, text in enumerate(self.sources[f].splitlines(), 1):
                c = counts.get(i)
                cls = "" if c is None else (" class=miss" if c == 0 else
                                            " class=model" if (f, i) in closed_lines else " class=hit")
                cnt = "" if c is None else str(c)
                src.append(f"<span{cls}>{i:5d} {cnt:>8} {e(text)}</span>")
            src.append("</pre>")
        unc = "".join(f"<li>{e(p.describe())}</li>" for p in self.uncovered())
        return (f"<!doctype html><html><head><meta charset=utf-8><title>{e(title)}</title><style>"
                "body{font-family:sans-serif} table{border-collapse:collapse} td,th{border:1px solid #999;padding:2px 8px}"
                "pre span{display:block;font-family:monospace} .miss{background:#fbb} .hit{background:#dfd} .model{background:#cdf}"
                f"</style></head><body><h1>{e(title)}</h1><p>{self.runs} run(s), {len(self.points)} points</p>"
                f"<h2>By type</h2><table><tr><th>type</th><th>covered</th><th>total</th><th>%</th></tr>{rows}</table>"
                f"<h2>By module</h2><table><tr><th>module</th><th>type</th><th>covered</th><th>total</th><th>%</th></tr>{mrows}</table>"
                + (f"<h2>Closed by the model ({len(closed_by)} points; blue lines)</h2><table><tr><th>point</th>"
                   f"<th>first reached by</th></tr>{crows}</table>" if closed_by else "")
                + f"<h2>Uncovered points</h2><ul>{unc}</ul><h2>Source</h2>{''.join(src)}</body></html>\n")

    def write_html(self, path, title: str = "coverage", closed_by: dict | None = None) -> Path:
        path = Path(path)
        path.write_text(self.html(title, closed_by))
        return path


def merge(results) -> CoverageDB:
    """Sum the counts of every point over `results` (CoverageResults or CoverageDBs); failed runs add nothing."""
    db = CoverageDB()
    for r in results:
        if isinstance(r, CoverageDB):
            db.add(r.points.values(), r.sources)
            db.runs += r.runs - 1
        elif r.status == "pass":
            db.add(r.points, r.sources)
        else:
            db.sources.update(r.sources)
    return db


# ---- building and running ------------------------------------------------------

def _runtime_key() -> str:
    parts = [VERILATOR.version(), str(verilator_root()), VERILATOR.cxx_version()] + VERILATOR.coverage_flags()
    h = hashlib.sha256("\0".join(parts).encode())
    return h.hexdigest()[:16]


def _runtime_dir() -> Path:
    return cache_dir() / "verilator-rt" / _runtime_key()


def _restore_runtime(obj: Path) -> bool:
    """Copy cached verilated*.o/.d into obj_dir, newer than their sources, so make skips them."""
    d = _runtime_dir()
    if not (d / "complete").exists():
        return False
    now = time.time()
    for f in d.glob("verilated*"):
        shutil.copy2(f, obj / f.name)
        os.utime(obj / f.name, (now, now))
    return True


def _save_runtime(obj: Path):
    d = _runtime_dir()
    if (d / "complete").exists():
        return
    files = list(obj.glob("verilated*.o")) + list(obj.glob("verilated*.d"))
    if not files:
        return
    d.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=d.parent))
    for f in files:
        shutil.copy2(f, tmp / f.name)
    (tmp / "complete").write_text("ok\n")
    try:
        tmp.rename(d)          # atomic: a concurrent builder either wins or leaves ours
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


_SVA_RE = re.compile(r"^[^\n;]*\b(cover|assert|assume)\s+property\b[^;]*;", re.M)


def _diags(out: str, line_offset: int) -> list:
    ds = parse_diagnostics(out)
    for d in ds:      # body-form lines are shifted by the generated header
        if d.file == STIM_FILE and d.line and line_offset:
            d.line = max(1, d.line - line_offset)
    return ds


_Z_VALUE = re.compile(r"(\d*\s*'[sS]?[bBoOhH]\s*)([zZ]+)(?=\s*;)")
_TRISTATE = re.compile(r"\b(inout|tri|tri0|tri1|triand|trior|wand|wor|trireg)\b")


def two_state(text: str) -> str:
    """The DUT as Verilator's coverage build reads it: without an inout port or a tri/wired net, an all-`z`
    value that ends an assignment (`res <= 32'bz;`, `... : 1'bz;`) is read as `x` (same columns, so coverage
    lines stay; casez labels and other literals are untouched). Why: Verilator 5.48's tristate conversion
    mis-simulates a register assigned `'bz` in an always block (it keeps its first value: RTLLM alu's
    `default: res <= 32'bz`), unlike Icarus; with `x` (and --x-assign 0) it matches Icarus on every other
    value and the formal model's zero for undefined bits."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    if _TRISTATE.search(code):
        return text
    return _Z_VALUE.sub(lambda m: m.group(1) + "x" * len(m.group(2)), text)


def _names(dut_sources: dict) -> dict:
    """DUT file name -> name used in the sandbox (basenames, made unique)."""
    out, used = {}, {STIM_FILE, HARNESS_FILE}
    for name in dut_sources:
        base = safe_name(name, "dut.v")
        b, n = base, 1
        while b in used:
            b = f"{n}_{base}"
            n += 1
        used.add(b)
        out[name] = b
    return out


def coverage_run(dut_sources: dict, top: str, stimulus: str, workdir=None, limits: CoverageLimits | None = None,
                 ports=None, clock: str | None = None, period_ns: float = 10.0, keep: bool = False,
                 plusargs=(), fsms=None) -> CoverageResult:
    """Build DUT + stimulus with Verilator coverage, run it, return the DUT's points.

    A stimulus that is refused, does not compile, or crashes is a verdict (status rejected/
    error/fail/timeout with diagnostics), never an exception. `ports`/`clock` are only needed for a
    body-form stimulus (parsed from the DUT with eda.ports when omitted). `workdir`: build there
    (kept) instead of a temp dir. `plusargs`: passed to the simulation (e.g. ["+seed=3"]). `fsms`
    (eda.fsm.extract, with `clock`): also fsm_state / fsm_arc points."""
    return coverage_runs(dut_sources, top, stimulus, [list(plusargs)], workdir, limits, ports, clock, period_ns, keep,
                         fsms)[0]


def coverage_runs(dut_sources: dict, top: str, stimulus: str, runs, workdir=None, limits: CoverageLimits | None = None,
                  ports=None, clock: str | None = None, period_ns: float = 10.0, keep: bool = False,
                  fsms=None) -> list:
    """One build, one run per entry of `runs` (a list of plusarg lists): the cheap way to sweep a
    stimulus that reads `$value$plusargs` (e.g. a seed). Returns one CoverageResult per run; the
    build time is charged to the first. A build failure is returned for every run."""
    lim = limits or CoverageLimits()
    runs = [list(r) for r in runs] or [[]]
    t0 = time.monotonic()
    names = _names(dut_sources)
    sources = {names[k]: v for k, v in dut_sources.items()}

    def verdict(status, diags, **kw):
        kw.setdefault("seconds", time.monotonic() - t0)
        return CoverageResult(status, [d if isinstance(d, Diagnostic) else Diagnostic(str(d), STIM_FILE) for d in diags],
                              sources=sources, **kw)

    def every(res):
        return [res] * len(runs)

    if not isinstance(stimulus, str) or not stimulus.strip():
        return every(verdict("rejected", ["empty stimulus"]))
    dut_mods = [m for t in sources.values() for m in module_names(t)]
    if top not in dut_mods:
        return every(verdict("error", [Diagnostic(f"DUT top '{top}' is not defined in {', '.join(sources) or 'the DUT sources'}")]))
    reasons = []
    for n, t in sources.items():
        reasons += screen(t, n, allow_verdict_strings=True)
    reasons += stim.screen_stimulus(stimulus, STIM_FILE, dut_mods)
    bad_args = [a for r in runs for a in r if not re.fullmatch(r"\+[\w.=+-]{1,200}", str(a)) or "verilator" in str(a)]
    if bad_args:
        reasons.append(f"plusargs must be +name=value without +verilator options: {bad_args[:3]}")
    if reasons:
        return every(verdict("rejected", [Diagnostic(r, STIM_FILE if r.startswith(STIM_FILE) else None) for r in reasons]))
    try:
        if not module_names(stimulus) and ports is None:
            from .ports import PortError, parse_ports
            try:
                # Yosys 0.23 (eda.ports) does not parse concurrent assertions; ports do not need them
                ports = parse_ports({n: _SVA_RE.sub("", t) for n, t in sources.items()}, top)
            except PortError as e:
                return every(verdict("error", [Diagnostic(f"cannot read the DUT's ports to wrap a body stimulus: {e}")]))
            if clock is None:
                clock = detect_clock_reset(ports, "\n".join(sources.values()))[0]
        prep = stim.prepare(stimulus, top, ports, clock, period_ns)
    except stim.StimulusError as e:
        return every(verdict("error", [Diagnostic(str(e), STIM_FILE)]))

    box = None if workdir else sandbox.Sandbox(prefix="rtla-cov-", keep=keep)
    wd = Path(workdir) if workdir else box.path
    wd.mkdir(parents=True, exist_ok=True)
    try:
        fsms = list(fsms or []) if clock else []      # the monitor samples at the DUT's clock
        failed, build_s, data, blog = _build(wd, sources, prep, lim, t0, verdict, fsms, clock)
        if failed is not None:
            return every(failed)
        out = []
        for i, args in enumerate(runs):
            t1 = time.monotonic()
            r = _run(wd, sources, prep, lim, args, dict(data), verdict, fsms)
            r.build_s = build_s if i == 0 else 0.0
            r.seconds = (time.monotonic() - t0) if i == 0 else time.monotonic() - t1
            out.append(r)
        return out
    finally:
        if box is not None:
            box.__exit__(None, None, None)


def _build(wd: Path, sources, prep, lim, t0, verdict, fsms=(), clock=None):
    """(failure verdict or None, build seconds, data, log)."""
    from .fsm import monitor
    off, on = "/*verilator coverage_off*/\n", "\n/*verilator coverage_on*/\n"
    # the stimulus keeps its own line numbers: coverage_off shares its first line
    (wd / STIM_FILE).write_text(off.rstrip("\n") + " " + prep.text + on)
    (wd / HARNESS_FILE).write_text(off + stim.harness(prep.tb, lim.max_time_ns, monitor(fsms, clock) if fsms else "") + on)
    for n, t in sources.items():
        (wd / n).write_text(two_state(t))
    obj = wd / "obj_dir"
    shutil.rmtree(obj, ignore_errors=True)
    setup_env()
    files = [HARNESS_FILE, STIM_FILE] + list(sources)
    r = sandbox.run(VERILATOR.coverage_cmd(files, stim.HARNESS), wd, lim.build)
    data = {"tb": prep.tb, "form": prep.form}
    if not r.ok or not (obj / "Vsim.mk").exists():
        st = "timeout" if r.timed_out else "error"
        ds = _diags(r.out, prep.line_offset) or [Diagnostic(f"verilator failed (rc {r.rc}, limit {r.limit})")]
        return verdict(st, ds, build_s=time.monotonic() - t0, log=r.out[-8000:], data=data), 0.0, data, r.out
    try:
        data["runtime_cached"] = _restore_runtime(obj)
    except OSError:              # an unusable cache only costs time
        data["runtime_cached"] = False
    m = sandbox.run(VERILATOR.make_cmd(), wd, lim.build)
    build_s = time.monotonic() - t0
    if not m.ok or not (obj / "Vsim").exists():
        st = "timeout" if m.timed_out else "error"
        ds = _diags(m.out, prep.line_offset) or [Diagnostic(f"C++ build of the model failed (rc {m.rc}, limit {m.limit}): "
                                                            + m.out.strip()[-300:])]
        return verdict(st, ds, build_s=build_s, log=(r.out + m.out)[-8000:], data=data), build_s, data, m.out
    if not data["runtime_cached"]:
        try:
            _save_runtime(obj)
        except OSError:
            pass
    return None, build_s, data, r.out + m.out


def _run(wd: Path, sources, prep, lim, plusargs, data, verdict, fsms=()) -> CoverageResult:
    dat = wd / "coverage.dat"
    dat.unlink(missing_ok=True)
    x = sandbox.run(VERILATOR.coverage_run_cmd("./obj_dir/Vsim", "coverage.dat", plusargs), wd, lim.run)
    run_s = x.seconds
    data["plusargs"] = list(plusargs)
    if stim.TIME_LIMIT_MSG in x.out:
        data["stopped_by"] = "time_limit"
    elif x.timed_out or x.limit:
        data["stopped_by"] = x.limit or "wall"
    else:
        data["stopped_by"] = ("finish" if "$finish" in x.out else "stop" if "Verilog $stop" in x.out
                              else f"exit {x.rc}")
    log = x.out[-8000:]
    if not dat.exists():
        st = "timeout" if x.timed_out or x.limit in ("cpu", "wall") else "fail"
        why = (f"simulation stopped by the {x.limit} limit before writing coverage" if x.limit
               else f"simulation ended (rc {x.rc}) without writing coverage (e.g. $stop, $fatal or a crash)")
        return verdict(st, [Diagnostic(why, STIM_FILE)] + _diags(x.out, prep.line_offset), run_s=run_s, log=log, data=data)
    pts = parse_coverage_dat(dat.read_text(errors="replace"), set(sources))
    if fsms:
        from .fsm import points
        pts += points(fsms, x.out)
    diags = []
    if data["stopped_by"] == "time_limit":
        diags.append(Diagnostic(f"stimulus did not call $finish within {lim.max_time_ns} ns; stopped there",
                                STIM_FILE, severity="warning"))
    return verdict("pass", diags, points=pts, summary=_summarize(pts), run_s=run_s, log=log, data=data)


# ---- cocotb stimulus -------------------------------------------------------------

COCOTB_MODULE = "test_rtla_stim"


def is_cocotb(text: str) -> bool:
    """Whether a stimulus is a cocotb coroutine (Python defining `async def stimulus(dut)`)."""
    return bool(re.search(r"^async\s+def\s+stimulus\s*\(", text or "", re.M))


def cocotb_module(stimulus: str, clock: str | None, period_ns: float = 10.0) -> str:
    """The cocotb test module around a stimulus that defines `async def stimulus(dut)`: the clock
    started, then the stimulus awaited (it drives `dut.<port>.value`; it never judges)."""
    clk = f"    cocotb.start_soon(Clock(dut.{clock}, {period_ns:g}, unit='ns').start())\n" if clock else ""
    return ("import cocotb\nfrom cocotb.clock import Clock\n"
            "from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge, Timer\n\n"
            + stimulus.rstrip() + "\n\n\n@cocotb.test()\nasync def rtla_cover(dut):\n" + clk + "    await stimulus(dut)\n")


def cocotb_coverage_run(dut_sources: dict, top: str, stimulus: str, clock: str | None = None, period_ns: float = 10.0,
                        limits: CoverageLimits | None = None) -> CoverageResult:
    """Like coverage_run, for a Python (cocotb) stimulus: cocotb's runner builds the DUT as the top with
    Verilator coverage and runs the test, both through `eda.sandbox.run` (the Python is contained like
    every stimulus). Points get the keys of coverage_run's (file basenames, hierarchy from `uut`), so both
    forms merge. No runtime cache here: a build compiles Verilator's runtime (~1 min on 2 busy cores).
    FSM points are not measured in this form."""
    from .cocotb_sim import runner_cmd, runner_env
    lim = limits or CoverageLimits()
    t0 = time.monotonic()
    names = _names(dut_sources)
    sources = {names[k]: v for k, v in dut_sources.items()}

    def verdict(status, diags, **kw):
        kw.setdefault("seconds", time.monotonic() - t0)
        return CoverageResult(status, [d if isinstance(d, Diagnostic) else Diagnostic(str(d), COCOTB_MODULE + ".py")
                                       for d in diags], sources=sources, data={"form": "cocotb"}, **kw)
    if not is_cocotb(stimulus):
        return verdict("error", ["a cocotb stimulus defines `async def stimulus(dut)` at the top level"])
    reasons = [r for n, t in sources.items() for r in screen(t, n, allow_verdict_strings=True)]
    if reasons:
        return verdict("rejected", reasons)
    env = runner_env()
    with sandbox.Sandbox(prefix="rtla-cocotb-cov-") as sb:
        for n, t in sources.items():
            sb.write(n, two_state(t))
        sb.write(COCOTB_MODULE + ".py", cocotb_module(stimulus, clock, period_ns))
        b = sandbox.run(runner_cmd("build", "verilator", top, sources=list(sources)) + ["--coverage"], sb.path,
                        lim.build, env=env, import_pkgs=("eda",))
        build_s = time.monotonic() - t0
        if not b.ok:
            ds = parse_diagnostics(b.out) or [Diagnostic(f"cocotb/Verilator build failed (rc {b.rc}, limit {b.limit})")]
            return verdict("timeout" if b.timed_out else "error", ds, build_s=build_s, log=b.out[-8000:])
        r = sandbox.run(runner_cmd("test", "verilator", top, module=COCOTB_MODULE), sb.path, lim.run, env=env,
                        import_pkgs=("eda",))
        dat = sb.path / "coverage.dat"
        if not dat.exists():
            st = "timeout" if r.timed_out or r.limit in ("cpu", "wall") else "fail"
            return verdict(st, [Diagnostic(f"cocotb run wrote no coverage (rc {r.rc}, limit {r.limit})")],
                           build_s=build_s, run_s=r.seconds, log=r.out[-8000:])
        text = re.sub(r"(?<=f\x02)[^\x01']*/", "", dat.read_text(errors="replace"))      # file basenames
        text = re.sub(rf"(\x01h\x02)(?:TOP\.)?{re.escape(top)}(?=[.\x01'])", r"\1uut", text)   # hierarchy from uut
    pts = parse_coverage_dat(text, set(sources))
    # the stimulus never judges: a coroutine that raised still ran, and its coverage counts
    return verdict("pass", [], points=pts, summary=_summarize(pts), build_s=build_s, run_s=r.seconds, log=r.out[-8000:])
