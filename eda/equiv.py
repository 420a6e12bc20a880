"""Is a candidate the same circuit as the reference?  Interface check, formal
equivalence (Yosys miter + SAT), bounded model check, random co-simulation.

An optimizer rewarded by a weak testbench learns the testbench; this stage is the
guard.  `equivalence(...).status` is the verdict itself:

    proven             a proof; data.method: `exhaustive simulation` (small combinational),
                       `sat` (combinational), `sat-induction`, `abc-dprove`, `abc-pdr` (sequential)
    bounded(N)         no difference in the first N cycles after reset (nothing closed a proof)
    cosim(K vectors)   formal check unavailable/timed out; K random cycles agreed in Icarus
                       (a design Yosys cannot read: a deep search, 2^17+64 cycles, see below)
    counterexample     the designs differ; data/diagnostics hold the inputs per cycle
                       (data.method: sat, sat-induction, abc-sim3, abc-dprove, abc-pdr, cosim, structural)
    unknown(timeout)   nothing conclusive within the time limit
    unknown(replay-mismatch)  SAT or ABC found a difference that the Icarus replay does not
                       reproduce (X / initial-value semantics); data.replay_mismatch holds the
                       formal trace and what the replay said.  Not a pass.
plus `error` (a design does not elaborate), `rejected` (candidate failed screening) and
`fail` (ports differ; see `check_interface`).  bounded/cosim let `eval` go on but are
"unproven": no reward and no `regress --equiv` pass (eda.report.is_proven).

Sequential designs whose induction does not close go to ABC (`yosys-abc`): the miter
(without -make_outputs) is wrapped so that the reset is forced in the first cycle (three
steps with clk2fflogic, with a clock edge inside) and the trigger masked there, all flops
start at zero (as in SAT), and it is written as AIGER twice: reset free afterwards (for
`dprove`: BMC, retiming, induction with fraiging, interpolation, BDD reachability; then `pdr`) and
reset held inactive afterwards (for `sim3`: about 2^17 cycles of random simulation from
reset, for bugs deeper than any BMC).  The AIGER export starts beside SAT induction when SAT
has not decided within EXPORT_DELAY_S.  Memories are mapped to flip-flops at elaboration
(`memory`), so RAM/FIFO/LIFO designs are proven by dprove when their contents correspond.
Out of reach: a proof for designs Yosys cannot elaborate (non-synthesizable event lists, several
edges on one signal): those get a deep random co-simulation instead, 2^17+64 cycles from a
$readmemh file with held inputs, other reset-named inputs mostly inactive and values built field
by field from the bit slices the reference uses (cosim(K): no proof, no reward); several resets
(only the detected one is forced and, in sim3, held); large memories or multipliers whose miter
neither dprove nor PDR decides in the time limit (bounded/cosim, unproven).

Method.  Each design is elaborated on its own (`proc; flatten; memory`) and saved as
RTLIL with its top renamed eqgold/eqgate, so the two never share a module namespace
and `define`s never cross.  Sequential designs start from zero with the reset asserted
in cycle 1; single-clock designs map one SAT step to one clock cycle, anything else
(several clocks, both edges, latches, derived clocks) goes through `clk2fflogic`.
A SAT counterexample is replayed in Icarus before it is reported, because SAT reads
reference X as 0 and starts registers at zero; a trace the simulator does not confirm
is not reported as a counterexample.  Co-simulation compares every output twice per
cycle; X bits of the reference are don't-care, X in the candidate where the reference
is defined is a difference.
"""
import json
import random
import re
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .hdl import IDENT, detect_clock_reset, input_fields, module_names, safe_name, strip_comments
from .report import Diagnostic, StageResult
from .sandbox import Limits, Sandbox, run, screen
from .scripts import render
from .tools import ABC, ICARUS, YOSYS

FF_TYPES = {"$dff", "$dffe", "$adff", "$adffe", "$sdff", "$sdffe", "$sdffce", "$dffsr", "$dffsre",
            "$aldff", "$aldffe"}
OTHER_STATE = {"$dlatch", "$adlatch", "$dlatchsr", "$ff", "$mem", "$mem_v2", "$memwr", "$memwr_v2",
               "$memrd", "$memrd_v2", "$sr"}


@dataclass
class _Design:
    """One side of the comparison after elaboration."""
    tag: str                     # gold | gate
    il: Path
    ports: dict                  # name -> (direction, width)
    state: bool                  # has registers, latches or memories
    clocks: set                  # {(port, polarity)} of plain flip-flops
    complex_clocking: bool       # latches, memories, derived or several clocks
    problems: list               # logic loops, conflicting drivers (from `check`)


class _Fail(Exception):
    def __init__(self, status, message, data=None, log=""):
        super().__init__(message)
        self.status, self.message, self.data, self.log = status, message, data or {}, log


# ---- elaboration --------------------------------------------------------------

def _write(folder: Path, sources: dict) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    hdl = []
    for name, text in sources.items():
        n = safe_name(name)
        data = text.encode() if isinstance(text, str) else text
        if n.endswith((".v", ".sv")) and data and not data.endswith(b"\n"):
            data += b"\n"              # a last line without newline must not glue onto the next file
        (folder / n).write_bytes(data)
        if n.endswith((".v", ".sv")):
            hdl.append(n)
    return hdl


def _elaborate(sources: dict, top: str, tag: str, root: Path, deadline: float) -> _Design:
    folder = root / tag
    files = _write(folder, sources)
    if not files:
        raise _Fail("error", f"{'reference' if tag == 'gold' else 'candidate'}: no .v/.sv source files")
    reads = "\n".join(f"read_verilog -sv {f}" for f in files)
    (folder / "prep.ys").write_text(render("equiv_prep.ys", reads=reads, top=top, tag=tag))
    r = run(YOSYS.script_cmd("prep.ys"), folder, _limits(deadline, 0.5))
    who = "reference" if tag == "gold" else "candidate"
    if r.timed_out:
        raise _Fail("unknown(timeout)", f"{who}: yosys elaboration took longer than the time limit", log=r.out[-2000:])
    js = root / f"{tag}.json"
    if not r.ok or not js.exists():
        err = next((ln.strip() for ln in r.out.splitlines() if "ERROR" in ln), r.out.strip()[-300:])
        if r.limit == "memory":
            err = "yosys ran out of memory"
        raise _Fail("error", f"{who} does not elaborate: {err}", log=r.out[-2000:])
    mod = json.loads(js.read_text())["modules"].get(f"eq{tag}", {})
    ports = {n: (p["direction"], len(p["bits"])) for n, p in mod.get("ports", {}).items()}
    bit_port = {b: n for n, p in mod.get("ports", {}).items() if p["direction"] == "input"
                for b in p["bits"] if isinstance(b, int)}
    clocks, state, complex_ = set(), False, False
    for cell in mod.get("cells", {}).values():
        t = cell["type"]
        if t in FF_TYPES:
            state = True
            clk = cell["connections"].get("CLK", [None])[0]
            pol = str(cell["parameters"].get("CLK_POLARITY", "1")).lstrip("0") or "0"
            if clk not in bit_port:
                complex_ = True               # clock made inside the design
            else:
                clocks.add((bit_port[clk], pol == "1"))
        elif t in OTHER_STATE:
            state = complex_ = True
    check = (folder / "check.txt").read_text(errors="replace") if (folder / "check.txt").exists() else ""
    problems = sorted({m.strip() for m in re.findall(r"(found logic loop[^\n]*|multiple conflicting drivers[^\n]*)", check)})
    return _Design(tag, root / f"{tag}.il", ports, state, clocks, complex_, problems)


def _sim_only(sources, top, tag, root, why, clock) -> _Design:
    """A design Yosys cannot elaborate: ports from the interface only, compared by simulation."""
    from .ports import PortError, parse_ports_ex
    try:
        ports = {p.name: (p.direction, p.width) for p in parse_ports_ex(sources, top)[0]}
    except PortError:
        raise _Fail("error", why) from None
    seq = clock is not None or bool(re.search(r"\b(posedge|negedge)\b", "\n".join(
        strip_comments(t) for t in sources.values() if isinstance(t, str))))
    return _Design(tag, None, ports, seq, set(), True, [why])


def _limits(deadline: float, share: float = 1.0) -> Limits:
    left = max(1.0, (deadline - time.monotonic()) * share)
    return Limits(wall_s=left, cpu_s=int(left) + 5, mem_mb=4096, out_mb=64)


# ---- interface ----------------------------------------------------------------

def _port_diff(cand: dict, ref: dict) -> list[str]:
    """Readable differences between two {name: (direction, width)} port maps."""
    out = []
    for n, (d, w) in ref.items():
        if n not in cand:
            out.append(f"missing port '{n}' ({d} [{w}])")
        elif cand[n] != (d, w):
            cd, cw = cand[n]
            if cd != d:
                out.append(f"port '{n}' is an {cd} in the candidate, an {d} in the reference")
            if cw != w:
                out.append(f"port '{n}' is {cw} bit{'s' * (cw != 1)} wide in the candidate, {w} in the reference")
    out += [f"extra port '{n}' ({d} [{w}]) not in the reference" for n, (d, w) in cand.items() if n not in ref]
    return out


def check_interface(cand: dict, ref: dict, top: str, ref_top: str | None = None, timeout_s: float = 60) -> StageResult:
    """StageResult(name="interface"): pass when the candidate's `top` has exactly the
    reference's ports (names, directions, widths)."""
    t0 = time.monotonic()
    from .ports import PortError, parse_ports
    res = StageResult("interface", "pass", tool="yosys", version=YOSYS.version())
    bad = [r for name, text in cand.items() if isinstance(text, str) for r in screen(text, name)]
    if bad:
        res.status, res.diagnostics = "rejected", [Diagnostic(b) for b in bad]
        return res
    try:
        rp = {p.name: (p.direction, p.width) for p in parse_ports(ref, ref_top or top, timeout_s)}
    except PortError as e:
        res.status, res.diagnostics = "error", [Diagnostic(f"reference: {e}")]
        return res
    try:
        cp = {p.name: (p.direction, p.width) for p in parse_ports(cand, top, timeout_s)}
    except PortError as e:
        res.status, res.diagnostics = "fail", [Diagnostic(f"candidate: {e}")]
        return res
    diff = _port_diff(cp, rp)
    res.data = {"ports": {n: {"direction": d, "width": w} for n, (d, w) in rp.items()}}
    if diff:
        res.status = "fail"
        res.diagnostics = [Diagnostic(f"module '{top}': {d}") for d in diff]
    res.seconds = time.monotonic() - t0
    return res


# ---- SAT ------------------------------------------------------------------------

_ROW = re.compile(r"^\s*(init|\d+)?\s*(\\\S+)\s+.*?\s([01xz-]+)\s*$")


def _parse_trace(text: str) -> dict:
    """{step: {signal: bits}} from the table yosys `sat -show-*` prints after FAIL!"""
    tail = text[text.rfind("FAIL!"):]
    steps: dict = {}
    for line in tail.splitlines():
        m = _ROW.match(line)
        if m and m.group(1) != "init":
            steps.setdefault(int(m.group(1) or 1), {})[m.group(2).lstrip("\\")] = m.group(3)
    return steps


def _sat(gold: _Design, gate: _Design, root: Path, clock, reset, active, depth, deadline, use_fflogic) -> dict:
    """Run the miter; returns {verdict: proven|bounded|counterexample|unknown|error, trace, log, depth}."""
    prep = "clk2fflogic" if use_fflogic else "async2sync"
    sequential = gold.state or gate.state
    sat = "sat -prove trigger 0 -show-inputs -show-outputs"
    left = max(1, int(deadline - time.monotonic()))
    if sequential:
        sets, skip = [], 0
        if reset:
            n = 3 if use_fflogic else 1       # fflogic: an edge needs clk 0 -> 1 inside the reset
            sets += [f"-set-at {k} in_{reset} {active}" for k in range(1, n + 1)]
            if use_fflogic and clock:
                sets += [f"-set-at {k} in_{clock} {v}" for k, v in ((1, 0), (2, 1), (3, 0))]
            skip = n
        steps = depth * (2 if use_fflogic else 1) + skip
        sat += f" -tempinduct -set-init-zero {' '.join(sets)} {'-seq %d' % skip if skip else ''} -maxsteps {steps}"
    sat += f" -timeout {left} miter"
    (root / "miter.ys").write_text(render("equiv_miter.ys", gold=gold.il.name, gate=gate.il.name, prep=prep, sat=sat))
    r = run(YOSYS.script_cmd("miter.ys", quiet=False), root, _limits(deadline))
    out = r.out
    res = {"log": out[-3000:], "seconds": r.seconds, "method": "sat-induction" if sequential else "sat"}
    if r.timed_out:
        res["verdict"] = "unknown"
    elif "SUCCESS!" in out:
        res["verdict"] = "proven"
    elif "FAIL!" in out:
        res["verdict"], res["trace"] = "counterexample", _parse_trace(out)
    elif "Reached maximum number of time steps" in out:
        res["verdict"], res["depth"] = "bounded", depth
    elif re.search(r"(?i)timeout|timed out", out.split("Executing SAT pass", 1)[-1]):
        res["verdict"] = "unknown"
    else:
        err = next((ln.strip() for ln in out.splitlines() if "ERROR" in ln), f"yosys exit {r.rc}")
        res["verdict"], res["error"] = "error", err
    return res


def _bits_to_int(bits: str) -> int | None:
    return int(bits, 2) if bits and set(bits) <= {"0", "1"} else None


def _trace_vectors(trace: dict, inputs: list, fflogic: bool, clock) -> tuple[list, int]:
    """SAT trace -> per-cycle input dicts, and the 0-based cycle of the first difference."""
    steps = sorted(trace)
    vecs = []
    for s in steps:
        v = {}
        for name, w in inputs:
            if name == clock and not fflogic:
                continue
            b = trace[s].get(f"in_{name}")
            v[name] = _bits_to_int(b) if b is not None else 0
        vecs.append(v)
    first = next((i for i, s in enumerate(steps) if trace[s].get("trigger") == "1"), len(steps) - 1)
    return vecs, first


# ---- ABC: sequential proof (dprove) and deep simulation (sim3) on an AIGER miter -------

SIM_FRAMES = (1 << 17) + 64      # sim3 depth: bugs that need a 16-bit counter to wrap twice
DPROVE_MAX_S = 4.0               # dprove's share of the ABC time at most; PDR gets the rest
EXPORT_DELAY_S = 0.4             # SAT decides most designs sooner; only then is the AIGER export started beside it


def _init_frames(reset, fflogic) -> int:
    """Frames the wrapper holds the reset (and masks the trigger): one clock cycle; with
    clk2fflogic three steps so that a clock edge (0 -> 1 -> 0) falls inside the reset."""
    return 0 if not reset else (3 if fflogic else 1)


def _abc_wrapper(inputs: list, clock, reset, active, fflogic) -> str:
    """Two wrappers around the miter (`miter -equiv` without -make_outputs: one `trigger`
    output).  eqwrap_prove forces the reset in the first frame(s) and masks the trigger
    there, every input free afterwards; eqwrap_sim is the same with the reset held inactive
    after that (deep random simulation from reset).  Wrapper inputs are p0, p1, ... in the
    order of `inputs`; `eq_tick` clocks the wrapper's own frame counter (AIGER latches have
    one implicit clock, so any clock will do)."""
    n = _init_frames(reset, fflogic)
    out = []
    for variant in ("prove", "sim"):
        L = [f"module eqwrap_{variant}(input eq_tick, "
             + "".join(f"input [{w - 1}:0] p{i}, " for i, (nm, w) in enumerate(inputs)) + "output trigger);"]
        if n:
            L += ["  reg [1:0] ph = 2'd0;", f"  wire init = ph < 2'd{n};",
                  f"  always @(posedge eq_tick) if (init) ph <= ph + 2'd1;"]
        conns = []
        for i, (nm, w) in enumerate(inputs):
            sig = f"p{i}"
            if n and nm == reset:
                after = sig if variant == "prove" else f"1'b{1 - active}"
                sig = f"(init ? 1'b{active} : {after})"
            elif n and fflogic and nm == clock:
                sig = f"(init ? (ph == 2'd1) : p{i})"
            conns.append(f".{_port_ref('in_' + nm)}({sig})")
        L.append(f"  wire t; miter m ({', '.join(conns)}, .trigger(t));")
        L.append("  assign trigger = t & ~init;" if n else "  assign trigger = t;")
        L.append("endmodule")
        out.append("\n".join(L))
    return "\n".join(out) + "\n"


_ASSERTED = re.compile(r"asserted in frame (\d+)|NOT EQUIVALENT|Networks are not equivalent", re.I)


def _abc_export(gold: _Design, gate: _Design, root: Path, clock, reset, active, fflogic, inputs: list,
                deadline: float, skip=None) -> dict:
    """The miter as two AIGER files (abc/prove.aig, abc/sim.aig); {seconds, error, timed_out}.
    Beside SAT it starts after EXPORT_DELAY_S, and not at all when `skip` is set by then
    (SAT decided quickly)."""
    if skip is not None and skip.wait(EXPORT_DELAY_S):
        return {"seconds": 0.0, "error": "not needed", "timed_out": False}
    folder = root / "abc"
    folder.mkdir(exist_ok=True)
    for d in (gold, gate):
        (folder / d.il.name).write_bytes(d.il.read_bytes())
    (folder / "wrap.v").write_text(_abc_wrapper(inputs, clock, reset, active, fflogic))
    (folder / "aig.ys").write_text(render("equiv_aig.ys", gold=gold.il.name, gate=gate.il.name,
                                          prep="clk2fflogic" if fflogic else "async2sync"))
    r = run(YOSYS.script_cmd("aig.ys"), folder, _limits(deadline))
    res = {"seconds": round(r.seconds, 3)}
    if not r.ok or not (folder / "prove.aig").exists() or not (folder / "sim.aig").exists():
        res["error"] = next((ln.strip() for ln in r.out.splitlines() if "ERROR" in ln),
                            "time limit" if r.timed_out else f"yosys exit {r.rc}")
        res["timed_out"] = r.timed_out
    return res


def _abc(gold: _Design, gate: _Design, root: Path, clock, reset, active, fflogic, inputs: list,
         deadline: float, export=None) -> dict:
    """ABC on the miter: sim3 (long random simulation from reset, about a second) first, then
    dprove (the full sequential-equivalence pipeline) with the rest of the time.  {verdict: proven|counterexample|unknown|error,
    method, vectors (per frame, counterexamples), frame, log, seconds}."""
    t0 = time.monotonic()
    folder = root / "abc"
    exp = export.result() if export is not None else _abc_export(gold, gate, root, clock, reset, active, fflogic,
                                                                  inputs, deadline)
    res = {"log": "", "seconds": 0.0, "method": "abc", "export_seconds": exp["seconds"]}
    if exp.get("error"):
        res.update(verdict="error" if not exp.get("timed_out") else "unknown", error=f"AIGER export: {exp['error']}",
                   seconds=time.monotonic() - t0)
        return res
    logs = []
    # 1. deep bug search: ~2^17 frames of random simulation from reset (reset held off afterwards),
    #    capped at about a second: equivalent designs pay little for it
    cmd = f"read sim.aig; sim3 -F {SIM_FRAMES} -W 4 -N 7 -T 1; write_cex -n sim.cex"
    r = run(ABC.commands_cmd(cmd), folder, _limits(min(deadline, time.monotonic() + 3)))
    logs.append(r.out[-1500:])
    res["sim3_seconds"] = round(r.seconds, 3)
    m = _ASSERTED.search(r.out)
    if m and (folder / "sim.cex").exists():
        vecs = _parse_cex(folder / "sim.cex", folder / "sim.map", inputs, clock, reset, active, fflogic, True)
        res.update(verdict="counterexample", method="abc-sim3", vectors=vecs,
                   frame=int(m.group(1)) if m.group(1) else len(vecs) - 1)
    else:
        sim_note = "sim3: no difference" + (" (time limit)" if r.timed_out or "timeout" in r.out.lower()
                                             else f" in {SIM_FRAMES} frames")
        # 2. proof: dprove (BMC, retiming, induction with fraiging, interpolation, BDD reachability, PDR)
        #    decides designs whose state corresponds within a fraction of a second but ignores its -T on
        #    others (freq_div's 7- vs 6-bit counter: 70 s), so it gets half the time, at most
        #    DPROVE_MAX_S; then PDR alone (an invariant over unreachable counter values: under a second)
        whys = []
        for engine, share, cap in (("dprove", 0.5, DPROVE_MAX_S), ("pdr", 1.0, None)):
            left = min((deadline - time.monotonic()) * share, cap or 1e9)
            if left < 0.5:
                whys.append(f"{engine}: no time left")
                break
            cmd = f"read prove.aig; {engine} -T {max(1, int(left))}; write_cex -n prove.cex"
            r = run(ABC.commands_cmd(cmd), folder, _limits(time.monotonic() + left))
            logs.append(r.out[-1500:])
            res[f"{engine}_seconds"] = round(r.seconds, 3)
            m = _ASSERTED.search(r.out)
            if "Networks are equivalent" in r.out or "Property proved" in r.out:
                res.update(verdict="proven", method=f"abc-{engine}")
                break
            if m and (folder / "prove.cex").exists():
                vecs = _parse_cex(folder / "prove.cex", folder / "prove.map", inputs, clock, reset, active, fflogic)
                res.update(verdict="counterexample", method=f"abc-{engine}", vectors=vecs,
                           frame=int(m.group(1)) if m.group(1) else len(vecs) - 1)
                break
            whys.append(f"{engine}: " + ("time limit" if r.timed_out else
                                         "undecided" if "UNDECIDED" in r.out else f"abc exit {r.rc}"))
        if "verdict" not in res:
            res.update(verdict="unknown", why=f"{sim_note}; {'; '.join(whys)}")
    res["log"] = "\n".join(logs)[-3000:]
    res["seconds"] = time.monotonic() - t0
    return res


def _stop(export, root: Path):
    """The export is not needed: wait for it (its folder lives in the sandbox being torn down)."""
    try:
        export.result()
    except Exception:
        pass


def _parse_cex(cex: Path, amap: Path, inputs: list, clock, reset, active, fflogic, hold_reset=False) -> list:
    """ABC `write_cex -n` (pi<k>@<frame>=<bit>) + the AIGER map (input <k> <bit> p<i>) ->
    per-frame input dicts by port name, with what the wrapper forced in the first frames."""
    pi = {}
    for ln in amap.read_text().splitlines():
        f = ln.split()
        if len(f) == 4 and f[0] == "input" and f[3].startswith("p") and f[3][1:].isdigit():
            pi[int(f[1])] = (int(f[3][1:]), int(f[2]))
    frames: dict = {}
    last = 0
    for m in re.finditer(r"^pi(\d+)@(\d+)=([01])", cex.read_text(), re.M):
        k, fr, b = int(m.group(1)), int(m.group(2)), int(m.group(3))
        last = max(last, fr)
        if k in pi and b:
            i, bit = pi[k]
            v = frames.setdefault(fr, {})
            v[i] = v.get(i, 0) | (1 << bit)
    n_frames = last + 1          # every frame, also those whose inputs are all 0
    n = _init_frames(reset, fflogic)
    vecs = []
    for fr in range(n_frames):
        v = {nm: frames.get(fr, {}).get(i, 0) for i, (nm, w) in enumerate(inputs)}
        if fr < n and reset in v:
            v[reset] = active
            if fflogic and clock in v:
                v[clock] = 1 if fr == 1 else 0
        elif hold_reset and reset in v:
            v[reset] = 1 - active
        vecs.append(v)
    return vecs


# ---- co-simulation --------------------------------------------------------------

_IDENT = re.compile(IDENT)


def _preprocess(sources: dict, tag: str, root: Path, deadline: float) -> str:
    """One design through Icarus' preprocessor (its own `define`s stay its own), then
    every module it defines renamed <tag>_<name>."""
    folder = root / f"sim_{tag}"
    files = _write(folder, sources)
    r = run(ICARUS.preprocess_cmd(files, "pre.v"), folder, _limits(deadline, 0.3))
    if not r.ok:
        who = "reference" if tag == "gold" else "candidate"
        raise _Fail("error", f"{who}: icarus preprocessor failed: {r.out.strip()[-300:]}")
    text = strip_comments((folder / "pre.v").read_text(errors="replace"))
    mods = set(module_names(text))
    if mods:
        pat = re.compile(r"(?<![\w$.`'\\])(" + "|".join(sorted(map(re.escape, mods), key=len, reverse=True)) + r")(?![\w$])")
        text = pat.sub(lambda m: f"{tag}_{m.group(1)}", text)
    return "`resetall\n`timescale 1ns/1ps\n" + text


def _lit(width: int, value: int | None) -> str:
    return f"{width}'b{'x' * width}" if value is None else f"{width}'h{value:x}"


def _port_ref(name: str) -> str:
    return name if _IDENT.fullmatch(name) else f"\\{name} "


def _testbench(top: str, inputs: list, outputs: list, vecs: list, clock, skip_first: bool, nonce: str,
               check_from: int = 0, memfile: str | None = None) -> str:
    """Both designs side by side on the same stimulus. Clocked: per cycle, inputs at +1,
    compare at +4, posedge at +5, compare at +9, negedge at +10.  Unclocked: one step
    per 10 time units, compare at +5.  `memfile`: the stimulus is read from that hex file,
    one line per cycle (long random runs, where one statement per cycle compiles slowly)."""
    L = ["`timescale 1ns/1ps", f"module eqtb_{nonce};", "integer k; reg bad;"]
    for i, (n, w) in enumerate(inputs):
        L.append(f"reg [{w - 1}:0] i{i};")
    if clock:
        L.append("reg clk_eq;")
    for i, (n, w) in enumerate(outputs):
        L.append(f"wire [{w - 1}:0] r{i}, g{i};")
    for side, pre in (("gold", "r"), ("gate", "g")):
        conns = [f".{_port_ref(n)}(i{i})" for i, (n, w) in enumerate(inputs)]
        if clock:
            conns.append(f".{_port_ref(clock)}(clk_eq)")
        conns += [f".{_port_ref(n)}({pre}{i})" for i, (n, w) in enumerate(outputs)]
        L.append(f"{side}_{top} u_{side} ({', '.join(conns)});")
    L.append("reg anybad; reg xref; initial xref = 0;")
    # check_from: a replay of a long formal trace compares outputs only near its failing cycle.
    # XREF: the first place the candidate drives a bit the reference leaves x (a don't-care here,
    # 0 in the formal model: what explains a formal counterexample the replay does not show)
    L.append(f"task check(input integer cyc, input integer ph); if (cyc >= {check_from}) begin anybad = 0;")
    for i, (n, w) in enumerate(outputs):
        L.append(f"  bad = 0; if (g{i} !== r{i}) for (k = 0; k < {w}; k = k + 1) "
                 f"if ((r{i}[k] === 1'b0 || r{i}[k] === 1'b1) && g{i}[k] !== r{i}[k]) bad = 1; "
                 f"else if (!xref && r{i}[k] !== 1'b0 && r{i}[k] !== 1'b1 && (g{i}[k] === 1'b0 || g{i}[k] === 1'b1)) "
                 f"begin xref = 1; $display(\"@@{nonce} XREF %0d %0d {i} %b %b\", cyc, ph, g{i}, r{i}); end")
        L.append(f"  if (bad) begin anybad = 1; $display(\"@@{nonce} MIS %0d %0d {i} %b %b\", cyc, ph, g{i}, r{i}); end")
    L.append("  if (anybad) $finish;")
    L.append("end endtask")
    L.append("initial begin")
    if vecs == "exhaustive":
        total = sum(w for _, w in inputs)
        cat = ", ".join(f"i{i}" for i in range(len(inputs)))
        L.append(f"  for (ex = 0; ex < {1 << total}; ex = ex + 1) begin {{{cat}}} = ex[{max(total - 1, 0)}:0]; "
                 f"#5 check(ex, 0); #5; end")
        L.append(f"  $display(\"@@{nonce} DONE {1 << total}\"); $finish;")
        L += ["end", "endmodule"]
        return "\n".join(L).replace("integer k;", "integer k; reg [40:0] ex;")
    if clock:
        L.append("  clk_eq = 0;")
    L[2] += " integer cy; initial cy = 0;"
    if memfile:
        total = sum(w for _, w in inputs)
        cat = "{" + ", ".join(f"i{i}" for i in range(len(inputs))) + "}"
        L[2] += f" reg [{max(total, 1) - 1}:0] vmem [0:{len(vecs) - 1}];"
        L.insert(L.index("initial begin") + 1, f'  $readmemh("{memfile}", vmem);')
        load = f"{cat} = vmem[cy];" if inputs else ""
        first = "if (cy > 0) " if skip_first else ""
        step = (f"#1 {load} #3 {first}check(cy, 0); #1 clk_eq = 1; #4 check(cy, 1); #1 clk_eq = 0;" if clock
                else f"#1 {load} #5 {first}check(cy, 0); #4;")
        # progress, flushed: a run stopped by the time limit still says how far the designs agreed
        step += f' if (cy % 4096 == 4095) begin $display("@@{nonce} AT %0d", cy + 1); $fflush; end'
        L.append(f"  for (cy = 0; cy < {len(vecs)}; cy = cy + 1) begin {step} end")
        L += [f"  $display(\"@@{nonce} DONE {len(vecs)}\"); $finish;", "end", "endmodule"]
        return "\n".join(L)
    prev = {}
    c = 0
    while c < len(vecs):
        v = vecs[c]
        sets = [f"i{i} = {_lit(w, v.get(n, 0))};" for i, (n, w) in enumerate(inputs) if prev.get(n, -1) != v.get(n, 0)]
        prev = dict(v)
        run_len = 1         # later cycles with the same inputs: one `repeat` (long ABC traces stay small)
        while c + run_len < len(vecs) and vecs[c + run_len] == v:
            run_len += 1
        skip = c == 0 and skip_first
        if skip:
            run_len = 1
        if clock:
            first = "" if skip else " check(cy, 0);"
            body = f"#1 {' '.join(sets)} #3{first} #1 clk_eq = 1; #4 check(cy, 1); #1 clk_eq = 0; cy = cy + 1;"
            rest = f"#1 #3 check(cy, 0); #1 clk_eq = 1; #4 check(cy, 1); #1 clk_eq = 0; cy = cy + 1;"
        else:
            chk = "" if skip else " check(cy, 0);"
            body = f"#1 {' '.join(sets)} #5{chk} #4; cy = cy + 1;"
            rest = "#1 #5 check(cy, 0); #4; cy = cy + 1;"
        L.append(f"  {body}")
        if run_len > 2:
            L.append(f"  repeat ({run_len - 1}) begin {rest} end")
        elif run_len == 2:
            L.append(f"  {rest}")
        c += run_len
    L.append(f"  $display(\"@@{nonce} DONE {len(vecs)}\"); $finish;")
    L.append("end")
    L.append("endmodule")
    return "\n".join(L)


def _random_vectors(inputs: list, cycles: int, reset, active, seed: int, deep=None) -> list:
    """Biased random stimulus: corner values often, the reset held for 2 cycles then now and then.
    `deep` (the bug search where no formal check is possible, see _deep_stimulus) adds held
    inputs, other resets mostly inactive, and values built field by field from the bit slices
    the reference uses (a float's sign/exponent/mantissa each 0, all ones, 1 or random)."""
    rnd = random.Random(seed)
    deep = deep or {}
    slices, others, hold = deep.get("slices", {}), deep.get("resets", {}), deep.get("hold", 0.0)
    vecs = []
    prev = {}
    for c in range(cycles):
        v = {}
        for n, w in inputs:
            if hold and c >= 2 and n in prev and rnd.random() < hold:
                v[n] = prev[n]
                continue
            if n == reset or n in others:
                on = c < 2 or rnd.random() < 0.01
                act = active if n == reset else others[n]
                v[n] = act if on else 1 - act
                continue
            r = rnd.random()
            if w == 1:
                v[n] = rnd.getrandbits(1)
            elif n in slices and r < 0.3:
                v[n] = _by_fields(rnd, slices[n])
            elif r < 0.1:
                v[n] = 0
            elif r < 0.2:
                v[n] = (1 << w) - 1
            elif r < 0.3:
                v[n] = rnd.randrange(min(4, 1 << w))
            elif r < 0.35:
                v[n] = 1 << rnd.randrange(w)
            else:
                v[n] = rnd.getrandbits(w)
        vecs.append(v)
        prev = v
    return vecs


def _by_fields(rnd, fields: list) -> int:
    """A value whose fields [(lo, width)] are each 0, all ones, 1 or random."""
    v = 0
    for lo, w in fields:
        r = rnd.random()
        f = 0 if r < 0.3 else (1 << w) - 1 if r < 0.6 else 1 if r < 0.7 else rnd.getrandbits(w)
        v |= f << lo
    return v


DEEP_CYCLES = (1 << 17) + 64     # the bug search without a formal check: as deep as ABC's sim3


def _deep_stimulus(ref: dict, inputs: list, clock, reset) -> dict:
    """What _random_vectors(deep=...) needs, read from the reference source: the bit slices
    of each input (`a[30:23]`), and other 1-bit inputs named like a reset (their polarity from
    the name: ..n / .._n active low)."""
    text = "\n".join(t for t in ref.values() if isinstance(t, str))
    slices = input_fields(text, inputs)
    resets = {n: 0 if re.search(r"(_n|n)$", n) else 1 for n, w in inputs
              if w == 1 and n not in (clock, reset) and re.search(r"(?i)rst|reset", n)}
    return {"slices": slices, "resets": resets, "hold": 0.3}


MEMFILE_CYCLES = 4096     # longer stimulus than this goes to the testbench as a $readmemh file


def _pack(v: dict, inputs: list) -> int:
    """One cycle's inputs as the testbench's {i0, i1, ...} concatenation."""
    out = 0
    for n, w in inputs:
        out = (out << w) | (v.get(n, 0) & ((1 << w) - 1))
    return out


def _cosim(gold_pre: str, gate_pre: str, top: str, ports: dict, clock, vecs: list, skip_first: bool,
           root: Path, deadline: float, tag: str, check_from: int = 0) -> dict:
    """{ok, cycles, mismatch: {cycle, phase, outputs{name: (cand_bits, ref_bits)}}, error}."""
    nonce = secrets.token_hex(4)
    inputs = [(n, w) for n, (d, w) in ports.items() if d == "input" and n != clock]
    outputs = [(n, w) for n, (d, w) in ports.items() if d == "output"]
    folder = root / f"cosim_{tag}"
    folder.mkdir(exist_ok=True)
    memfile = None
    if isinstance(vecs, list) and len(vecs) > MEMFILE_CYCLES and all(x is not None for v in vecs for x in v.values()):
        memfile = "vec.hex"
        (folder / memfile).write_text("".join(f"{_pack(v, inputs):x}\n" for v in vecs))
    (folder / "tb.v").write_text(_testbench(top, inputs, outputs, vecs, clock, skip_first, nonce, check_from, memfile))
    (folder / "gold.v").write_text(gold_pre)
    (folder / "gate.v").write_text(gate_pre)
    r = run(ICARUS.compile_cmd(["tb.v", "gold.v", "gate.v"], "sim", f"eqtb_{nonce}"), folder, _limits(deadline, 0.5))
    if not r.ok:
        return {"ok": False, "error": "timeout" if r.timed_out else f"icarus cannot compile: {r.out.strip()[-300:]}"}
    r = run(ICARUS.run_cmd("sim"), folder, _limits(deadline))
    res = {"ok": True, "cycles": len(vecs) if isinstance(vecs, list) else 0, "seconds": r.seconds}
    m = re.search(rf"@@{nonce} DONE (\d+)", r.out)
    if m:
        res["cycles"] = int(m.group(1))
    mis = re.findall(rf"@@{nonce} MIS (\d+) (\d+) (\d+) (\S+) (\S+)", r.out)
    xr = re.search(rf"@@{nonce} XREF (\d+) (\d+) (\d+) (\S+) (\S+)", r.out)
    if xr:
        res["xref"] = {"cycle": int(xr.group(1)), "phase": int(xr.group(2)), "output": outputs[int(xr.group(3))][0],
                       "candidate": xr.group(4), "reference": xr.group(5)}
    if mis:
        cyc, ph = int(mis[0][0]), int(mis[0][1])
        res["mismatch"] = {"cycle": cyc, "phase": ph,
                           "outputs": {outputs[int(i)][0]: (g, rf_) for c, p, i, g, rf_ in mis
                                       if int(c) == cyc and int(p) == ph}}
    elif f"@@{nonce} DONE" not in r.out:
        res["ok"] = False
        at = re.findall(rf"@@{nonce} AT (\d+)", r.out)
        res["cycles"] = int(at[-1]) if at else 0
        res["error"] = ("timeout" if r.timed_out else
                        "simulation stopped early (a design called $finish/$stop, or the simulator failed): "
                        + r.out.strip()[-200:])
    return res


# ---- verdict text ----------------------------------------------------------------

def _fmt(bits_or_int, width=None) -> str:
    if isinstance(bits_or_int, str):
        v = _bits_to_int(bits_or_int)
        if v is None:
            return f"{len(bits_or_int)}'b{bits_or_int}"
        width = len(bits_or_int)
        bits_or_int = v
    v = bits_or_int
    if v is None:
        return "x"
    return str(v) if (width or 0) <= 16 else f"'h{v:x}"


def _runs(vecs: list, names: list, widths: dict, limit: int = 8) -> str:
    """A long stimulus as runs of identical cycles: 'cycles 1-65536: en=1, rst=0 | ...'."""
    out, c = [], 0
    while c < len(vecs):
        e = c
        while e + 1 < len(vecs) and vecs[e + 1] == vecs[c]:
            e += 1
        vals = ", ".join(f"{n}={_fmt(vecs[c].get(n), widths[n])}" for n in names) or "no inputs"
        out.append(f"cycle{'s' * (e > c)} {c}{f'-{e}' if e > c else ''}: {vals}")
        c = e + 1
    if len(out) > limit:
        return ""        # random stimulus: no short summary
    return " | ".join(out)


def _cex(vecs: list, inputs: list, clock, reset, mismatch: dict, method: str, seq: bool) -> tuple[dict, str]:
    """data['counterexample'] and the feedback sentence."""
    cyc = mismatch["cycle"]
    widths = dict(inputs)
    shown = vecs[: cyc + 1]
    lo = 0 if len(shown) <= 64 else len(shown) - 16     # long (deep-search) traces: the last 16 cycles
    cycles = {c: {"cycle": c, "inputs": {n: _fmt(v.get(n), widths[n]) for n, _ in inputs if n != clock}}
              for c, v in enumerate(shown) if c >= lo or c == 0}
    outs = {n: {"candidate": _fmt(g), "reference": _fmt(r)} for n, (g, r) in mismatch["outputs"].items()}
    diff = "; ".join(f"{n} is {o['candidate']}, reference gives {o['reference']}" for n, o in outs.items())

    def ins(c):
        return ", ".join(f"{n}={v}" for n, v in cycles[c]["inputs"].items()) or "no inputs"
    if not seq:
        text = f"with {ins(cyc)}: {diff}"
    else:
        when = "before" if mismatch.get("phase", 0) == 0 else "after"
        hist = " | ".join(f"cycle {c}: {ins(c)}" for c in range(max(0, cyc - 5), cyc + 1))
        more = f" (cycles 0..{cyc - 6} not shown)" if cyc > 5 else ""
        runs = _runs(shown, [n for n, _ in inputs if n != clock], widths) if lo else ""
        text = (f"at cycle {cyc} ({when} the clock edge) {diff}; inputs{more}: {hist}"
                + (f"; the whole stimulus from reset: {runs}" if runs else ""))
    data = {"cycle": cyc, "phase": "pre-edge" if mismatch.get("phase", 0) == 0 else "post-edge",
            "inputs": [cycles[c] for c in sorted(cycles)], "outputs": outs, "found_by": method}
    if lo:
        data["inputs_omitted"] = f"cycles 1..{lo - 1}"
    return data, text


# ---- main entry --------------------------------------------------------------------

def equivalence(cand: dict, ref: dict, top: str, clock=None, reset=None, reset_active_low=None, depth=20,
                cosim_cycles=2000, timeout_s=60, seed=1, ref_top: str | None = None) -> StageResult:
    """Compare candidate sources (name -> text) with the reference; see the module doc for verdicts."""
    t0 = time.monotonic()
    deadline = t0 + timeout_s
    res = StageResult("equiv", "error", tool="yosys+icarus",
                      version=f"{YOSYS.version()}; {ICARUS.version()}")
    bad = [r for name, text in cand.items() for r in (screen(text, name) if isinstance(text, str)
                                                        else [f"{name}: not text"])]
    if bad:
        res.status, res.diagnostics = "rejected", [Diagnostic(b) for b in bad]
        res.data = {"verdict": "rejected"}
        return res
    try:
        with Sandbox(prefix="rtla-equiv-") as sb:
            _run(res, cand, ref, top, ref_top or top, clock, reset, reset_active_low, depth, cosim_cycles,
                 seed, sb.path, deadline)
    except _Fail as f:
        res.status = f.status
        res.diagnostics.append(Diagnostic(f.message))
        res.data.update(f.data)
        res.data.setdefault("verdict", f.status)
        res.log = f.log
    except Exception as e:  # a crash here must not take the caller down
        res.status = "error"
        res.diagnostics.append(Diagnostic(f"equivalence check crashed: {e.__class__.__name__}: {e}"))
        res.data.setdefault("verdict", "error")
    res.seconds = round(time.monotonic() - t0, 3)
    res.data["seconds"] = res.seconds
    return res


def _run(res, cand, ref, top, ref_top, clock, reset, reset_active_low, depth, cosim_cycles, seed, root, deadline):
    try:
        gold = _elaborate(ref, ref_top, "gold", root, deadline)
    except _Fail as f:
        if f.status != "error":
            raise
        gold = _sim_only(ref, ref_top, "gold", root, f.message, clock)   # e.g. float_multi's event list
    try:
        gate = _elaborate(cand, top, "gate", root, deadline)
    except _Fail as f:
        if f.status != "error" or gold.il is not None:
            raise
        gate = _sim_only(cand, top, "gate", root, f.message, clock)
    diff = _port_diff(gate.ports, gold.ports)
    if diff:
        raise _Fail("fail", f"interface differs from the reference: {'; '.join(diff)}",
                    {"verdict": "interface mismatch", "differences": diff})
    if any(d == "inout" for d, w in gold.ports.values()):
        raise _Fail("error", "inout ports are not supported by the equivalence check")
    if gate.problems and gate.il is not None:
        raise _Fail("counterexample", f"candidate: {gate.problems[0]} (a combinational loop or "
                    "conflicting drivers make a formal proof meaningless)", {"verdict": "counterexample",
                                                                           "method": "structural",
                                                                           "problems": gate.problems})
    from .ports import Port
    sequential = gold.state or gate.state
    plist = [Port(n, d, w) for n, (d, w) in gold.ports.items()]
    g_clock, g_reset, g_low = detect_clock_reset(plist, "\n".join(t for t in ref.values() if isinstance(t, str)))
    clocks = gold.clocks | gate.clocks
    if clock is None and sequential:
        ports_clk = {p for p, _ in clocks}
        clock = next(iter(ports_clk)) if len(ports_clk) == 1 else g_clock
    if reset is None and sequential:
        reset = g_reset
    if reset_active_low is None:
        reset_active_low = g_low if reset == g_reset else bool(re.search(r"(_n|n)$", reset or ""))
    for name, what in ((clock, "clock"), (reset, "reset")):
        if name is not None and gold.ports.get(name, ("", 0)) != ("input", 1):
            raise _Fail("error", f"{what} '{name}' is not a 1-bit input of '{top}'")
    active = 0 if reset_active_low else 1
    fflogic = sequential and (gold.complex_clocking or gate.complex_clocking or len(clocks) > 1
                              or (clock is not None and clocks and next(iter(clocks))[0] != clock))
    res.data.update({"sequential": sequential, "clock": clock, "reset": reset,
                     "reset_active_low": bool(reset_active_low), "clocking": "clk2fflogic" if fflogic else "single"})
    inputs = [(n, w) for n, (d, w) in gold.ports.items() if d == "input"]

    # 0. small combinational designs: every input vector, a proof that no SAT time-out can weaken
    small_comb = not sequential and 0 < sum(w for _, w in inputs) <= EXHAUSTIVE_BITS
    if small_comb:
        try:
            half = time.monotonic() + 0.5 * (deadline - time.monotonic())
            if _exhaustive(res, _preprocess(ref, "gold", root, half), _preprocess(cand, "gate", root, half),
                           top, gold, inputs, root, half, []):
                return
            small_comb = False   # ran out of its share: SAT next, random co-simulation last
        except _Fail:
            pass

    # 1. formal: proof, induction, bounded check
    export = None
    if gold.il is None or gate.il is None:
        sat = {"verdict": "error", "error": gold.problems[0] if gold.il is None else gate.problems[0],
               "log": "", "seconds": 0.0, "method": "cosim"}
    else:
        keep = 0.7 if sequential else 0.35      # left for what follows (sequential: ABC when induction does not close)
        if sequential:     # the AIGER export for ABC runs beside SAT induction (both are single-threaded yosys)
            pool, sat_done = ThreadPoolExecutor(1), threading.Event()
            export = pool.submit(_abc_export, gold, gate, root, clock, reset, active, fflogic, inputs,
                                 deadline - 0.2 * (deadline - time.monotonic()), sat_done)
            pool.shutdown(wait=False)
        sat = _sat(gold, gate, root, clock, reset, active, depth, deadline - keep * (deadline - time.monotonic()), fflogic)
        if export is not None and sat["verdict"] in ("proven", "counterexample"):
            sat_done.set()          # an export still waiting to start is not needed
        if sat["verdict"] == "proven" and export is not None:
            _stop(export, root)
    res.log = sat["log"]
    res.data["sat_seconds"] = round(sat["seconds"], 3)
    verdict = sat["verdict"]
    notes = []
    if verdict == "proven":
        res.status = "proven"
        res.data.update({"verdict": "proven", "method": sat["method"]})
        return
    if sat.get("error"):
        notes.append(f"formal check not possible: {sat['error']}")
    elif verdict == "unknown":
        notes.append("formal check timed out")

    # 1b. ABC when induction did not close: deep random simulation (sim3), then dprove, then PDR
    abc = None
    if (verdict in ("bounded", "unknown") and gold.il is not None and gate.il is not None
            and deadline - time.monotonic() > 1.5):
        abc = _abc(gold, gate, root, clock, reset, active, fflogic, inputs,
                   deadline - 0.2 * (deadline - time.monotonic()), export)
    elif export is not None:
        _stop(export, root)
    if abc is not None:
        res.data["abc_seconds"] = round(abc["seconds"], 3)
        res.data["abc"] = {k: v for k, v in abc.items() if k not in ("log", "vectors")}
        res.log = (res.log + "\n--- abc ---\n" + abc["log"])[-4000:]
        if abc["verdict"] == "proven":
            res.status = "proven"
            res.data.update({"verdict": "proven", "method": abc["method"]})
            res.diagnostics = [Diagnostic(f"SAT induction did not close ({verdict}); proven by {abc['method']}",
                                          severity="info")]
            return
        if abc["verdict"] in ("unknown", "error"):
            notes.append(f"ABC: no proof and no counterexample ({abc.get('why') or abc.get('error', '')})")

    # 2. simulation: replay a SAT trace, then random stimulus
    try:
        gpre = _preprocess(ref, "gold", root, deadline)
        tpre = _preprocess(cand, "gate", root, deadline)
    except _Fail as f:
        gpre = tpre = None
        notes.append(f.message)
    sim_clock = clock if (sequential and clock) else None
    mismatch = None      # a formal counterexample that Icarus does not reproduce
    if abc is not None and abc["verdict"] == "counterexample" and gpre is not None:
        rclk = None if fflogic else sim_clock
        vecs = abc["vectors"] if rclk is None else [{k: x for k, x in v.items() if k != rclk} for v in abc["vectors"]]
        # outputs are compared from 64 cycles before ABC's first failing frame (long traces replay fast)
        rep = _cosim(gpre, tpre, top, gold.ports, rclk, vecs, bool(reset) and sequential, root, deadline, "abc",
                     check_from=max(0, (abc.get("frame") or 0) - 64))
        if rep.get("mismatch"):
            data, text = _cex(vecs, [(n, w) for n, w in inputs if n != rclk], rclk, reset, rep["mismatch"],
                              f"{abc['method']} (replayed in icarus)", sequential)
            _set_cex(res, data, text, abc["method"])
            return
        mismatch = {"found_by": abc["method"], "frame": abc.get("frame"), "cycles": len(vecs),
                    "trace_tail": vecs[-8:], "replay": _replay_summary(rep)}
        notes.append(f"{abc['method']} counterexample at frame {abc.get('frame')} not reproduced in Icarus")
    if verdict == "counterexample":
        vecs, first = _trace_vectors(sat.get("trace", {}), inputs, fflogic, sim_clock)
        mapped = vecs if not (fflogic and sim_clock) else None
        if gpre is not None and mapped:
            rep = _cosim(gpre, tpre, top, gold.ports, None if fflogic else sim_clock, mapped,
                         bool(reset) and sequential, root, deadline, "replay")
            if rep.get("mismatch"):
                data, text = _cex(mapped, inputs, None if fflogic else sim_clock, reset, rep["mismatch"],
                                  "sat (replayed in icarus)", sequential)
                _set_cex(res, data, text, sat["method"])
                return
            if not rep["ok"] and "cannot compile" in rep.get("error", ""):
                _sat_cex_unreplayed(res, sat, vecs, first, inputs, sim_clock, gold, sequential)
                return
            mismatch = {"found_by": sat["method"], "frame": first, "cycles": len(mapped),
                        "sat_trace": {str(k): v for k, v in sat.get("trace", {}).items()},
                        "replay": _replay_summary(rep)}
            notes.append("SAT counterexample not reproduced in Icarus (X or initial-value semantics differ "
                         "between SAT and simulation); random co-simulation looked for a difference next")
        else:
            _sat_cex_unreplayed(res, sat, vecs, first, inputs, sim_clock, gold, sequential)
            return
    if gpre is None:
        _final(res, verdict, depth, sat, notes, None, mismatch)
        return
    if time.monotonic() > deadline - 0.5:
        notes.append("no time left for co-simulation")
        _final(res, verdict, depth, sat, notes, None, mismatch)
        return
    in_bits = sum(w for _, w in inputs)
    if small_comb and _exhaustive(res, gpre, tpre, top, gold, inputs, root, deadline, notes):
        return
    # no formal check possible (a design Yosys cannot read): a deep bug search instead of a short one
    deep = _deep_stimulus(ref, inputs, sim_clock, reset) if gold.il is None or gate.il is None else None
    cycles = max(cosim_cycles, DEEP_CYCLES) if deep else cosim_cycles
    cycles = cycles if sequential else min(cycles, 1 << min(30, in_bits))
    vecs = _random_vectors([(n, w) for n, w in inputs if n != sim_clock], max(1, cycles), reset if sequential else None,
                           active, seed, deep)
    cs = _cosim(gpre, tpre, top, gold.ports, sim_clock, vecs, bool(reset) and sequential, root, deadline, "random")
    res.data["cosim_seconds"] = round(cs.get("seconds", 0.0), 3)
    if cs.get("mismatch"):
        data, text = _cex(vecs, [(n, w) for n, w in inputs], sim_clock, reset, cs["mismatch"], "random co-simulation",
                          sequential)
        _set_cex(res, data, text, "cosim")
        return
    if not cs["ok"] and cs["error"] == "timeout" and cs.get("cycles"):
        notes.append(f"co-simulation stopped at the time limit after {cs['cycles']} of {len(vecs)} cycles")
        _final(res, verdict, depth, sat, notes, cs["cycles"], mismatch)
        return
    if not cs["ok"]:
        notes.append(f"co-simulation: {cs['error']}")
        if "stopped early" in cs["error"]:
            res.status = "counterexample"
            res.data.update({"verdict": "counterexample", "method": "cosim"})
            res.diagnostics = [Diagnostic(n) for n in notes]
            return
        _final(res, verdict, depth, sat, notes, None, mismatch)
        return
    _final(res, verdict, depth, sat, notes, cs["cycles"], mismatch)


def _exhaustive(res, gpre, tpre, top, gold, inputs, root, deadline, notes) -> bool:
    """Simulate every input vector; True when that settled the verdict (proven or counterexample)."""
    cs = _cosim(gpre, tpre, top, gold.ports, None, "exhaustive", False, root, deadline, "all")
    if cs.get("mismatch"):
        m = cs["mismatch"]
        vec = _split(m["cycle"], inputs)
        m["cycle"] = 0
        data, text = _cex([vec], inputs, None, None, m, "exhaustive simulation", False)
        _set_cex(res, data, text, "exhaustive simulation")
        return True
    if cs["ok"]:
        res.status = "proven"
        res.data.update({"verdict": "proven", "method": "exhaustive simulation", "vectors": cs["cycles"]})
        res.diagnostics = [Diagnostic(n, severity="info") for n in notes]
        return True
    return False


EXHAUSTIVE_BITS = 18     # combinational designs with at most this many input bits are simulated exhaustively


def _split(value: int, inputs: list) -> dict:
    """The exhaustive loop's counter -> input values ({i0, i1, ...} = counter)."""
    out, shift = {}, sum(w for _, w in inputs)
    for n, w in inputs:
        shift -= w
        out[n] = (value >> shift) & ((1 << w) - 1)
    return out


def _sat_cex_unreplayed(res, sat, vecs, first, inputs, clock, gold, sequential):
    """Report a SAT counterexample that could not be replayed, from SAT's own output values."""
    trace = sat.get("trace", {})
    steps = sorted(trace)
    outs = {}
    if steps:
        last = trace[steps[min(first, len(steps) - 1)]]
        for n, (d, w) in gold.ports.items():
            if d == "output" and last.get(f"gold_{n}") != last.get(f"gate_{n}"):
                outs[n] = (last.get(f"gate_{n}", "?"), last.get(f"gold_{n}", "?"))
    data, text = _cex(vecs or [{}], [(n, w) for n, w in inputs], clock, None,
                      {"cycle": min(first, max(0, len(vecs) - 1)), "phase": 0, "outputs": outs}, "sat", sequential)
    _set_cex(res, data, text + " (from the SAT model; not replayed in simulation)", sat["method"])


def _set_cex(res, data, text, method):
    res.status = "counterexample"
    res.data.update({"verdict": "counterexample", "method": method, "counterexample": data})
    res.diagnostics = [Diagnostic(text)]


def _replay_summary(rep: dict) -> dict:
    """What the Icarus replay of a formal counterexample said (report data)."""
    return {"ok": rep.get("ok"), "cycles": rep.get("cycles"), "error": rep.get("error"),
            "mismatch": rep.get("mismatch"), "reference_x": rep.get("xref")}


def _final(res, verdict, depth, sat, notes, cosim_cycles, mismatch=None):
    if mismatch is not None and not mismatch["replay"].get("ok"):
        # a formal counterexample whose replay did not finish (time limit): neither confirmed nor a pass
        res.status = "unknown(timeout)"
        res.data.update({"verdict": "unknown", "reason": "replay-timeout", "method": mismatch["found_by"],
                         "replay_mismatch": mismatch})
        notes.insert(0, f"{mismatch['found_by']} found a difference at cycle {mismatch.get('frame')}, but its "
                     f"replay in Icarus did not finish: {mismatch['replay'].get('error')}")
        res.diagnostics = [Diagnostic(n, severity="error" if i == 0 else "info") for i, n in enumerate(notes)]
        return
    if mismatch is not None:
        # a formal tool refuted the candidate but simulation does not show it: not a pass
        res.status = "unknown(replay-mismatch)"
        res.data.update({"verdict": "unknown", "reason": "replay-mismatch", "method": mismatch["found_by"],
                         "replay_mismatch": mismatch})
        if cosim_cycles:
            res.data["cosim_vectors"] = cosim_cycles
        xr = mismatch["replay"].get("reference_x")
        why = (f"in the replay the reference's {xr['output']} is {xr['reference']} (x) at cycle {xr['cycle']} where the "
               f"candidate gives {xr['candidate']}: the candidate defines what the reference leaves undefined "
               "(an x is a don't-care in simulation, 0 in the formal model), no difference in simulation and no proof"
               if xr else "X or initial-value semantics differ between the formal model (undefined bits 0, registers "
               "start at 0) and simulation; make every register reset and avoid x assignments")
        notes.insert(0, f"{mismatch['found_by']} found a difference (cycle {mismatch.get('frame')}) that the Icarus "
                     f"replay does not reproduce: {why}")
        res.diagnostics = [Diagnostic(n, severity="error" if i == 0 else "info") for i, n in enumerate(notes)]
        return
    if verdict == "bounded":
        res.status = f"bounded({depth})"
        res.data.update({"verdict": "bounded", "method": "sat-bmc", "depth": depth})
        if cosim_cycles:
            res.data["cosim_vectors"] = cosim_cycles
        notes.insert(0, f"no difference in the first {depth} cycles after reset; induction did not close"
                     + (f"; {cosim_cycles} random co-simulation cycles also agree" if cosim_cycles else ""))
    elif cosim_cycles:
        res.status = f"cosim({cosim_cycles} vectors)"
        res.data.update({"verdict": "cosim", "method": "cosim", "vectors": cosim_cycles})
    else:
        res.status = "unknown(timeout)"
        res.data.update({"verdict": "unknown", "method": sat.get("method", "")})
    res.diagnostics = [Diagnostic(n, severity="info" if res.status != "unknown(timeout)" else "error") for n in notes]
