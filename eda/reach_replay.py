"""Witnesses of eda.reach as stimulus, and their replay under Verilator coverage.

    text = witness_stimulus(ports, "lock", [vectors0, vectors1], clock="clk")
    hits = confirm(sources, "lock", ports, {key0: vectors0, key1: vectors1}, clock="clk", fsms=fsms)

The stimulus is the full-module form of eda.stimulus (the DUT as `uut`, the clock toggling every
period/2), one build for all the design's witnesses: `+w=N` picks witness N. Cycle 0's inputs are set at
time 1 (the reset asserted, as the formal model forced it), cycle k's at the k-th falling edge, so the
k-th rising edge sees them, as model step k does; two idle cycles follow, then `$finish`. Without a clock
a cycle is `#period`. A witness counts only when its own run reaches its point (`confirm`); what else its
run reaches is returned too (those points are closed by the formal phase as well)."""
from . import coverage as cov

PLUSARG = "w"


def _lit(width: int, value: int) -> str:
    return f"{width}'h{value & ((1 << width) - 1):x}"


def witness_stimulus(ports, top: str, witnesses: list, clock: str | None = None, period_ns: float = 10.0,
                     tb_name: str = "tb", phases=None) -> str:
    """A testbench replaying `witnesses` (each a list of per-cycle {input: value}), selected by +w=N.
    phases (clk2fflogic witnesses: each frame is a clock phase, the clocks are inputs of the trace): the
    inputs in `phases` (the clocks) are set at the frame's start, the others half a period later, so an edge
    samples what the previous frame set, as clk2fflogic's flip-flops do; no clock generator then."""
    widths = {p.name: p.width for p in ports if p.direction == "input"}
    lines = [f"module {tb_name};"]
    for p in ports:
        rng = f"[{p.width - 1}:0] " if p.width > 1 else ""
        lines.append(f"  {'reg' if p.direction == 'input' else 'wire'} {rng}{p.name}{' = 0' if p.direction == 'input' else ''};")
    lines.append(f"  {top} uut({', '.join(f'.{p.name}({p.name})' for p in ports)});")
    if clock and phases is None:
        lines.append(f"  always #{period_ns / 2:g} {clock} = ~{clock};")
    step = f"@(negedge {clock});" if clock and phases is None else f"#{period_ns:g};"
    half = f"#{period_ns / 2:g};"
    lines += ["  integer rtla_w;", "  initial begin", f"    if (!$value$plusargs(\"{PLUSARG}=%d\", rtla_w)) rtla_w = 0;",
              "    case (rtla_w)"]
    for i, vecs in enumerate(witnesses):
        # #1: cycle 0 just after time 0 (a change at time 0 can be missed by `always @(a or b)`), before the first edge
        lines.append(f"      {i}: begin  // witness {i}, {len(vecs)} cycle(s)")
        lines.append("        #1;")
        for k, v in enumerate(vecs):
            if phases is not None:
                first = " ".join(f"{n} = {_lit(widths[n], x)};" for n, x in v.items() if n in widths and n in phases)
                rest = " ".join(f"{n} = {_lit(widths[n], x)};" for n, x in v.items() if n in widths and n not in phases)
                lines.append(f"        {first} {half} {rest} {half}")
                continue
            prev = vecs[k - 1] if k else {}         # an input keeps its value: only the changes are written
            assigns = " ".join(f"{n} = {_lit(widths[n], x)};" for n, x in v.items()
                               if n in widths and n != clock and (not k or prev.get(n) != x))
            lines.append(f"        {step + ' ' if k else ''}{assigns}")
        lines.append("      end")
    lines += ["      default: ;", "    endcase", f"    {step}", f"    {step}", "    $finish;", "  end", "endmodule", ""]
    return "\n".join(lines)


MAX_TEXT = 24_000       # characters of one witness stimulus: a larger one makes Verilator split its output,
                        # and the split build (precompiled header) fails here; more witnesses -> more builds


def confirm(sources: dict, top: str, ports, witnesses: dict, clock: str | None = None, period_ns: float = 10.0,
            fsms=(), limits=None, phases=None) -> tuple:
    """Replay each witness ({point key: vectors}) in its own run: ([stimulus text per build],
    {key: {"hit": bool, "part": build index, "plusargs": [...], "points": [[key, count], ...], "status": ...}}).
    Witnesses share a build while its text stays under MAX_TEXT."""
    # one run per distinct witness: eda.reach_multi gives many points the same counterexample
    import json
    same = {}
    for k, v in witnesses.items():
        same.setdefault(json.dumps(v, sort_keys=True), []).append(k)
    heads = [ks[0] for ks in same.values()]
    members = {ks[0]: ks for ks in same.values()}
    parts, cur = [], []
    for k in heads:
        if cur and len(witness_stimulus(ports, top, [witnesses[x] for x in cur + [k]], clock, period_ns,
                                        phases=phases)) > MAX_TEXT:
            parts.append(cur)
            cur = []
        cur.append(k)
    if cur:
        parts.append(cur)
    texts, out = [], {}
    while parts:
        part = parts.pop(0)
        text = witness_stimulus(ports, top, [witnesses[k] for k in part], clock, period_ns, phases=phases)
        runs = [[f"+{PLUSARG}={i}"] for i in range(len(part))]
        res = cov.coverage_runs(sources, top, text, runs, limits=limits, ports=ports, clock=clock, period_ns=period_ns,
                                fsms=list(fsms or []))
        if len(part) > 1 and all(r.status == "error" for r in res):
            # the build failed (a large testbench makes Verilator split its C++, and that build fails here):
            # the witnesses again in two builds
            parts[:0] = [part[:len(part) // 2], part[len(part) // 2:]]
            continue
        n = len(texts)
        texts.append(text)
        for head, args, r in zip(part, runs, res):
            got = {p.key for p in r.points if p.count > 0} if r.ok else set()
            for k in members[head]:
                out[k] = {"hit": k in got, "part": n, "plusargs": args, "status": r.status,
                          "points": [[p.key, p.count] for p in r.points] if r.ok else [],
                          "diagnostics": [str(d) for d in r.diagnostics[:3]]}
    return texts, out
