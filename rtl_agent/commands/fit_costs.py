"""`rtl-agent fit-costs`: measure the operator costs the datapath transformation extracts by."""
import json
from pathlib import Path

from rtl_agent.transforms.datapath import fit


def register(sub):
    p = sub.add_parser(
        "fit-costs", help="fit the datapath transformation's per-PDK operator cost table",
        description="Synthesize one small module per operator, width and PDK (stages synth and sta, unconstrained "
                    "virtual clock) and record its area and critical-path delay in the cost table the `datapath` "
                    "transformation's e-graph extraction reads. Entries not named are kept. The full table is about "
                    "200 evaluations, 2-3 minutes on 2 cores; on a shared machine run it under "
                    "`flock /tmp/rtl-heavy.lock`.")
    p.add_argument("--pdks", default="nangate45,sky130hd", help="comma list of PDKs (default: %(default)s)")
    p.add_argument("--widths", default=",".join(map(str, fit.WIDTHS)), help="comma list of bit widths, 1 to 64 "
                   "(default: %(default)s)")
    p.add_argument("--ops", default=",".join(fit.OPS), help="comma list of operators to (re)fit (default: all: "
                   "%(default)s)")
    p.add_argument("--out", default=None, help="the table to update (default: the one the transformation reads, "
                   "rtl_agent/transforms/datapath/costs_table.json)")
    p.set_defaults(func=run)


def _parse(args) -> tuple[list, list, list]:
    from eda.pdk import PDKS
    pdks = [x.strip() for x in args.pdks.split(",") if x.strip()]
    ops = [x.strip() for x in args.ops.split(",") if x.strip()]
    bad = [x for x in pdks if x not in PDKS] + [x for x in ops if x not in fit.OPS]
    if bad:
        raise ValueError(f"fit-costs: unknown {', '.join(bad)} (PDKs: {', '.join(PDKS)}; operators: "
                         f"{', '.join(fit.OPS)})")
    try:
        widths = [int(x) for x in args.widths.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"fit-costs: --widths {args.widths!r} is not a comma list of integers") from None
    if not (pdks and ops and widths) or not all(1 <= w <= 64 for w in widths):
        raise ValueError("fit-costs: give at least one PDK, operator and width; widths go from 1 to 64")
    return pdks, widths, ops


def run(args) -> int:
    pdks, widths, ops = _parse(args)
    from rtl_agent.transforms.datapath.costs import TABLE     # egglog: only when the command runs
    out = Path(args.out) if args.out else TABLE
    data = json.loads(out.read_text()) if out.exists() else {"pdks": {}}
    data = fit.fit(data, pdks, widths, ops, log=lambda s: print(s, flush=True))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out}")
    return 0
