"""Coverage bookkeeping: covered points, the target's status, the random phase's plateau, and the holes
(uncovered points with their source lines and enclosing conditions) a prompt names."""
from __future__ import annotations

import re

from eda import coverage as cov
from eda.random_stim import STYLES

from .config import CHASED


def _covered(points, types=None) -> set:
    return {p.key for p in points if p.count > 0 and (types is None or p.type in types)}


def target_status(db: cov.CoverageDB, target: dict) -> dict:
    """type -> {"covered", "total", "pct", "target", "met", "vacuous"}: a type the DUT has no points
    for is met, vacuously, once the point set is known (an empty database meets nothing)."""
    s = db.summary()
    out = {}
    for t, want in target.items():
        c, n = s.get(t, (0, 0))
        known = bool(db.points)
        out[t] = {"covered": c, "total": n, "pct": round(cov.pct((c, n)), 2) if n else None, "target": want,
                  "met": known and (n == 0 or cov.pct((c, n)) >= want - 1e-9), "vacuous": known and n == 0}
    return out


def met(db, target) -> bool:
    return all(v["met"] for v in target_status(db, target).values())


def _pcts(db) -> dict:
    """type -> (covered, total) of the chased types the database has points for."""
    s = db.summary()
    return {t: s.get(t) for t in CHASED if t in s}


def points_of(pairs) -> list:
    """Points back from stored [key, count] pairs (a key is a coverage.dat record body)."""
    return cov.parse_coverage_dat("\n".join(f"C '{k}' {c}" for k, c in pairs))


def plateau(results, patience: int) -> int:
    """How many of the random runs to keep: up to the one after which `patience` runs in a row added
    no point, once every input style ran (all of them if that never happens). A met target does not
    stop it: random runs are cheap, and the union only grows."""
    trial, idle = cov.CoverageDB(), 0
    for i, r in enumerate(results):
        new = bool(r.ok and _covered(r.points) - _covered(trial.points.values()))
        if r.ok:
            trial.add(r.points)
        idle = 0 if new else idle + 1
        if idle >= patience and i + 1 >= STYLES:
            return i + 1
    return len(results)


# ---- holes for the prompt ------------------------------------------------------------------

_HEADER = re.compile(r"(end\s+)?(else\b|if\s*\(|case[zx]?\s*\(|always\b|default\b|[\w'.]+(\s*,\s*[\w'.]+)*\s*:(?!=))")


def conditions(lines: list, line: int, limit: int = 3) -> list:
    """The if/else/case headers that enclose source line `line` (1-based), outermost first: what
    must hold to reach it. Read from indentation, so a rough guide for the prompt, not a proof."""
    def ind(s):
        return len(s) - len(s.lstrip())
    if not 0 < line <= len(lines):
        return []
    out, depth = [], ind(lines[line - 1])
    for i in range(line - 2, -1, -1):
        t = lines[i].strip()
        if not t or t.startswith("//") or ind(lines[i]) >= depth:
            continue
        depth = ind(lines[i])
        if t.startswith("module") or len(out) >= limit:
            break
        if _HEADER.match(t):
            out.append(t.split("//")[0].strip()[:100])
    return out[::-1]


def holes(db: cov.CoverageDB, types, limit: int) -> list:
    """A few uncovered points for the prompt: statement and branch holes first, each with its source
    line and the conditions around it; then toggles, grouped per signal. (The worked example of
    rtl_agent.prompts.stimulus shows holes in this form.)"""
    out, toggles = [], {}
    for p in db.uncovered(types):
        if p.type.startswith("fsm_"):
            out.append(f"FSM {p.comment} never seen ({'state' if p.type == 'fsm_state' else 'transition'})")
            continue
        if p.type == "toggle":
            sig = re.sub(r"\[\d+\].*|:.*", "", p.comment) or p.comment
            toggles.setdefault(sig, []).append(p.comment[len(sig):].replace(":", " ").strip())
            continue
        lines = db.sources.get(p.file, "").splitlines()
        where = conditions(lines, p.line)
        arm = " (the condition false)" if p.type == "branch" and p.comment.startswith("else") else ""
        out.append(f"line {p.line} {p.type}{(' ' + p.comment) if p.comment else ''}{arm}: `{p.source.strip()[:80]}`"
                   + (f" inside {' -> '.join(f'`{w}`' for w in where)}" if where else ""))
    for sig, bits in toggles.items():
        out.append(f"signal {sig} not toggled: {', '.join(bits[:6])}")
    return out[:limit]
