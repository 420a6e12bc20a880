"""Compare two `regress` run folders design by design: the reference's and every sample's verdict, failing
stage, equivalence verdict, and PPA (area, delay, power). Written for a tool upgrade (Yosys 0.23 -> 0.70):
what moved, and by how much.

    .venv/bin/python bench/compare_runs.py OLD_RUN NEW_RUN --label-old "Yosys 0.23" --label-new "Yosys 0.70" \
        --out bench/results/yosys_070_vs_023_rtllm.md
"""
import argparse
import datetime
import json
import math
import sys
from pathlib import Path


def _load(run: Path) -> dict:
    return {f.stem: json.loads(f.read_text()) for f in sorted((run / "designs").glob("*.json"))}


def _meta(run: Path) -> dict:
    try:
        return json.loads((run / "summary.json").read_text())["meta"]
    except (OSError, ValueError, KeyError):
        return {}


def _f(x, spec=".4g"):
    return "" if x is None else format(x, spec)


def rows(old: dict, new: dict) -> list:
    out = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            out.append({"design": name, "change": "only in " + ("new" if a is None else "old")})
            continue
        ra, rb = a["reference"], b["reference"]
        sa = a["samples"][0] if a["samples"] else {}
        sb = b["samples"][0] if b["samples"] else {}
        ratio = rb["ppa"] / ra["ppa"] if ra.get("ppa") and rb.get("ppa") else None
        area = rb["area_um2"] / ra["area_um2"] if ra.get("area_um2") and rb.get("area_um2") else None
        verdict = (ra["status"], ra["failed_stage"], sa.get("equiv")) != (rb["status"], rb["failed_stage"], sb.get("equiv"))
        out.append({"design": name, "old_status": f"{ra['status']}{'@' + ra['failed_stage'] if ra['failed_stage'] else ''}",
                    "new_status": f"{rb['status']}{'@' + rb['failed_stage'] if rb['failed_stage'] else ''}",
                    "old_equiv": sa.get("equiv") or "", "new_equiv": sb.get("equiv") or "",
                    "ppa_new_over_old": ratio, "area_new_over_old": area,
                    "delay_old": ra.get("delay_ns"), "delay_new": rb.get("delay_ns"),
                    "change": "verdict" if verdict else ("ppa" if ratio is not None and abs(ratio - 1) > 1e-9 else "")})
    return out


def render(rs: list, old: Path, new: Path, lo: str, ln: str) -> str:
    ratios = [r["ppa_new_over_old"] for r in rs if r.get("ppa_new_over_old")]
    gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None
    moved = [r for r in rs if r.get("change") == "ppa"]
    verdicts = [r for r in rs if r.get("change") == "verdict"]
    mo, mn = _meta(old), _meta(new)
    lines = [f"# {ln} against {lo}: `regress` per design ({datetime.date.today().isoformat()})", "",
             f"- old: `{old}` ({lo}; {mo.get('yosys', '')}, date {mo.get('date', '')})",
             f"- new: `{new}` ({ln}; {mn.get('yosys', '')}, date {mn.get('date', '')})",
             f"- designs: {len(rs)}; verdict changes (reference status/stage or equivalence): **{len(verdicts)}**; "
             f"PPA moved: **{len(moved)}**; unchanged PPA: {len(ratios) - len(moved)}",
             f"- geometric mean of PPA new/old over the {len(ratios)} designs with PPA in both: **{_f(gm)}**", "",
             "| design | status old | status new | equiv old | equiv new | PPA new/old | area new/old | delay old (ns) | delay new (ns) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rs:
        if r.get("change"):
            lines.append(f"| {r['design']} | {r.get('old_status', '')} | {r.get('new_status', '')} | {r.get('old_equiv', '')} "
                         f"| {r.get('new_equiv', '')} | {_f(r.get('ppa_new_over_old'))} | {_f(r.get('area_new_over_old'))} "
                         f"| {_f(r.get('delay_old'))} | {_f(r.get('delay_new'))} |")
    lines += ["", f"Designs not listed: same verdicts and the same PPA to the last digit."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--label-old", default="old")
    ap.add_argument("--label-new", default="new")
    ap.add_argument("--out", type=Path, default=None, help="markdown file (default: print)")
    a = ap.parse_args(argv)
    text = render(rows(_load(a.old), _load(a.new)), a.old, a.new, a.label_old, a.label_new)
    if a.out:
        a.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
