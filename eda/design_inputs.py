"""A design as EDA tools are given one: source files, file lists (`-f files.f` with `+incdir+`, `+define+`),
include folders (`-I`), defines (`-D NAME[=VALUE]`) and top parameters (`-P NAME=VALUE`).

`gather(...)` turns them into the one form every stage takes, name -> text, so a design needs no new option
in any tool: defines become a first file of `` `define `` lines (every tool reads the files of one run as one
compilation unit), included files are added (written beside the sources, never compiled on their own:
eda.sources.write_all), and top parameters are written into the top module's own declaration (its default
value replaced at the parse tree's source range), so lint, simulation, equivalence, synthesis and the cache
all see the same specialised design. A design Icarus or Yosys cannot read (SystemVerilog as teams write it:
packages, `parameter type`, ...) is lowered to one Verilog-2005 module by eda.sv_lower.

    texts = gather(["rtl/axis_fifo.v"], params=["DEPTH=16"], top="axis_fifo")

Bad input (a file list naming a missing file, an unknown parameter, a top that is not in the sources, two
candidate tops) raises DesignInputError with one line naming the file or option.
"""
import re
import shlex
from pathlib import Path

from .hdl import instantiations, module_names, strip_comments
from .sv_lower import LowerError, lower_if_needed

DEFINES_FILE = "rtla_defines.v"      # first file of the design when -D / +define+ are given
_INCLUDE_RE = re.compile(r'^\s*`include\s+"([^"]+)"', re.M)
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


class DesignInputError(ValueError):
    """Bad design input; the message is one line naming the file or option."""


def read_filelist(path, _seen=None) -> tuple[list[Path], list[Path], dict]:
    """(sources, include folders, defines) of a Verilator/Icarus file list: one entry per word, `//` and `#`
    comments, `+incdir+A+B`, `+define+N=V`, `-I DIR`, `-D N=V`, nested `-f FILE` (relative paths: to the
    list's folder, as those tools resolve them from where the list is); `-y`/`-v` libraries are refused."""
    path = Path(path)
    seen = _seen if _seen is not None else set()
    if not path.is_file():
        raise DesignInputError(f"-f {path}: no such file list")
    if path.resolve() in seen:
        raise DesignInputError(f"-f {path}: the file list includes itself")
    seen.add(path.resolve())
    text = re.sub(r"//[^\n]*|#[^\n]*", "", path.read_text(errors="replace"))
    words, srcs, incs, defs = shlex.split(text), [], [], {}
    rel = path.parent

    def where(w):
        p = Path(w).expanduser()
        return p if p.is_absolute() else rel / p
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("+incdir+"):
            incs += [where(d) for d in w[len("+incdir+"):].split("+") if d]
        elif w.startswith("+define+"):
            defs.update(parse_define(d, f"-f {path}") for d in w[len("+define+"):].split("+") if d)
        elif w in ("-f", "-F", "-I", "-D") or w.startswith(("-I", "-D")):
            arg = w[2:] if len(w) > 2 else (words[i + 1] if i + 1 < len(words) else None)
            if arg is None:
                raise DesignInputError(f"-f {path}: {w} without a value")
            i += len(w) == 2
            if w in ("-f", "-F"):
                s, inc, d = read_filelist(where(arg), seen)
                srcs, incs, defs = srcs + s, incs + inc, {**defs, **d}
            elif w.startswith("-I"):
                incs.append(where(arg))
            else:
                defs.update([parse_define(arg, f"-f {path}")])
        elif w.startswith(("-", "+")):
            raise DesignInputError(f"-f {path}: option {w} is not supported (sources, +incdir+, +define+, -I, -D, -f)")
        else:
            srcs.append(where(w))
        i += 1
    return srcs, incs, defs


def parse_define(text: str, opt: str = "-D") -> tuple[str, str]:
    name, _, value = text.partition("=")
    if not _NAME_RE.match(name):
        raise DesignInputError(f"{opt} {text}: not a macro name")
    return name, value if _ else "1"


def parse_params(items) -> dict:
    """-P NAME=VALUE items -> {NAME: VALUE}."""
    out = {}
    for it in items or ():
        name, eq, value = str(it).partition("=")
        if not eq or not _NAME_RE.match(name.strip()) or not value.strip():
            raise DesignInputError(f"-P {it}: expected NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def gather(sources=(), filelists=(), incdirs=(), defines=(), params=None, top: str | None = None,
           lower: bool = True) -> dict:
    """name -> text of the design (see the module's docstring). `defines`: "N[=V]" items or a dict; `params`:
    "N=V" items or a dict. `top`: the top module (checked against the sources; parameters need it). `lower`:
    False gives the sources as they are, even where a tool of the flow cannot read them."""
    srcs, incs, defs = [Path(s) for s in sources], [Path(d) for d in incdirs], {}
    for fl in filelists or ():
        s, inc, d = read_filelist(fl)
        srcs, incs, defs = srcs + s, incs + inc, {**defs, **d}
    defs.update(defines.items() if isinstance(defines, dict) else (parse_define(d) for d in defines or ()))
    texts = {}
    if defs:
        texts[DEFINES_FILE] = "".join(f"`define {n} {v}\n" for n, v in defs.items())
    for p in srcs:
        if not p.is_file():
            raise DesignInputError(f"{p}: no such source file")
        name = p.name if p.name not in texts else str(p)
        texts[name] = p.read_bytes().decode("utf-8", "replace")
    _add_includes(texts, srcs, incs)
    if not any(module_names(t) for t in texts.values()):
        raise DesignInputError("no module in the sources given" if srcs else "no source files given")
    top = check_top(texts, top)
    ps = params if isinstance(params, dict) else parse_params(params)
    texts = specialise(texts, top, ps) if ps else texts
    try:
        return lower_if_needed(texts, top) if lower else texts
    except LowerError as e:
        raise DesignInputError(str(e)) from None


def _add_includes(texts: dict, srcs: list, incs: list):
    """Every file the sources `include (recursively), found beside the including file or in an include folder."""
    todo = [(t, p.parent) for p, t in zip(srcs, [texts.get(p.name, "") for p in srcs])]
    while todo:
        text, here = todo.pop()
        for inc in _INCLUDE_RE.findall(strip_comments(text)):
            if Path(inc).name in texts:
                continue
            found = next((d / inc for d in [here, *incs] if (d / inc).is_file()), None)
            if found is None:
                raise DesignInputError(f"`include \"{inc}\": not found beside the source or in "
                                       f"{', '.join(map(str, incs)) or 'any -I / +incdir+ folder'}")
            texts[Path(inc).name] = found.read_bytes().decode("utf-8", "replace")
            todo.append((texts[Path(inc).name], found.parent))


def check_top(texts: dict, top: str | None) -> str:
    """`top` when the sources define it; without one, the only module no other one instantiates."""
    mods = [m for t in texts.values() if isinstance(t, str) for m in module_names(t)]
    if top:
        if top not in mods:
            raise DesignInputError(f"--top {top}: not in the sources (modules: {', '.join(mods[:12]) or 'none'}"
                                   f"{', ...' if len(mods) > 12 else ''})")
        return top
    used = {i[1] for t in texts.values() if isinstance(t, str) for i in instantiations(t)}
    tops = [m for m in dict.fromkeys(mods) if m not in used]
    if len(tops) != 1:
        raise DesignInputError(f"--top: {len(tops)} candidate tops ({', '.join(tops) or 'none'}); name one with --top"
                               if tops else "--top: every module is instantiated by another; name the top")
    return tops[0]


def specialise(texts: dict, top: str, params: dict) -> dict:
    """The sources with the top module's parameter defaults replaced by `params` (values as written)."""
    try:
        from pyslang import syntax
    except ImportError:         # pragma: no cover - requirements.txt pins it
        raise DesignInputError("-P needs pyslang (bash scripts/setup.sh)") from None
    out = dict(texts)
    for name, text in texts.items():
        if not isinstance(text, str) or top not in module_names(text):
            continue
        mod = _module(syntax, syntax.SyntaxTree.fromText(text).root, top)
        if mod is None:
            continue
        decls = _param_declarators(mod)
        unknown = sorted(set(params) - set(decls))
        if unknown:
            local = [u for u in unknown if decls.get(u) is None and u in _localparams(mod)]
            raise DesignInputError(
                f"-P {unknown[0]}: {'a localparam of' if local else 'no parameter of that name in'} module {top} "
                f"({name}; parameters: {', '.join(decls) or 'none'})")
        edits = []
        for p, value in params.items():
            init = decls[p].initializer
            if init is None:
                raise DesignInputError(f"-P {p}: parameter of {top} has no default to replace ({name})")
            r = init.expr.sourceRange
            edits.append((r.start.offset, r.end.offset, value))
        for a, b, new in sorted(edits, reverse=True):
            text = text[:a] + new + text[b:]
        out[name] = text
        return out
    raise DesignInputError(f"--top {top}: the parser found no module declaration for it")


def _module(syntax, root, top):
    stack = [root]
    while stack:
        n = stack.pop()
        if not isinstance(n, syntax.SyntaxNode):
            continue
        if n.kind.name == "ModuleDeclaration" and n.header.name.valueText == top:
            return n
        if n.kind.name != "ModuleDeclaration":        # modules are not searched inside
            stack.extend(n[i] for i in range(len(n)))
    return None


def _param_declarators(mod) -> dict:
    """NAME -> declarator of every overridable parameter: the header's, and `parameter` (not localparam) in the
    body (Icarus, Verilator and Yosys let a defparam/-P override those too)."""
    out = {}
    hdr = mod.header.parameters
    keyword = "parameter"
    for d in (hdr.declarations if hdr else ()):
        if getattr(d, "kind", None) is None or d.kind.name != "ParameterDeclaration":
            continue
        keyword = d.keyword.valueText or keyword
        if keyword == "parameter":
            out.update((x.name.valueText, x) for x in d.declarators)
    for it in mod.members:
        if it.kind.name == "ParameterDeclarationStatement" and it.parameter.keyword.valueText == "parameter":
            out.update((x.name.valueText, x) for x in it.parameter.declarators)
    return out


def _localparams(mod) -> set:
    return {x.name.valueText for it in mod.members if it.kind.name == "ParameterDeclarationStatement"
            and it.parameter.keyword.valueText == "localparam" for x in it.parameter.declarators}
