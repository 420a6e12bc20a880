"""Equivalence modulo the specification's don't-cares (an observation rule per task).

A strict check compares every output on every cycle; a specification often does not: accu's
`data_out` means something only while `valid_out` is 1.  An `Observe` rule says which output
values are free, and `equivalence(...)` checks the candidate under it:

    when: {data_out: valid_out}   data_out is compared only in cycles where the qualifier (a Verilog
                                  expression over inputs and exactly-compared outputs) is 1; the
                                  qualifier outputs themselves are compared exactly
    reset: free                   every output is free while the reset is asserted
    reset_cycles: N               ... and for the first N clock cycles after it is released
    cite: "..."                   the specification's sentence that makes those values don't-cares

Method.  Both sides are wrapped in a module with the same name and ports that drives each gated
output as `qualifier ? out : 0` (and 0 while free after reset), then handed unchanged to
`eda.equiv.equivalence`, so SAT, induction, ABC, random co-simulation and the Icarus replay of a
counterexample all apply the same rule.  The strict check runs first: a strict proof implies the rule
(the gated miter can be harder for induction, e.g. multi_16bit), so a rule never loses a proof.  Each wrapper gates with its own design's qualifier: the
qualifier is compared exactly, so up to the first cycle where the two qualifiers differ they are
equal, and that cycle is already a counterexample on the qualifier; this equals gating both sides
with the reference's qualifier without putting a second copy of the reference in the miter.
A reference X (an uninitialised memory word, an `x` assignment) is a don't-care in co-simulation and
replay (as in every strict check), but not in the formal path, which reads X as 0: a candidate that
differs only there ends as unknown(replay-mismatch), never as proven.
"""
import re
import time
from dataclasses import dataclass, field

from .hdl import IDENT, detect_clock_reset, module_names

SUFFIX = "__observed"     # the wrapped design's top is renamed to <top>__observed
VERSION = 2               # in eda.flow's cache key: bump when the spec-level check changes


class ObserveError(ValueError):
    """An observation rule is malformed or does not fit the design; the message says where."""


@dataclass(frozen=True)
class Observe:
    when: dict = field(default_factory=dict)     # output -> qualifier expression
    reset_free: bool = False
    reset_cycles: int = 0
    cite: str = ""

    def rules(self) -> list[str]:
        out = [f"{o} compared only when {q}" for o, q in self.when.items()]
        if self.reset_free:
            out.append("outputs free while reset is asserted")
        if self.reset_cycles:
            out.append(f"outputs free during reset and {self.reset_cycles} cycle(s) after it")
        return out

    def rule_for(self, output: str) -> str:
        """Which rule decided how `output` was compared (for a counterexample's text)."""
        if output in self.when:
            return f"compared only when {self.when[output]}"
        if any(re.search(rf"(?<![\w$]){re.escape(output)}(?![\w$])", q) for q in self.when.values()):
            return "compared exactly: it qualifies " + ", ".join(o for o, q in self.when.items()
                                                                if re.search(rf"(?<![\w$]){re.escape(output)}(?![\w$])", q))
        return "compared exactly"

    def to_dict(self) -> dict:
        d = {"when": dict(self.when), "cite": self.cite}
        if self.reset_free:
            d["reset"] = "free"
        if self.reset_cycles:
            d["reset_cycles"] = self.reset_cycles
        return d


def parse(obj, where: str) -> Observe | None:
    """A rule from YAML: None or "strict" for a strict design, else a mapping (see the module doc)."""
    if obj is None or obj == "strict":
        return None
    if not isinstance(obj, dict):
        raise ObserveError(f"{where}: expected 'strict' or a mapping with when/reset/reset_cycles/cite, got {obj!r}")
    unknown = set(obj) - {"when", "reset", "reset_cycles", "cite"}
    if unknown:
        raise ObserveError(f"{where}: unknown key(s) {sorted(unknown)}; known: cite, reset, reset_cycles, when")
    when = obj.get("when") or {}
    if not isinstance(when, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                             for k, v in when.items()):
        raise ObserveError(f"{where}: 'when' must map output names to qualifier expressions, got {when!r}")
    if obj.get("reset") not in (None, "free"):
        raise ObserveError(f"{where}: 'reset' must be 'free', got {obj['reset']!r}")
    n = obj.get("reset_cycles", 0)
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 1 << 16:
        raise ObserveError(f"{where}: 'reset_cycles' must be an integer 0..65536, got {n!r}")
    cite = obj.get("cite")
    if not isinstance(cite, str) or not cite.strip():
        raise ObserveError(f"{where}: 'cite' must quote the specification sentence that makes the values free")
    rule = Observe({k: v.strip() for k, v in when.items()}, obj.get("reset") == "free", n, cite.strip())
    if not rule.rules():
        raise ObserveError(f"{where}: no rule (when, reset or reset_cycles); write 'strict' instead")
    return rule


def check(rule: Observe, ports: list, where: str) -> None:
    """Every name in the rule is a port; qualifiers read only inputs and exactly-compared outputs."""
    kinds = {p.name: p.direction for p in ports}
    for out, q in rule.when.items():
        if kinds.get(out) != "output":
            raise ObserveError(f"{where}: '{out}' is not an output port")
        for name in re.findall(IDENT, re.sub(r"\d*'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_?]+", "", q)):
            if name not in kinds:
                raise ObserveError(f"{where}: qualifier of '{out}' names '{name}', which is not a port")
            if name in rule.when:
                raise ObserveError(f"{where}: qualifier of '{out}' reads '{name}', which is itself gated")


def _rename_top(sources: dict, old: str, new: str) -> dict:
    decl = re.compile(rf"^(\s*(?:module|macromodule)\s+){re.escape(old)}(?=[\s#(;])", re.M)
    out, hits = {}, 0
    for name, text in sources.items():
        if isinstance(text, str) and str(name).endswith((".v", ".sv")):
            text, k = decl.subn(lambda m: m.group(1) + new, text)
            hits += k
            # Icarus' preprocessor joins the files: a last line without a newline would glue two modules
            text += "" if text.endswith("\n") else "\n"
        out[name] = text
    if hits != 1:
        raise ObserveError(f"module '{old}' is defined {hits} times in the sources")
    return out


def _wrapper(top: str, ports: list, rule: Observe, clock, reset, active_low) -> str:
    inner = {p.name: f"o__{p.name}" for p in ports if p.direction == "output"}
    rng = (lambda w: f"[{w - 1}:0] " if w > 1 else "")
    decl = ", ".join(f"{p.direction} {rng(p.width)}{p.name}" for p in ports)
    lines = [f"module {top}({decl});"]
    lines += [f"  wire {rng(p.width)}{inner[p.name]};" for p in ports if p.direction == "output"]
    conn = ", ".join(f".{p.name}({inner.get(p.name, p.name)})" for p in ports)
    lines.append(f"  {top}{SUFFIX} u_observed({conn});")
    free = []
    if rule.reset_free or rule.reset_cycles:
        active = f"!{reset}" if active_low else reset
        free.append(active)
        if rule.reset_cycles:
            w = max(1, rule.reset_cycles.bit_length())
            # cycles since the reset was released, identical in both wrappers
            lines += [f"  reg [{w - 1}:0] obs__n;",
                      f"  always @(posedge {clock}) if ({active}) obs__n <= 0; "
                      f"else if (obs__n != {rule.reset_cycles}) obs__n <= obs__n + 1'b1;"]
            free.append(f"obs__n < {rule.reset_cycles}")
    pat = re.compile(rf"(?<![\w$'])({'|'.join(map(re.escape, sorted(inner, key=len, reverse=True)))})(?![\w$])")
    for p in ports:
        if p.direction != "output":
            continue
        cond = [f"({pat.sub(lambda m: inner[m.group(1)], rule.when[p.name])})"] if p.name in rule.when else []
        cond += [f"!({f})" for f in free]
        val = inner[p.name]
        lines.append(f"  assign {p.name} = " + (f"({' && '.join(cond)}) ? {val} : {p.width}'d0;" if cond else f"{val};"))
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def wrap(ref: dict, cand: dict, top: str, ports: list, rule: Observe, ref_top: str | None = None,
         clock=None, reset=None, reset_active_low=None) -> tuple[dict, dict]:
    """(reference, candidate) source sets whose top `top` outputs only what the rule observes."""
    check(rule, ports, f"observe rule of '{top}'")
    if any(p.direction == "inout" for p in ports):
        raise ObserveError("inout ports are not supported by observation rules")
    if rule.reset_free or rule.reset_cycles:
        text = "\n".join(t for t in ref.values() if isinstance(t, str))
        g_clock, g_reset, g_low = detect_clock_reset(ports, text)
        clock, reset = clock or g_clock, reset or g_reset
        low = g_low if reset_active_low is None else reset_active_low
        if reset is None or (rule.reset_cycles and clock is None):
            raise ObserveError(f"'{top}': a reset rule needs a {'clock and ' if rule.reset_cycles else ''}reset input")
    else:
        low = False
    sides = []
    for srcs, name in ((ref, ref_top or top), (cand, top)):
        mods = {m for t in srcs.values() if isinstance(t, str) for m in module_names(t)}
        clash = {top, top + SUFFIX} & (mods - {name})
        if clash:
            raise ObserveError(f"the sources already define module(s) {sorted(clash)}")
        out = _rename_top(srcs, name, top + SUFFIX)
        out[f"{top}__observe.v"] = _wrapper(top, ports, rule, clock, reset, low)
        sides.append(out)
    return sides[0], sides[1]


STRICT_SHARE = 0.5     # of the time limit, for the strict check that runs first


def equivalence(cand: dict, ref: dict, top: str, observe: Observe | None = None, ref_top: str | None = None,
                timeout_s: float = 60, **opts):
    """eda.equiv.equivalence under an observation rule.  The strict check runs first (on a share of the
    time): its proof implies the rule's, and its interface/screening/elaboration failures stand.  Other
    verdicts come from the wrapped check.  data.equiv_mode says which decided: strict or spec."""
    from .equiv import equivalence as strict
    from .ports import PortError, parse_ports
    from .report import Diagnostic, StageResult
    t0 = time.monotonic()
    res = strict(cand, ref, top, ref_top=ref_top, timeout_s=timeout_s if observe is None else STRICT_SHARE * timeout_s,
                 **opts)
    res.data["equiv_mode"] = "strict"
    if observe is None:
        return res
    res.data["observe"] = observe.rules()
    if res.status in ("proven", "fail", "rejected", "error"):
        return res
    try:
        ports = parse_ports(ref, ref_top or top)
        g, c = wrap(ref, cand, top, ports, observe, ref_top, opts.get("clock"), opts.get("reset"),
                    opts.get("reset_active_low"))
    except (PortError, ObserveError) as e:
        return StageResult("equiv", "error", diagnostics=[Diagnostic(f"observation rule: {e}")],
                           data={"verdict": "error", "equiv_mode": "spec", "observe": observe.rules()})
    res = strict(c, g, top, timeout_s=max(1.0, timeout_s - (time.monotonic() - t0)), **opts)
    res.seconds = round(time.monotonic() - t0, 3)
    res.data.update({"equiv_mode": "spec", "observe": observe.rules(), "seconds": res.seconds})
    cex = res.data.get("counterexample")
    if cex and res.diagnostics:
        cex["rules"] = {n: observe.rule_for(n) for n in cex.get("outputs", {})}
        why = "; ".join(f"{n}: {r}" for n, r in cex["rules"].items())
        res.diagnostics[0] = Diagnostic(f"{res.diagnostics[0].message} [spec-level equivalence: {why}]")
    return res
