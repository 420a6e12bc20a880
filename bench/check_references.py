"""Run every task's reference against its own testbench (Icarus 11, then Verilator when
Icarus does not pass) and write a markdown table: which references pass where.

    .venv/bin/python bench/check_references.py [--suite rtllm|designs] [--out FILE]
"""
import argparse
import datetime
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from designs import load_suite  # noqa: E402
from eda import tools  # noqa: E402
from eda.simulate import simulate  # noqa: E402


def check(task) -> dict:
    row = {"name": task.name, "top": task.top, "ref_top": task.ref_top, "notes": task.notes}
    for sim in ("icarus", "verilator"):
        t0 = time.monotonic()
        r = simulate(task.reference_sources(), task.testbench_sources(), tb_top=task.tb_top, simulators=(sim,))
        compiled = not r.data.get("compile_error")
        row[sim] = r.status if compiled else "no-compile"
        row[sim + "_s"] = round(time.monotonic() - t0, 2)
        if sim == "icarus" and r.status == "pass":
            row["verilator"], row["verilator_s"] = "-", 0
            break
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="rtllm")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    tasks = load_suite(a.suite)
    load_s = time.monotonic() - t0
    rows = [check(t) for t in tasks]
    lines = [f"# Reference vs its own testbench: suite {a.suite}",
             "", f"date {datetime.date.today()}; {tools.version('iverilog')}; {tools.version('verilator')}",
             f"{len(tasks)} tasks loaded in {load_s:.2f} s (ports parsed by {tools.version('yosys')})", "",
             "| task | top | ref_top | icarus | s | verilator | s | notes |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['top']} | {r['ref_top']} | {r['icarus']} | {r['icarus_s']} | "
                     f"{r['verilator']} | {r['verilator_s']} | {'; '.join(r['notes'])} |")
    ok_i = sum(r["icarus"] == "pass" for r in rows)
    ok_any = sum("pass" in (r["icarus"], r["verilator"]) for r in rows)
    lines += ["", f"pass under Icarus: {ok_i}/{len(rows)}; under Icarus or Verilator: {ok_any}/{len(rows)}"]
    text = "\n".join(lines) + "\n"
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
