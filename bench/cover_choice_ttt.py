"""TTT against frozen where the frozen chooser is wrong: each training family with a paying option, left out of
fitting (a generated family's variants together, a corpus module alone), its modules run as cover_choice.py's
eval does (8 constrained-random runs, then 2 steps of 4 program runs, 3 seeds) with the chooser fitted without
it: random choice among the programs, the frozen chooser, the chooser with its test-time update. On the held-out
corpus modules (cover_choice.md) the frozen chooser already ranks the paying program first, so the update has
nothing to correct; here it meets families whose cue it never saw.

    nice -n 10 .venv/bin/python bench/cover_choice_ttt.py [--seeds 3]      # -> bench/results/cover_choice_ttt.*
"""
import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import header, md_table, write_rows, write_with_reading  # noqa: E402
from bench.cover_choice import OUT, RUNS, TRAIN, eval_one, training_states  # noqa: E402
from bench.cover_choice_gen import gen_modules  # noqa: E402
from bench.cover_programs import paired, slug  # noqa: E402

MODES = ("prog_random", "prog_frozen", "prog_ttt")


def family(name: str) -> str:
    return name.rsplit("_", 1)[0] if name.startswith("gen_") else name


def paying() -> list:
    """Training modules where some option gained points."""
    out = []
    for f in sorted((RUNS / "train").glob("*.json")):
        x = json.loads(f.read_text())
        if any(r["gain"] > 0 for s in x.get("states", []) for r in s["rows"]):
            out.append(x["design"])
    return out


def main():
    from rtl_agent.jobs.cover.stim_chooser import StimChooser, fit
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    d = RUNS / "lofo"
    d.mkdir(parents=True, exist_ok=True)
    load0 = " ".join(f"{v:.2f}" for v in os.getloadavg())
    spec = {label: (tuple(rest), None) for label, *rest in TRAIN}
    spec.update({n: ((None, None, n, {}), t) for n, t in gen_modules(0).items()})
    used = training_states()[1]
    res = []
    for m in paying():
        f = d / f"{slug(m)}.json"
        if not f.exists():
            ch = StimChooser(fit(training_states({u for u in used if family(u) != family(m)})[0]))
            try:
                x = eval_one(m, spec[m][0], args.seeds, ch=ch, modes=MODES, text=spec[m][1])
            except Exception as e:      # noqa: BLE001 - one module's failure is a row with its cause
                x = {"design": m, "error": f"{type(e).__name__}: {e}"[:300]}
            f.write_text(json.dumps(x))
            print(m, x.get("error") or x["seconds"], flush=True)
        res.append(json.loads(f.read_text()))
    rows = [r for x in res for r in x.get("rows", [])]
    import pandas as pd
    tab = [{"module (family left out)": x["design"], **{m: round(sum(r["points"] for r in x["rows"] if r["mode"] == m)
                                                           / args.seeds, 1) for m in MODES}} for x in res if "rows" in x]
    lines = [header("TTT against frozen on training families left out of fitting (issue #60 item 3)",
                    {"machine load (1/5/15 min) before": load0,
                     "after": " ".join(f"{v:.2f}" for v in os.getloadavg()),
                     "settings": f"budget 16: 8 constrained random, 2 steps of 4 program runs; {args.seeds} seeds; "
                                 "chooser fitted without the module's family"}),
             "Mean line+branch+toggle points covered after the budget:", "", md_table(pd.DataFrame(tab)), "",
             "## Paired differences (points, per module and seed)", ""]
    for a, b in (("prog_ttt", "prog_frozen"), ("prog_ttt", "prog_random"), ("prog_frozen", "prog_random")):
        got = paired(rows, a, b)
        if got:
            lines.append(f"- {a} - {b}: {got['mean']:+.2f}, 95% CI [{got['lo']:+.2f}, {got['hi']:+.2f}] over "
                         f"{got['pairs']} pairs; ahead in {got['ahead']}, behind in {got['behind']}")
    if rows:
        write_rows(OUT / "cover_choice_ttt.csv", rows)
    write_with_reading(OUT / "cover_choice_ttt.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
