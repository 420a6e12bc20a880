"""Timing and power with OpenSTA on a gate-level netlist.

Clock on the detected clock port, or a virtual clock for combinational designs; IO delays 0, so every
input->output path is also held to one period. PPA = area x delay x power (um2 * ns * W).
"""
import re
import time
from pathlib import Path

from . import tools
from .report import Diagnostic, StageResult
from .sandbox import Limits, run

CLOCK_NAMES = ("clk", "clock", "clk_i", "i_clk", "clk_in", "sys_clk", "clka", "wclk", "clk_a")
_PORT_RE = re.compile(r"^\s*input\s+(?:\[[^\]]+\]\s*)?([^;]+);", re.M)


def netlist_inputs(netlist: str) -> list[str]:
    names = []
    for group in _PORT_RE.findall(netlist):
        names += [n.strip().lstrip("\\") for n in group.split(",")]
    return names


def detect_clock(inputs: list[str]) -> str | None:
    low = {n.lower(): n for n in inputs}
    for c in CLOCK_NAMES:
        if c in low:
            return low[c]
    for n in inputs:
        if re.search(r"(^|_)clk($|_)|clock", n, re.I):
            return n
    return None


def _script(lib, netlist, top, clock, period):
    if clock:
        clk = f"create_clock -name clk -period {period} [get_ports {{{clock}}}]\n" \
              f"set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports {{{clock}}}]]\n"
    else:
        clk = f"create_clock -name clk -period {period}\nset_input_delay 0 -clock clk [all_inputs]\n"
    return (f"read_liberty {lib}\nread_verilog {netlist}\nlink_design {top}\n{clk}"
            f"set_output_delay 0 -clock clk [all_outputs]\n"
            "puts \"@@CHECKS\"\nreport_checks -path_delay max -digits 4 -fields {input_pins}\n"
            "puts \"@@WNS\"\nreport_wns -digits 4\nputs \"@@TNS\"\nreport_tns -digits 4\n"
            "puts \"@@POWER\"\nreport_power -digits 6\nexit\n")


def timing_power(netlist: Path, top: str, lib: Path, clock: str | None = "auto", period: float = 10.0,
                 limits: Limits | None = None) -> StageResult:
    lim = limits or Limits(wall_s=60, cpu_s=120, mem_mb=4096)
    t0 = time.monotonic()
    netlist = Path(netlist)
    wd = netlist.parent
    if clock == "auto":
        clock = detect_clock(netlist_inputs(netlist.read_text(errors="replace")))
    (wd / "sta.tcl").write_text(_script(lib, netlist.name, top, clock, period))
    r = run([tools.which("sta"), "-no_init", "-no_splash", "-exit", "sta.tcl"], wd, lim)
    out = r.out
    ver = tools.version("sta")
    data = {"clock": clock, "period_ns": period}

    def done(status, diags):
        return StageResult("sta", status, time.monotonic() - t0, "sta", ver, diags, data, out[-3000:])
    if r.timed_out or r.limit:
        return done("timeout" if r.timed_out or r.limit == "cpu" else "error",
                    [Diagnostic(f"OpenSTA stopped by the {r.limit or 'wall'} limit")])
    errs = [l for l in out.splitlines() if l.startswith("Error")]
    checks = out.split("@@CHECKS", 1)[-1].split("@@WNS", 1)[0]
    pw = re.search(r"^Total\s+([-\d.eE+]+)\s+([-\d.eE+]+)\s+([-\d.eE+]+)\s+([-\d.eE+]+)", out.split("@@POWER")[-1], re.M)
    paths = [_path(b) for b in checks.split("Startpoint:")[1:]]
    paths = [p for p in paths if p["arrival"] is not None]
    crit = max(paths, key=lambda p: p["arrival"], default=None)   # one path per group: longest is critical
    worst = min((p["slack"] for p in paths if p["slack"] is not None), default=None)
    if errs or not pw:
        return done("fail", [Diagnostic(e) for e in errs[:5]] or [Diagnostic("OpenSTA printed no power report")])
    data.update({
        "delay_ns": crit["arrival"] if crit else 0.0,
        "slack_ns": worst,
        "wns_ns": min(0.0, worst) if worst is not None else 0.0,
        "power_w": float(pw.group(4)),
        "power_internal_w": float(pw.group(1)), "power_switching_w": float(pw.group(2)),
        "power_leakage_w": float(pw.group(3)),
        "startpoint": crit["start"] if crit else None, "endpoint": crit["end"] if crit else None,
        "critical_path": ("Startpoint: " + crit["text"]).strip()[:2500] if crit else "",
    })
    if not crit:
        data["note"] = "no constrained path (outputs constant or unconnected)"
    return done("pass", [])


def _path(block: str) -> dict:
    arr = re.search(r"^\s*(-?[\d.]+)\s+data arrival time", block, re.M)
    slack = re.search(r"^\s*(-?[\d.]+)\s+slack\s+\((MET|VIOLATED)\)", block, re.M)
    ep = re.search(r"Endpoint:\s*(\S+)", block)
    return {"arrival": float(arr.group(1)) if arr else None, "slack": float(slack.group(1)) if slack else None,
            "start": block.split()[0] if block.split() else None, "end": ep.group(1) if ep else None, "text": block}
