"""Mapping fixes for eda.reach: what keeps a coverage point from being found in the formal model.

- Yosys 0.70 counts two lines too many after a `` `resetall `` directive (every `src` position below it is off
  by two, so neither the line/branch arms nor the declarations of toggled signals are found by position):
  `for_yosys` turns the directive into `` `default_nettype wire `` (what it resets that Yosys reads), on the
  same line.
"""
import re
from dataclasses import replace

_RESETALL = re.compile(r"`resetall\b")


def for_yosys(text: str) -> str:
    """The source text as Yosys should read it (same lines, same meaning for synthesis)."""
    return _RESETALL.sub("`default_nettype wire", text)


def base_modules(points, names) -> list:
    """The points with Verilator's name of a parameterised copy (`arbiter__A1_AB1_AD1`, `axis_fifo__D100_K0_U0`)
    replaced by the module's own name (`arbiter`): Yosys names the copy `$paramod$...\\arbiter`, so the mapping
    looks for the source module. A name that is itself a module of the sources stays."""
    names = set(names)
    out = []
    for p in points:
        m = p.module
        if m and m not in names and "__" in m:
            cut = [m[:i] for i in range(len(m)) if m.startswith("__", i) and m[:i] in names]
            if cut:
                p = replace(p, module=cut[-1])
        out.append(p)
    return out


def scoped(names, src: dict, prefix: str, local: str, file: str) -> list:
    """Flattened names of `local` declared in generate-loop scopes of the module at `prefix`
    (`s_ifaces[2].drop_reg`): Verilator reports an expr point inside a generate loop under the module, with
    the scope's signals by their local names (one point for every iteration). Only scopes with an index, and
    only wires declared in the point's own file (a sub-instance's wire is declared in its module's)."""
    rx = re.compile("^" + re.escape(prefix).replace(r"\*", ".*") + r"((?:[A-Za-z_][A-Za-z0-9_$]*\[\d+\]\.)+)" + re.escape(local) + "$")
    return [n for n in sorted(names) if rx.match(n)
            and any(x.split(":", 1)[0].rsplit("/", 1)[-1] == file for x in src.get(n, "").split("|"))]


_SCOPES = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_$]*\[\d+\]\.)+")


def combine(per: list) -> list:
    """Per-instance term signals -> the instances to AND the terms over: `per` holds one {instance prefix:
    (signal, width)} per term; a term found at a prefix that is another one less its generate scopes (the
    module's own signal beside a scope's: `` and `s_ifaces[2].`) serves that one too. Returns
    [(instance, [(signal, width) per term])]."""
    def under(k, x):            # k is x or x plus generate scopes
        return k == x or (k.startswith(x) and bool(_SCOPES.fullmatch(k[len(x):])))
    keys = set().union(*per) if per else set()
    deep = [k for k in keys if not any(o != k and under(o, k) for o in keys)]
    out = []
    for k in sorted(deep):
        row = []
        for d in per:
            at = max((x for x in d if under(k, x)), key=len, default=None)
            if at is None:
                break
            row.append(d[at])
        else:
            out.append((k, row))
    return out


# a term Verilator prints with an operator inside (`(grant_reg & request)[0]==1`,
# `{32'h1{{instr_div, instr_rem}}}[1]==1`): only these characters (no calls, no strings)
_GEN_OK = re.compile(r"^[A-Za-z0-9_$'\s()\[\]{}&|^~!+\-*<>=,:?]+$")
_BASED = re.compile(r"\d+'s?[bBoOdDhH][0-9a-fA-FxXzZ_]+")
_IDENT = re.compile(r"(?<![\w$'])[A-Za-z_][A-Za-z0-9_$]*")


def general_term(text: str):
    """'EXPR==v' with any expression EXPR over signals -> ('', None, v, ('gen', template, names)): the
    template is Verilog with `{0}`, `{1}`, ... where the signals go, a bit-select of a parenthesised or
    concatenated expression (not Verilog) read as a shift; None when it is not such a term."""
    m = re.match(r"^(.*)==([01])$", text.strip())
    if not m or not _GEN_OK.match(m.group(1)) or "$" in m.group(1):
        return None
    e = m.group(1)
    # `(E)[k]` / `{E}[k]` -> (((E) >> k) & 1), innermost first
    while True:
        sel = re.search(r"([)}])\[(\d+)\]", e)
        if not sel:
            break
        close, depth, j = sel.start(1), 0, sel.start(1)
        pair = {")": "(", "}": "{"}[sel.group(1)]
        while j >= 0:
            depth += 1 if e[j] == sel.group(1) else -1 if e[j] == pair else 0
            if depth == 0:
                break
            j -= 1
        if j < 0:
            return None
        e = f"{e[:j]}((({e[j:close + 1]}) >> {sel.group(2)}) & 1'b1){e[sel.end():]}"
    lits = []
    e = _BASED.sub(lambda x: lits.append(x.group(0)) or f"\0{len(lits) - 1}\0", e)
    names = []

    def name(x):
        if x.group(0) not in names:
            names.append(x.group(0))
        return "{" + str(names.index(x.group(0))) + "}"
    e = _IDENT.sub(name, e.replace("{", "{{").replace("}", "}}"))
    e = re.sub(r"\0(\d+)\0", lambda x: lits[int(x.group(1))], e)
    if not names:
        return None
    return "", None, int(m.group(2)), ("gen", f"((({e}) != 0) == 1'b{m.group(2)})", tuple(names))


def term_names(x) -> list:
    """The signal names an expr term reads (eda.reach_model.expr_terms' tuple or general_term's)."""
    return list(x[3][2]) if x and x[3] and x[3][0] == "gen" else [x[0]] if x else []


def instances(pre_il: str, top: str) -> dict:
    """{instance path below the top (`data_fifo_inst`, `m_ifaces[0].arb_inst`): RTLIL module} of the
    elaborated design (before flatten: each parameterised copy is its own `$paramod` module)."""
    cells, mod = {}, None
    for ln in pre_il.splitlines():
        s = ln.strip()
        if s.startswith("module "):
            mod = s.split(None, 1)[1]
            cells[mod] = []
        elif s.startswith("cell ") and mod:
            f = s.split()
            if len(f) >= 3:
                cells[mod].append((f[1], f[2].lstrip("\\")))
    out = {}

    def walk(m, path, depth):
        for typ, name in cells.get(m, []):
            if typ in cells and depth < 32:
                out[path + name] = typ
                walk(typ, path + name + ".", depth + 1)
    walk("\\" + top, "", 0)
    return out


def dead_by_instance(dead, pr, vals: dict, base_name, points, inst: dict, top: str) -> tuple:
    """eda.reach_const.dead per instance: a point's condition is read in the copies of its module its
    instance path names (two axis_fifo copies, USER_ENABLE 1 in one and 0 in the other: each decides its
    own points), not only where every copy agrees."""
    groups = {}
    for p in points:
        h = p.hier.split(".", 1)[1] if "." in p.hier else ""
        if "*" in h:
            rx = re.compile("^" + re.escape(h).replace(r"\*", ".*") + "$")
            mods = frozenset(m for i, m in inst.items() if rx.match(i))
        else:
            mods = frozenset([inst[h]] if h in inst else ["\\" + top] if not h else [])
        groups.setdefault(mods or None, []).append(p)
    out = {}
    for mods, pts in groups.items():
        sub = vals
        if mods:
            bases = {base_name(m) for m in mods}
            sub = {(m, w): v for (m, w), v in vals.items() if m in mods or base_name(m) not in bases}
        got, why = dead(pr, sub, base_name, pts)
        if why:
            return {}, why
        out.update(got)
    return out, ""


def blocking_by_module(sources: dict, modules, blocking_targets) -> dict:
    """{module: names its own procedural code assigns with `=`}, and None: those of all modules (for a
    point whose module is not found). picorv32.v holds picorv32_pcpi_mul, whose `instr_mul` is a register,
    and picorv32_pcpi_fast_mul, which assigns its own `instr_mul = 1` in a combinational block."""
    out = {None: set()}
    for key, text in sources.items():
        text = str(text)
        for m in modules({key: text}):
            got = blocking_targets(text[m.start:m.end])
            out.setdefault(m.name, set()).update(got)
            out[None] |= got
    return out
