"""Tables and the HTML report of a regression run."""
import base64
import io
import math

import pandas as pd

from rtl_agent.tables import md_table


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and not math.isnan(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summary(df: pd.DataFrame, ks) -> dict:
    s = {"designs": len(df), "samples": int(df.samples.sum()),
         "syntax_pass_rate": df.syntax_pass.sum() / max(1, df.samples.sum()),
         "func_pass_rate": df.func_pass.sum() / max(1, df.samples.sum())}
    for k in ks:
        col = df[f"pass@{k}"].dropna()
        s[f"pass@{k}"] = float(col.mean()) if len(col) else None
    both = df[df.ppa_ratio.notna()]
    s["ppa_designs"] = len(both)
    s["geomean_ppa_ratio"] = geomean(both.ppa_ratio.tolist())
    s["failures"] = {c[5:]: int(df[c].sum()) for c in df.columns if c.startswith("fail_") and df[c].sum()}
    if "equiv_mode" in df and df.equiv_mode.astype(bool).any():    # --equiv: designs decided by each kind
        s["equiv_modes"] = {m: int(n) for m, n in df.equiv_mode.value_counts().items() if m}
    return s


def markdown(df: pd.DataFrame, s: dict, meta: dict, ks) -> str:
    lines = [f"# Regression: {meta['policy']} on {meta['suite']}", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["", "| metric | value |", "|---|---|"]
    for k, v in s.items():
        lines.append(f"| {k} | {v:.4g} |" if isinstance(v, float) else f"| {k} | {v} |")
    cols = ["design", "category", "samples", "syntax_pass", "func_pass"] + [f"pass@{k}" for k in ks] + \
           ["ppa_ratio", "ref_status", "simulator"] + \
           (["equiv_mode"] if "equiv_mode" in df and df.equiv_mode.astype(bool).any() else []) + ["notes"]
    lines += ["", "## Per design", "", md_table(df[cols])]
    return "\n".join(lines)


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode()


def html(df: pd.DataFrame, s: dict, meta: dict, ks) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figs = []
    cat = df.assign(top=df.category.str.split("/").str[0].replace("", "other"))
    rate = cat.groupby("top").apply(lambda g: g.func_pass.sum() / max(1, g.samples.sum()), include_groups=False)
    fig, ax = plt.subplots(figsize=(6, 3))
    rate.plot.bar(ax=ax, color="#4a7", rot=0)
    ax.set_ylabel("functional pass rate"); ax.set_ylim(0, 1); ax.set_xlabel("")
    ax.set_title("Pass rate per category")
    figs.append(_png(fig)); plt.close(fig)
    r = df.ppa_ratio.dropna()
    fig, ax = plt.subplots(figsize=(6, 3))
    if len(r):
        ax.hist(r.clip(upper=5), bins=20, color="#47a")
        ax.axvline(1.0, color="k", ls="--", lw=1)
    ax.set_xlabel("best PPA / reference PPA (lower is better)"); ax.set_ylabel("designs")
    ax.set_title(f"PPA ratio distribution (geomean {s['geomean_ppa_ratio'] or float('nan'):.3g})")
    figs.append(_png(fig)); plt.close(fig)
    rows = "".join(f"<tr><th>{k}</th><td>{v:.4g}</td></tr>" if isinstance(v, float) else
                   f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in {**meta, **s}.items())
    imgs = "".join(f'<img src="data:image/png;base64,{b}">' for b in figs)
    table = df.to_html(index=False, float_format=lambda x: f"{x:.4g}", na_rep="", classes="t")
    return (f"<!doctype html><meta charset=utf-8><title>rtl-agent regression</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:13px}"
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}img{margin:1em 1em 0 0}</style>"
            f"<h1>Regression: {meta['policy']} on {meta['suite']}</h1><table>{rows}</table>{imgs}"
            f"<h2>Per design</h2>{table}")
