"""Writing a both-edge machine (resynth_edge.EdgeMachine) back: one register per edge, each in its own code,
and outputs from both registers (a code bit, or two code bits through one gate, where that holds in every
reachable pair; else a table). Codes that no reachable state has are don't-cares ('bx): synthesis picks their
values, and the reset never leads there (the prover checks that like everything else)."""
from __future__ import annotations

from .base import TransformError
from .resynth_edge import EdgeMachine


def _succ(m: EdgeMachine, side: int) -> list | None:
    """Per block of one side its only successor, when that side steps on its own (no input, no other side)."""
    got = {}
    for key, (_, pr, nr) in m.pairs.items():
        row = pr if side == 0 else nr
        if row is None:
            continue
        if len(set(row)) > 1 or got.setdefault(key[side], row[0]) != row[0]:
            return None
    k = m.kp if side == 0 else m.kn
    return [got[b] for b in range(k)] if len(got) == k else None


def _path(m: EdgeMachine, side: int):
    """(blocks in visiting order, block the last one returns to) when a side steps on its own (no input, no other
    side) through all its blocks from the reset's into a loop; else None."""
    succ = _succ(m, side)
    if not succ:
        return None
    seq, s = [], 0
    while s not in seq:
        seq.append(s)
        s = succ[s]
    return (seq, s) if len(seq) == len(succ) else None


def _orbit(n: int, taps: tuple, k: int):
    """The first k states of an n-bit shift register from 0 fed by XNOR of taps (one tap: Johnson's inverter),
    and the state after the k-th; None when it repeats sooner."""
    mask, c, seq = (1 << n) - 1, 0, []
    for _ in range(k):
        if c in seq:
            return None
        seq.append(c)
        fb = 1
        for t in taps:
            fb ^= (c >> t) & 1
        c = ((c << 1) | fb) & mask
    return seq, c


def shift_plan(m: EdgeMachine, side: int, enc: str) -> dict | None:
    """A side on a loop as a shift register (enc johnson: n = k/2 bits and an inverter; lfsr: the fewest bits
    whose two-tap XNOR feedback runs k distinct states from 0, preferring one that loops back by itself), with
    a jump where the loop does not close by itself, and the output-read bits the shift bits do not already hold
    carried as extra code bits (a registered output instead of a decoder)."""
    got = _path(m, side)
    k = m.kp if side == 0 else m.kn
    if got is None or k < 3 or k > 64:
        return None
    seq, back = got
    if enc == "johnson":
        cands = [((k + 1) // 2, ((k + 1) // 2 - 1,))] if k <= 16 else []
    else:
        nb = max(2, (k - 1).bit_length())
        cands = [(n, (i, j)) for n in (nb, nb + 1) for j in range(n) for i in range(j)]
    best = None
    for n, taps in cands:
        orb = _orbit(n, taps, k)
        if orb is None:
            continue
        code = [0] * k
        for b, c in zip(seq, orb[0]):
            code[b] = c
        jump = orb[1] != code[back]
        if best is None or (jump, n) < (best["jump"], best["n"]):
            best = {"n": n, "taps": taps, "code": code, "last": code[seq[-1]], "back": code[back], "jump": jump}
    if best is None:
        return None
    vis = m.vis_p if side == 0 else m.vis_n
    extra = []
    if vis is not None:
        for i in range(vis[0]):
            col = [(vis[1 + b] >> i) & 1 for b in range(k)]
            have = [[(c >> j) & 1 for c in best["code"]] for j in range(best["n"])]
            if len(set(col)) > 1 and col not in have and [1 - x for x in col] not in have:
                extra.append(col)
    best["extra"] = extra
    best["w"] = best["n"] + len(extra)
    best["full"] = [c | sum(col[b] << (best["n"] + e) for e, col in enumerate(extra))
                    for b, c in enumerate(best["code"])]
    return best


def side_codes(m: EdgeMachine, side: int, enc: str) -> tuple[int, list] | None:
    """(width, code per block) of one side's register; width 0 where the side has one block (no register)."""
    k = m.kp if side == 0 else m.kn
    if k == 1:
        return 0, [0]
    wb = (k - 1).bit_length()
    if enc == "binary":
        return wb, list(range(k))
    if enc == "gray":
        return wb, [i ^ (i >> 1) for i in range(k)]
    if enc == "onehot":
        return (k, [1 << i for i in range(k)]) if 2 < k <= 32 else None
    if enc in ("johnson", "lfsr"):
        plan = shift_plan(m, side, enc)
        return None if plan is None else (plan["w"], plan["full"])
    if enc == "aligned":
        vis = m.vis_p if side == 0 else m.vis_n
        if vis is None or not vis[0] or vis[0] > 8:
            return None
        word = vis[1:]
        groups = {}
        rank = [groups.setdefault(x, []).append(s) or len(groups[x]) - 1 for s, x in enumerate(word)]
        extra = max(0, (max(len(g) for g in groups.values()) - 1).bit_length())
        if vis[0] + extra > wb + 2:
            return None
        return vis[0] + extra, [(word[s] << extra) | rank[s] for s in range(k)]
    return None


def edge_codes(m: EdgeMachine, enc: str):
    """Both sides' codes: the named encoding where it applies to a side, binary on the other; None where it
    applies to neither."""
    got = [side_codes(m, side, enc) for side in (0, 1)]
    if enc != "binary" and all(g is None or g[0] == 0 for g in got):
        return None
    return [g if g is not None else side_codes(m, side, "binary") for side, g in enumerate(got)]


def rank(m: EdgeMachine, enc: str, got) -> tuple:
    """Menu order (optimize shows the first options only): shift codes first, those that close their loop by
    themselves before those with a jump, fewer flip-flops first; then aligned, binary, gray, one-hot. Measured:
    freq_divbyodd johnson 2.98x, freq_divbyfrac lfsr 3.05x, oddclk7 lfsr 1.39x; binary 0.98x, 1.59x, 0.70x."""
    if enc in ("johnson", "lfsr"):
        plans = [shift_plan(m, side, enc) for side in (0, 1)]
        jumps = sum(1 for p, g in zip(plans, got) if p is not None and (p["w"], p["full"]) == g and p["jump"])
        return 0, jumps, got[0][0] + got[1][0]
    rest = ("aligned", "binary", "gray", "onehot")
    return 1, rest.index(enc) if enc in rest else len(rest), 0


def _lits(keys: list, cp, cn) -> list:
    """(expression, value per key) of every code bit of both registers and its inverse."""
    lits = []
    for reg, (w, code), side in (("rtla_p", cp, 0), ("rtla_n", cn, 1)):
        for i in range(w):
            col = tuple((code[k[side]] >> i) & 1 for k in keys)
            lits += [(f"{reg}[{i}]", col), (f"~{reg}[{i}]", tuple(1 - x for x in col))]
    return lits


def _fit(lits: list, want: tuple) -> str | None:
    """A constant, a literal or two literals through one gate equal to want on every key, else None."""
    if len(set(want)) == 1:
        return f"1'b{want[0]}"
    got = next((e for e, c in lits if c == want), None)
    for i, (ea, a) in enumerate(lits):
        if got is not None:
            return got
        for eb, c in lits[i + 1:]:
            for op, f in (("|", int.__or__), ("&", int.__and__), ("^", int.__xor__)):
                if tuple(f(x, y) for x, y in zip(a, c)) == want:
                    return f"{ea} {op} {eb}"
    return got


def _gates(m: EdgeMachine, cp, cn, ow: int) -> dict | None:
    """{output bit: expression} when every output bit is _fit on the reachable pairs, else None."""
    keys = sorted(m.pairs)
    lits = _lits(keys, cp, cn)
    got = {}
    for b in range(ow):
        cols = [{(m.pairs[k][0][v] >> b) & 1 for v in range(len(m.pairs[k][0]))} for k in keys]
        if any(len(c) > 1 for c in cols):
            return None
        got[b] = _fit(lits, tuple(c.pop() for c in cols))
        if got[b] is None:
            return None
    return got


def _wired_step(m: EdgeMachine, side: int, cs, cp, cn) -> str | None:
    """The next value of one side's register as _fit bits, where no input reaches it."""
    keys = sorted(k for k, r in m.pairs.items() if r[1 + side] is not None)
    if not keys or any(len(set(m.pairs[k][1 + side])) > 1 for k in keys):
        return None
    lits = _lits(keys, cp, cn)
    w, code = cs
    bits = []
    for i in reversed(range(w)):
        e = _fit(lits, tuple((code[m.pairs[k][1 + side][0]] >> i) & 1 for k in keys))
        if e is None:
            return None
        bits.append(e)
    return bits[0] if w == 1 else "{" + ", ".join(bits) + "}"


def _key(m: EdgeMachine, side: int, reg: str, cs, enc: str) -> tuple:
    """(expression, width, code per block) that tells a register's blocks apart: the shift bits alone where a
    shift register carries output bits (those follow from the shift bits)."""
    plan = shift_plan(m, side, enc) if enc in ("johnson", "lfsr") else None
    if plan is not None and plan["extra"] and (plan["w"], plan["full"]) == cs:
        return f"{reg}[{plan['n'] - 1}:0]", plan["n"], plan["code"]
    return reg, cs[0], cs[1]


def _step(L, m: EdgeMachine, side: int, reg: str, cs, co, enc: str, co_full):
    """The case body that steps one side's register from its own code, the other's (co: its _key) and the
    inputs."""
    from .resynth_aig import _vec_case
    w, code = cs
    other, wo, ocode = co
    plan = shift_plan(m, side, enc) if enc in ("johnson", "lfsr") else None
    if plan is not None and (plan["w"], plan["full"]) == cs:
        n, low = plan["n"], f"{reg}[{plan['n'] - 1}:0]"
        fb = " ^ ".join(f"{reg}[{t}]" for t in plan["taps"])
        shift = f"{{{reg}[{n - 2}:0], ~({fb})}}" if n > 1 else f"~{reg}[0]"
        step = f"{low} == {n}'d{plan['last']} ? {n}'d{plan['back']} : {shift}" if plan["jump"] else shift
        if not plan["extra"]:
            L.append(f"        else {reg} <= {step};")
            return
        # the carried output bits: their value in the block that comes next, decoded from the shift bits
        succ = _path(m, side)[0]
        nxt = {b: succ[(i + 1) % len(succ)] for i, b in enumerate(succ)}
        nxt[succ[-1]] = _path(m, side)[1]
        ne = len(plan["extra"])
        L.append(f"        else {reg} <= {{{reg}_x, {step}}};")
        L.insert(-3, f"    reg [{ne - 1}:0] {reg}_x;")
        L.insert(-3, f"    always @* case ({low})")
        for b in succ:
            x = sum(col[nxt[b]] << e for e, col in enumerate(plan["extra"]))
            L.insert(-3, f"        {n}'d{plan['code'][b]}: {reg}_x = {ne}'d{x};")
        L.insert(-3, f"        default: {reg}_x = {ne}'bx;")
        L.insert(-3, "    endcase")
        return
    k = m.kp if side == 0 else m.kn
    wired = _wired_step(m, side, cs, *((cs, co_full) if side == 0 else (co_full, cs)))
    if wired is not None:
        L.append(f"        else {reg} <= {wired};")
        return
    by_other = {}
    for key, r in m.pairs.items():
        if r[1 + side] is not None:
            by_other.setdefault(key[1 - side], set()).add(r[1 + side])
    if wo and k > 1 and all(len(rows) == 1 for rows in by_other.values()):
        # the next value does not depend on the register's own block: one case over the other register
        put = (lambda t: f"{reg} <= {w}'d{code[t]};")
        L.append(f"        else case ({other})")
        for ob, rows in sorted(by_other.items()):
            L.append(f"            {wo}'d{ocode[ob]}: begin")
            _vec_case(L, " " * 16, next(iter(rows)), "rtla_v", put)
            L.append("            end")
        L += [f"            default: {reg} <= {w}'bx;", "        endcase"]
        return
    L.append(f"        else case ({reg})")
    for b in range(k):
        rows = {key[1 - side]: r[1 + side] for key, r in m.pairs.items() if key[side] == b and r[1 + side] is not None}
        if not rows:
            continue
        L.append(f"            {w}'d{code[b]}: begin")
        put = (lambda t: f"{reg} <= {w}'d{code[t]};")
        if len(set(rows.values())) == 1 or wo == 0:
            _vec_case(L, " " * 16, next(iter(rows.values())), "rtla_v", put)
        else:
            L.append(f"                case ({other})")
            for ob, row in sorted(rows.items()):
                L.append(f"                    {wo}'d{ocode[ob]}: begin")
                _vec_case(L, " " * 24, row, "rtla_v", put)
                L.append("                    end")
            L += [f"                    default: {reg} <= {w}'bx;", "                endcase"]
        L.append("            end")
    L += [f"            default: {reg} <= {w}'bx;", "        endcase"]


def emit_edge(p, m: EdgeMachine, enc: str) -> str:
    from .resynth_aig import _frame, _io, _out_assigns, _vec_case
    got = edge_codes(m, enc)
    if got is None:
        raise TransformError(f"resynth: encoding {enc} does not apply")
    cp, cn = got
    ow, vdecl, rst_cond = _io(m)
    head, decls, vregs = _frame(p)
    redge = f"{'negedge' if m.low else 'posedge'} {m.reset}"
    L = [head, *(f"    {x.strip()}" for x in decls),
         f"    // resynth: {m.reached} reachable states of {m.flops[0]} rising- and {m.flops[1]} falling-edge "
         f"flip-flop bits, {m.kp} x {m.kn} blocks after merging; {enc} code",
         vdecl, f"    reg [{ow - 1}:0] rtla_o;"]
    kp_, kn_ = _key(m, 0, "rtla_p", cp, enc), _key(m, 1, "rtla_n", cn, enc)
    for side, reg, edge, cs, co in ((0, "rtla_p", "posedge", cp, kn_), (1, "rtla_n", "negedge", cn, kp_)):
        if cs[0] == 0:
            continue
        L += [f"    reg [{cs[0] - 1}:0] {reg};", f"    always @({edge} {m.clock} or {redge})",
              f"        if ({rst_cond}) {reg} <= {cs[0]}'d{cs[1][0]};"]
        _step(L, m, side, reg, cs, co, enc, cn if side == 0 else cp)
    gates = _gates(m, cp, cn, ow)
    if gates is not None:
        L += [f"    always @* rtla_o[{b}] = {e};" for b, e in sorted(gates.items())]
    else:
        regs = [e for e, w, _ in (kp_, kn_) if w]
        wk = kp_[1] + kn_[1]
        L += ["    always @* begin", f"        rtla_o = {ow}'d0;"]
        if not regs:
            _vec_case(L, " " * 8, m.pairs[(0, 0)][0], "rtla_v", lambda x: f"rtla_o = {ow}'d{x};")
        else:
            L.append(f"        case ({{{', '.join(regs)}}})")
            for (a, c), (row, _, _) in sorted(m.pairs.items()):
                L.append(f"            {wk}'d{(kp_[2][a] << kn_[1]) | kn_[2][c]}: begin")
                _vec_case(L, " " * 16, row, "rtla_v", lambda x: f"rtla_o = {ow}'d{x};")
                L.append("            end")
            L += [f"            default: rtla_o = {ow}'bx;", "        endcase"]
        L.append("    end")
    L += _out_assigns(m, vregs)
    return "\n".join(L + ["endmodule", ""])
