"""A core optimized in its hierarchy (issue #59 item 2): `rtl-agent optimize ... --module all` on picorv32 (with its
multiplier and divider), serv (serv_rf_top, 18 files), the C910 LZA unit and verilog-axis's
axis_pipeline_register (two axis_register instances), one at a time under `nice`, each
within a wall-time limit. Writes bench/results/hierarchy.{md,csv,json}: per core the submodules tried, the finds
proven, the core's PPA before and after, the wall time, the machine load.

    python bench/hierarchy.py [--cores picorv32,serv,c910_lza,axis_pipeline_register] [--steps 1] [--wall 600]
                              [--budget 420] [--extra "--no-train --actions transform"] [--tag NAME]

A core whose run folder already has hier.json with every module is read, not run again (delete it to rerun).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import pandas as pd
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from eda.config import require_shared  # noqa: E402

RES = ROOT / "bench" / "results"


def cores():
    pico = require_shared("corpus/picorv32/picorv32.v")
    serv = sorted(str(p) for p in require_shared("corpus/serv/rtl").glob("*.v"))
    axis = require_shared("corpus/verilog-axis/rtl")
    return {
        "picorv32": [str(pico), "--top", "picorv32", "-P", "ENABLE_MUL=1", "-P", "ENABLE_DIV=1"],
        "serv": [*serv, "--top", "serv_rf_top"],
        "c910_lza": ["c910_lza"],          # the task folder designs/c910_lza (Sky130, the shared C910 sources)
        # a small two-level corpus design whose submodule (axis_register) had a proven find alone (real_designs_jobs)
        "axis_pipeline_register": [str(axis / "axis_pipeline_register.v"), str(axis / "axis_register.v"),
                                   "--top", "axis_pipeline_register"],
    }


def run_core(name, design, args, out: Path) -> dict:
    cmd = [sys.executable, "-m", "rtl_agent.cli", "optimize", *design, "--module", "all", "--steps", str(args.steps),
           "--module-budget", str(args.budget), "--no-cross-pdk", "--no-pnr", "--quiet", "--out", str(out),
           *args.extra.split()]
    load0, t0 = os.getloadavg()[0], time.time()
    log = out.with_suffix(".log")
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as f:
        try:
            rc = subprocess.run(["nice", "-n", "10", *cmd], cwd=ROOT, stdout=f, stderr=subprocess.STDOUT,
                                timeout=args.wall, env=dict(os.environ, OMP_NUM_THREADS="1")).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return {"rc": rc, "wall_s": round(time.time() - t0, 1), "load_start": round(load0, 2),
            "load_end": round(os.getloadavg()[0], 2), "command": " ".join(cmd[3:]), "log": str(log)}


def row(name, meta, res) -> dict:
    mods = res.get("modules", []) if res else []
    tried = [m for m in mods if not str(m.get("why") or "").startswith(("not tried", "skipped"))]
    finds = [m for m in tried if m.get("why") != "no find"]
    b, a = (res or {}).get("before") or {}, (res or {}).get("after") or {}
    return {"core": name, "options": meta.get("options"), "top": (res or {}).get("top"),
            "pdk": (res or {}).get("pdk"), "rc": meta["rc"],
            "modules": len(mods), "tried": len(tried), "proven_finds": len(finds),
            "above_noise": sum(bool(m.get("above_noise")) for m in finds),
            "kept": sum(bool(m.get("accepted")) for m in mods),
            "core_ppa_before": b.get("ppa"), "core_ppa_after": a.get("ppa"),
            "core_ratio": round(b["ppa"] / a["ppa"], 4) if b.get("ppa") and a.get("ppa") else None,
            "area_before": b.get("area"), "area_after": a.get("area"), "delay_before": b.get("delay"),
            "delay_after": a.get("delay"), "wall_s": meta["wall_s"], "load_start": meta["load_start"],
            "load_end": meta["load_end"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cores", default="picorv32,serv,c910_lza,axis_pipeline_register")
    ap.add_argument("--steps", type=int, default=1, help="optimize steps per module")
    ap.add_argument("--wall", type=int, default=600, help="wall-time limit per core, seconds")
    ap.add_argument("--budget", type=int, default=420, help="--module-budget: no module starts after this")
    ap.add_argument("--extra", default="", help="more optimize options")
    ap.add_argument("--out", default=str(ROOT / "runs" / "bench" / "hierarchy"))
    ap.add_argument("--tag", default="", help="a second row for a core under other settings: its key is CORE/TAG")
    args = ap.parse_args()
    known = cores()
    saved = RES / "hierarchy.json"
    done = json.loads(saved.read_text()) if saved.exists() else {}
    for core in filter(None, args.cores.split(",")):       # --cores '': only rewrite the report
        name = f"{core}/{args.tag}" if args.tag else core
        out = Path(args.out) / name.replace("/", "-")
        if name in done and (out / "hier.json").exists():
            continue
        meta = run_core(name, known[core], args, out)
        meta["options"] = f"--steps {args.steps} " + args.extra
        res = json.loads((out / "hier.json").read_text()) if (out / "hier.json").exists() else None
        done[name] = {"meta": meta, "result": res}
        saved.write_text(json.dumps(done, indent=1))
        print(name, row(name, meta, res), flush=True)
    rows = [row(n, d["meta"], d["result"]) for n, d in done.items()]
    write_rows(RES / "hierarchy.csv", rows)
    mods = [{"core": n, "module": m["module"], "params": json.dumps(m.get("params") or {}),
             "ratio": round(m["module_ratio"], 4) if m.get("module_ratio") else None, "proof": m.get("proof"),
             "above_noise": m.get("above_noise"), "noise_floor": m.get("noise_floor"),
             "core_ppa_with_it": m.get("core_ppa"), "kept": m.get("accepted"), "why": m.get("why"),
             "chain": " > ".join(m.get("chain") or []), "wall_s": m.get("wall_s")}
            for n, d in done.items() for m in ((d["result"] or {}).get("modules") or [])]
    body = (header("A core optimized in its hierarchy (optimize --module all)",
                   {"wall limit per core": f"{args.wall} s", "module budget": f"{args.budget} s",
                    "options": "--no-cross-pdk --no-pnr, and each row's own (column options)"})
            + "\n## Per core\n\n" + md_table(pd.DataFrame(rows))
            + "\n\n## Per module\n\n" + md_table(pd.DataFrame(mods)) + "\n\n"
            + "\n".join(f"- {n}: `rtl-agent {d['meta']['command']}`" for n, d in done.items()) + "\n")
    write_with_reading(RES / "hierarchy.md", body)


if __name__ == "__main__":
    main()
