"""Timing and power with OpenSTA on a gate-level netlist.

Clock on the detected clock port, or a virtual clock for combinational designs; IO delays 0, so every
input->output path is also held to one period. PPA = area x delay x power (um2 * ns * W).
"""
import re
import time
from pathlib import Path

from . import hdl
from .report import Diagnostic, StageResult
from .sandbox import Limits, run
from .scripts import render
from .tools import OPENSTA

_INPUT_RE = re.compile(r"^\s*input\s+(?:\[[^\]]+\]\s*)?([^;]+);", re.M)
_HEADER_RE = re.compile(r"\bmodule\s+\\?\S+?\s*\(([^;]*)\)\s*;")


def netlist_inputs(netlist: str) -> list[str]:
    """Input names of a Yosys netlist in port-list order (the RTL's); bits of a split vector read `a[3]`."""
    names = []
    for group in _INPUT_RE.findall(netlist):
        names += [n.strip().lstrip("\\").strip() for n in group.split(",")]
    head = _HEADER_RE.search(netlist)
    order = [n.strip().lstrip("\\").strip() for n in head.group(1).split(",")] if head else []
    known, listed = set(names), set(order)
    return [n for n in order if n in known] + [n for n in names if n not in listed]


def netlist_clock(netlist: str) -> str | None:
    """The clock of a netlist by the rule every stage uses (eda.hdl.detect_clock) on its scalar inputs."""
    return hdl.detect_clock(n for n in netlist_inputs(netlist) if "[" not in n)


def timing_power(netlist: Path, top: str, lib: Path, clock: str | None = "auto", period: float = 10.0,
                 limits: Limits | None = None, spef: Path | None = None, propagated: bool = False,
                 name: str = "sta") -> StageResult:
    """`spef`: wire parasitics (from place and route) beside the netlist; `propagated`: a clock tree was built."""
    lim = limits or Limits(wall_s=60, cpu_s=120, mem_mb=4096)
    t0 = time.monotonic()
    netlist = Path(netlist)
    wd = netlist.parent
    if clock == "auto":
        clock = netlist_clock(netlist.read_text(errors="replace"))
    (wd / "sta.tcl").write_text(render("sta.tcl", lib=lib, netlist=netlist.name, top=top, clock=clock or "",
                                       period=period, parasitics=f"read_spef {Path(spef).name}" if spef else "",
                                       propagated="set_propagated_clock [all_clocks]" if propagated else ""))
    r = run(OPENSTA.script_cmd("sta.tcl"), wd, lim, ro=[lib])   # Liberty: read-only in the sandbox
    out = r.out
    ver = OPENSTA.version()
    data = {"clock": clock, "period_ns": period}

    def done(status, diags):
        return StageResult(name, status, time.monotonic() - t0, "sta", ver, diags, data, out[-3000:])
    if r.timed_out or r.limit:
        return done("timeout" if r.timed_out or r.limit == "cpu" else "error",
                    [Diagnostic(f"OpenSTA stopped by the {r.limit or 'wall'} limit")])
    found = re.search(r"^@@CLOCKS (.+)$", out, re.M)
    if found:                 # the clock of the flip-flops, where no input's name said which (sta.tcl)
        data["clock"] = " ".join(found.group(1).split())
    errs = [l for l in out.splitlines() if l.startswith("Error")]
    checks = out.split("@@CHECKS", 1)[-1].split("@@SETUP", 1)[0]
    pw = re.search(r"^Total\s+([-\d.eE+]+)\s+([-\d.eE+]+)\s+([-\d.eE+]+)\s+([-\d.eE+]+)", out.split("@@POWER")[-1], re.M)
    paths = [_path(b) for b in checks.split("Startpoint:")[1:]]
    paths = [p for p in paths if p["arrival"] is not None]
    crit = max(paths, key=lambda p: p["arrival"], default=None)   # one path per group: longest is critical
    worst = min((p["slack"] for p in paths if p["slack"] is not None), default=None)
    if errs or not pw:
        return done("fail", [Diagnostic(e) for e in errs[:5]] or [Diagnostic("OpenSTA printed no power report")])
    setup = _setup(out.split("@@SETUP", 1)[-1].split("@@WNS", 1)[0])
    data.update(setup)
    why = _untimed(crit, setup)
    if why:
        # no timed delay (or one of a loop the timer cut): a PPA of 0 or of an untimed design would be the best an
        # optimizer ever saw, so the stage fails and says what it could not time
        data["delay_ns"] = None
        ck = data["clock"]
        return done("fail", [Diagnostic(f"{why} (clock {'port ' + ck if ck else 'virtual: no clock port detected'})")])
    data.update({
        "delay_ns": crit["arrival"],
        "slack_ns": worst,
        "wns_ns": min(0.0, worst) if worst is not None else 0.0,
        "power_w": float(pw.group(4)),
        "power_internal_w": float(pw.group(1)), "power_switching_w": float(pw.group(2)),
        "power_leakage_w": float(pw.group(3)),
        "startpoint": crit["start"], "endpoint": crit["end"], **({"launch_ns": crit["launch"]} if crit["launch"] else {}),
        "critical_path": ("Startpoint: " + crit["text"]).strip()[:2500],
    })
    unclocked, notes = setup.get("unclocked_pins"), []
    if unclocked:
        notes.append(Diagnostic(f"{unclocked} register/latch clock pin(s) have no clock: paths through them are timed "
                                "from time 0, not from a clock edge", severity="warning"))
    if "@@POWER_FALLBACK" in out:
        data["power_activity"] = "global 0.1"
        notes.append(Diagnostic("power: OpenSTA's propagated switching activity gave no number (NaN); power is with "
                                "every net at activity 0.1, not comparable with other designs' power",
                                severity="warning"))
    return done("pass", notes)


def _untimed(crit: dict | None, setup: dict) -> str | None:
    """Why the timer's numbers are no delay, or None: a loop it cut, no timed path, a longest path of 0 ns (a wire
    from an input to an output beside untimed logic), or no clock at any flip-flop or latch (then only their
    clock-to-output is timed, from time 0, and no path into them is)."""
    what = "; ".join(f"{n} {k.replace('_', ' ')}" for k, n in setup.items()
                     if k in ("unclocked_pins", "unconstrained_endpoints") and n)
    if setup.get("loops"):
        why = "a combinational loop in the netlist (OpenSTA cut it to time the rest)"
    elif not crit or crit["arrival"] <= 0:
        why = "no constrained timing path" + (" with a delay (the longest is 0 ns)" if crit else "")
    elif setup["registers"] and setup["unclocked_pins"] >= setup["registers"]:
        why = (f"no clock reaches any of its {setup['registers']} flip-flop/latch clock pins (driven by logic, or by "
               "inputs no clock was put on): no path into them is timed")
    else:
        return None
    return why + (f": {what}" if what else "")


def _setup(text: str) -> dict:
    """Counts from `check_setup -verbose`: register/latch clock pins with no clock, endpoints no clock or
    output delay constrains, combinational loops; and the clock pins of all flip-flops and latches (sta.tcl)."""
    out = {}
    for key, rx in (("unclocked_pins", r"(\d+) unclocked register/latch pin"),
                    ("unconstrained_endpoints", r"(\d+) unconstrained endpoint"),
                    ("loops", r"(\d+) combinational loop"), ("registers", r"@@REGISTERS (\d+)")):
        m = re.search(rx, text)
        out[key] = int(m.group(1)) if m else 0
    return out


def _path(block: str) -> dict:
    """A path's delay is its arrival less its launch edge's time: a path launched by a negedge (or inverted
    clock) flip-flop starts half a period in, and that wait is the clock's, not the logic's."""
    arr = re.search(r"^\s*(-?[\d.]+)\s+data arrival time", block, re.M)
    edge = re.search(r"^\s*-?[\d.]+\s+(-?[\d.]+)\s+clock \S+ \((?:rise|fall) edge\)", block, re.M)
    slack = re.search(r"^\s*(-?[\d.]+)\s+slack\s+\((MET|VIOLATED)\)", block, re.M)
    ep = re.search(r"Endpoint:\s*(\S+)", block)
    launch = float(edge.group(1)) if edge and arr and edge.start() < arr.start() else 0.0
    return {"arrival": round(float(arr.group(1)) - launch, 6) if arr else None, "launch": launch,
            "slack": float(slack.group(1)) if slack else None,
            "start": block.split()[0] if block.split() else None, "end": ep.group(1) if ep else None, "text": block}
