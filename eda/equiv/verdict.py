"""The result being built: a counterexample's data and feedback sentence (`_cex`,
`_set_cex`), and the inconclusive verdicts (`_final`: bounded, cosim, unknown, the formal
counterexample the Icarus replay does not reproduce)."""
from ..report import Diagnostic
from .base import _bits_to_int
from .context import EquivContext


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


def _set_cex(res, data, text, method):
    res.status = "counterexample"
    res.data.update({"verdict": "counterexample", "method": method, "counterexample": data})
    res.diagnostics = [Diagnostic(text)]
    return res


def _proven(res, method, diagnostics=None, **data):
    """A proof by `method`; `diagnostics` replace the result's when given."""
    res.status = "proven"
    res.data.update({"verdict": "proven", "method": method, **data})
    if diagnostics is not None:
        res.diagnostics = list(diagnostics)
    return res


def _replay_summary(rep: dict) -> dict:
    """What the Icarus replay of a formal counterexample said (report data)."""
    return {"ok": rep.get("ok"), "cycles": rep.get("cycles"), "error": rep.get("error"),
            "mismatch": rep.get("mismatch"), "reference_x": rep.get("xref")}


def _final(res, verdict, depth, sat, notes, cosim_cycles, mismatch=None):
    if mismatch is not None:
        _final_mismatch(res, notes, cosim_cycles, mismatch)
        return res
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
    return res


def _final_mismatch(res, notes, cosim_cycles, mismatch):
    """A formal counterexample that the Icarus replay did not confirm: never a pass."""
    if not mismatch["replay"].get("ok"):
        # a formal counterexample whose replay did not finish (time limit): neither confirmed nor a pass
        res.status = "unknown(timeout)"
        res.data.update({"verdict": "unknown", "reason": "replay-timeout", "method": mismatch["found_by"],
                         "replay_mismatch": mismatch})
        notes.insert(0, f"{mismatch['found_by']} found a difference at cycle {mismatch.get('frame')}, but its "
                     f"replay in Icarus did not finish: {mismatch['replay'].get('error')}")
    else:
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


def _conclude(ctx: EquivContext, cosim_cycles):
    """The inconclusive verdict from what the formal checks and `cosim_cycles` agreeing cycles said."""
    return _final(ctx.res, ctx.verdict, ctx.depth, ctx.sat, ctx.notes, cosim_cycles, ctx.mismatch)
