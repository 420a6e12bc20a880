"""Icarus co-simulation of the two designs: each through the preprocessor with its modules
renamed (gold_*, gate_*), a testbench that drives both with the same stimulus and compares
every output twice per cycle, and the run that reports the first difference.  Strategy
`preprocess` prepares both designs for the simulation strategies that follow."""
import re
import secrets
from pathlib import Path

from ..hdl import module_names, strip_comments
from ..sandbox import run
from ..tools import ICARUS
from .base import _Fail, _limits, _lit, _port_ref, _who, _write
from .context import EquivContext

MEMFILE_CYCLES = 4096     # longer stimulus than this goes to the testbench as a $readmemh file


def _preprocess(sources: dict, tag: str, root: Path, deadline: float) -> str:
    """One design through Icarus' preprocessor (its own `define`s stay its own), then
    every module it defines renamed <tag>_<name>."""
    folder = root / f"sim_{tag}"
    files = _write(folder, sources)
    r = run(ICARUS.preprocess_cmd(files, "pre.v"), folder, _limits(deadline, 0.3))
    if not r.ok:
        raise _Fail("error", f"{_who(tag)}: icarus preprocessor failed: {r.out.strip()[-300:]}")
    text = strip_comments((folder / "pre.v").read_text(errors="replace"))
    mods = set(module_names(text))
    if mods:
        pat = re.compile(r"(?<![\w$.`'\\])(" + "|".join(sorted(map(re.escape, mods), key=len, reverse=True)) + r")(?![\w$])")
        text = pat.sub(lambda m: f"{tag}_{m.group(1)}", text)
    return "`resetall\n`timescale 1ns/1ps\n" + text


def preprocess(ctx: EquivContext):
    """Both designs for simulation; a preprocessor failure is a note (no simulation then)."""
    try:
        ctx.gpre = _preprocess(ctx.ref, "gold", ctx.root, ctx.deadline)
        ctx.tpre = _preprocess(ctx.cand, "gate", ctx.root, ctx.deadline)
    except _Fail as f:
        ctx.gpre = ctx.tpre = None
        ctx.notes.append(f.message)
    return None


def _testbench(top: str, inputs: list, outputs: list, vecs: list, clock, skip_first: bool, nonce: str,
               check_from: int = 0, memfile: str | None = None) -> str:
    """Both designs side by side on the same stimulus. Clocked: per cycle, inputs at +1,
    compare at +4, posedge at +5, compare at +9, negedge at +10.  Unclocked: one step
    per 10 time units, compare at +5.  `memfile`: the stimulus is read from that hex file,
    one line per cycle (long random runs, where one statement per cycle compiles slowly)."""
    if vecs == "exhaustive":
        decl = "integer k; reg [40:0] ex; reg bad;"
        body = _tb_exhaustive(inputs, nonce)
    else:
        decl = "integer k; reg bad; integer cy; initial cy = 0;"
        start = ["  clk_eq = 0;"] if clock else []
        if memfile:
            decl += f" reg [{max(sum(w for _, w in inputs), 1) - 1}:0] vmem [0:{len(vecs) - 1}];"
            body = [f'  $readmemh("{memfile}", vmem);'] + start + _tb_memfile(inputs, vecs, clock, skip_first, nonce)
        else:
            body = start + _tb_inline(inputs, vecs, clock, skip_first, nonce)
    L = _tb_frame(top, inputs, outputs, clock, nonce, check_from, decl)
    return "\n".join(L + ["initial begin"] + body + ["end", "endmodule"])


def _tb_frame(top, inputs, outputs, clock, nonce, check_from, decl) -> list:
    """Declarations, both instances and the `check` task (everything before `initial begin`)."""
    L = ["`timescale 1ns/1ps", f"module eqtb_{nonce};", decl]
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
    return L


def _tb_exhaustive(inputs, nonce) -> list:
    """Every input vector: the concatenation {i0, i1, ...} counts through all values."""
    total = sum(w for _, w in inputs)
    cat = ", ".join(f"i{i}" for i in range(len(inputs)))
    return [f"  for (ex = 0; ex < {1 << total}; ex = ex + 1) begin {{{cat}}} = ex[{max(total - 1, 0)}:0]; "
            f"#5 check(ex, 0); #5; end",
            f"  $display(\"@@{nonce} DONE {1 << total}\"); $finish;"]


def _tb_memfile(inputs, vecs, clock, skip_first, nonce) -> list:
    """The stimulus from the $readmemh'd `vmem`, one word per cycle."""
    cat = "{" + ", ".join(f"i{i}" for i in range(len(inputs))) + "}"
    load = f"{cat} = vmem[cy];" if inputs else ""
    first = "if (cy > 0) " if skip_first else ""
    step = (f"#1 {load} #3 {first}check(cy, 0); #1 clk_eq = 1; #4 check(cy, 1); #1 clk_eq = 0;" if clock
            else f"#1 {load} #5 {first}check(cy, 0); #4;")
    # progress, flushed: a run stopped by the time limit still says how far the designs agreed
    step += f' if (cy % 4096 == 4095) begin $display("@@{nonce} AT %0d", cy + 1); $fflush; end'
    return [f"  for (cy = 0; cy < {len(vecs)}; cy = cy + 1) begin {step} end",
            f"  $display(\"@@{nonce} DONE {len(vecs)}\"); $finish;"]


def _tb_inline(inputs, vecs, clock, skip_first, nonce) -> list:
    """The stimulus as statements: one per change of inputs, a `repeat` for identical cycles."""
    L, prev, c = [], {}, 0
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
    return L


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
    return _sim_outcome(res, r, nonce, outputs)


def _sim_outcome(res: dict, r, nonce: str, outputs: list) -> dict:
    """The testbench's @@nonce lines (DONE, MIS, XREF, AT) into _cosim's result."""
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
