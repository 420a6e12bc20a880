"""Mutant-kill benchmark under the observation rules (issue #19): does spec-level equivalence let a
mutant of a defined output live?

    .venv/bin/python bench/mutants_observe.py [--per-design 20] [--timeout 8] [--workers 2] [--regress RUN]

Reruns bench/mutants.py's mutants (same generator, seed and settings) of every design that has an
observation rule, with the equivalence check at spec level (eda.observe) and the same testbench run.
Designs without a rule are checked exactly as before (no wrapper), so their rows are taken from
bench/results/mutants.csv.  Writes bench/results/mutants_observe.csv (the rerun rows, each with its
strict verdict from mutants.csv) and mutants_observe.md (kill rates strict vs spec, every mutant
that the strict run killed and the spec run does not, with the rule that frees it).  --regress RUN adds
the references' verdicts from the run folder of `rtl-agent regress --equiv --policy reference`.
"""
import argparse
import csv
import functools
import json
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import mutants as M  # noqa: E402
from bench.common import header, md_table, write_rows  # noqa: E402
from eda import observe  # noqa: E402
from eda.mutate import mutants  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"


def work(job) -> dict:
    # mutants.work with its equivalence check replaced by the spec-level one (one job per process at a time)
    M.equivalence = functools.partial(observe.equivalence, observe=job["observe"])
    row = M.work(job)
    row["class"] = "reference" if row["mutant"] == "self" else M.classify(row)
    return row


def killed(r) -> bool:
    return r["tb_kills"] or r["equiv"] == "counterexample"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-design", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=8.0, help="seconds per equivalence check")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--regress", type=Path, help="run folder of `rtl-agent regress --equiv --policy reference`")
    ap.add_argument("--report-only", action="store_true", help="re-render the report from mutants_observe.csv")
    ap.add_argument("--strict", type=Path, default=OUT / "mutants.csv",
                    help="the strict run to compare with (bench/mutants.py's CSV; default bench/results/mutants.csv)")
    a = ap.parse_args(argv)
    from designs import load_suite
    strict = {(r["suite"], r["design"], r["mutant"]): r for r in csv.DictReader(open(a.strict))}
    jobs, ruled = [], {}
    for suite in ("rtllm", "designs"):
        for t in load_suite(suite):
            if not t.observe:
                continue
            ruled[(suite, t.name)] = t.observe
            if a.report_only:
                continue
            ref = t.reference_sources()
            base = {"suite": suite, "design": t.name, "top": t.top, "clock": t.clock, "reset": t.reset,
                    "low": t.reset_active_low, "ref": ref, "tb": t.testbench_sources(), "tb_top": t.tb_top,
                    "timeout": a.timeout, "sims": ("icarus", "verilator"), "mutant": None, "observe": t.observe}
            jobs.append(base)
            jobs += [dict(base, mutant=m.sources, id=m.id, kind=m.kind, desc=m.desc)
                     for m in mutants(ref, a.per_design, a.seed)]
    if a.report_only:
        rows = list(csv.DictReader(open(OUT / "mutants_observe.csv")))
        for r in rows:
            r["tb_kills"] = r["tb_kills"] == "True"
        out = [_with_strict(r, strict) for r in rows]
        write_rows(OUT / "mutants_observe.csv", out)
        report(out, strict, ruled, a)
        return
    rows = []
    with ProcessPoolExecutor(a.workers) as ex:
        for f in as_completed([ex.submit(work, j) for j in jobs]):
            rows.append(f.result())
    rows.sort(key=lambda r: (r["suite"], r["design"], -1 if r["mutant"] == "self" else int(r["mutant"])))
    selfs_tb = {(r["suite"], r["design"]): r["tb"] == "pass" for r in rows if r["mutant"] == "self"}
    out = []
    for r in rows:
        r["tb_kills"] = selfs_tb[(r["suite"], r["design"])] and r["tb"] != "pass" and r["mutant"] != "self"
        out.append(_with_strict({k: r[k] for k in ("suite", "design", "mutant", "desc", "class", "equiv",
                                                     "equiv_method", "equiv_s", "tb", "tb_kills")}
                                | {"note": r["note"][:300]}, strict))
    write_rows(OUT / "mutants_observe.csv", out)
    report(out, strict, ruled, a)


def _decided(run: Path) -> dict:
    out = {}
    for f in sorted((run / "designs").glob("*.json")):
        for smp in json.loads(f.read_text())["samples"]:
            out[smp.get("equiv_mode") or "none"] = out.get(smp.get("equiv_mode") or "none", 0) + 1
    return out


def _with_strict(r: dict, strict: dict) -> dict:
    """The row with the strict run's verdict on the same mutant."""
    s = strict.get((r["suite"], r["design"], str(r["mutant"])), {})
    return r | {"same_mutant": s.get("desc", "") == (r["desc"] or ""), "strict_class": s.get("class", ""),
                "strict_equiv": s.get("equiv", ""), "strict_note": s.get("note", "")[:300]}


def _den(r, cls="class") -> bool:
    return r[cls] in ("different", "undetermined")


def report(rows, strict, ruled, a):
    per, lost = [], []
    for key in sorted(ruled):
        ms = [r for r in rows if (r["suite"], r["design"]) == key and r["mutant"] != "self"]
        me = next(r for r in rows if (r["suite"], r["design"]) == key and r["mutant"] == "self")
        sk = sum(1 for r in ms if _den(r, "strict_class") and (r["tb_kills"] or r["strict_equiv"] == "counterexample"))
        per.append({"design": key[1], "rule": "; ".join(ruled[key].rules())[:90], "ref vs itself": me["equiv"],
                    "mutants": len(ms), "strict denom": sum(1 for r in ms if _den(r, "strict_class")),
                    "strict kills": sk, "spec proven equiv": sum(1 for r in ms if r["class"] == "equivalent"),
                    "spec denom": sum(1 for r in ms if _den(r)), "spec kills": sum(1 for r in ms if _den(r) and killed(r)),
                    "spec undetermined": sum(1 for r in ms if r["class"] == "undetermined")})
        for r in ms:
            if r["strict_class"] != r["class"] or (_den(r, "strict_class") and r["strict_equiv"] == "counterexample"
                                                  and r["equiv"] != "counterexample"):
                outs = re.findall(r"(\w+) is [^,;]+, reference gives", r["strict_note"])
                gated = [o for o in dict.fromkeys(outs) if o in ruled[key].when]
                why = (f"strict counterexample only on {', '.join(gated)} ({'; '.join(ruled[key].rule_for(o) for o in gated)})"
                       if gated and len(gated) == len(set(outs)) else f"strict note: {r['strict_note'][:160]}")
                lost.append({"design": key[1], "mutant": r["mutant"], "desc": r["desc"], "strict": r["strict_equiv"],
                             "spec": r["equiv"], "testbench": r["tb"], "why": why})
    ruled_names = {k for k in ruled}
    old = [r for k, r in strict.items() if r["mutant"] != "self" and (r["suite"], r["design"]) not in ruled_names]
    old_den = [r for r in old if r["class"] in ("different", "undetermined")]
    tb_ok = {(r["suite"], r["design"]) for r in strict.values() if r["mutant"] == "self" and r["tb"] == "pass"}
    old_k = sum(1 for r in old_den if ((r["suite"], r["design"]) in tb_ok and r["tb"] != "pass")
                or r["equiv"] == "counterexample")
    sd, sk = sum(p["strict denom"] for p in per), sum(p["strict kills"] for p in per)
    pd_, pk = sum(p["spec denom"] for p in per), sum(p["spec kills"] for p in per)
    pct = (lambda x, y: f"{100 * x / y:.1f}%" if y else "n/a")
    L = [header("Mutant-kill benchmark with observation rules (issue #19)", {
        "command": f"`.venv/bin/python bench/mutants_observe.py --per-design {a.per_design} --timeout {a.timeout:g} "
                   f"--workers {a.workers}`",
        "strict run compared with": str(a.strict),
        "load average when the report was written (2 cores shared with other work)":
            " ".join(f"{x:.1f}" for x in os.getloadavg()),
        "rerun": f"the {len(ruled)} designs with an observation rule ({sum(p['mutants'] for p in per)} mutants, "
                 "same generator and seed as bench/mutants.py); the others are unchanged by construction (no rule: the same "
                 "strict check) and "
                 "their rows come from the strict run"}), "",
         "Kill = the testbench fails (where the reference passes it) or equivalence returns a counterexample. "
         "Denominator = mutants that elaborate and are not proven equivalent (strict: to the reference; spec: "
         "under the design's rule). A mutant proven under the rule differs only in values the specification "
         "leaves free; it leaves the denominator.", "",
         "## Designs with a rule", "", md_table(pd.DataFrame(per)), "",
         "## Overall", "",
         f"- designs with a rule: strict {sk}/{sd} = {pct(sk, sd)}; spec-level {pk}/{pd_} = {pct(pk, pd_)}",
         f"- all designs (rows of the others from the strict run): strict {sk + old_k}/{sd + len(old_den)} = "
         f"{pct(sk + old_k, sd + len(old_den))}; spec-level {pk + old_k}/{pd_ + len(old_den)} = "
         f"{pct(pk + old_k, pd_ + len(old_den))}",
         f"- rerun rows whose mutant text differs from the strict run's (generator changed since): "
         f"{sum(1 for r in rows if not r['same_mutant'])}", "",
         "## Mutants whose verdict changed (strict -> spec) and why", ""]
    L += [md_table(pd.DataFrame(lost))] if lost else ["- none"]
    if a.regress:
        df = pd.read_csv(a.regress / "results.csv", keep_default_na=False)
        cols = ["design", "equiv_mode", "samples", "equiv_proven", "func_pass", "ref_status", "observe"]
        L += ["", f"## `rtl-agent regress --equiv --policy reference` ({a.regress})", "",
              f"- references proven against themselves: {int(df.equiv_proven.sum())}/{len(df)} "
              f"(strict: {int(df[df.equiv_mode == 'strict'].equiv_proven.sum())}/{int((df.equiv_mode == 'strict').sum())}, "
              f"spec: {int(df[df.equiv_mode == 'spec'].equiv_proven.sum())}/{int((df.equiv_mode == 'spec').sum())})",
              "- decided by (per check; a strict proof implies the rule): " + ", ".join(
                  f"{m}: {n}" for m, n in _decided(a.regress).items()), "",
              md_table(df[[c for c in cols if c in df]])]
    (OUT / "mutants_observe.md").write_text("\n".join(L) + "\n")
    print("\n".join(L))


if __name__ == "__main__":
    main()
