"""Formal reachability of coverage holes: a witness from reset, a proof that none exists, or undecided.

    rep = decide(sources, "lock", points, open_keys, ports, clock="clk", reset="rst_n", active_low=True,
                 fsms=fsms, budget_s=60)
    rep.verdicts[key]     # Verdict: witness (per-cycle inputs; replay it: eda.reach_replay) | unreachable | undecided

How (every tool process through eda.sandbox.run, under the budget: CPU seconds of this process and its
tool runs, eda.reach_multi.now, so that a loaded machine decides what an idle one does, only slower):
 1. Yosys reads the DUT (`read_verilog -sv; hierarchy -top T; write_rtlil`, before `proc`); each open
    line/branch point is mapped onto the arm of a process decision tree by its source position and gets
    a flag wire (eda.reach_rtlil; a `?:` branch point: its $ternary select under the narrowest enclosing
    arm); toggles (also of array elements, `mem[i][b]`), FSM points and expr points (terms that are signal
    bits, constants or `sig == const`, on signals no process assigns with `=`) are conditions of the
    wrapper; a hierarchy Verilator merged (`uut.CLA*`) stands for the OR over its instances.
 2. Yosys: `proc; flatten; memory`, then `expose` the flags and the internal signals the toggle and FSM
    targets read (the FSM state registers of eda.fsm), and `write_json` (ports; flip-flop clocks).
    One clock, all flip-flops on its rising edge: normal mode (`async2sync`, a model step is a clock
    cycle); anything else (several or derived clocks, latches): `clk2fflogic` (steps are clock phases),
    and a witness there is replayed phase by phase (eda.reach_replay: clocks set, then the other inputs).
 3. The wrapper of eda.reach_model (reset forced in the first frame(s), outputs masked there) is
    exported twice as AIGER: prove.aig with uninitialised registers free (`write_aiger -zinit`) and X
    values free (`setundef -anyseq`), wit.aig with them zero (as Verilator starts).
 4. Per target, ABC on one output at a time (`cone -O k -a`): a shallow witness by `bmc3` (BOUND frames)
    on wit.aig; then `pdr -a` (else `dprove`) on prove.aig -- "Proved" is a waiver (method abc-pdr or
    abc-dprove, unbounded: no input sequence from reset reaches the point); then a deep witness by `pdr`
    on wit.aig; a counterexample is read back per cycle.
    Anything else within the point's time is undecided, with the reason.
A proof is only as good as the point's mapping: every covered line/branch point mapped the same way is
checked too (up to CHECK of them), and if one of those is "proven unreachable" the design's proofs are
withdrawn (undecided, "mapping check failed"). A witness counts only after its replay in Verilator hits
the point (eda.reach_replay.confirm).
"""
import json
import re
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from . import reach_const as rc
from . import reach_deep as rd
from . import reach_map as rmap
from . import reach_multi as rm
from . import reach_rtlil as rt
from . import reach_zinit as rz
from .hdl import safe_name
from .reach_model import Conditions, Target, blocking_targets, expr_terms, toggle_of, vname, wrapper
from .sandbox import Limits, Sandbox, run
from .tools import ABC, YOSYS

BOUND = 40              # bmc3 frames for a witness
CHECK = 8               # covered points whose mapping is checked
TYPES = ("line", "branch", "toggle", "fsm_state", "fsm_arc", "expr")


@dataclass
class Verdict:
    key: str
    point: str                      # Point.describe()
    status: str                     # witness | unreachable | undecided
    method: str = ""                # abc-pdr | abc-dprove | abc-bmc3
    bound: str = ""                 # "unbounded" (proof) or the witness's frames
    reason: str = ""
    vectors: list = field(default_factory=list)      # witness: per-cycle {input: value}
    seconds: float = 0.0
    why: str = ""                   # undecided: unmapped | witness rejected | bound reached | x-start only | engine limit

    def to_dict(self) -> dict:
        d = asdict(self)
        if self.status == "undecided" and not self.why:
            d["why"] = rm.why(self.reason)
        return d


@dataclass
class Report:
    verdicts: dict = field(default_factory=dict)     # point key -> Verdict
    mode: str = ""                  # normal | fflogic | "" (no model)
    clocks: list = field(default_factory=list)       # inputs that clock flip-flops (fflogic witnesses set them first)
    error: str = ""                 # why no model was built
    seconds: float = 0.0
    notes: list = field(default_factory=list)
    dead: dict = field(default_factory=dict)         # key -> why a parameter constant rules it out

    def counts(self) -> dict:
        out = {"witness": 0, "unreachable": 0, "undecided": 0}
        for v in self.verdicts.values():
            out[v.status] = out.get(v.status, 0) + 1
        return out


def _limits(deadline: float, cap: float | None = None) -> Limits:
    """deadline on the budget's clock (reach_multi.now: CPU seconds, not wall)."""
    left = max(1.0, deadline - rm.now())
    left = min(left, cap) if cap else left
    return Limits(wall_s=left * rm.WALL_X + 5, cpu_s=int(left) + 2, mem_mb=4096, out_mb=64)


def _yosys(folder: Path, name: str, script: str, deadline: float):
    (folder / name).write_text(script)
    return run(YOSYS.script_cmd(name, quiet=True), folder, _limits(deadline))


def _err(r) -> str:
    return next((ln.strip() for ln in r.out.splitlines() if "ERROR" in ln),
                "time limit" if r.timed_out else f"yosys exit {r.rc}")[:300]


def _prefix(hier: str) -> str:
    return "" if hier in ("uut", "") else hier.split(".", 1)[1] + "." if hier.startswith("uut.") else hier + "."


def _flags(mods, points, open_pts):
    """Flag processes for the open line/branch points (and up to CHECK covered ones, the mapping check):
    ({module: [lines]}, {key: flattened flag name}, {key: why not mapped})."""
    adds, names, why = {}, {}, {}
    covered = [p for p in points if p.type in ("line", "branch") and p.count > 0][:CHECK]
    for j, p in enumerate([q for q in open_pts if q.type in ("line", "branch", "expr")] + covered):
        found, reason = [], ""
        for m in mods:
            if rt.base_name(m.name) != p.module and p.module:
                continue
            if p.type == "expr":            # the arm the expression is evaluated in (none: always)
                arm, _ = rt.expr_context(m, p, points)
                loc, reason = (arm, "") if arm else (None, "")
            else:
                loc, reason = rt.locate(m, p, points)
            if loc:
                found.append((m, loc))
        if not found:
            why[p.key] = reason or f"module {p.module} not found in the elaborated design"
            continue
        for m, (sw, k) in found:
            adds.setdefault(m.name, []).append(rt.flag_process(f"\\rtla_f{j}", sw, k))
        names[p.key] = _prefix(p.hier) + f"rtla_f{j}"
    return adds, names, why


def _elaborate(folder: Path, sources: dict, top: str, deadline: float):
    files = []
    for name, text in sources.items():
        n = safe_name(name, "dut.v")
        text = rmap.for_yosys(text)
        (folder / n).write_text(text if text.endswith("\n") else text + "\n")
        files.append(n)
    r = _yosys(folder, "elab.ys", f"read_verilog -sv {' '.join(files)}\nhierarchy -top {top}\nwrite_rtlil pre.il\n",
               deadline)
    if not r.ok or not (folder / "pre.il").exists():
        return None, f"Yosys cannot read the design: {_err(r)}"
    return (folder / "pre.il").read_text(), ""


def _model(folder: Path, top: str, expose: list, deadline: float):
    """proc/flatten/memory + expose; (json of the top module, error)."""
    sel = " ".join(f"w:{re.sub(r'([][?])', r'?', n)}" for n in expose)        # `*` of a merged hierarchy stays a glob
    # $display/$error/assertions (Yosys 0.70: $print/$check cells) are simulation's, not the model's
    script = (f"read_rtlil inst.il\nhierarchy -top {top}\nproc\nchformal -remove\ndelete t:$print\nflatten\n"
              + (f"expose {sel}\n" if sel else "")
              + "opt_clean\nmemory\nopt_clean\nwrite_json model.json\nwrite_rtlil model.il\n")
    r = _yosys(folder, "model.ys", script, deadline)
    if not r.ok or not (folder / "model.json").exists():
        return None, f"Yosys cannot build the model: {_err(r)}"
    mods = json.loads((folder / "model.json").read_text())["modules"]
    return mods.get(top) or next(iter(mods.values())), ""


_FF = re.compile(r"^\$_?(a|s|ad|sd|dffsr|aldff)?(dff|dffe|ff|dffsre|aldffe|sdffe|sdffce|adffe)")


def mode_of(mod: dict, clock) -> tuple[str, str]:
    """("normal" | "fflogic", why) from the flip-flops' clocks in the model's json."""
    ports = mod.get("ports", {})
    clk_bits = ports.get(clock, {}).get("bits") if clock else None
    for name, c in mod.get("cells", {}).items():
        t = c["type"]
        if "latch" in t or t in ("$sr", "$_SR_") or t.startswith("$mem"):
            return "fflogic", f"{t} cell {name}"
        if "CLK" not in c.get("connections", {}) or t in ("$ff",):
            continue
        if clk_bits is None or c["connections"]["CLK"] != clk_bits:
            return "fflogic", f"flip-flop {name} is not clocked by the input {clock}"
        if str(c.get("parameters", {}).get("CLK_POLARITY", "1")).lstrip("0") not in ("1", ""):
            return "fflogic", f"flip-flop {name} on the falling edge"
    return "normal", ""


def _clock_inputs(mod: dict, ports) -> list:
    """The DUT inputs whose bits clock a flip-flop of the model."""
    bits = {tuple(c["connections"]["CLK"]) for c in mod.get("cells", {}).values() if "CLK" in c.get("connections", {})}
    ps = mod.get("ports", {})
    return [p.name for p in ports if p.direction == "input" and p.name in ps and tuple(ps[p.name]["bits"]) in bits]


def _export(folder: Path, wrap: str, fflogic: bool, deadline: float) -> str:
    """prove.aig/.map and wit.aig/.map; an error message or ''."""
    (folder / "wrap.v").write_text(wrap)
    def tail(fix, opt="opt -fast"):     # techmap can make new x bits (out-of-range $shiftx, $pmux defaults): fixed again
        return f"{fix}\ntechmap\n{opt}\n{fix}\ntechmap\n{opt}\ndffunmap\naigmap\nopt_clean\n"
    # prove.aig: no opt_dff (it may give a register without an initial value the constant it would hold, which
    # would make "uninitialised registers free" untrue) and no don't-care rewriting (-keepdc)
    keep = "opt_expr -keepdc\nopt_merge\nopt_clean"
    script = ("read_rtlil model.il\nread_verilog -sv wrap.v\nhierarchy -top rtla_reach\nproc\nflatten\nopt_clean\n"
              + ("clk2fflogic\n" if fflogic else "async2sync\n") + "design -save base\nsetundef -undriven -zero\n"
              + tail("setundef -anyseq", keep) + "write_aiger -zinit -map prove.map prove.aig\n"
              + "design -load base\nsetundef -undriven -zero\nsetundef -zero -init\n" + tail("setundef -zero")
              + "write_aiger -zinit -map wit.map wit.aig\n")
    r = _yosys(folder, "export.ys", script, deadline)
    if not r.ok or not (folder / "prove.aig").exists() or not (folder / "wit.aig").exists():
        return f"AIGER export failed: {_err(r)}"
    return ""


_ASSERTED = re.compile(r"asserted in frame (\d+)")
_PROVED_OUT = re.compile(r"^Proved output\s+(\d+) in frame", re.M)              # pdr -a, several outputs
_ASSERTED_OUT = re.compile(r"^Output\s+(\d+) was asserted in frame", re.M)


def _abc(folder: Path, aig: str, out: int, engine: str, secs: float, deadline: float, tag: str):
    """One ABC run on output `out`: ("proved" | "cex" | "undecided", frame, cex file, note)."""
    # plain `pdr` reports a property it settles in frame 1 as UNDECIDED; `pdr -a` counts it ("Proved = 1")
    # but keeps no counterexample: -a for proofs, plain pdr (and bmc3) for witnesses
    cmd = {"pdr": f"pdr -T {max(1, int(secs))}", "pdr-a": f"pdr -a -T {max(1, int(secs))}",
           "dprove": f"dprove -T {max(1, int(secs))}",
           "bmc3": f"bmc3 -F {BOUND} -T {max(1, int(secs))}"}[engine]
    cex = f"{tag}.cex"
    r = run(ABC.commands_cmd(f"read {aig}; cone -O {out} -a; strash; {cmd}; write_cex -n {cex}"), folder,
            _limits(deadline, secs + 3))
    m = _ASSERTED.search(r.out) if engine != "pdr-a" else None
    if ("Property proved" in r.out or "Proved = 1." in r.out or "Networks are equivalent" in r.out) and not m:
        return "proved", 0, None, ""
    if engine == "pdr-a" and "Disproved = 1." in r.out:
        return "cex", 0, None, ""
    if m and (folder / cex).exists():
        return "cex", int(m.group(1)), folder / cex, ""
    note = "time limit" if r.timed_out or "timeout" in r.out.lower() else (
        "no witness within the bound" if engine == "bmc3" else "undecided")
    return "undecided", 0, None, f"{engine}: {note}"


def _plan(mods, points, open_pts, fsms, top_ports: dict, blocking: dict = None, signed: set = frozenset()):
    """Targets for the open points, the flag processes, and the internal signals to expose:
    (targets, additions, {flattened name: role}, {key: flag name})."""
    adds, flags, why = _flags(mods, points, open_pts)
    targets, expose = [], {}
    fsm_of, blocking = _fsm_points(fsms), blocking or {None: set()}
    for p in open_pts:
        t = Target(p.key, p.type, p.describe())
        if p.type in ("line", "branch"):
            if p.key in flags:
                t.kind = "flag"
                expose[flags[p.key]] = "flag"
            else:
                t.reason = why.get(p.key, "not mapped")
        elif p.type == "toggle":
            tg = toggle_of(p.comment)
            if tg is None:
                t.reason = f"toggle '{p.comment}' is not one bit of a plain signal"
            else:
                name = _prefix(p.hier) + tg[0]
                if name not in top_ports:
                    expose[name] = "signal"
        elif p.type in ("fsm_state", "fsm_arc") and p.key in fsm_of:
            if fsm_of[p.key][0].name not in top_ports:
                expose[fsm_of[p.key][0].name] = "signal"
        elif p.type in ("fsm_state", "fsm_arc"):
            t.reason = "FSM point not found among the FSMs"
        elif p.type == "expr":
            terms = expr_terms(p.comment)
            if terms is None:
                t.reason = "expr point with terms other than signal bits and constants"
            elif any(x and x[3] is not None and set(rmap.term_names(x)) & signed for x in terms):
                t.reason = "expr term compares a signal declared signed"
            elif any(set(rmap.term_names(x)) & blocking.get(p.module, blocking[None]) for x in terms):
                t.reason = "expr term on a signal assigned with `=` in procedural code (its value there is not the wire's)"
            for n in [n for x in terms for n in rmap.term_names(x)] if not t.reason else []:
                if _prefix(p.hier) + n not in top_ports:
                    expose[_prefix(p.hier) + n] = "signal"
                    expose[_prefix(p.hier) + "*]." + n] = "signal"      # its copies in generate loops
            if not t.reason and p.key in flags:
                expose[flags[p.key]] = "flag"           # the arm it is evaluated in
        else:
            t.reason = f"{p.type} points have no formal target"
        targets.append(t)
    checks = {k: v for k, v in flags.items() if k not in {p.key for p in open_pts}}
    for name in checks.values():
        expose[name] = "flag"
    return targets, adds, expose, flags, checks


def _signed(text: str) -> set:
    """Names declared `signed` (anywhere: a comparison term on one is not decided)."""
    out = set()
    for m in re.finditer(r"\bsigned\b([^;()]*)", text):
        out.update(re.findall(r"[A-Za-z_][A-Za-z0-9_$]*", re.sub(r"\[[^\]]*\]", " ", m.group(1))))
    return out


def _fsm_points(fsms) -> dict:
    """point key -> (FSM, code) for fsm_state, (FSM, (a, b)) for fsm_arc (the keys eda.fsm.points makes)."""
    from .fsm import points
    out = {}
    for m in fsms:
        pts = points([m], "")
        for p, c in zip(pts, list(m.states) + list(m.arcs)):
            out[p.key] = (m, c)
    return out


def _conditions(targets, pts: dict, flags: dict, checks: dict, fsms, model: dict, fflogic: bool, declared: set):
    """Fill each target's wit/prove condition indices; (Conditions, {port: (wire, width)}, {check key: index}).
    A hierarchy Verilator merged (`uut.CLA*`: one point for every instance) matches every instance: the
    condition is the OR over them (never true: in none; true: in one)."""
    conds, exposed = Conditions(), {}
    mports = {n: len(p["bits"]) for n, p in model.get("ports", {}).items()}
    fsm_of = _fsm_points(fsms)

    def one(name):
        if name in declared:
            return vname(name), mports[name]
        if name not in exposed:
            exposed[name] = (f"rtla_e{len(exposed)}", mports[name])
        return exposed[name]

    src = {n: str(v.get("attributes", {}).get("src", "")) for n, v in model.get("netnames", {}).items()}

    def sigs(prefix: str, local: str, decl: str = "", file: str = "") -> dict:
        """{instance prefix: (Verilog expression, width)} of signal `local` under `prefix` (may hold `*`).
        Verilator's `*` is the common prefix of every instance of a module, so it can span levels (`u_add*`
        holds u_add1 and, for a module below it, u_add1.u_lo): with `decl` ("file:line."), only the wires
        declared there (Yosys keeps each flattened wire's src), so the signal is that module's own."""
        if "*" not in prefix and prefix + local in mports:
            return {prefix: one(prefix + local)}
        rx = re.compile("^" + re.escape(prefix).replace(r"\*", ".*") + re.escape(local) + "$")
        got = {n[:-len(local)]: one(n) for n in sorted(mports) if "*" in prefix and rx.match(n)
               and (not decl or any(x.startswith(decl) for x in src.get(n, "").split("|")))}
        # with `file`: else the copies in the module's generate loops
        return got or {n[:-len(local)]: one(n) for n in rmap.scoped(mports, src, prefix, local, file) if file}

    def any_of(parts):
        return " | ".join(f"({x})" for x in parts) if parts else "1'b0"
    for t in targets:
        if not t.reason:
            t.reason = _condition(t, pts[t.key], conds, sigs, any_of, flags, fsm_of, fflogic)
    check_idx = {}
    for k, name in checks.items():
        got = sigs(_prefix(pts[k].hier), name.rsplit(".", 1)[-1])
        if got:
            check_idx[k] = conds.add(any_of([e for e, _ in got.values()]))
    return conds, exposed, check_idx


def _condition(t, p, conds, sigs, any_of, flags, fsm_of, fflogic) -> str:
    """Set t.wit / t.prove; the reason when the point has no condition ('' when it has)."""
    pre = _prefix(p.hier)
    if t.kind == "flag":
        got = sigs(pre, flags[t.key].rsplit(".", 1)[-1])
        if not got:
            return f"flag {flags[t.key]} not in the flattened model (instance path {p.hier})"
        t.wit = t.prove = [conds.add(any_of([e for e, _ in got.values()]))]
    elif t.kind == "toggle":
        name, bit, d = toggle_of(p.comment)
        got = {k: v for k, v in sigs(pre, name, f"{p.file}:{p.line}.").items() if bit < v[1]}
        if not got:
            return f"signal {pre + name}[{bit}] not in the flattened model"
        ups, downs = [], []
        for e, w in got.values():
            prev = conds.prev(e, w)
            ups.append(f"~{prev}[{bit}] & {e}[{bit}]")
            downs.append(f"{prev}[{bit}] & ~{e}[{bit}]")
        t.wit = [conds.add(any_of(ups if d == "up" else downs))]
        ones = conds.add(any_of([f"{e}[{bit}]" for e, _ in got.values()]))
        zeros = conds.add(any_of([f"~{e}[{bit}]" for e, _ in got.values()]))
        t.prove = [ones, zeros] if d == "up" else [zeros, ones]
    elif t.kind == "expr":
        terms = expr_terms(p.comment)
        if None in terms:
            t.wit = t.prove = [conds.add("1'b0")]         # a constant term that cannot hold
            return ""
        per = [sigs(pre, n, file=p.file) for x in terms for n in rmap.term_names(x)]
        if t.key in flags:                                  # the arm the expression is evaluated in
            per.append({k: (e, 1) for k, (e, _) in sigs(pre, flags[t.key].rsplit(".", 1)[-1]).items()})
            terms = terms + [("arm", 0, 1, None)]
        ands = []

        def term(row, b, v, c):
            (e, w) = row[0]
            if c is None:
                return f"({e}[{b}] == 1'b{v})" if b < w else None
            if c[0] == "gen":
                return c[1].format(*[x for x, _ in row])
            return f"(({e} {c[0]} {max(w, c[1].bit_length(), 1)}'d{c[1]}) == 1'b{v})"
        for _, row in rmap.combine(per):
            got, i = [], 0
            for x in terms:
                k = len(rmap.term_names(x)) if x[0] != "arm" else 1
                got.append(term(row[i:i + k], *x[1:]))
                i += k
            if None not in got:
                ands.append(" & ".join(got))
        if not ands:
            return "expr term signals not in the flattened model"
        t.wit = t.prove = [conds.add(any_of(ands))]
    else:
        m, c = fsm_of[t.key]
        got = sigs("", m.name)
        if not got:
            return f"state register {m.name} not in the flattened model"
        e, w = next(iter(got.values()))
        if t.kind == "fsm_state":
            t.wit = t.prove = [conds.add(f"{e} == {m.width}'b{c}")]
        elif fflogic:
            return "FSM arcs are not decided in clk2fflogic mode"
        else:
            prev = conds.prev(e, w)
            t.wit = t.prove = [conds.add(f"{prev} == {m.width}'b{c[0]} && {e} == {m.width}'b{c[1]}")]
    return ""


class _Runner:
    """ABC runs on the two AIGs, cached per (aig, output, engine)."""

    def __init__(self, folder: Path, deadline: float, point_s: float, consts: dict):
        self.folder, self.deadline, self.point_s, self.consts, self.cache = folder, deadline, point_s, consts, {}

    def left(self) -> float:
        return self.deadline - rm.now()

    def joint(self, secs: float):
        """One `pdr -a` over every output of prove.aig at once: the invariants it learns serve them all (a
        32-bit counter that stops at 24 has 54 toggle points above bit 4: 0.3 s together, ~4 s each alone).
        Its verdicts fill the cache the per-output runs read: proved (a waiver), or a trace with free registers."""
        secs = min(secs, self.left() - 1)
        if secs < 1:
            return
        r = run(ABC.commands_cmd(f"read prove.aig; strash; pdr -a -T {int(secs)}"), self.folder,
                _limits(self.deadline, secs + 3))
        for m in _PROVED_OUT.finditer(r.out):
            self.cache.setdefault(("prove.aig", int(m.group(1)), "pdr-a"), ("proved", 0, None, ""))
        for m in _ASSERTED_OUT.finditer(r.out):
            self.cache.setdefault(("prove.aig", int(m.group(1)), "pdr-a"), ("cex", 0, None, ""))

    def evict(self, t) -> bool:
        """Forget the target's runs that stopped at their time limit (so a longer one may decide them)."""
        gone = [k for k in self.cache if k[1] in set(t.wit) | set(t.prove) and self.cache[k][0] == "undecided"
                and ("time limit" in self.cache[k][3] or "budget spent" in self.cache[k][3])]
        for k in gone:
            del self.cache[k]
        return bool(gone)

    def __call__(self, aig: str, out: int, engine: str, share: float):
        k = (aig, out, engine)
        if k not in self.cache:
            if out in self.consts.get(aig, ()):
                self.cache[k] = ("proved", 0, None, "constant 0 in the model")
            elif self.left() < 0.5:
                self.cache[k] = ("undecided", 0, None, "formal budget spent")
            else:
                secs = max(0.5, min(self.point_s * share, self.left()))
                self.cache[k] = _abc(self.folder, aig, out, engine, secs, self.deadline, f"{aig[0]}{out}{engine}")
        return self.cache[k]


def _one(t: Target, abc: _Runner, witness_ok: bool, vec) -> Verdict:
    """A shallow witness first (bmc3 on wit.aig: most holes random missed are a few cycles deep), then the
    proof (pdr on prove.aig, each prove output; then ABC's dprove, whose induction with sequential sweeping
    proves bounds PDR grinds on, e.g. a counter that never reaches 32 behind two others), then a deep
    witness (pdr on wit.aig)."""
    t0, notes = time.monotonic(), []

    def witness(engine, share):
        for o in t.wit if witness_ok else []:
            st, frame, cex, note = abc("wit.aig", o, engine, share)
            if st == "cex":
                return Verdict(t.key, t.desc, "witness", f"abc-{engine}", f"{frame + 1} cycles",
                               vectors=vec(cex), seconds=time.monotonic() - t0)
            notes.append(note)
        return None
    v = witness("bmc3", 0.15)
    if v:
        return v
    for o in t.prove:
        for engine, share, name in (("pdr-a", 0.3, "pdr"), ("dprove", 0.15, "dprove")):
            st, _, _, note = abc("prove.aig", o, engine, share / len(t.prove))
            if st == "proved":
                return Verdict(t.key, t.desc, "unreachable", f"abc-{name}" if not note else "yosys-opt", "unbounded",
                               note or f"{name}: property proved from reset (inputs free every cycle, reset forced "
                                       "in the first cycle, uninitialised registers and X values free)",
                               seconds=time.monotonic() - t0)
            notes.append(f"proof: {note}" if note else "proof: a trace exists when registers start free")
            if st == "cex":         # reachable with free registers: dprove cannot prove it either
                break
    v = witness("pdr", 0.4)
    z = "" if v else rz.zero_start(t, abc, 0.3)          # a trace only from power-up values Verilator never has
    if z:
        return Verdict(t.key, t.desc, "unreachable", z, "unbounded", rz.REASON, seconds=time.monotonic() - t0)
    return v or Verdict(t.key, t.desc, "undecided", reason="; ".join(n for n in notes if n), seconds=time.monotonic() - t0)


def decide(sources: dict, top: str, points, open_keys, ports, clock=None, reset=None, active_low=False, fsms=(),
           budget_s: float = 60.0, point_s: float = 8.0) -> Report:
    """Verdicts for the open points (`open_keys`) among `points` (all of the design's, for the mapping
    and its check). ports: eda.ports.Port list of `top`; clock/reset as the testbench drives them."""
    t0 = time.monotonic()
    deadline, rep = rm.now() + budget_s, Report()         # budget_s: CPU seconds of the engines (rm.now)
    points = rmap.base_modules(points, [m.name for m in rc.modules(sources)])
    pts = {p.key: p for p in points}
    open_pts = [p for p in points if p.key in set(open_keys) and p.type in TYPES]
    with Sandbox(prefix="rtla-reach-") as box:
        err, targets, runner, mode = _build(box.path, sources, top, points, open_pts, ports, clock, reset,
                                            active_low, fsms, deadline, point_s, rep)
        for p in open_pts:
            if err:
                rep.verdicts[p.key] = Verdict(p.key, p.describe(), "undecided", reason=err)
        if err:
            rep.seconds = time.monotonic() - t0
            return rep
        for p in open_pts:
            if p.key in rep.dead:
                rep.verdicts[p.key] = Verdict(p.key, p.describe(), "unreachable", "yosys-const", "unbounded",
                                              rep.dead[p.key])
        inputs = [(p.name, p.width) for p in ports if p.direction == "input"]
        active = 0 if active_low else 1

        def vec(cex):
            return rm.vectors(cex, box.path / "wit.map", inputs, clock, reset, active, mode == "fflogic")
        runner.joint(min(15.0, 0.2 * runner.left()))
        withdrawn = _check_mapping(runner, rep)
        for t in targets:
            if t.reason:
                rep.verdicts[t.key] = Verdict(t.key, t.desc, "undecided", reason=t.reason, why="unmapped")
        pending = [t for t in targets if not t.reason]
        rep.notes += rm.prime(runner, pending, BOUND)
        # per point: a short first pass over all, then what is left again with more time each (the engines
        # that ran out of time are run again; a bound reached or a proof refuted stays)
        for grow in (0.25, 1.0, "deep", 4.0):
            if grow == "deep":          # what the bound stopped: one deeper joint run (eda.reach_deep)
                rep.notes += rd.deeper(runner, targets, rep.verdicts, vec, lambda t, n, v: Verdict(
                    t.key, t.desc, "witness", "abc-bmc3", f"{n} cycles", vectors=v))
                pending = [t for t in pending if rep.verdicts[t.key].status == "undecided"]
                continue
            if not pending or runner.left() < 1:
                continue
            runner.point_s = min(point_s * grow, max(0.5, runner.left() / len(pending)))
            again = []
            for t in pending:
                v = _one(t, runner, True, vec)
                if v.status == "unreachable" and withdrawn:
                    v = Verdict(t.key, t.desc, "undecided", reason=f"proof withdrawn: {withdrawn}", seconds=v.seconds)
                rep.verdicts[t.key] = v
                if v.status == "undecided" and rm.why(v.reason) == "engine limit" and runner.evict(t):
                    again.append(t)
            pending = again
    rep.seconds = time.monotonic() - t0
    return rep


def _check_mapping(runner, rep) -> str:
    """Why the proofs are withdrawn ('' when the mapped covered points all stay reachable)."""
    for key, idx in getattr(runner, "checks", {}).items():
        st, _, _, _ = runner("prove.aig", idx, "pdr-a", 0.25)
        if st == "proved":
            rep.notes.append(f"mapping check failed on a covered point ({key.split(chr(1))[0]})")
            return "mapping check failed: a covered point of the same kind was 'proven' unreachable"
    return ""


def _probe(folder, sources, top, points, open_pts, deadline, rep):
    """Elaborate with the parameter probes of eda.reach_const (without them if they break it): (RTLIL text,
    error, points and open points with expr terms on parameters read from probes, {key: why} constant-dead)."""
    by = {m.name: m for m in rc.modules(sources)}
    for signals in (True, False):       # conditions reading module signals too, else parameters alone
        pr = rc.plan(sources, open_pts, signals, [p for p in points if p.count > 0 and p.type in ("line", "branch")])
        new = {p.key: replace(p, comment=rc.rewrite_expr(pr, by, p)) for p in open_pts if p.type == "expr"}
        if not pr.wires:
            break
        pre, err = _elaborate(folder, rc.probed(sources, pr), top, deadline)
        if not err:
            # the front end folds parameter expressions; `x && P` with P 0 needs opt_expr -fine
            r = _yosys(folder, "consts.ys", f"read_rtlil pre.il\nhierarchy -top {top}\nproc\nopt_expr -fine\n"
                                            "opt_clean\nwrite_rtlil consts.il\n", deadline)
            vals = rc.values(pre)
            if r.ok and (folder / "consts.il").exists():
                vals.update(rc.values((folder / "consts.il").read_text()))
            dead, why = rmap.dead_by_instance(rc.dead, pr, vals, rt.base_name, points, rmap.instances(pre, top), top)
            if why:
                rep.notes.append(f"parameter-constant arms withdrawn: {why}")
            pts = [new.get(p.key, p) for p in points]
            return pre, "", pts, [new.get(p.key, p) for p in open_pts], dead
        rep.notes.append(f"condition probes{' on signals' if signals else ''} left out (the design does not "
                         f"elaborate with them: {err})")
    pre, err = _elaborate(folder, sources, top, deadline)
    return pre, err, points, open_pts, {}


def _build(folder, sources, top, points, open_pts, ports, clock, reset, active_low, fsms, deadline, point_s, rep):
    """Elaborate, instrument, flatten, wrap, export: (error, targets, runner, mode)."""
    orig = {p.key: p for p in open_pts}
    pre, err, points, open_pts, dead = _probe(folder, sources, top, points, open_pts, deadline, rep)
    if err:
        rep.error = err
        return err, [], None, ""
    rep.dead = dead
    open_pts = [p for p in open_pts if p.key not in dead]
    mods = rt.parse(pre)
    declared = {p.name for p in ports}
    text = "\n".join(str(t) for t in sources.values())
    targets, adds, expose, flags, checks = _plan(mods, points, open_pts, fsms, declared,
                                                 rmap.blocking_by_module(sources, rc.modules, blocking_targets), _signed(text))
    for t in targets:
        t.desc = orig[t.key].describe()
    (folder / "inst.il").write_text(rt.instrument(pre, mods, adds))
    model, err = _model(folder, top, [n for n in expose if n not in declared], deadline)
    if err:
        rep.error = err
        return err, [], None, ""
    mode, why = mode_of(model, clock)
    rep.mode, rep.clocks = mode, _clock_inputs(model, ports)
    if why:
        rep.notes.append(f"clk2fflogic mode: {why}")
    conds, exposed, check_idx = _conditions(targets, {p.key: p for p in points}, flags, checks, fsms, model,
                                            mode == "fflogic", declared)
    inputs = [(p.name, p.width) for p in ports if p.direction == "input"]
    outputs = [(p.name, p.width) for p in ports if p.direction == "output"]
    wrap = wrapper(top, inputs, outputs, exposed, conds, clock, reset, 0 if active_low else 1, mode == "fflogic")
    err = _export(folder, wrap, mode == "fflogic", deadline)
    if err:
        rep.error = err
        return err, [], None, mode
    consts = {a: rm.const_outputs(folder / a) for a in ("prove.aig", "wit.aig")}
    runner = _Runner(folder, deadline, point_s, consts)
    runner.checks = check_idx
    return "", targets, runner, mode
