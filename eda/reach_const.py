"""Parameter constants for eda.reach: points whose condition is fixed by the design's parameters.

Yosys folds an `if`/`?:` whose condition is a parameter expression while it reads the design, so the
switch or $ternary cell a point maps onto is gone (reach_rtlil: "no `if` at ..."), and a point nested in a
dead arm has nothing to map onto either. Verilator keeps all of them as points (count 0 or always hit).
Here the condition's text is copied into the module as a probe wire (`rtla_pc<N> = (COND) ? 1 : 0`); Yosys
folds the probe to the constant the parameters give it (read back from the RTLIL before `proc`), and:
  - the arm of a constant condition that cannot be taken is unreachable (method yosys-const), and so is
    every line/branch/expr point inside its source span (then: after the condition's `)` to the end of its
    statement; else: the statement after `else`);
  - an expr term on a parameter (`(KEEP_ENABLE==1) => 1`) reads a probe `rtla_pv<N> = (NAME) != 0`
    instead, so the term becomes a model signal like any other.
A probe is made only when every identifier of its text is a parameter or localparam of the module (no
signals, loop variables or functions), so adding it cannot break the elaboration; eda.reach falls back to
the design without probes if it does anyway. A covered point inside a span found dead withdraws them all."""
import re
from dataclasses import dataclass, field

from .hdl import IDENT, blank_comments_and_strings, safe_name

_NUM = re.compile(r"\d*\s*'\s*[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ_?]+|\b\d[\d_]*(\.\d+)?\b")
_ID = re.compile(rf"(?<![\w$.]){IDENT}")
_SYS = ("$clog2", "$signed", "$unsigned")
_DECL_KW = {"wire", "reg", "logic", "signed", "unsigned", "integer", "tri", "input", "output", "inout", "var"}


@dataclass
class Module:
    name: str
    file: str                       # safe_name of its source key
    start: int                      # offset of `module` in the text
    end: int                        # offset of its `endmodule`
    params: set = field(default_factory=set)
    signals: set = field(default_factory=set)        # names declared at module level (ports, wires, regs)


@dataclass
class Probes:
    """Probe wires per module and what they stand for."""
    wires: dict = field(default_factory=dict)        # module -> {expr: wire}
    ifs: dict = field(default_factory=dict)          # (file, line, col) of an `if` -> (module, wire, then span, else span)
    terns: dict = field(default_factory=dict)        # (file, line) of a `?:` -> (module, wire)

    def wire(self, module: str, expr: str, kind: str) -> str:
        w = self.wires.setdefault(module, {})
        if expr not in w:
            w[expr] = f"rtla_{kind}{sum(len(x) for x in self.wires.values())}"
        return w[expr]


def modules(sources: dict) -> list:
    out = []
    for key, text in sources.items():
        code = blank_comments_and_strings(str(text))
        for m in re.finditer(rf"\b(?:module|macromodule)\s+({IDENT})", code):
            e = code.find("endmodule", m.end())
            if e < 0:
                continue
            body = code[m.start():e]
            params = set()
            for seg in re.finditer(r"\b(?:parameter|localparam)\b([^;]*)", body):
                s = re.sub(r"\[[^\]]*\]", " ", seg.group(1))
                params.update(x for x in re.findall(rf"({IDENT})\s*=(?!=)", s))
            sigs = set()
            for seg in re.finditer(r"\b(?:input|output|inout|wire|reg|logic|integer|tri)\b([^;=)]*)", body):
                s = re.sub(r"\[[^\]]*\]", " ", seg.group(1))
                sigs.update(x for x in re.findall(IDENT, s) if x not in _DECL_KW)
            out.append(Module(m.group(1), safe_name(key, "dut.v"), m.start(), e, params, sigs - params))
    return out


def _params_only(text: str, params: set) -> bool:
    t = _NUM.sub(" ", text)
    for s in _SYS:
        t = t.replace(s, " ")
    ids = _ID.findall(t)
    return bool(ids) and all(i in params for i in ids) and "$" not in t


def _offset(text: str, line: int, col: int) -> int:
    pos = 0
    for _ in range(line - 1):
        pos = text.find("\n", pos) + 1
        if pos == 0:
            return -1
    return pos + col - 1


def _close(code: str, i: int) -> int:
    """Index after the `)` matching the `(` at code[i], or -1."""
    depth = 0
    for j in range(i, len(code)):
        depth += {"(": 1, ")": -1}.get(code[j], 0)
        if depth == 0:
            return j + 1
    return -1


def _statement(code: str, i: int):
    """(start, end, simple) of the statement starting at or after i; simple: a begin block or one plain
    statement (not if/case/loop), so the token after it belongs to the enclosing `if`. An `if` (with its
    `else`), a loop or a case spans all it holds (`else if (...) ... else ...` is one statement)."""
    m = re.compile(r"\s*").match(code, i)
    s = m.end()
    if re.match(r"begin\b", code[s:]):
        depth = 0
        for t in re.finditer(r"\b(begin|end|fork|join|join_any|join_none)\b", code[s:]):
            depth += 1 if t.group(1) in ("begin", "fork") else -1
            if depth == 0:
                return s, s + t.end(), True
        return None
    kw = re.match(r"(if|for|while|repeat)\s*\(", code[s:])
    if kw:
        pc = _close(code, s + kw.end() - 1)
        body = _statement(code, pc) if pc > 0 else None
        if body is None:
            return None
        el = re.match(r"\s*else\b", code[body[1]:]) if kw.group(1) == "if" else None
        if el:
            body = _statement(code, body[1] + el.end())
            if body is None:
                return None
        return s, body[1], False
    if re.match(r"case[xz]?\b", code[s:]):
        depth = 0
        for t in re.finditer(r"\b(case[xz]?|endcase)\b", code[s:]):
            depth += 1 if t.group(1) != "endcase" else -1
            if depth == 0:
                return s, s + t.end(), False
        return None
    e = code.find(";", s)
    if e < 0:
        return None
    simple = not re.match(r"(if|case|casex|casez|for|while|repeat|forever|fork)\b", code[s:])
    return s, e + 1, simple


def _span(text: str, a: int, b: int) -> tuple:
    """Offsets -> ((line, col), (line, col)), 1-based."""
    def lc(o):
        line = text.count("\n", 0, o) + 1
        return line, o - (text.rfind("\n", 0, o) + 1) + 1
    return lc(a), lc(b)


def plan(sources: dict, points, signals: bool = True, context=()) -> Probes:
    """Probes for the `if`s and `?:`s of the open points whose condition is a parameter expression (with
    `signals`, also one that reads module-level signals: `x && MARK` folds to 0 when MARK is 0), and for
    the `if`s of the `context` points (the covered ones) whose condition is parameters alone: a covered
    `if (BASE == 0)` rules out its `else` arm and all the open points in it (`else if (TOP == 0) ...`)."""
    pr = Probes()
    mods = modules(sources)
    texts = {safe_name(k, "dut.v"): str(t) for k, t in sources.items()}
    codes = {f: blank_comments_and_strings(t) for f, t in texts.items()}
    ctx = {id(p) for p in context}
    for p in list(points) + [p for p in context if p.comment in ("if", "elsif", "else")]:
        if p.type not in ("line", "branch") or p.file not in codes:
            continue
        code, text = codes[p.file], texts[p.file]
        if p.comment in ("if", "elsif", "else"):
            col = p.column - 1 if p.comment == "else" and p.type == "branch" else p.column
            key = (p.file, p.line, col)
            if key in pr.ifs:
                continue
            o = _offset(code, p.line, col)
            if o < 0 or not code.startswith("if", o):
                continue
            mod = next((m for m in mods if m.file == p.file and m.start <= o < m.end), None)
            po = code.find("(", o)
            if mod is None or po < 0 or code[o + 2:po].strip():
                continue
            pc = _close(code, po)
            cond = text[po:pc] if pc > 0 else ""
            # inside a function or task a name may be its own argument, not the module's signal
            last = [t.group(1) for t in re.finditer(r"\b(end)?(?:function|task)\b", code[mod.start:o])][-1:]
            local = last == [None]
            sigs = mod.signals if signals and not local and id(p) not in ctx else set()
            if not cond or not _params_only(code[po:pc], mod.params | sigs):
                continue
            then = _statement(code, pc)
            if then is None:
                continue
            els = None
            if then[2] and re.match(r"\s*else\b", code[then[1]:]):
                k = code.index("else", then[1]) + 4
                st = _statement(code, k)
                els = _span(text, k, st[1]) if st else None
            w = pr.wire(mod.name, f"({cond}) ? 1'b1 : 1'b0", "pc")
            pr.ifs[key] = (mod.name, w, _span(text, pc, then[1]), els)
        elif p.comment in ("cond", "cond_then", "cond_else") and (p.file, p.line) not in pr.terns:
            lines = code.splitlines()
            if not 0 < p.line <= len(lines) or lines[p.line - 1].count("?") != 1:
                continue
            o = _offset(code, p.line, 1) + lines[p.line - 1].index("?")
            mod = next((m for m in mods if m.file == p.file and m.start <= o < m.end), None)
            j, depth = o - 1, 0
            while j >= 0:
                c = code[j]
                depth += {")": 1, "(": -1}.get(c, 0)
                if depth < 0 or depth == 0 and (c in ",;:?{" or c == "=" and code[j - 1] not in "=!<>" and code[j + 1] != "="):
                    break
                j -= 1
            sel = code[j + 1:o]
            if mod is None or not _params_only(sel, mod.params | (mod.signals if signals else set())):
                continue
            pr.terns[(p.file, p.line)] = (mod.name, pr.wire(mod.name, f"({text[j + 1:o]}) ? 1'b1 : 1'b0", "pc"))
    return pr


def term_probe(pr: Probes, mods: dict, point, name: str):
    """The probe wire standing for parameter `name` read as a truth value in `point`'s module, or None."""
    m = mods.get(point.module)
    if m is None or name not in m.params:
        return None
    return pr.wire(m.name, f"(({name}) != 0) ? 1'b1 : 1'b0", "pv")


def rewrite_expr(pr: Probes, mods: dict, point) -> str:
    """The expr point's comment with each parameter term (`NAME==v`, not indexed) read from a probe."""
    m = re.match(r"^\((.*)\) => ([01])$", point.comment.strip())
    if not m:
        return point.comment
    out, mod = [], mods.get(point.module)
    for t in m.group(1).split(" && "):
        tm = re.match(r"^(.*)==([01])$", t.strip())
        w = None
        if tm and re.fullmatch(IDENT, tm.group(1)):
            w = term_probe(pr, mods, point, tm.group(1))
        elif tm and mod and _params_only(tm.group(1), mod.params):      # `(KEEP_WIDTH > 32'sh1)==1`
            w = pr.wire(mod.name, f"({tm.group(1)}) ? 1'b1 : 1'b0", "pv")
        out.append(f"{w}=={tm.group(2)}" if w else t)
    return f"({' && '.join(out)}) => {m.group(2)}"


def probed(sources: dict, pr: Probes) -> dict:
    """The sources with the probe wires declared before each module's `endmodule` (same line: no line moves)."""
    if not pr.wires:
        return sources
    out = dict(sources)
    for key, text in sources.items():
        text = str(text)
        for m in sorted((m for m in modules({key: text}) if m.name in pr.wires), key=lambda m: -m.end):
            decl = " ".join(f"(* keep *) wire {w} = {e};" for e, w in pr.wires[m.name].items())
            text = text[:m.end] + decl + " " + text[m.end:]
        out[key] = text
    return out


def values(pre_il: str) -> dict:
    """{(RTLIL module name, wire): 0 | 1} of the probes Yosys folded to a constant."""
    out, mod = {}, None
    for ln in pre_il.splitlines():
        s = ln.strip()
        if s.startswith("module "):
            mod = s.split(None, 1)[1]
        m = re.match(r"connect \\(rtla_p[cv]\d+) 1'([01])$", s)
        if m and mod:
            out[(mod, m.group(1))] = int(m.group(2))
    return out


def _inside(pos, span) -> bool:
    return span is not None and span[0] <= pos < span[1]


def dead(pr: Probes, vals: dict, base_name, points) -> tuple:
    """({key: why} of the points a constant condition rules out, '' or why they are all withdrawn).
    A condition counts only when it folds to the same constant in every elaborated copy of its module."""
    def const(mod, wire):
        got = {v for (m, w), v in vals.items() if w == wire and base_name(m) == mod}
        return got.pop() if len(got) == 1 else None
    spans = []           # (file, span, why)
    arms = {}            # (file, line, col, arm) -> why
    for (f, line, col), (mod, wire, then, els) in pr.ifs.items():
        c = const(mod, wire)
        if c is None:
            continue
        why = f"the condition of the `if` at {f}:{line}.{col} is constant {c} for these parameters (Yosys folds it)"
        arm, span = ("then", then) if c == 0 else ("else", els)
        arms[(f, line, col, arm)] = why
        if span:
            spans.append((f, span, why))
    terns = {}
    for (f, line), (mod, wire) in pr.terns.items():
        c = const(mod, wire)
        if c is not None:
            terns[(f, line, "cond_else" if c else "cond_then")] = \
                f"the `?:` select at {f}:{line} is constant {c} for these parameters"
    out = {}
    for p in points:
        if p.type not in ("line", "branch", "expr"):
            continue
        pos, why = (p.line, p.column), ""
        if p.comment in ("if", "elsif"):
            why = arms.get((p.file, p.line, p.column, "then"), "")
        elif p.comment == "else":
            why = arms.get((p.file, p.line, p.column - 1, "else"), "") or arms.get((p.file, p.line, p.column, "else"), "")
        elif p.comment in ("cond", "cond_then", "cond_else"):
            why = terns.get((p.file, p.line, "cond_then" if p.comment == "cond" else p.comment), "")
        why = why or next((w for f, s, w in spans if f == p.file and _inside(pos, s)), "")
        if not why:
            continue
        if p.count > 0:
            return {}, f"covered point {p.file}:{p.line} lies in an arm found dead ({why})"
        out[p.key] = why
    return out, ""
