"""A core optimized in its hierarchy (`optimize FILES --top CORE --module NAME|all`, issue #59 item 2).

The submodule NAME is cut out of the core (its module and the modules below it, with its file's header: the
`define`s and `timescale` before the first module) and made a task of its own, with the parameters its instance
in the core has (slang elaborates the core and gives each instance's values; a module instantiated with
different values in two places is refused, since one rewrite cannot serve both). The ordinary optimize run
works on that task: the kinds see NAME's text only, and each candidate is proven equivalent to the original
NAME, which is cheap next to a proof of the whole core. The best NAME found is put back in the core (its module
definitions replace the originals, text for text) and the core is synthesized and timed before and after, so
the report gives NAME's PPA and the whole core's.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from designs.adhoc import write_task
from eda.design_inputs import DesignInputError, specialise
from eda.flow import evaluate


@dataclass(frozen=True)
class Inst:
    path: str          # hierarchical instance path, e.g. picorv32.genblk1.pcpi_mul
    module: str
    params: dict       # overridable parameter -> value as slang elaborated it


def _compile(texts: dict, tops):
    from pyslang import ast, syntax
    opts = ast.CompilationOptions()
    opts.topModules = set(tops)
    comp = ast.Compilation(__import__("pyslang").Bag([opts]))
    # one tree from the files in order, as Icarus reads them: a `define in one file reaches the next
    comp.addSyntaxTree(syntax.SyntaxTree.fromText("\n".join(t for t in texts.values() if isinstance(t, str))))
    return comp


def _params(body) -> dict:
    return {p.name: str(p.value) for p in body.parameters if not p.isLocalParam}


def instances(texts: dict, top: str) -> list[Inst]:
    """Every module instance below `top` (generate blocks that elaborate away are left out)."""
    comp = _compile(texts, [top])
    out = []

    def walk(scope, path):
        for m in scope:
            k = m.kind.name
            if k == "Instance":
                out.append(Inst(f"{path}.{m.name}", m.body.definition.name, _params(m.body)))
                walk(m.body, f"{path}.{m.name}")
            elif k == "GenerateBlock" and not m.isUninstantiated:
                walk(m, f"{path}.{m.name or 'genblk'}")
            elif k == "GenerateBlockArray":
                for n, blk in enumerate(m):          # each entry its own path: name[0], name[1], ...
                    if blk.kind.name == "GenerateBlock" and not blk.isUninstantiated:
                        walk(blk, f"{path}.{m.name or 'genblk'}[{n}]")
            elif k == "InstanceArray":
                walk(m, path)
    for t in comp.getRoot().topInstances:
        walk(t.body, t.name)
    return out


def defaults(texts: dict, module: str) -> dict:
    """`module`'s parameters at their defaults (elaborated alone)."""
    comp = _compile(texts, [module])
    return next((_params(t.body) for t in comp.getRoot().topInstances if t.name == module), {})


def spans(texts: dict) -> dict:
    """module name -> (file name, start, end) of its declaration text."""
    from pyslang import syntax
    out = {}
    for name, text in texts.items():
        if not isinstance(text, str):
            continue
        stack = [syntax.SyntaxTree.fromText(text).root]
        while stack:
            n = stack.pop()
            if not isinstance(n, syntax.SyntaxNode):
                continue
            if n.kind.name == "ModuleDeclaration":
                r = n.sourceRange        # from `module` (comments before it are left out) to `endmodule`
                out.setdefault(n.header.name.valueText, (name, r.start.offset, r.end.offset))
            else:
                stack.extend(n[i] for i in range(len(n)))
    return out


def submodules(insts: list[Inst], texts: dict) -> list[str]:
    """The distinct modules below the top, largest text first (the simple order `--module all` goes in)."""
    sp = spans(texts)
    names = list(dict.fromkeys(i.module for i in insts if i.module in sp))
    return sorted(names, key=lambda n: -(sp[n][2] - sp[n][1]))


def below(insts: list[Inst], name: str) -> list[str]:
    """`name` and the modules instantiated below any of its instances."""
    roots = [i.path for i in insts if i.module == name]
    return [name] + list(dict.fromkeys(i.module for i in insts if i.module != name
                                       and any(i.path.startswith(r + ".") for r in roots)))


def overrides(texts: dict, insts: list[Inst], name: str, top: str) -> dict:
    """The parameters NAME's instances set away from its defaults; one value for every instance, or an error."""
    mine = [i for i in insts if i.module == name]
    if not mine:
        known = ", ".join(dict.fromkeys(i.module for i in insts)) or "none"
        raise DesignInputError(f"--module {name}: no instance of it below {top} (submodules: {known})")
    if any(i.params != mine[0].params for i in mine):
        a, b = next((x, y) for x in mine for y in mine if x.params != y.params)
        raise DesignInputError(f"--module {name}: instances {a.path} and {b.path} set different parameters "
                               f"({a.params} vs {b.params}); one rewrite cannot serve both")
    base = defaults(texts, name)
    return {k: v for k, v in mine[0].params.items() if base.get(k) != v}


def extract(texts: dict, insts: list[Inst], name: str, top: str) -> tuple[dict, dict]:
    """(the sub-design's texts {NAME.v: header + modules}, the parameters set on it)."""
    ps = overrides(texts, insts, name, top)
    sp = spans(texts)
    mods = [m for m in below(insts, name) if m in sp]
    heads, bodies = {}, []
    for m in mods:
        f, a, b = sp[m]
        first = min(s for g, s, _ in sp.values() if g == f)
        heads.setdefault(f, texts[f][:first])
        bodies.append(texts[f][a:b])
    sub = {f"{name}.v": "".join(heads.values()) + "\n\n".join(bodies) + "\n"}
    return (specialise(sub, name, ps) if ps else sub), ps


def splice(texts: dict, code: str) -> dict:
    """The core's texts with each module `code` defines put in place of the core's own definition."""
    new = spans({"best.v": code})
    out = dict(texts)
    for m, (_, a, b) in new.items():
        at = spans(out).get(m)
        if at is None:
            continue
        f, x, y = at
        out[f] = out[f][:x] + code[a:b] + out[f][y:]
    return out


def core_ppa(job, texts: dict) -> dict:
    """The whole core synthesized and timed (no simulation or proof: each replaced module is proven alone)."""
    from eda.sv_lower import lower_if_needed
    rep = evaluate(job.replace(stages=("synth", "sta")), lower_if_needed(texts, job.top))
    return {"ok": rep.ok, "area": rep.area_um2, "delay": rep.delay_ns, "power": rep.power_w, "ppa": rep.ppa,
            "why": None if rep.ok else f"{rep.failed_stage}: {rep.failure_reason[:200]}"}


def write_subtask(texts: dict, insts: list[Inst], name: str, top: str, folder: Path, pdk: str) -> tuple[Path, dict]:
    sub, ps = extract(texts, insts, name, top)
    origin = f"module {name} of {top}" + (f" with its instance's parameters {ps}" if ps else "")
    return write_task(sub, name, folder, pdk=pdk, origin=origin), ps
