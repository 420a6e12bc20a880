"""ABC (`yosys-abc`) on the miter as AIGER: deep random simulation from reset (sim3), then
a sequential proof (dprove, then PDR).  The export (`start_export`) runs beside SAT
induction; strategy `abc` runs when induction did not close."""
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ..report import Diagnostic
from ..scripts import render
from ..sandbox import run
from ..tools import ABC, YOSYS
from .base import _limits, _port_ref
from .context import EquivContext
from .trace import _init_frames, _parse_cex
from .verdict import _proven

SIM_FRAMES = (1 << 17) + 64      # sim3 depth: bugs that need a 16-bit counter to wrap twice
DPROVE_MAX_S = 4.0               # dprove's share of the ABC time at most; PDR gets the rest
EXPORT_DELAY_S = 0.4             # SAT decides most designs sooner; only then is the AIGER export started beside it


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


def _abc_export(ctx: EquivContext, deadline: float, skip=None) -> dict:
    """The miter as two AIGER files (abc/prove.aig, abc/sim.aig); {seconds, error, timed_out}.
    Beside SAT it starts after EXPORT_DELAY_S, and not at all when `skip` is set by then
    (SAT decided quickly)."""
    if skip is not None and skip.wait(EXPORT_DELAY_S):
        return {"seconds": 0.0, "error": "not needed", "timed_out": False}
    gold, gate = ctx.gold, ctx.gate
    folder = ctx.root / "abc"
    folder.mkdir(exist_ok=True)
    for d in (gold, gate):
        (folder / d.il.name).write_bytes(d.il.read_bytes())
    (folder / "wrap.v").write_text(_abc_wrapper(ctx.inputs, ctx.clock, ctx.reset, ctx.active, ctx.fflogic))
    (folder / "aig.ys").write_text(render("equiv_aig.ys", gold=gold.il.name, gate=gate.il.name,
                                          prep="clk2fflogic" if ctx.fflogic else "async2sync"))
    r = run(YOSYS.script_cmd("aig.ys"), folder, _limits(deadline))
    res = {"seconds": round(r.seconds, 3)}
    if not r.ok or not (folder / "prove.aig").exists() or not (folder / "sim.aig").exists():
        res["error"] = next((ln.strip() for ln in r.out.splitlines() if "ERROR" in ln),
                            "time limit" if r.timed_out else f"yosys exit {r.rc}")
        res["timed_out"] = r.timed_out
    return res


def start_export(ctx: EquivContext) -> threading.Event:
    """The AIGER export in a thread beside SAT induction (both are single-threaded yosys):
    ctx.export is its Future; set the returned event when SAT decided before it started."""
    pool, sat_done = ThreadPoolExecutor(1), threading.Event()
    ctx.export = pool.submit(_abc_export, ctx, ctx.deadline - 0.2 * (ctx.deadline - time.monotonic()), sat_done)
    pool.shutdown(wait=False)
    return sat_done


def _stop(export):
    """The export is not needed: wait for it (its folder lives in the sandbox being torn down)."""
    try:
        export.result()
    except Exception:
        pass


def _abc(ctx: EquivContext, deadline: float, export=None) -> dict:
    """ABC on the miter: sim3 (long random simulation from reset, about a second) first, then
    dprove (the full sequential-equivalence pipeline) with the rest of the time.  {verdict: proven|counterexample|unknown|error,
    method, vectors (per frame, counterexamples), frame, log, seconds}."""
    t0 = time.monotonic()
    exp = export.result() if export is not None else _abc_export(ctx, deadline)
    res = {"log": "", "seconds": 0.0, "method": "abc", "export_seconds": exp["seconds"]}
    if exp.get("error"):
        res.update(verdict="error" if not exp.get("timed_out") else "unknown", error=f"AIGER export: {exp['error']}",
                   seconds=time.monotonic() - t0)
        return res
    logs = []
    sim_note = _sim3(ctx, deadline, res, logs)
    if sim_note is not None:
        whys = _prove(ctx, deadline, res, logs)
        if "verdict" not in res:
            res.update(verdict="unknown", why=f"{sim_note}; {'; '.join(whys)}")
    res["log"] = "\n".join(logs)[-3000:]
    res["seconds"] = time.monotonic() - t0
    return res


def _sim3(ctx: EquivContext, deadline: float, res: dict, logs: list) -> str | None:
    """Deep bug search: ~2^17 frames of random simulation from reset (reset held off afterwards),
    capped at about a second: equivalent designs pay little for it.  None when it found a
    counterexample (in `res`), else what it says for the record."""
    folder = ctx.root / "abc"
    cmd = f"read sim.aig; sim3 -F {SIM_FRAMES} -W 4 -N 7 -T 1; write_cex -n sim.cex"
    r = run(ABC.commands_cmd(cmd), folder, _limits(min(deadline, time.monotonic() + 3)))
    logs.append(r.out[-1500:])
    res["sim3_seconds"] = round(r.seconds, 3)
    m = _ASSERTED.search(r.out)
    if m and (folder / "sim.cex").exists():
        vecs = _parse_cex(folder / "sim.cex", folder / "sim.map", ctx.inputs, ctx.clock, ctx.reset, ctx.active,
                          ctx.fflogic, True)
        res.update(verdict="counterexample", method="abc-sim3", vectors=vecs,
                   frame=int(m.group(1)) if m.group(1) else len(vecs) - 1)
        return None
    return "sim3: no difference" + (" (time limit)" if r.timed_out or "timeout" in r.out.lower()
                                    else f" in {SIM_FRAMES} frames")


def _prove(ctx: EquivContext, deadline: float, res: dict, logs: list) -> list:
    """dprove (BMC, retiming, induction with fraiging, interpolation, BDD reachability, PDR)
    decides designs whose state corresponds within a fraction of a second but ignores its -T on
    others (freq_div's 7- vs 6-bit counter: 70 s), so it gets half the time, at most
    DPROVE_MAX_S; then PDR alone (an invariant over unreachable counter values: under a second).
    Sets res' verdict when one decides; returns why each did not."""
    folder = ctx.root / "abc"
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
            vecs = _parse_cex(folder / "prove.cex", folder / "prove.map", ctx.inputs, ctx.clock, ctx.reset,
                              ctx.active, ctx.fflogic)
            res.update(verdict="counterexample", method=f"abc-{engine}", vectors=vecs,
                       frame=int(m.group(1)) if m.group(1) else len(vecs) - 1)
            break
        whys.append(f"{engine}: " + ("time limit" if r.timed_out else
                                     "undecided" if "UNDECIDED" in r.out else f"abc exit {r.rc}"))
    return whys


def abc(ctx: EquivContext):
    """When SAT induction did not close (bounded, or timed out): ABC; a proof ends the check,
    a counterexample goes to the Icarus replay (ctx.abc)."""
    res, verdict = ctx.res, ctx.verdict
    if verdict in ("bounded", "unknown") and ctx.use_abc and ctx.formal and ctx.deadline - time.monotonic() > 1.5:
        ctx.abc = _abc(ctx, ctx.deadline - 0.2 * (ctx.deadline - time.monotonic()), ctx.export)
    elif ctx.export is not None:
        _stop(ctx.export)
    a = ctx.abc
    if a is None:
        return None
    res.data["abc_seconds"] = round(a["seconds"], 3)
    res.data["abc"] = {k: v for k, v in a.items() if k not in ("log", "vectors")}
    res.log = (res.log + "\n--- abc ---\n" + a["log"])[-4000:]
    if a["verdict"] == "proven":
        return _proven(res, a["method"], [Diagnostic(f"SAT induction did not close ({verdict}); proven by {a['method']}",
                                                      severity="info")])
    if a["verdict"] in ("unknown", "error"):
        ctx.notes.append(f"ABC: no proof and no counterexample ({a.get('why') or a.get('error', '')})")
    return None
