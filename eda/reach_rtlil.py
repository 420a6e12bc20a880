"""The RTLIL side of eda.reach: the decision trees of a design's processes (read from `write_rtlil` before
`proc`), Verilator's line/branch points mapped onto them by source position, and the flag processes that
expose "this arm executes now" as a wire.

A process's body is a tree of `switch SIG` / `case CMP` rules with `attribute \\src "file:L.C-L.C"`:
an `if` is a switch starting at the `if` keyword (cases `1'1` and the empty default), a `case` statement
a switch over its range with one case per item. Verilator puts a branch point `if` at (line, column) of
the `if` keyword and its `else` at column + 1; line points `case` sit on the items of a case statement,
in source order. A flag for arm (switch, case) is a separate combinational process that repeats the path
of switches from the root to that case (earlier siblings kept, empty, so the first-match rule holds) and
assigns 1 there, 0 by default: the arm's condition under the current state and inputs, i.e. "the
always block takes this arm at the next clock edge" (clocked) or "now" (combinational)."""
import re
from dataclasses import dataclass, field

_SRC = re.compile(r'attribute \\src "([^"]*)"')
_POS = re.compile(r"(?:^|\|)([^|:]+):(\d+)\.(\d+)-(\d+)\.(\d+)")


@dataclass
class Case:
    compare: str                    # RTLIL compare values (empty: default)
    src: tuple | None               # (file, l1, c1, l2, c2)
    switches: list = field(default_factory=list)


@dataclass
class Switch:
    sig: str
    src: tuple | None
    cases: list = field(default_factory=list)
    path: tuple = ()                # ((Switch, case index), ...) from the process root to this switch

    def is_if(self) -> bool:
        return len(self.cases) == 2 and self.cases[0].compare.strip() == "1'1" and not self.cases[1].compare.strip()


@dataclass
class Module:
    name: str                       # RTLIL name, e.g. \lock or $paramod\sub\W=8
    start: int                      # line index of `module ...` in the RTLIL text
    end: int                        # line index of its closing `end`
    switches: list = field(default_factory=list)      # every switch of every process, in order
    ternaries: list = field(default_factory=list)     # [src, select signal] of each `?:` ($mux $ternary$...)
    wires: dict = field(default_factory=dict)         # \name -> width


def _src(text: str | None):
    if not text:
        return None
    m = _POS.search(text)
    return (m.group(1).rsplit("/", 1)[-1], int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))) if m else None


def base_name(rtlil_name: str) -> str:
    """\\lock -> lock; $paramod\\sub\\W=8 -> sub; $paramod$abc\\sub -> sub."""
    n = rtlil_name.lstrip("\\")
    if n.startswith("$paramod"):
        parts = n.split("\\")
        return parts[1] if len(parts) > 1 else n
    return n


def parse(text: str) -> list:
    """Modules of an RTLIL text with the switch trees of their processes."""
    mods, cur, stack, attr, in_proc, in_sync, in_cell = [], None, [], None, False, False, False
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        s = raw.strip()
        if s.startswith("module ") and cur is None:
            cur = Module(s.split(None, 1)[1], i, i)
            continue
        if cur is None:
            continue
        if s.startswith("attribute "):
            m = _SRC.match(s)
            attr = m.group(1) if m else attr
            continue
        if in_cell:
            if s.startswith("connect \\S ") and cur.ternaries and cur.ternaries[-1][1] is None:
                cur.ternaries[-1][1] = s[len("connect \\S "):].strip()
            in_cell = s != "end"
            continue
        if not in_proc:
            if s.startswith("cell "):
                in_cell = True
                if s.split()[1:3][:1] == ["$mux"] and s.split()[2].startswith("$ternary$"):
                    cur.ternaries.append([_src(attr), None])
            elif s.startswith("wire "):
                toks = s.split()
                w = int(toks[toks.index("width") + 1]) if "width" in toks else 1
                cur.wires[toks[-1]] = -1 if ("upto" in toks or "offset" in toks) else w
            elif s.startswith("process "):
                in_proc, in_sync, stack = True, False, [Case("", None)]
            elif s == "end":
                cur.end = i
                mods.append(cur)
                cur = None
            attr = None
            continue
        if s.startswith("sync "):
            in_sync = True
        elif s == "end" and (in_sync or len(stack) == 1):
            in_proc = False
        elif in_sync:
            pass
        elif s.startswith("switch "):
            path = tuple((sw, len(sw.cases) - 1) for sw in stack if isinstance(sw, Switch))
            sw = Switch(s[7:].strip(), _src(attr), path=path)
            stack[-1].switches.append(sw)
            cur.switches.append(sw)
            stack.append(sw)
        elif s == "case" or s.startswith("case "):
            if isinstance(stack[-1], Case):
                stack.pop()
            c = Case(s[4:].strip(), _src(attr))
            stack[-1].cases.append(c)
            stack.append(c)
        elif s == "end":
            if isinstance(stack[-1], Case):
                stack.pop()
            stack.pop()
        attr = None
    return mods


# ---- Verilator points -> (switch, case) -----------------------------------------------------

def _inside(pos, src) -> bool:
    return src is not None and (src[1], src[2]) <= pos <= (src[3], src[4])


def _case_switch(mod: Module, file: str, pos):
    """The innermost non-if switch of `file` whose range holds `pos` and starts before it."""
    best = None
    for sw in mod.switches:
        if sw.src and sw.src[0] == file and not sw.is_if() and _inside(pos, sw.src) and (sw.src[1], sw.src[2]) < pos:
            if best is None or (sw.src[1], sw.src[2]) > (best.src[1], best.src[2]):
                best = sw
    return best


def locate(mod: Module, point, all_points) -> tuple:
    """((switch, case index), None) for a line/branch point of `mod`, or (None, why)."""
    file, pos, c = point.file, (point.line, point.column), point.comment
    starts = {(sw.src[0], sw.src[1], sw.src[2]): sw for sw in mod.switches if sw.src}
    if c in ("if", "elsif") or (c == "else" and point.type == "line"):
        for col in ((point.column,) if c != "else" else (point.column - 1, point.column)):
            sw = starts.get((file, point.line, col))
            if sw is not None and sw.is_if():
                return (sw, 0 if c != "else" else 1), None
        if c != "else":
            return None, f"no `if` at {file}:{point.line}.{point.column} in the elaborated process"
    if c == "else":
        sw = starts.get((file, point.line, point.column - 1))
        if sw is not None and sw.is_if():
            return (sw, 1), None
        return None, f"no `if` before the `else` at {file}:{point.line}.{point.column}"
    if c == "case":
        sw = _case_switch(mod, file, pos)
        if sw is None:
            return None, f"no case statement around {file}:{point.line}.{point.column}"
        nested = [s for s in mod.switches if s is not sw and not s.is_if() and s.src and any(q is sw for q, _ in s.path)]
        items = sorted({(p.line, p.column) for p in all_points
                        if p.type == "line" and p.comment == "case" and p.file == file and _inside((p.line, p.column), sw.src)
                        and not any(_inside((p.line, p.column), s.src) for s in nested)})
        # a case without `default`: Yosys adds an empty default case last, Verilator no point for it
        implicit = len(items) == len(sw.cases) - 1 and not sw.cases[-1].compare.strip() and \
            all(x.compare.strip() for x in sw.cases[:-1])
        if (len(items) != len(sw.cases) and not implicit) or pos not in items:
            return None, (f"case items at {file}:{sw.src[1]}: Verilator has {len(items)} point(s), "
                          f"the elaborated switch {len(sw.cases)} case(s)")
        return (sw, items.index(pos)), None
    if c in ("cond", "cond_then", "cond_else"):         # Verilator 5.4x names the then arm cond_then
        return _cond(mod, point, all_points)
    return None, f"{point.type} point '{c}' has no formal target (only if/else/case arms and ?: are mapped)"


def _cond(mod: Module, point, all_points):
    """A `?:` branch point: (("cond", select, value, arm or None), None). The arm is the narrowest mapped
    if/else/case arm whose lines hold the point's line, among switches that start on an earlier line (so a
    wider arm at worst: the flag then fires more often, a proof stays sound); none: always evaluated."""
    tern = [t for t in mod.ternaries if t[0] and t[0][0] == point.file and t[0][1] == point.line and t[1]]
    if len(tern) > 1:
        tern = [t for t in tern if _inside((point.line, point.column), t[0])]
    if len(tern) != 1:
        return None, f"{len(tern)} ?: cells at {point.file}:{point.line} (need exactly one)"
    arm = context(mod, point, all_points)
    return (("cond", tern[0][1], 0 if point.comment == "cond_else" else 1, arm), None), None


def context(mod: Module, point, all_points):
    """The narrowest mapped if/else/case arm whose lines hold the point's line, among switches that start on an
    earlier line (so a wider arm at worst: a condition under it then holds more often, a proof stays sound);
    None: none (a continuous assign, or the always block's top level: always evaluated)."""
    best = None
    for q in all_points:
        if (q.file != point.file or q.type not in ("line", "branch") or q.comment not in ("if", "elsif", "else", "case")
                or point.line not in q.lines or q.line >= point.line):
            continue
        loc, _ = locate(mod, q, all_points)
        if loc and loc[0].src and loc[0].src[1] < point.line:
            span = (max(q.lines) - min(q.lines), -q.line)
            if best is None or span < best[0]:
                best = (span, loc)
    return best[1] if best else None


def flag_process(name: str, sw, index) -> str:
    """A combinational process driving wire `name` 1 exactly when the arm (sw, index) is taken; for a
    ("cond", select, value, arm) target when that arm is taken (always, without one) and select == value."""
    last = f"assign {name} 1'1"
    if isinstance(sw, tuple):
        _, sel, val, arm = sw
        path = (list(arm[0].path) + [arm]) if arm else []
        last = f"switch {sel}\n  case 1'{val}\n    assign {name} 1'1\nend"
    else:
        path = list(sw.path) + [(sw, index)]
    out = [f"  attribute \\keep 1", f"  wire {name}", f"  process $rtla_proc_{name.lstrip(chr(92))}",
           f"    assign {name} 1'0"]
    ind = "    "
    for s, k in path:
        out.append(f"{ind}switch {s.sig}")
        for j in range(k + 1):
            cmp = s.cases[j].compare
            out.append(f"{ind}  case {cmp}".rstrip())
        ind += "    "
    out += [ind + x for x in last.splitlines()]
    for _ in path:
        ind = ind[:-4]
        out.append(f"{ind}end")
    out.append("  end")
    return "\n".join(out)


def instrument(text: str, mods: list, additions: dict) -> str:
    """The RTLIL text with `additions` ({module name: [lines]}) inserted before each module's `end`."""
    lines = text.splitlines()
    for m in sorted(mods, key=lambda m: -m.end):
        add = additions.get(m.name)
        if add:
            lines[m.end:m.end] = add
    return "\n".join(lines) + "\n"


def expr_context(mod: Module, point, all_points):
    """For an expr point: (arm, found). The condition of an `if`/`case` on the point's line (the switch starts
    there, at or before the point's column) is evaluated where that switch sits: the arm of its parent (None:
    the process top, always). Otherwise the narrowest enclosing arm (`context`)."""
    own = [sw for sw in mod.switches if sw.src and sw.src[0] == point.file and sw.src[1] == point.line
           and sw.src[2] <= point.column]
    if own:
        sw = max(own, key=lambda x: x.src[2])
        return (sw.path[-1] if sw.path else None), True
    arm = context(mod, point, all_points)
    return arm, arm is not None
