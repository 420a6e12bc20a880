"""The formal phase: after the random and model phases, each point still open is decided by eda.reach
(a witness from reset, a proof that none exists, or undecided), and the witnesses are replayed under
Verilator coverage (eda.reach_replay); a witness counts only when its replay hits its point. The points
only model stimuli reached are decided as well: one proven unreachable from reset is a conflict (the stimulus
left the testbench's reset protocol), not a closure.

Results live in formal.json in the run folder, keyed by a fingerprint of what they were computed from (the
DUT, the open points, the formal settings, the source of eda/reach*.py): write_outputs merges them only while the fingerprint still
matches the union of the committed simulations, and a resumed run reuses them instead of recomputing.
The witness stimulus is suite/formal.sv (as simulated); the manifest lists its accepted +w=N runs."""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from eda import coverage as cov
from eda import fsm, reach, reach_replay
from eda.fsutil import atomic_write

from .config import CoverConfig
from .records import _state, _union, first_reached

FILE = "formal.json"
SUITE_FILE = "formal.sv"
VERSION = 3


def _code() -> str:
    """The formal engine's own source (eda/reach*.py): results of another version are not reused."""
    h = hashlib.sha256()
    for f in sorted(Path(reach.__file__).parent.glob("reach*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def fingerprint(task, sources: dict, open_keys, cfg: CoverConfig, audit=()) -> str:
    data = {"v": VERSION, "code": _code(), "top": task.top, "sources": sources, "open": sorted(open_keys),
            "audit": sorted(audit),
            "budget": cfg.formal_budget_s, "point": cfg.formal_point_s, "clock": task.clock, "reset": task.reset}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:20]


def open_keys(db: cov.CoverageDB) -> list:
    return [p.key for p in db.uncovered(reach.TYPES)]


def model_first(first: dict, db: cov.CoverageDB) -> list:
    """Keys the model's stimuli reached first (first: key -> (origin, ...)), of the types formal can decide."""
    return sorted(k for k, o in first.items() if o[0] == "model" and k in db.points
                  and db.points[k].type in reach.TYPES)


def load(out: Path, task, db: cov.CoverageDB, cfg: CoverConfig, audit=()):
    """formal.json when it belongs to this union and these model-reached points (same fingerprint), else None."""
    f = Path(out) / FILE
    if not cfg.formal or not f.is_file():
        return None
    try:
        data = json.loads(f.read_text())
    except ValueError:
        return None
    fp = fingerprint(task, task.reference_sources(), open_keys(db), cfg, audit)
    return data if data.get("fingerprint") == fp else None


def run_formal(task, out: Path, cfg: CoverConfig, store, log=print, limits=None):
    """Decide the open points of the committed union (or reuse formal.json); returns its data or None."""
    if not cfg.formal:
        return None
    sources = task.reference_sources()
    sims = _state(store)
    db = _union(sims, sources)
    if not db.points:
        return None
    # the points only the model reached are decided too: one formally unreachable from reset was reached by
    # a stimulus outside the testbench's protocol (say, reset released before the first edge), so it is a
    # conflict, not a closure. Being decided, they are also kept out of the mapping check.
    audit = model_first(first_reached(sims), db)
    old = load(out, task, db, cfg, audit)
    if old is not None:
        log(f"formal phase: reusing {FILE} ({old['counts']})")
        return old
    keys = open_keys(db)
    t0 = time.monotonic()
    fsms = fsm.extract(sources, task.top) if task.clock else []
    rep = reach.decide(sources, task.top, db.all(), keys + audit, task.ports, task.clock, task.reset,
                       task.reset_active_low, fsms, cfg.formal_budget_s, cfg.formal_point_s) \
        if keys or audit else reach.Report()
    decide_s = time.monotonic() - t0
    audited = {k: rep.verdicts.pop(k).to_dict() for k in audit if k in rep.verdicts}
    wit = {k: v.vectors for k, v in rep.verdicts.items() if v.status == "witness"}
    texts, hits = reach_replay.confirm(sources, task.top, task.ports, wit, task.clock, task.period_ns, fsms, limits,
                                      phases=rep.clocks if rep.mode == "fflogic" else None)
    verdicts = {}
    for k, v in rep.verdicts.items():
        d = v.to_dict()
        if k in hits:
            d["replay"] = {x: hits[k][x] for x in ("hit", "part", "plusargs", "status", "diagnostics")}
            if not hits[k]["hit"]:
                d.update(status="undecided", why="witness rejected",
                         reason=f"witness ({v.method}, {v.bound}) rejected: its replay "
                                f"({hits[k]['status']}) did not reach the point")
        verdicts[k] = d
    runs = {}           # one entry per replayed run; several points may share a witness (eda.reach_multi)
    for k, h in hits.items():
        if h["hit"]:
            r = runs.setdefault((h["part"], tuple(h["plusargs"])), {
                "key": k, "keys": [], "file": suite_name(h["part"]), "plusargs": h["plusargs"], "points": h["points"]})
            r["keys"].append(k)
    runs = list(runs.values())
    data = {"fingerprint": fingerprint(task, sources, keys, cfg, audit), "date": time.strftime("%Y-%m-%d"),
            "open": len(keys), "mode": rep.mode, "error": rep.error, "notes": rep.notes,
            "decide_s": round(decide_s, 2), "seconds": round(time.monotonic() - t0, 2),
            "budget_s": cfg.formal_budget_s, "point_s": cfg.formal_point_s,
            "files": {suite_name(i): t for i, t in enumerate(texts)}, "runs": runs,
            "witness_rejected": sum(1 for h in hits.values() if not h["hit"]), "verdicts": verdicts,
            "audit": {k: {x: v[x] for x in ("point", "status", "method", "bound", "reason")} for k, v in audited.items()}}
    data["counts"] = _counts(data)
    atomic_write(Path(out) / FILE, json.dumps(data, indent=1))
    log(f"formal phase: {len(keys)} open point(s) in {data['seconds']:.0f} s: {data['counts']}")
    return data


def suite_name(part: int) -> str:
    """suite/formal.sv, formal_2.sv, ...: one file per replay build."""
    return SUITE_FILE if part == 0 else f"formal_{part + 1}.sv"


def _counts(data) -> dict:
    st = [v["status"] for v in data["verdicts"].values()]
    why = {}
    for v in data["verdicts"].values():
        if v["status"] == "undecided":
            why[v.get("why") or "unmapped"] = why.get(v.get("why") or "unmapped", 0) + 1
    return {"witness": sum(len(r.get("keys", [r["key"]])) for r in data["runs"]),
            "witness_runs": len(data["runs"]), "witness_rejected": data["witness_rejected"],
            "unreachable": st.count("unreachable"), "undecided": st.count("undecided"),
            "conflicts": len(conflicts(data)), "undecided_why": why}


def unreachable(data) -> dict:
    """point key -> verdict dict of the proven-unreachable points."""
    return {k: v for k, v in (data or {}).get("verdicts", {}).items() if v["status"] == "unreachable"}


def conflicts(data) -> dict:
    """point key -> audit verdict of the points only model stimuli reached that formal proves unreachable
    from reset: reached outside the testbench's reset protocol, so not closed."""
    return {k: v for k, v in (data or {}).get("audit", {}).items() if v["status"] == "unreachable"}


def reachable_db(db: cov.CoverageDB, data) -> cov.CoverageDB:
    """The union without the points proven unreachable from reset (coverage "over reachable points")."""
    gone = set(unreachable(data)) | set(conflicts(data))
    out = cov.CoverageDB(db.sources)
    out.add([p for p in db.points.values() if p.key not in gone])
    out.runs = db.runs
    return out


# ---- outputs (called by outputs.write_outputs) --------------------------------------------------------------

def merge(data, db: cov.CoverageDB, by: dict, first: dict, rows: list):
    """The accepted witness runs into the union (origin "formal"). coverage.csv stays one row per simulation
    of the budget (`rows` is not changed): the witness runs are not budget simulations."""
    from .targets import _covered, points_of
    for r in data.get("runs", []):
        pts = points_of(r["points"])
        db.add(pts)
        by["formal"].add(pts)
        for k in _covered(pts) - set(first):
            first[k] = ("formal", f"{r['file']} {' '.join(r['plusargs'])}")


def statuses(db: cov.CoverageDB, first: dict, data) -> list:
    """One entry per point: {point, type, source} with source random | model | formal (covered), conflict
    (covered by model stimulus only, yet proven unreachable from reset), unreachable (proven; method, bound),
    undecided (reason) or open (not decided: formal phase off or not run)."""
    ver, bad = (data or {}).get("verdicts", {}), conflicts(data)
    out = []
    for p in db.all():
        e = {"point": p.describe(), "type": p.type}
        v = ver.get(p.key)
        if p.count > 0 and p.key in bad:
            e.update(source="conflict", method=bad[p.key]["method"], bound=bad[p.key]["bound"],
                     note="reached only by model stimulus, yet unreachable from reset: the stimulus left the "
                          "testbench's reset protocol; not counted as closed")
        elif p.count > 0:
            e["source"] = first.get(p.key, ("random",))[0]
            if v and v["status"] == "unreachable":
                e["note"] = "covered although formally 'proven' unreachable: the proof is wrong"
        elif v:
            e["source"] = v["status"] if v["status"] != "witness" else "undecided"
            e.update({k: v[k] for k in ("method", "bound", "reason", "why") if v.get(k)})
        else:
            e["source"] = "open"
        out.append(e)
    return out


def summary_fields(db: cov.CoverageDB, first: dict, data, cfg: CoverConfig) -> dict:
    """summary.json's formal part: per-point status and source, their counts, coverage over all and over
    reachable points, and `met` as the target applies (cfg.target_of)."""
    from .targets import met, target_status
    st = statuses(db, first, data)
    srcs = {k: 0 for k in ("random", "model", "formal", "unreachable", "conflict", "undecided", "open")}
    for e in st:
        srcs[e["source"]] = srcs.get(e["source"], 0) + 1
    rdb = reachable_db(db, data)
    out = {"target_of": cfg.target_of, "sources": srcs, "points": st,
           "reachable_types": {t: list(v) for t, v in rdb.summary().items()},
           "reachable_pct": round(rdb.percent(), 2) if rdb.points else 0.0,
           "coverage_reachable": target_status(rdb, cfg.target),
           "met_all": met(db, cfg.target), "met_reachable": met(rdb, cfg.target),
           "formal": {"enabled": cfg.formal, "ran": data is not None, "budget_s": cfg.formal_budget_s}}
    out["met"] = out["met_reachable"] if cfg.target_of == "reachable" else out["met_all"]
    if data:
        out["formal"].update({k: data.get(k) for k in ("counts", "seconds", "decide_s", "mode", "error", "notes",
                                                       "open", "date")})
        out["uncovered_unreachable"] = [e["point"] for e in st if e["source"] == "unreachable"][:200]
        out["conflicts"] = [e["point"] for e in st if e["source"] == "conflict"][:200]
        out["uncovered_undecided"] = [f"{e['point']}: [{e.get('why', 'unmapped')}] {e.get('reason', '')}" for e in st
                                      if e["source"] == "undecided"][:200]
    return out


def html_section(page: str, db: cov.CoverageDB, data) -> str:
    """coverage.html with the waivers (proven unreachable: method, bound) and the undecided points."""
    if not data:
        return page
    import html
    e = html.escape
    st = [(p, data["verdicts"].get(p.key)) for p in db.all() if p.count == 0]
    waived = "".join(f"<tr><td>{e(p.describe())}</td><td>{e(v['method'])}</td><td>{e(v['bound'])}</td>"
                     f"<td>{e(v['reason'])}</td></tr>" for p, v in st if v and v["status"] == "unreachable")
    und = "".join(f"<tr><td>{e(p.describe())}</td><td>{e(v.get('why', ''))}</td><td>{e(v['reason'])}</td></tr>"
                  for p, v in st if v and v["status"] != "unreachable")
    sec = (f"<h2>Formal phase ({e(str(data['counts']))}, {data['seconds']:.1f} s, mode {e(data['mode'] or '-')})</h2>"
           + (f"<p>{e(data['error'])}</p>" if data.get("error") else "")
           + "<h3>Proven unreachable (waived)</h3><table><tr><th>point</th><th>method</th><th>bound</th><th>why</th></tr>"
           + waived + "</table><h3>Undecided</h3><table><tr><th>point</th><th>why</th><th>reason</th></tr>" + und + "</table>")
    bad = conflicts(data)
    if bad:
        sec += ("<h3>Conflicts: reached only by model stimulus, unreachable from reset (not counted as closed)</h3>"
                "<table><tr><th>point</th><th>method</th><th>bound</th></tr>" + "".join(
                    f"<tr><td>{e(v['point'])}</td><td>{e(v['method'])}</td><td>{e(v['bound'])}</td></tr>"
                    for v in bad.values()) + "</table>")
    page = page.replace("Closed by the model (", "Closed by the model or a formal witness (")
    return page.replace("<h2>Uncovered points</h2>", sec + "<h2>Uncovered points</h2>", 1)


def lcov_waived(db: cov.CoverageDB, data) -> str:
    """The proven-unreachable points as lcov test `proven_unreachable` (count 0: waived, not hit)."""
    gone = unreachable(data)
    if not gone:
        return ""
    w = cov.CoverageDB(db.sources)
    w.add([p for p in db.points.values() if p.key in gone])
    return w.to_lcov("proven_unreachable")
