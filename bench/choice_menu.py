"""How many options the transformation library offers per design, one and two deep, and the choice benchmark's
split (issue 57): a chooser can only beat random where options outnumber the evaluation budget.

For every module of the permissive corpus (../shared/corpus: verilog-axis, verilog-axi, verilog-i2c, picorv32's
units, serv) and the C910 LZA unit, the library's menu is listed on the module's text (`options`, one deep),
then every option is applied and the result's menu listed again (`chains2`: ordered chains of one or two
options, `options` + the sum of the children's menus). Counting only: nothing is synthesized or proven here.
Value ranges are not probed (no testbench), so `narrow` offers nothing and counts are lower bounds.

Designs whose chains two deep reach 3x a budget qualify for it (>= 30 for 10 evaluations, >= 90 for 30).
Qualifying designs are split by a hash of their name: about 40% held out (never trained on or tuned on),
the rest for training. The split is written with the counts and read by whatever trains a chooser.

    flock /tmp/rtl-heavy.lock .venv/bin/python bench/choice_menu.py [--only a,b] [--child-cap 24]

Writes bench/results/choice_menu.{md,csv,json}.
"""
import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from eda.config import require_shared  # noqa: E402
from eda.design_inputs import DesignInputError, gather  # noqa: E402
from eda.hdl import module_names  # noqa: E402
from rtl_agent import transforms as T  # noqa: E402

OUT = Path(__file__).resolve().parent / "results"
FOLDERS = ("corpus/verilog-axis/rtl", "corpus/verilog-axi/rtl", "corpus/verilog-i2c/rtl", "corpus/picorv32",
           "corpus/serv/rtl", "benchmarks/c910-lza")
HELD_OUT_SHARE = 0.4


def corpus_modules() -> list[tuple[str, Path, str]]:
    """(label, file, top) for every module defined in a corpus file (its submodules found in the same folder)."""
    out, seen = [], set()
    for rel in FOLDERS:
        try:
            folder = require_shared(rel)
        except (FileNotFoundError, OSError, ValueError) as e:
            print(f"choice_menu: skipping {rel}: {e}", file=sys.stderr)
            continue
        for f in sorted(folder.glob("*.v")):
            for top in module_names(f.read_text(errors="replace")):
                if top in seen:     # the same module copied into another repository (arbiter, axis_fifo)
                    continue
                seen.add(top)
                out.append((f"{f.parent.parent.name if f.parent.name == 'rtl' else f.parent.name}/{top}", f, top))
    return out


def sources(f: Path, top: str) -> str:
    """The module's file and the files of the modules it instantiates, as one text (the top's file first)."""
    from bench.real_designs import files_of
    texts = gather(files_of(f.parent, f.name), top=top)
    return "\n".join(t for t in texts.values() if isinstance(t, str))


def menu(code: str, top: str) -> list:
    return T.options(T.Design(code, top))


def count(label: str, f: Path, top: str, child_cap: int) -> dict:
    row = {"design": label, "top": top, "lines": 0, "options": 0, "kinds": "", "chains2": None,
           "children_listed": 0, "exact": True, "seconds": 0.0, "error": ""}
    t0 = time.monotonic()
    try:
        code = sources(f, top)
        row["lines"] = code.count("\n")
        opts = menu(code, top)
    except (DesignInputError, OSError, ValueError) as e:
        row["error"] = str(e).splitlines()[0][:160]
        return row
    row["options"] = len(opts)
    kinds: dict = {}
    for o in opts:
        kinds[o.kind] = kinds.get(o.kind, 0) + 1
    row["kinds"] = " ".join(f"{k}:{n}" for k, n in kinds.items())
    children = []
    for o in opts[:child_cap]:
        try:
            children.append(len(menu(T.apply(T.Design(code, top), o), top)))
        except (T.TransformError, ValueError):
            children.append(0)      # an option that does not apply leaves no chain below it
    row["children_listed"] = len(children)
    # past the cap, the listed children's mean stands in for the rest: an estimate, marked as such
    rest = (len(opts) - len(children)) * (sum(children) / len(children)) if children else 0
    row["chains2"] = round(len(opts) + sum(children) + rest)
    row["exact"] = len(children) == len(opts)
    row["seconds"] = round(time.monotonic() - t0, 1)
    return row


def split(rows: list) -> dict:
    """{design: 'train'|'held_out'|'-'}: designs with at least 30 chains two deep, by a hash of their name."""
    out = {}
    for r in rows:
        if (r["chains2"] or 0) < 30:
            out[r["design"]] = "-"
            continue
        h = int(hashlib.sha256(r["design"].encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        out[r["design"]] = "held_out" if h < HELD_OUT_SHARE else "train"
    return out


def report(rows: list, wall: float, load0, load1):
    parts = split(rows)
    for r in rows:
        r["split"] = parts[r["design"]]
    write_rows(OUT / "choice_menu.csv", rows)
    (OUT / "choice_menu.json").write_text(json.dumps({"split": parts, "rows": rows}, indent=1) + "\n")
    q10 = [r for r in rows if (r["chains2"] or 0) >= 30]
    q30 = [r for r in rows if (r["chains2"] or 0) >= 90]
    held = [d for d, s in parts.items() if s == "held_out"]
    extra = {"machine load (1/5/15 min)": f"{load0} at start, {load1} at end", "wall time": f"{wall:.0f} s",
             "code": os.popen("git rev-parse --short HEAD").read().strip()}
    body = header("Choice benchmark: options per design, one and two deep (issue 57)", extra) + "\n"
    body += (f"- {len(rows)} modules listed; {len(q10)} reach 30 chains two deep (3x a budget of 10), "
             f"{len(q30)} reach 90 (3x a budget of 30)\n"
             f"- split of the {len(q10)} qualifying designs: {len(held)} held out, {len(q10) - len(held)} train "
             f"(by a hash of the name, share {HELD_OUT_SHARE})\n"
             "- `chains2` is exact where `exact` is True; else the first `children_listed` children's mean "
             "stands in for the rest. No value ranges (no testbench): `narrow` offers nothing here.\n\n")
    cols = ["design", "lines", "options", "chains2", "exact", "split", "kinds", "seconds", "error"]
    body += md_table(pd.DataFrame([{c: r[c] for c in cols} for r in rows])) + "\n"
    write_with_reading(OUT / "choice_menu.md", body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma list of substrings of design labels")
    ap.add_argument("--child-cap", type=int, default=24,
                    help="list at most this many children per design (the rest estimated from their mean)")
    a = ap.parse_args()
    todo = [m for m in corpus_modules() if not a.only or any(s in m[0] for s in a.only.split(","))]
    load0, t0, rows = " ".join(f"{x:.2f}" for x in os.getloadavg()), time.monotonic(), []
    for i, (label, f, top) in enumerate(todo, 1):
        rows.append(count(label, f, top, a.child_cap))
        r = rows[-1]
        print(f"[{i}/{len(todo)}] {label}: {r['options']} options, {r['chains2']} chains two deep "
              f"({r['seconds']} s){' ' + r['error'] if r['error'] else ''}", flush=True)
    report(rows, time.monotonic() - t0, load0, " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
