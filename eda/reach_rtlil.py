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
            in_cell = s != "end"
            continue
        if not in_proc:
            if s.startswith("cell "):
                in_cell = True
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
        if len(items) != len(sw.cases) or pos not in items:
            return None, (f"case items at {file}:{sw.src[1]}: Verilator has {len(items)} point(s), "
                          f"the elaborated switch {len(sw.cases)} case(s)")
        return (sw, items.index(pos)), None
    return None, f"{point.type} point '{c}' has no formal target (only if/else/case arms are mapped)"


def flag_process(name: str, sw: Switch, index: int) -> str:
    """A combinational process driving wire `name` 1 exactly when the arm (sw, index) is taken."""
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
    out.append(f"{ind}assign {name} 1'1")
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
