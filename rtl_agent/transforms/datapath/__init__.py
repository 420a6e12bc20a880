"""Kind `datapath`: rewrite a combinational site's expressions on an e-graph and extract the cheapest form.

Each continuous assignment or combinational always block is read into width-carrying terms (sites), loaded
into an egglog e-graph (egraph) where guarded rules share mutually exclusive operators through muxed operands,
re-associate and rebalance chains, fold constants and reduce strength; extraction by the PDK's fitted cost
table (costs) gives an area-first and a delay-first term. A site is offered when a term differs from the
original, its estimated cost is lower in that term's own order, and a random simulation of both terms agrees.
The rewrite replaces the site's statement in place (wires for shared nodes), leaving the rest of the file.
"""
from __future__ import annotations

import hashlib
import random

from .. import register
from ..base import Design, Option, Transform, TransformError
from .ir import Printer, evaluate_all, inputs, nodes
from .sites import sites
from ..syntax import splice

ARITH = ("add", "sub", "addsub", "mul", "shl", "shr", "sra", "lt", "slt", "eq", "max", "min")
# work caps, not wall time, so a seeded run lists the same menu under any machine load: a site's e-graph stops
# at NODE_CAP e-nodes (or egraph's iteration cap), and no further site starts once a design's e-graphs together
# hold DESIGN_NODES (on an idle machine the former 2 s per design reached two of c910_lza's 1182-node sites)
NODE_CAP = 4000
DESIGN_NODES = 2000
DELAY_NODES = 1500


def op_counts(roots) -> dict:
    out = {}
    for n in nodes(roots):
        if n[0] in ARITH:
            out[n[0]] = out.get(n[0], 0) + 1
    return out


def _counts_text(c: dict) -> str:
    return ", ".join(f"{v} {k}" for k, v in sorted(c.items())) or "no operators"


def agrees(old, new, trials: int = 256, seed: int = 1) -> bool:
    """Random simulation (with all-zero and all-one corners) of two term lists over the same inputs."""
    ins = {**inputs(old), **inputs(new)}
    rnd = random.Random(seed)
    envs = [{n: 0 for n in ins}, {n: (1 << w) - 1 for n, w in ins.items()}]
    envs += [{n: rnd.getrandbits(w) for n, w in ins.items()} for _ in range(trials)]
    return all(evaluate_all(old, e) == evaluate_all(new, e) for e in envs)


_CACHE: dict = {}


def _key(code: str, label: str, mode: str) -> str:
    return hashlib.sha1(f"{code}\0{label}\0{mode}".encode()).hexdigest()


class Datapath(Transform):
    name = "datapath"
    summary = "share mutually exclusive operators, rebalance chains, fold constants (e-graph, PDK cost model)"

    def candidates(self, d: Design, design_nodes: int = DESIGN_NODES):
        """[(site, mode, best terms, old cost, new cost, stats)] for every site with a cheaper equal form."""
        try:
            from . import egraph
            from .costs import Model
        except ImportError as e:        # requirements.txt pins egglog; say what is missing, as the parser does
            raise TransformError(f"egglog is not installed (bash scripts/setup.sh): {e}") from None
        found, _ = sites(d.parsed())
        spent, out = 0, []
        for site in found:
            if sum(op_counts(site.roots).values()) < 2:
                continue
            if spent >= design_nodes:
                break
            try:
                res = egraph.saturate(site.roots, node_cap=NODE_CAP)
            except ValueError:
                continue
            spent += res.nodes
            seen = set()
            # the delay-first extraction is the slower one and egglog's extractor fails on it more often as the
            # graph grows: only on small graphs
            for mode in ("area", "delay") if res.nodes <= DELAY_NODES else ("area",):
                m = Model.for_pdk(d.pdk, mode)
                try:
                    best = egraph.extract(res, m)
                except egraph.EXTRACT_ERRORS:     # egglog's extractor panics on some graphs: no such option
                    continue
                old, new = m.term_cost(site.roots), m.term_cost(best)
                better = new[0] < old[0] * 0.98 if mode == "area" else new[1] < old[1] * 0.98
                if best == site.roots or tuple(best) in seen or not better or not agrees(site.roots, best):
                    continue
                seen.add(tuple(best))
                out.append((site, mode, best, old, new, res))
        return out

    def options(self, d: Design) -> list[Option]:
        opts = []
        for site, mode, best, old, new, res in self.candidates(d):
            _CACHE[_key(d.code, site.label, mode)] = best
            was, now = _counts_text(op_counts(site.roots)), _counts_text(op_counts(best))
            gain = (f"area {new[0] / max(old[0], 1e-9):.2f}x" if mode == "area"
                    else f"delay {new[1] / max(old[1], 1e-9):.2f}x")
            label = f"datapath {site.label}, {mode}-first: {now} (was {was}; est. {gain})"
            opts.append(self.option(site.label, label, mode=mode, nodes=res.nodes))
        return opts

    def apply(self, d: Design, o: Option) -> str:
        mode = o.params.get("mode", "area")
        p = d.parsed()
        found, skipped = sites(p)
        site = next((s for s in found if s.label == o.site), None)
        if site is None:
            raise TransformError(f"datapath site {o.site!r} is not in this design")
        best = _CACHE.get(_key(d.code, site.label, mode))
        if best is None:
            got = [c for c in self.candidates(d, design_nodes=5 * DESIGN_NODES)
                   if c[0].label == site.label and c[1] == mode]
            if not got:
                raise TransformError(f"no cheaper {mode}-first form of {o.site}")
            best = got[0][2]
        return rewrite(p, site, best, mode)


def _indent(code: str, off: int) -> str:
    start = code.rfind("\n", 0, off) + 1
    line = code[start:off]
    return line if not line.strip() else line[:len(line) - len(line.lstrip())]


def rewrite(p, site, best, mode: str) -> str:
    """The design with site's statement replaced by best (wires for shared nodes), the rest untouched."""
    taken = set(p.symbols()) | {s.name for s in p.body}
    signed = {n for n, sym in p.symbols(("Net", "Variable")).items()
              if getattr(sym, "type", None) is not None and sym.type.isIntegral and sym.type.isSigned}
    pr = Printer(f"dp{site.line}_", taken, signed)
    decls, exprs = pr.lines(best)
    exprs = [e[1:-1] if e.startswith("(") and e.endswith(")") and _balanced(e[1:-1]) else e for e in exprs]
    ind = _indent(p.code, site.at)
    note = f"// datapath rewrite ({mode}-first, e-graph): {_counts_text(op_counts(best))}"
    head = [note] + decls
    if site.kind == "always":
        body = [f"{ind}    {lhs} = {e};" for (lhs, _), e in zip(site.outputs, exprs)]
        text = f"\n{ind}".join(head) + f"\n{ind}always @* begin\n" + "\n".join(body) + f"\n{ind}end"
        return splice(p.code, [(site.span[0], site.span[1], text)] + _dead(p.code, site, site.span))
    start = p.code.rfind("\n", 0, site.at) + 1
    return splice(p.code, [(start, start, "".join(f"{ind}{x}\n" for x in head)),
                           (site.span[0], site.span[1], exprs[0])] + _dead(p.code, site, (start, site.span[1])))


def _dead(code: str, site, keep) -> list:
    """The nets read only by this site were inlined into its new form: their drivers are dead, remove them."""
    dead = [(x, y, "") for _, (x, y) in site.inlined if y <= keep[0] or x >= keep[1]]
    return [e for e in _whole_lines(code, dead) if e[1] <= keep[0] or e[0] >= keep[1]]


def _whole_lines(code: str, edits) -> list:
    """Removal edits widened to whole lines (comments after the statement go too) when nothing else is there."""
    out = []
    for a, b, new in edits:
        start = code.rfind("\n", 0, a) + 1
        end = code.find("\n", b)
        end = len(code) if end < 0 else end
        tail = code[b:end].strip()
        if not code[start:a].strip() and (not tail or tail.startswith("//")):
            a, b = start, min(end + 1, len(code))
        out.append((a, b, new))
    return out


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


register(Datapath())
