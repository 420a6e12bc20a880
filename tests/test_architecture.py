"""The project's import graph: no cycles, the layers import downwards only, no overlong functions.

Layers (bottom to top): `eda/` (EDA feedback) imports nothing of the project's other packages;
`training/` (the generic RL loop) imports no `eda`, `rtl_agent` or `designs`; `designs/` (tasks) may
import `eda` but not `rtl_agent` or `training`; `rtl_agent/` (CLI and jobs) is the top. None imports `bench`
(the benchmarks measure the product, never the reverse).

Every import counts, at module level or inside a function: `import a.b` is an edge to `a.b`,
`from .x import y` is an edge to the module `x.y` when `y` is a submodule, else to `x`; relative
imports are resolved against the importing module's package. Importing a submodule is not counted
as an edge to its parent package (a package's `__init__` re-exporting its modules is no cycle).
Pure `ast`: nothing is imported or run.

    python tests/test_architecture.py      # print the project's import cycles and layer violations
"""
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rtl_agent", "eda", "training", "designs")
# package -> project packages it must not import
FORBIDDEN = {"eda": ("rtl_agent", "training", "designs", "bench"),
             "training": ("eda", "rtl_agent", "designs", "bench"),
             "designs": ("rtl_agent", "training", "bench"),
             "rtl_agent": ("bench",)}
MAX_FUNCTION_LINES = 100


# ---- the graph ---------------------------------------------------------------------------------

def discover(root: Path, packages=PACKAGES) -> dict:
    """Dotted module name -> (path, is_package) of every .py file under the packages."""
    mods = {}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if any(not p.isidentifier() for p in parts):
                continue                                   # scripts with dashes etc. are no modules
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            mods[".".join(parts)] = (path, is_pkg)
    return mods


def _targets(node, name: str, is_pkg: bool, known) -> list:
    """Modules one import statement names: [(dotted name, resolved to a project module or None)]."""
    if isinstance(node, ast.Import):
        return [(a.name, a.name if a.name in known else None) for a in node.names]
    if node.level:
        base = name.split(".") if is_pkg else name.split(".")[:-1]
        if node.level > 1:
            base = base[:-(node.level - 1)]
        base = ".".join(base + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    out = []
    for a in node.names:
        sub = f"{base}.{a.name}"
        if a.name != "*" and sub in known:
            out.append((sub, sub))                        # `from pkg import mod`: the module
        else:
            out.append((base, base if base in known else None))
    return out


def import_graph(root: Path, packages=PACKAGES):
    """({module: {imported project module: first line}}, [(module, line, dotted target)] of every
    import, project or not, for the layer check)."""
    mods = discover(root, packages)
    graph, raw = {m: {} for m in mods}, []
    for name, (path, is_pkg) in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for dotted, target in _targets(node, name, is_pkg, mods):
                raw.append((name, node.lineno, dotted))
                if target and target != name:
                    graph[name].setdefault(target, node.lineno)
    return graph, raw


def strongly_connected(graph: dict) -> list:
    """Tarjan's strongly connected components (iterative), each a sorted list of modules."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def _cycle_through(graph: dict, comp: list) -> list:
    """A shortest cycle inside one component, from its first module back to it."""
    members, start = set(comp), comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w == start:
                    path = []
                    while v is not None:
                        path.append(v)
                        v = prev[v]
                    return path[::-1] + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def cycles(graph: dict) -> list:
    """One line per strongly connected component of more than one module: a cycle in it, with the
    line of each import, then every module of the component."""
    out = []
    for comp in strongly_connected(graph):
        if len(comp) < 2:
            continue
        cyc = _cycle_through(graph, comp)
        hops = " -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(cyc, cyc[1:])) + f" -> {cyc[-1]}"
        out.append(f"cycle: {hops}" + (f"; component: {', '.join(comp)}" if len(comp) > len(cyc) - 1 else ""))
    return out


def layer_violations(raw: list, forbidden=FORBIDDEN) -> list:
    return [f"{mod}:{line} imports {dotted} ({mod.split('.')[0]} must not import {dotted.split('.')[0]})"
            for mod, line, dotted in raw
            if dotted.split(".")[0] in forbidden.get(mod.split(".")[0], ())]


def long_functions(root: Path, packages=PACKAGES, limit=MAX_FUNCTION_LINES) -> list:
    out = []
    for name, (path, _) in discover(root, packages).items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > limit:
                    out.append(f"{path.relative_to(root)}:{node.lineno} {node.name}: {n} lines (at most {limit})")
    return out


# ---- the project ---------------------------------------------------------------------------------

def test_no_import_cycles():
    graph, _ = import_graph(ROOT)
    assert len(graph) > 50, "the packages were not found"
    found = cycles(graph)
    assert not found, "import cycles (imports inside functions count):\n" + "\n".join(found)


def test_layers_import_downwards_only():
    _, raw = import_graph(ROOT)
    bad = layer_violations(raw)
    assert not bad, "layer violations:\n" + "\n".join(bad)


def test_no_function_over_100_lines():
    bad = long_functions(ROOT)
    assert not bad, "functions over 100 lines:\n" + "\n".join(bad)


# ---- the checks themselves catch what they should ------------------------------------------------------

def _tree(root: Path, files: dict):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_a_cycle_through_a_function_level_relative_import_is_reported(tmp_path):
    _tree(tmp_path, {"pkg/__init__.py": "from .a import f\n",
                     "pkg/a.py": "from . import b\n\ndef f():\n    return b\n",
                     "pkg/b.py": "import os\n\ndef g():\n    from .c import h\n    return h()\n",
                     "pkg/c.py": "def h():\n    from pkg.a import f\n    return f\n",
                     "pkg/d.py": "from pkg import c\n"})          # d -> c only: outside the cycle
    graph, _ = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.a"] == {"pkg.b": 1} and graph["pkg.b"] == {"pkg.c": 4} and graph["pkg.d"] == {"pkg.c": 1}
    assert graph["pkg"] == {"pkg.a": 1}
    found = cycles(graph)
    assert found == ["cycle: pkg.a (line 1) -> pkg.b (line 4) -> pkg.c (line 2) -> pkg.a"], found


def test_an_acyclic_tree_and_parent_packages_are_no_cycle(tmp_path):
    _tree(tmp_path, {"pkg/__init__.py": "from .sub import x\n", "pkg/sub/__init__.py": "from .x import X\n",
                     "pkg/sub/x.py": "from ..y import Y\nX = Y\n", "pkg/y.py": "Y = 1\n"})
    graph, _ = import_graph(tmp_path, ("pkg",))
    assert graph["pkg"] == {"pkg.sub.x": 1} and graph["pkg.sub.x"] == {"pkg.y": 1}
    assert cycles(graph) == []


def test_two_module_cycle_and_tarjan_components():
    g = {"a": {"b": 1}, "b": {"a": 3, "c": 2}, "c": {}, "d": {"d": 1}}
    assert sorted(strongly_connected(g)) == [["a", "b"], ["c"], ["d"]]
    assert cycles(g) == ["cycle: a (line 1) -> b (line 3) -> a"]


def test_a_layer_violation_is_reported(tmp_path):
    _tree(tmp_path, {"eda/__init__.py": "", "eda/x.py": "def f():\n    from rtl_agent.cli import main\n",
                     "training/__init__.py": "", "training/t.py": "import designs.task\n",
                     "designs/__init__.py": "import eda.x\n",
                     "rtl_agent/__init__.py": "", "rtl_agent/cli.py": "import eda, training, designs\n"})
    _, raw = import_graph(tmp_path)
    assert layer_violations(raw) == [
        "eda.x:2 imports rtl_agent.cli (eda must not import rtl_agent)",
        "training.t:1 imports designs.task (training must not import designs)"]


def test_an_overlong_function_is_reported(tmp_path):
    def body(n, indent):
        return "".join(f"{indent}x{i} = {i}\n" for i in range(n))
    _tree(tmp_path, {"eda/__init__.py": "",
                     "eda/m.py": f"def ok():\n{body(99, '    ')}\n\n"            # 100 lines: the limit
                                 f"class C:\n    def long(self):\n{body(100, '        ')}        return 0\n"})
    assert long_functions(tmp_path, ("eda",)) == ["eda/m.py:104 long: 102 lines (at most 100)"]



def model_tests_not_marked_slow(tests_dir: Path) -> list:
    """Tests that take a fixture which loads a model (calls make_policy) without the slow mark: the README's
    fast subset (-m "not slow") promises to load none."""
    out = []
    for f in sorted(Path(tests_dir).glob("test_*.py")):
        text = f.read_text()
        tree = ast.parse(text)
        loaders = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
                   and any("fixture" in ast.unparse(d) for d in n.decorator_list)
                   and "make_policy(" in ast.get_source_segment(text, n)}
        module_slow = any(isinstance(n, ast.Assign) and "pytestmark" in ast.unparse(n.targets[0])
                          and "slow" in ast.unparse(n.value) for n in tree.body)
        for n in tree.body:
            if isinstance(n, ast.FunctionDef) and n.name.startswith("test_") and not module_slow:
                uses = sorted(a.arg for a in n.args.args if a.arg in loaders)
                if uses and not any("slow" in ast.unparse(d) for d in n.decorator_list):
                    out.append(f"{f.name}:{n.lineno} {n.name} loads a model through {', '.join(uses)}")
    return out


def test_tests_that_load_a_model_are_marked_slow():
    assert model_tests_not_marked_slow(ROOT / "tests") == []


def test_an_unmarked_model_test_is_reported(tmp_path):
    (tmp_path / "test_x.py").write_text(
        "import pytest\n\n@pytest.fixture(scope='module')\ndef pol():\n    return make_policy('default')\n\n"
        "def test_fast(pol):\n    pass\n\n@pytest.mark.slow\ndef test_slow(pol):\n    pass\n")
    assert model_tests_not_marked_slow(tmp_path) == ["test_x.py:7 test_fast loads a model through pol"]

if __name__ == "__main__":
    g, r = import_graph(ROOT)
    print("\n".join(cycles(g) + layer_violations(r)) or "no import cycles, no layer violations")
    sys.exit(bool(cycles(g) or layer_violations(r)))
