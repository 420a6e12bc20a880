"""SystemVerilog modules of ../shared/corpus/common_cells (pulp-platform: packages, `include macros, typedefs, FIFOs,
arbiters, counters, LFSRs) through `eval` and `equiv` as a new user gives them: the module's file, the files it needs
(the package it uses, the modules it instantiates, found by name in src/) and `-I include`, default options.

Per module: the sources as given (`lower=False`) through lint (Icarus 11, then Verilator: what `eval` did before
eda.sv_lower); then the design as `rtl-agent eval` reads it (lowered where Icarus or Yosys cannot read it) through
the default stages, and its equivalence with itself (`rtl-agent equiv`'s engine). Failures are rows with their
cause, never a traceback.

    flock /tmp/rtl-heavy.lock .venv/bin/python bench/sv_modules.py [--only cc_fifo,cc_lzc] [--equiv-timeout 120]

Writes bench/results/sv_modules.{md,csv}.
"""
import argparse
import os
import re
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from eda.config import require_shared  # noqa: E402
from eda.design_inputs import DesignInputError, gather  # noqa: E402
from eda.flow import FlowJob, evaluate  # noqa: E402
from eda.hdl import instantiations, module_names, strip_comments  # noqa: E402
from eda.lint import lint  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
CC = "corpus/common_cells"
MODULES = ["cc_counter", "cc_max_counter", "cc_credit_counter", "cc_fifo", "cc_stream_fifo", "cc_fall_through_register",
           "cc_rr_arb_tree", "cc_lzc", "cc_lfsr_8bit", "cc_onehot", "cc_popcount", "cc_plru_tree", "cc_stream_fork",
           "cc_spill_register", "cc_stream_delay"]
# what each construct of the issue looks like in a source (comments stripped)
CONSTRUCTS = {"always_ff": r"\balways_ff\b", "always_comb": r"\balways_comb\b", "logic": r"\blogic\b",
              "'0/'1": r"'[01]\b", "package": r"\bpackage\b|\w+::", "import": r"\bimport\s+\w+::",
              "typedef enum": r"\btypedef\s+enum\b", "unique/priority case": r"\b(unique|priority)\s+case\b",
              "$clog2": r"\$clog2\b", "parameter type": r"\bparameter\s+type\b", "`include": r"`include\b",
              "packed array": r"\]\s*\[[^\]]+\]\s*\w+\s*[,;]"}


def sources(src: Path, top: str) -> list[Path]:
    """The file that defines `top`, the files of the modules it instantiates (recursively) and of the packages
    they name (`pkg::`), packages first."""
    defs, pkgs = {}, {}
    for p in sorted(src.glob("*.sv")):
        t = strip_comments(p.read_text(errors="replace"))
        defs.update((m, p) for m in module_names(t))
        pkgs.update((m, p) for m in re.findall(r"^\s*package\s+(\w+)", t, re.M))
    if top not in defs:
        raise DesignInputError(f"{top}: no file in {src} defines it")
    out, todo = [], [top]
    while todo:
        p = defs[todo.pop()]
        if p in out:
            continue
        out.append(p)
        t = strip_comments(p.read_text(errors="replace"))
        todo += [sub for _, sub, _ in instantiations(t) if sub in defs and defs[sub] not in out]
        out += [pkgs[k] for k in sorted(set(re.findall(r"\b(\w+)::", t))) if k in pkgs and pkgs[k] not in out]
    return sorted(out, key=lambda p: p not in pkgs.values())


def constructs(texts: dict) -> str:
    """The constructs of CONSTRUCTS that the sources and the headers they include use."""
    text = "\n".join(strip_comments(t) for t in texts.values() if isinstance(t, str))
    return ", ".join(k for k, rx in CONSTRUCTS.items() if re.search(rx, text))


def readers(root: Path, files, top: str) -> dict:
    """Icarus 11 (-g2012) and Verilator (--lint-only) on the sources as given, with -I include: what the issue
    compared (Icarus rejects, Verilator reads)."""
    from eda.report import parse_diagnostics
    from eda.sandbox import Limits, Sandbox, run
    from eda.tools import ICARUS, VERILATOR
    lim, inc, out = Limits(wall_s=120, cpu_s=120), root / "include", {}
    with Sandbox(prefix="rtla-bench-sv-") as sb:
        for name, cmd in (("icarus", ICARUS.compile_cmd(files, "x.vvp", top, extra=(f"-I{inc}",))),
                          ("verilator", VERILATOR.lint_cmd(files, top) + [f"-I{inc}"])):
            r = run(cmd, sb.path, lim, ro=[root])
            diags = parse_diagnostics(r.out)
            out[name] = "pass" if r.ok else "fail"
            out[name + "_error"] = "" if r.ok else (str(diags[0]) if diags else r.out.strip()[-120:])[:120]
    return out


def one(top: str, equiv_timeout: float) -> dict:
    root = require_shared(CC)
    row = {"module": top, "files": "", "constructs": "", "icarus": "", "icarus_error": "", "verilator": "",
           "verilator_error": "", "before_lint": "", "before_reason": "", "lowered": "",
           "read_s": None, "eval": "", "failed_stage": "", "reason": "", "area_um2": None, "delay_ns": None,
           "ppa": None, "eval_s": None, "self_equiv": "", "equiv_method": "", "equiv_s": None}
    try:
        files = sources(root / "src", top)
        raw = gather(files, incdirs=[root / "include"], top=top, lower=False)
        row.update(files=" ".join(p.name for p in files), constructs=constructs(raw), **readers(root, files, top))
        st = lint(raw, top)
        row.update(before_lint=st.status, before_reason=(str(st.diagnostics[0]) if st.diagnostics else "")[:120])
        t0 = time.monotonic()
        texts = gather(files, incdirs=[root / "include"], top=top)
        row.update(read_s=round(time.monotonic() - t0, 2), lowered="yes" if texts is not raw and
                   list(texts) == [f"{top}.v"] else "no")
    except (DesignInputError, OSError) as e:
        return {**row, "eval": "error", "reason": str(e)[:200]}
    rep = evaluate(FlowJob(top=top, use_cache=False), texts)
    row.update(eval=rep.status, failed_stage=rep.failed_stage or "", reason=rep.failure_reason[:200],
               area_um2=rep.area_um2, delay_ns=rep.delay_ns, ppa=rep.ppa, eval_s=round(rep.seconds, 2))
    from eda.observe import equivalence
    st = equivalence(texts, texts, top, None, timeout_s=equiv_timeout)
    row.update(self_equiv=st.status, equiv_method=st.data.get("method") or "", equiv_s=round(st.seconds, 2))
    if not st.status.startswith("proven") and st.diagnostics:
        row["reason"] = (row["reason"] + "; " if row["reason"] else "") + f"equiv: {st.diagnostics[0].message[:150]}"
    return row


def report(rows: list, wall: float, load: str):
    write_rows(OUT / "sv_modules.csv", rows)
    n = len(rows)
    before = sum(r["before_lint"] == "pass" for r in rows)
    passed = sum(r["eval"] == "pass" for r in rows)
    proven = sum(r["self_equiv"].startswith("proven") for r in rows)
    fmt = lambda x: "-" if x is None or x == "" else f"{x:.4g}" if isinstance(x, float) else str(x)  # noqa: E731
    body = header("SystemVerilog modules (common_cells): eval and self-equivalence",
                  {"corpus": "shared/corpus/common_cells (pulp-platform/common_cells @62a689b), -I include",
                   "load (os.getloadavg) at start, end": load, "wall": f"{wall:.0f} s"})
    icarus, verilator = (sum(r[k] == "pass" for r in rows) for k in ("icarus", "verilator"))
    body += (f"\n{n} modules: with -I include, Icarus 11 reads {icarus}/{n} and Verilator {verilator}/{n}; lint of "
             f"the sources as given passes {before}/{n} (before eda.sv_lower); `eval` of the "
             f"design as read passes {passed}/{n}; equivalence with itself proven {proven}/{n}.\n\n")
    cols = ["module", "constructs", "Icarus -I", "Verilator -I", "before: lint", "lowered", "eval", "area um2", "delay ns", "PPA um2*ns*W",
            "eval s", "self-equiv", "method", "equiv s"]
    table = [[r["module"], r["constructs"], r["icarus"], r["verilator"], r["before_lint"], r["lowered"],
              r["eval"] + (f" ({r['failed_stage']})" if r["failed_stage"] else ""), fmt(r["area_um2"]),
              fmt(r["delay_ns"]), fmt(r["ppa"]), fmt(r["eval_s"]), r["self_equiv"], r["equiv_method"], fmt(r["equiv_s"])]
             for r in rows]
    body += md_table(pd.DataFrame(table, columns=cols))
    notes = [f"- **{r['module']}** Icarus -I: {r['icarus_error']}" for r in rows if r["icarus_error"]]
    notes += [f"- **{r['module']}** Verilator -I: {r['verilator_error']}" for r in rows if r["verilator_error"]]
    notes += [f"- **{r['module']}** before: {r['before_reason']}" for r in rows if r["before_lint"] != "pass"]
    notes += [f"- **{r['module']}** now: {r['reason']}" for r in rows if r["reason"]]
    body += ("\n\nFiles per module: `sv_modules.csv` (column files)." +
             ("\n\nWhy each failed:\n\n" + "\n".join(notes) if notes else "") + "\n")
    write_with_reading(OUT / "sv_modules.md", body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=None, help="comma list of modules (default: all of MODULES)")
    ap.add_argument("--equiv-timeout", type=float, default=120.0)
    a = ap.parse_args()
    mods = a.only.split(",") if a.only else MODULES
    load0, t0, rows = " ".join(f"{x:.2f}" for x in os.getloadavg()), time.monotonic(), []
    for top in mods:
        rows.append(one(top, a.equiv_timeout))
        r = rows[-1]
        print(f"{top}: before {r['before_lint']}, lowered {r['lowered']}, eval {r['eval']} {r['failed_stage']}, "
              f"self-equiv {r['self_equiv']} {r['reason'][:100]}", flush=True)
    load = load0 + " / " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    report(rows, time.monotonic() - t0, load)


if __name__ == "__main__":
    main()
