"""The interface check: the candidate's top has exactly the reference's ports."""
import time

from ..report import Diagnostic, StageResult
from ..screen import screen
from ..tools import YOSYS


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


def check_interface(cand: dict, ref: dict, top: str, ref_top: str | None = None, timeout_s: float = 60,
                    screened: bool = False) -> StageResult:
    """StageResult(name="interface"): pass when the candidate's `top` has exactly the
    reference's ports (names, directions, widths). screened: the caller has screened the sources."""
    t0 = time.monotonic()
    from ..ports import PortError, parse_ports
    res = StageResult("interface", "pass", tool="yosys", version=YOSYS.version())
    bad = [] if screened else [r for name, text in cand.items() if isinstance(text, str) for r in screen(text, name)]
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
