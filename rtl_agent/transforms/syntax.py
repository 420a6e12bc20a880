"""The parse tree of a design (pyslang: slang's SystemVerilog front end), and edits made on its source ranges.

    p = parse(code, top)          Parsed, or raises ParseError with the parser's first message
    p.module                      the top module's ModuleDeclarationSyntax
    p.body                        its elaborated InstanceBody (types, widths), or None when elaboration failed
    p.text(node)                  the source text of a syntax node (or of an AST node's syntax)
    p.span(node)                  (start, end) offsets in `code`
    splice(code, edits)           the code with non-overlapping (start, end, new) edits made; untouched text and
                                  comments stay as they were
    walk(node)                    every syntax node under `node`, depth first

Regexes used to do some of this (declarations, widths, assignment targets); the tree sees through formatting,
comments and multi-name declarations, and gives the elaborated width of every expression.
"""
from __future__ import annotations

import atexit
from dataclasses import dataclass
from functools import lru_cache

try:
    from pyslang import DiagnosticEngine, ast, syntax
except ImportError:             # pragma: no cover - requirements.txt pins it; say what is missing
    DiagnosticEngine = ast = syntax = None


class ParseError(ValueError):
    """The parser refused the design (or the top is not in it): callers fall back with this reason."""


@dataclass
class Parsed:
    code: str
    top: str
    tree: object
    module: object               # ModuleDeclarationSyntax of the top
    body: object                 # ast.InstanceBody or None

    def span(self, node) -> tuple[int, int]:
        node = getattr(node, "syntax", None) or node
        r = node.sourceRange
        return r.start.offset, r.end.offset

    def text(self, node) -> str:
        a, b = self.span(node)
        return self.code[a:b]

    def symbols(self, kinds=None) -> dict:
        """{name: symbol} of the top body's members (nets, variables, parameters), by SymbolKind names."""
        out = {}
        for m in self.body or ():
            if kinds is None or m.kind.name in kinds:
                out.setdefault(m.name, m)
        return out

    def width(self, name: str) -> int | None:
        sym = self.symbols(("Net", "Variable")).get(name)
        t = getattr(sym, "type", None)
        return int(t.bitWidth) if t is not None and t.isIntegral else None

    def ast_nodes(self, want) -> list:
        """Every elaborated AST node of the top body for which want(node) is true, in source order."""
        found = []

        def visit(n):
            if want(n):
                found.append(n)
            return True
        if self.body is not None:
            self.body.visit(visit)
        return found


def _need():
    if syntax is None:
        raise ParseError("pyslang is not installed (bash scripts/setup.sh)")


@lru_cache(maxsize=64)
def parse(code: str, top: str) -> Parsed:
    """The design's parse tree and elaborated top body. Raises ParseError with the first error."""
    _need()
    tree = syntax.SyntaxTree.fromText(code)
    errs = [d for d in tree.diagnostics if d.isError()]
    if errs:
        raise ParseError(f"syntax: {_message(tree, errs[0])}")
    mods = [m for m in walk(tree.root) if m.kind.name == "ModuleDeclaration"]
    module = next((m for m in mods if m.header.name.valueText == top), None)
    if module is None:
        raise ParseError(f"module {top} is not in the design")
    comp = ast.Compilation()
    comp.addSyntaxTree(tree)
    body = next((i.body for i in comp.getRoot().topInstances if i.name == top), None)
    errs = [d for d in comp.getAllDiagnostics() if d.isError()]
    if errs:
        raise ParseError(f"elaboration: {_message(tree, errs[0])}")
    return Parsed(code, top, tree, module, body)


# The cached trees are released before the interpreter exits: left to its teardown, whether they are freed before
# nanobind's own exit check depends on the order modules are torn down (after a model run they were not), and that
# check then printed a 40-line "nanobind: leaked instance" dump under the run's last lines.
atexit.register(parse.cache_clear)


def _message(tree, diag) -> str:
    try:
        return DiagnosticEngine.reportAll(tree.sourceManager, [diag]).strip().splitlines()[0][:200]
    except Exception:           # noqa: BLE001 - the message is a courtesy
        return str(diag.code)


def walk(node):
    """Every syntax node under node (itself included), depth first, tokens left out."""
    stack = [node]
    while stack:
        n = stack.pop()
        if not isinstance(n, syntax.SyntaxNode):
            continue
        yield n
        kids = []
        try:
            kids = [n[i] for i in range(len(n))]
        except TypeError:
            pass
        stack.extend(reversed(kids))


def splice(code: str, edits) -> str:
    """code with each (start, end, new) edit made; edits must not overlap."""
    out, at = [], 0
    for a, b, new in sorted(edits, key=lambda e: (e[0], e[1])):
        if a < at:
            raise ValueError(f"overlapping edits at offset {a}")
        out += [code[at:a], new]
        at = b
    return "".join(out + [code[at:]])
