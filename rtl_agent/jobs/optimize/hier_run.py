"""`optimize ... --module NAME|A,B|all`: the submodules of a core optimized in turn (hier.py cuts them out and
puts them back), with the core's PPA before and after. Writes OUT/hier.json (one row per module) beside the
modules' own run folders OUT/<NAME>/ and their tasks OUT/tasks/<NAME>/.

A module's find enters the core only when it is proven equivalent to the original module and the core's PPA
with it is lower than without it (a smaller module can still cost the core, e.g. when synthesis shared logic
across the boundary before); later modules are cut from the core with the earlier finds in place.
"""
from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

from eda.design_inputs import DesignInputError
from eda.hdl import normalise

from . import hier


def names(spec: str, insts: list, texts: dict, top: str) -> list[str]:
    """The modules `--module` names: one, a comma list, or all (the leaves first, largest first: the kinds see
    one module's text, and a leaf's proof is the cheapest)."""
    subs = hier.submodules(insts, texts)
    if spec == "all":
        if not subs:
            raise DesignInputError(f"--module all: {top} instantiates no module")
        leaves = [m for m in subs if hier.below(insts, m) == [m]]
        return leaves + [m for m in subs if m not in leaves]
    out = [n.strip() for n in spec.split(",") if n.strip()]
    for n in out:
        if n == top:
            raise DesignInputError(f"--module {n}: that is the top; optimize the whole design without --module")
        if n not in subs:
            raise DesignInputError(f"--module {n}: no instance of it below {top} (submodules: "
                                   f"{', '.join(subs) or 'none'})")
    return out


def _changed(old: dict, code: str) -> list[str]:
    """Modules `code` defines whose text differs from the core's (comments and whitespace ignored)."""
    sp, new = hier.spans(old), hier.spans({"c": code})
    return [m for m, (_, a, b) in new.items() if m in sp
            and normalise(code[a:b]) != normalise(old[sp[m][0]][sp[m][1]:sp[m][2]])]


def _shared_outside(insts: list, name: str, mods: list[str]) -> list[str]:
    """Of `mods`, those instantiated outside NAME's instances too: a rewrite proven under NAME is not proven there."""
    roots = [i.path for i in insts if i.module == name]
    return [m for m in mods if m != name and any(i.module == m and not any(i.path.startswith(r + ".")
                                                                          for r in roots) for i in insts)]


def run(core, cfg, spec: str, out: Path, one_run, say=print, budget_s: float | None = None) -> dict:
    """Optimize the modules `spec` names in `core` (a loaded task: its reference sources and top) with the settings
    `cfg` (OptimizeConfig; task and out are set per module); one_run(cfg) -> the optimize summary. No module
    starts after `budget_s` seconds; those left are rows with why "not tried: budget"."""
    t0 = time.time()
    texts, top = dict(core.reference_sources()), core.top
    pdk = cfg.pdk or core.pdk
    job = core.flow_job(pdk)
    insts = hier.instances(texts, top)
    todo = names(spec, insts, texts, top)
    before = hier.core_ppa(job, texts)
    if not before["ok"] or not before["ppa"]:
        raise DesignInputError(f"{top}: the core does not synthesize and time as given ({before['why'] or 'PPA 0'})")
    say(f"core {top}: PPA {before['ppa']:.4g} (area {before['area']:.0f} um2, delay {before['delay']:.3f} ns, "
        f"power {before['power']:.3g} W) on {pdk}; modules to optimize: {', '.join(todo)}")
    current, rows = before, []
    for name in todo:
        m0 = time.time()
        if budget_s is not None and m0 - t0 > budget_s:
            rows.append({"module": name, "accepted": False, "why": f"not tried: budget of {budget_s:.0f} s spent"})
            say(f"module {name}: not tried (the {budget_s:.0f} s budget is spent)")
            continue
        try:
            folder, ps = hier.write_subtask(texts, insts, name, top, out / "tasks" / name, pdk)
            say(f"module {name}" + (f" (its instance's parameters: {ps})" if ps else " (parameters at their defaults)"))
            s = one_run(dataclasses.replace(cfg, task=str(folder), out=str(out / name)))
        except (ValueError, RuntimeError) as e:
            if len(todo) == 1:
                raise
            # e.g. a module with no timing path of its own (STA gives no PPA): the others still run
            rows.append({"module": name, "accepted": False, "why": f"skipped: {str(e)[:300]}",
                         "wall_s": round(time.time() - m0, 1)})
            say(f"module {name}: skipped ({str(e)[:300]})")
            continue
        row = {"module": name, "params": ps, "module_ref_ppa": s["ref_ppa"], "module_best_ppa": s["best_ppa"],
               "module_ratio": s["best_ratio"], "proof": s.get("best_proof"), "above_noise": s.get("above_noise"),
               "noise_floor": s.get("noise_floor"), "chain": s.get("best_chain"), "steps": s["steps"],
               "core_ppa": None, "accepted": False, "why": None}
        if s["best_source"] == "reference" or s["best_ratio"] <= 1.0:
            row["why"] = "no find"
        else:
            code = (Path(s["dir"]) / "best.v").read_text()
            shared = _shared_outside(insts, name, _changed(texts, code))
            if shared:
                row["why"] = f"the find changes {', '.join(shared)}, used outside {name} too"
            else:
                new = hier.splice(texts, code)
                after = hier.core_ppa(job, new)
                row["core_ppa"] = after["ppa"]
                if after["ok"] and after["ppa"] and after["ppa"] < current["ppa"]:
                    texts, current, row["accepted"] = new, after, True
                else:
                    row["why"] = (f"core {after['why']}" if not after["ok"] else
                                  f"the core's PPA with it ({after['ppa']:.4g}) is not below {current['ppa']:.4g}")
        row["wall_s"] = round(time.time() - m0, 1)
        rows.append(row)
        say(line(row))
        res = _save(out, top, pdk, before, current, rows, texts, t0)     # after each module: a killed run keeps them
    res = _save(out, top, pdk, before, current, rows, texts, t0)
    say(f"core {top}: PPA {before['ppa']:.4g} -> {current['ppa']:.4g} ({res['ratio']:.4f}x; area "
        f"{before['area']:.0f} -> {current['area']:.0f} um2, delay {before['delay']:.3f} -> {current['delay']:.3f} ns, "
        f"power {before['power']:.3g} -> {current['power']:.3g} W); {sum(r['accepted'] for r in rows)} of "
        f"{len(rows)} modules replaced; {out}/core/, {out}/hier.json")
    return res


def _save(out: Path, top, pdk, before, current, rows, texts, t0) -> dict:
    """OUT/hier.json and OUT/core/ (the core with every accepted find in place)."""
    (out / "core").mkdir(parents=True, exist_ok=True)
    for f, text in texts.items():
        (out / "core" / Path(f).name).write_text(text)
    res = {"top": top, "pdk": pdk, "before": before, "after": current, "ratio": before["ppa"] / current["ppa"],
           "modules": rows, "wall_s": round(time.time() - t0, 1), "core_dir": str(out / "core")}
    (out / "hier.json").write_text(json.dumps(res, indent=1))
    return res


def line(r: dict) -> str:
    head = (f"module {r['module']}: PPA {r['module_ref_ppa']:.4g} -> {r['module_best_ppa']:.4g} "
            f"({r['module_ratio']:.3f}x")
    if r["why"] == "no find":
        return head + "): no find"
    core = "not measured" if r["core_ppa"] is None else format(r["core_ppa"], ".4g")
    return (head + f", equivalence {r['proof']}, {'above' if r['above_noise'] else 'NOT above'} its noise floor "
            f"{r['noise_floor']:.3f}x); core PPA with it {core}"
            + (": kept" if r["accepted"] else f": not kept ({r['why']})"))
