"""Mutant-kill benchmark: how many small bugs does a design's own testbench catch,
and how many does testbench + equivalence catch?

    .venv/bin/python bench/mutants.py [--suites rtllm,designs] [--per-design 20] [--timeout 8] [--workers 2] [--resume]

Writes bench/results/mutants.csv (one row per mutant and per reference self-check)
and bench/results/mutants.md (per design, overall, equivalence time median/p95,
verdicts of each reference against itself).  Mutants proven equivalent to the
reference, and mutants that do not elaborate ("stillborn"), are left out of the
denominator.  Each finished check is appended to results/mutants.partial.jsonl; --resume keeps
those and runs only the rest (the file is removed once the report is written).
"""
import argparse
import csv
import datetime
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eda import tools  # noqa: E402
from eda.equiv import equivalence  # noqa: E402
from eda.mutate import mutants  # noqa: E402
from eda.report import is_pass  # noqa: E402
from eda.sandbox import Limits  # noqa: E402
from eda.simulate import simulate  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
PARTIAL = OUT / "mutants.partial.jsonl"

# Survivors read by hand (design, mutant description): why no proof or counterexample exists.
# They stay in the denominator as survivors; the note only says what they are.
BY_HAND = {
    ("float_multi", "verified_float_multi.v:131: 'sticky | round_bit' -> '0'"):
        "equivalent: sticky written in the counter==6 denormal branch is read only by the rounding branch of "
        "that same step (old value, non-blocking) and rewritten at counter==5 before the next counter==6 "
        "(the counter steps by one, reset sets 0); Yosys cannot read the reference, so no proof",
    ("synchronizer", "verified_synchronizer.v:12: '3' -> '4'"):
        "equivalent: the extra data_reg[4] is only ever written 0 (reset value, zero-extended data_in) and "
        "dataout takes the low 4 bits; Yosys cannot read the reference, so no proof",
    ("RAM", "verified_RAM.v:15: '11' -> '12'"):
        "equivalent up to x: the 13th word stores writes to address 12, which the reference ignores and "
        "reads back as x; the mutant only defines outputs the reference leaves undefined (x is a "
        "don't-care), which the formal model (x = 0) counts as a difference and simulation does not",
}


def _tb(job, sources, sims):
    st = simulate(sources, job["tb"], tb_top=job["tb_top"], limits=Limits(wall_s=20, cpu_s=40, mem_mb=4096),
                  simulators=sims, fallback_on_fail=job["mutant"] is None)
    return st


def work(job) -> dict:
    """One mutant (or, mutant None, the reference against itself)."""
    ref = job["ref"]
    src = ref if job["mutant"] is None else job["mutant"]
    t0 = time.monotonic()
    eq = equivalence(src, ref, job["top"], clock=job["clock"], reset=job["reset"],
                     reset_active_low=job["low"], timeout_s=job["timeout"], seed=1)
    eq_s = time.monotonic() - t0
    tb = _tb(job, src, job["sims"])
    row = {"suite": job["suite"], "design": job["design"], "mutant": "self" if job["mutant"] is None else job["id"],
           "kind": job.get("kind", ""), "desc": job.get("desc", ""), "equiv": eq.status,
           "equiv_method": eq.data.get("method", ""), "equiv_s": round(eq_s, 3), "tb": tb.status,
           "tb_sim": tb.tool, "note": " / ".join(d.message for d in eq.diagnostics)[:400]}
    return row


def classify(r) -> str:
    if r["equiv"] in ("error", "fail", "rejected"):
        return "stillborn"
    if r["equiv"] == "proven":
        return "equivalent"
    if r["equiv"] == "counterexample":
        return "different"
    return "undetermined"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suites", default="rtllm,designs")
    ap.add_argument("--per-design", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=8.0, help="seconds per equivalence check")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only", help="comma-separated design names")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report-only", action="store_true", help="re-render mutants.md from mutants.csv (no checks)")
    ap.add_argument("--resume", action="store_true", help="keep the checks in mutants.partial.jsonl, run the rest")
    ap.add_argument("--note", default="", help="a sentence for the report, e.g. why some checks were rerun")
    a = ap.parse_args(argv)
    if a.report_only:
        with open(OUT / "mutants.csv", newline="") as fh:
            write(list(csv.DictReader(fh)), a)
        return
    from designs import load_suite
    from tqdm import tqdm

    jobs = []
    for suite in a.suites.split(","):
        for t in load_suite(suite):
            if a.only and t.name not in a.only.split(","):
                continue
            ref = t.reference_sources()
            base = {"suite": suite, "design": t.name, "top": t.top, "clock": t.clock, "reset": t.reset,
                    "low": t.reset_active_low, "ref": ref, "tb": t.testbench_sources(), "tb_top": t.tb_top,
                    "timeout": a.timeout, "sims": ("icarus", "verilator"), "mutant": None}
            jobs.append(base)
            for m in mutants(ref, a.per_design, a.seed):
                jobs.append(dict(base, mutant=m.sources, id=m.id, kind=m.kind, desc=m.desc))
    done = {}
    if a.resume and PARTIAL.exists():
        for ln in PARTIAL.read_text().splitlines():
            r = json.loads(ln)
            done[(r["suite"], r["design"], str(r["mutant"]))] = r
    elif PARTIAL.exists():
        PARTIAL.unlink()
    todo = [j for j in jobs if (j["suite"], j["design"], "self" if j["mutant"] is None else str(j["id"])) not in done]
    rows = list(done.values())
    t0 = time.monotonic()
    OUT.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(a.workers) as ex, open(PARTIAL, "a") as log:
        futs = {ex.submit(work, j): j for j in todo}
        for f in tqdm(as_completed(futs), total=len(futs), desc="mutants", unit="check"):
            try:
                r = f.result()
            except Exception as e:  # a crash is a finding, not the end of the run
                j = futs[f]
                r = {"suite": j["suite"], "design": j["design"], "mutant": "self" if j["mutant"] is None else j["id"],
                     "equiv": "crash", "note": str(e)[:160]}
            rows.append(r)
            log.write(json.dumps(r) + "\n")
            log.flush()
    a.run_note = (f"{len(todo)} checks in {(time.monotonic() - t0) / 60:.0f} min ({len(done)} kept from "
                  f"mutants.partial.jsonl); load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} "
                  "cores (machine shared with other jobs: check times are inflated by it)" + (f". {a.note}" if a.note else ""))
    rows.sort(key=lambda r: (r["suite"], r["design"], -1 if r["mutant"] == "self" else int(r["mutant"])
                             if str(r["mutant"]).isdigit() else 10**6))
    write(rows, a)
    PARTIAL.unlink()


def write(rows, a):
    OUT.mkdir(parents=True, exist_ok=True)
    keys = ["suite", "design", "mutant", "kind", "desc", "class", "equiv", "equiv_method", "equiv_s", "tb", "tb_sim",
            "note"]
    for r in rows:
        r["class"] = "reference" if r.get("mutant") == "self" else classify(r)
    with open(OUT / "mutants.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    selfs = {(r["suite"], r["design"]): r for r in rows if r.get("mutant") == "self"}
    L = [f"# Mutant-kill benchmark ({datetime.date.today()})", "",
         f"Tools: {tools.version('yosys')}; {tools.version('yosys-abc')}; {tools.version('iverilog')}; "
         f"{tools.version('verilator')}.",
         f"Settings: {a.per_design} mutants per design (seed {a.seed}), equivalence timeout {a.timeout:g} s, "
         f"depth 20, 2000 co-simulation cycles ({(1 << 17) + 64} where Yosys cannot read a design), ABC sim3, "
         f"dprove (at most 4 s) then pdr when induction does not close, {a.workers} workers. "
         "Command: `.venv/bin/python bench/mutants.py`." + (f" Run: {a.run_note}." if getattr(a, "run_note", "") else ""),
         "",
         "Kill = the check rejects the mutant. Denominator = mutants that elaborate and are not proven equivalent "
         "to the reference. (a) the design's own testbench; (b) testbench + equivalence: killed when the testbench "
         "fails or the equivalence check returns a counterexample (replayed in Icarus). A mutant without a proof "
         "or a counterexample (bounded/cosim/unknown) is rejected by rewards and `regress --equiv` (only proven "
         "passes) but counts here as a survivor, listed below with its verdict. A testbench counts only where "
         "the reference passes it.", "",
         "| suite | design | ref tb | ref vs itself | mutants | stillborn | proven equiv | denom | (a) tb kills | "
         "(b) tb+equiv kills | undetermined |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    tot = dict(m=0, still=0, eqv=0, den=0, a=0, b=0, und=0, den_tb=0)
    by_design = {}
    for r in rows:
        if r.get("mutant") != "self":
            by_design.setdefault((r["suite"], r["design"]), []).append(r)
    for key in sorted(set(by_design) | set(selfs)):
        ms = by_design.get(key, [])
        ref = selfs.get(key, {})
        ref_tb_ok = ref.get("tb") == "pass"
        den = [r for r in ms if r["class"] in ("different", "undetermined")]
        ka = sum(1 for r in den if ref_tb_ok and r["tb"] != "pass")
        kb = sum(1 for r in den if (ref_tb_ok and r["tb"] != "pass") or r["equiv"] == "counterexample")
        # the acceptance rule before issue #12: a mutant passed when its verdict was proven/bounded/cosim
        acc = sum(1 for r in den if not (ref_tb_ok and r["tb"] != "pass") and is_pass(r["equiv"]))
        tot["acc"] = tot.get("acc", 0) + acc
        und = sum(1 for r in den if r["class"] == "undetermined")
        still = sum(1 for r in ms if r["class"] == "stillborn")
        eqv = sum(1 for r in ms if r["class"] == "equivalent")
        tot["m"] += len(ms); tot["still"] += still; tot["eqv"] += eqv; tot["den"] += len(den)
        tot["a"] += ka; tot["b"] += kb; tot["und"] += und; tot["den_tb"] += len(den) if ref_tb_ok else 0
        a_txt = f"{ka}/{len(den)}" if ref_tb_ok else "n/a"
        L.append(f"| {key[0]} | {key[1]} | {ref.get('tb', '?')} ({ref.get('tb_sim', '')}) | {ref.get('equiv', '?')} | "
                 f"{len(ms)} | {still} | {eqv} | {len(den)} | {a_txt} | {kb}/{len(den)} | {und} |")
    pct = (lambda x, y: f"{100 * x / y:.1f}%" if y else "n/a")
    L += ["", "## Overall", "",
          f"- mutants: {tot['m']}; stillborn: {tot['still']}; proven equivalent: {tot['eqv']}; denominator: {tot['den']}",
          f"- (a) testbench alone: {tot['a']}/{tot['den_tb']} = {pct(tot['a'], tot['den_tb'])} "
          "(designs whose reference passes its testbench)",
          f"- (b) testbench + equivalence (killed = testbench fails or a replayed counterexample): "
          f"{tot['b']}/{tot['den']} = {pct(tot['b'], tot['den'])}",
          f"- rejected under the pre-#12 acceptance rule (a bounded/cosim verdict passed; unknown did not): "
          f"{tot['den'] - tot.get('acc', 0)}/{tot['den']} = {pct(tot['den'] - tot.get('acc', 0), tot['den'])}; "
          f"accepted with only bounded/cosim: {tot.get('acc', 0)} (now rejected: only proven passes)",
          f"- survivors of (b) (no proof and no counterexample: bounded/cosim/unknown verdicts, possibly "
          f"equivalent; none of them earns a reward): {tot['den'] - tot['b']}"]
    times = sorted(float(r["equiv_s"]) for r in rows if r.get("equiv_s") not in (None, ""))
    if times:
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        L.append(f"- equivalence check time over {len(times)} checks: median {statistics.median(times):.2f} s, "
                 f"p95 {p95:.2f} s, max {times[-1]:.2f} s")
    st = sorted(float(r["equiv_s"]) for r in selfs.values() if r.get("equiv_s") not in (None, ""))
    verdicts = {}
    for r in selfs.values():
        verdicts[r["equiv"].split("(")[0]] = verdicts.get(r["equiv"].split("(")[0], 0) + 1
    if st:
        L.append(f"- references vs themselves: {verdicts}; time median {statistics.median(st):.2f} s, "
                 f"p95 {st[min(len(st) - 1, int(0.95 * len(st)))]:.2f} s")
    for suite in sorted({k[0] for k in selfs}):
        ss = [r for k, r in selfs.items() if k[0] == suite]
        L.append(f"- {suite} references proven against themselves: "
                 f"{sum(1 for r in ss if r['equiv'] == 'proven')}/{len(ss)}")
    L += ["", "## References vs themselves (non-proven)", ""]
    for key, r in sorted(selfs.items()):
        if r["equiv"] != "proven":
            L.append(f"- {key[1]}: {r['equiv']} ({r['equiv_s']} s) — {r.get('note', '')}")
    und_rows = [r for r in rows if r.get("class") == "undetermined" and r["tb"] == "pass"]
    L += ["", "## Mutants that survive both checks (verdict, method, why no proof or counterexample)", ""]
    L += [f"- {r['design']} #{r['mutant']} {r['desc']}: {r['equiv']} [{r.get('equiv_method', '')}] — "
          f"{r.get('note', '')}" + (f" **By hand:** {BY_HAND[r['design'], r['desc']]}"
                                    if (r["design"], r["desc"]) in BY_HAND else "") for r in und_rows] or ["- none"]
    hand = sum(1 for r in und_rows if (r["design"], r["desc"]) in BY_HAND)
    L += ["", f"Survivors read by hand as equivalent (still counted as survivors above): {hand} of {len(und_rows)}."]
    (OUT / "mutants.md").write_text("\n".join(L) + "\n")
    print("\n".join(L[-40:]))


if __name__ == "__main__":
    main()
