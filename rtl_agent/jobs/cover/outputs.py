"""The run folder's outputs, regenerated from the committed steps after every commit (so a resumed run
never duplicates): the kept suite and its manifest, coverage.csv/.html/.info/.txt/.png, summary.json."""
from __future__ import annotations

import csv
import datetime
import json
from pathlib import Path

from eda import coverage as cov
from eda import tools
from eda.fsutil import atomic_write
from training.store import RunStore

from . import formal as fm
from .config import CHASED, RANDOM, CoverConfig
from .records import _state, note_first, origin
from .targets import _pcts, met, points_of, target_status


def write_outputs(task, out: Path, store: RunStore, cfg: CoverConfig) -> dict:
    """Every output file, regenerated from the committed steps (so a resumed run never duplicates)."""
    sims = _state(store)
    db, by, first, rows = _tally(sims, task.reference_sources())
    fdata = fm.load(out, task, db, cfg, fm.model_first(first, db))     # formal's results, while they match
    if fdata:
        fm.merge(fdata, db, by, first, rows)
    kept = _write_suite(out / "suite", task, sims, db, fdata)
    _write_csv(out / "coverage.csv", rows)
    title = f"{task.name}: coverage after {len(sims)} simulation(s)" + (" and the formal phase" if fdata else "")
    closed = {k: f"model (sim {n})" if o == "model" else f"formal witness ({n})" for k, (o, n) in first.items()
              if o in ("model", "formal")}
    (out / "coverage.html").write_text(fm.html_section(db.html(title, closed_by=closed), db, fdata))
    # lcov: one test per origin, so genhtml --show-details tells random's hits from the model's and the formal
    # witnesses'; the points proven unreachable again under test `proven_unreachable` (waived)
    (out / "coverage.info").write_text(("".join(d.to_lcov(o) for o, d in by.items() if d.points) or db.to_lcov(RANDOM))
                                       + fm.lcov_waived(db, fdata))
    (out / "coverage.txt").write_text(db.annotate())
    base = _read_baseline(out / "baseline.json")
    _plot(out / "coverage.png", rows, base, cfg, task.name)
    summary = _summary(task, sims, db, cfg, base, store, first, kept, set(fm.conflicts(fdata)))
    summary.update(fm.summary_fields(db, first, fdata, cfg))
    atomic_write(out / "summary.json", json.dumps(summary, indent=1, default=str))
    return summary


def _tally(sims, sources):
    """(union, union per origin, point key -> (origin, sim) of the first run reaching it, coverage.csv rows
    with the union's coverage after each simulation)."""
    db = cov.CoverageDB(sources)
    by = {RANDOM: cov.CoverageDB(sources), "model": cov.CoverageDB(sources), "formal": cov.CoverageDB(sources)}
    first, rows = {}, []
    for s in sims:
        if s.get("cov"):
            pts = points_of(s["cov"])
            db.add(pts)
            by[origin(s.get("kind"))].add(pts)
            note_first(first, pts, s)
        row = {"sim": s["sim"] + 1, "step": s["step"], "kind": s.get("kind", ""), "status": s["status"],
               "reward": round(s["reward"], 4), "gain": s.get("gain", 0), "accepted": int(bool(s.get("accepted")))}
        for t, ct in _pcts(db).items():
            row[f"{t}_pct"] = round(cov.pct(ct), 2)
        row["total_pct"] = round(db.percent(), 2) if db.points else 0.0
        rows.append(row)
    return db, by, first, rows


def _write_suite(suite: Path, task, sims, db, fdata=None) -> list:
    """suite/: the accepted stimuli as simulated (random.sv, sim<NNN>.sv|.py) and manifest.json (which file
    with which plusargs, and the points the suite covers); files no longer accepted are removed. Returns
    the kept file names, sorted."""
    suite.mkdir(exist_ok=True)
    keep, manifest = set(), []
    for s in sims:
        if not s.get("accepted"):
            continue
        name = ("random.sv" if s.get("kind") == RANDOM else
                f"sim{s['sim'] + 1:03d}.{'py' if cov.is_cocotb(s['text']) else 'sv'}")
        keep.add(name)
        manifest.append({"file": name, "plusargs": s.get("plusargs") or [], "sim": s["sim"] + 1,
                         "origin": origin(s.get("kind"))})
        f = suite / name
        if not f.exists() or f.read_text() != s["text"]:
            f.write_text(s["text"])
    for r in (fdata or {}).get("runs", []):          # the formal phase's confirmed witnesses (suite/formal*.sv)
        manifest.append({"file": r["file"], "plusargs": r["plusargs"], "sim": None, "origin": "formal"})
        if r["file"] not in keep:
            keep.add(r["file"])
            f = suite / r["file"]
            if not f.exists() or f.read_text() != fdata["files"][r["file"]]:
                f.write_text(fdata["files"][r["file"]])
    for f in [*suite.glob("*.sv"), *suite.glob("*.py")]:
        if f.name not in keep:
            f.unlink()
    atomic_write(suite / "manifest.json", json.dumps(
        {"task": task.name, "top": task.top, "entries": manifest,
         "covered": {t: c for t, (c, n) in db.summary().items()}}, indent=1))
    return sorted(keep)


def _write_csv(path: Path, rows):
    cols = ["sim", "step", "kind", "status", "reward", "gain", "accepted"] + [f"{t}_pct" for t in CHASED] + ["total_pct"]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, restval="")
        w.writeheader()
        w.writerows(rows)


def _read_baseline(path: Path):
    """baseline.json (baseline.run_baseline), or None when there is none or it does not parse."""
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except ValueError:
        return None


def _why(db, sims) -> str:
    """Why points are still uncovered, as far as the run can tell."""
    if not sims:
        return "no simulation ran yet"
    if not db.points:
        bad = _count(s["status"] for s in sims)
        return ("no stimulus ran to completion, so not even the point set is known: "
                + ", ".join(f"{n} {k}" for k, n in sorted(bad.items())))
    ok = [s for s in sims if s["status"] == "pass"]
    return (f"not reached by any of the {len(ok)} stimuli that ran ({len(sims) - len(ok)} of {len(sims)} "
            "simulations did not run: see coverage.csv status)")


def _count(items) -> dict:
    out = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out


def _summary(task, sims, db, cfg, base, store, first, kept, bad=frozenset()) -> dict:
    """bad: the conflicts (formal.conflicts), reached by the model outside the reset protocol: not closures."""
    status = target_status(db, cfg.target)
    unc = [p.describe() for p in db.uncovered(list(cfg.target))]
    counts = _count(s["status"] for s in sims)
    closed = [p for p in db.all() if first.get(p.key, ("",))[0] == "model" and p.key not in bad]
    return {"task": task.name, "top": task.top, "date": datetime.date.today().isoformat(),
            "isolation": cov.sandbox.isolation_mode(),   # bwrap, or off (--no-isolation)
            "target": cfg.target, "met": met(db, cfg.target), "coverage": status,
            "vacuous": [t for t, v in status.items() if v["vacuous"]],
            "all_types": {t: list(v) for t, v in db.summary().items()},
            "total_pct": round(db.percent(), 2) if db.points else 0.0,
            "simulations": len(sims), "budget": cfg.budget, "steps": len({s["step"] for s in sims}),
            "random_runs": sum(s.get("kind") == RANDOM for s in sims),
            "model_samples": sum(s.get("kind") != RANDOM for s in sims),
            "model_verdicts": _count(s["status"] for s in sims if s.get("kind") != RANDOM),
            "model_from_random": sum(bool(s.get("plusargs")) for s in sims if s.get("kind") != RANDOM),
            "attribution": {**{o: sum(v[0] == o and k not in bad for k, v in first.items())
                                  for o in (RANDOM, "model", "formal")}, "conflict": len(bad)},
            "closed_by_model": [f"{p.describe()} <- sim {first[p.key][1]}" for p in closed][:200],
            "verdicts": counts, "accepted": [f"suite/{f}" for f in kept],
            "mean_reward": round(sum(s["reward"] for s in sims) / len(sims), 4) if sims else None,
            "uncovered": unc[:200], "uncovered_count": len(unc), "why_uncovered": _why(db, sims),
            "baseline": None if base is None else {"budget": base["budget"], "final": base["final"],
                                                   "percent": base["percent"]},
            "train": cfg.train, "random_budget": cfg.random_budget, "verilator": tools.version("verilator"),
            "kl_decisions": len(store.decisions())}


def _plot(path: Path, rows, base, cfg, name):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4))
    colors = {t: f"C{i}" for i, t in enumerate(CHASED)}
    for t in CHASED:
        ys = [r.get(f"{t}_pct") for r in rows]
        pts = [(r["sim"], y) for r, y in zip(rows, ys) if y not in (None, "")]
        if pts:
            ax.plot(*zip(*pts), "-o", color=colors[t], label=f"{t} (agent)", ms=3)
        if base:
            bp = [(i + 1, cov.pct(c[t])) for i, c in enumerate(base["curve"]) if c.get(t)]
            if bp:
                ax.plot(*zip(*bp), "--", color=colors[t], label=f"{t} (random)", alpha=0.7)
        if t in cfg.target:
            ax.axhline(cfg.target[t], color=colors[t], lw=0.6, ls=":")
    ax.set_xlabel("simulations")
    ax.set_ylabel("coverage %")
    ax.set_ylim(0, 102)
    ax.set_xlim(0.5, max(cfg.budget, 1) + 0.5)
    ax.set_title(f"{name}: coverage vs simulations")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
