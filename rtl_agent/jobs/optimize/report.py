"""report.html of an optimize run: plots (PNG, embedded) and tables, from the run store's rows."""
from __future__ import annotations

import base64
import html
import io
import json


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _series(steps, key):
    xs, ys = [], []
    for s in steps:
        v = s["stats"].get("metrics", {}).get(key)
        if v is not None:
            xs.append(s["step"])
            ys.append(v)
    return xs, ys


def plots(steps, cands) -> dict:
    """name -> base64 PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out = {}
    fig, ax = plt.subplots(figsize=(5, 3))
    xs, ys = _series(steps, "best_ratio")
    ax.step(xs, ys, where="post", marker="o")
    ax.axhline(1.0, color="grey", ls="--", lw=1, label="reference")
    ax.set(xlabel="step", ylabel="PPA_ref / PPA_best", title="best verified design")
    ax.legend()
    out["best"] = _png(fig)

    fig, ax = plt.subplots(figsize=(5, 3))
    by = {}
    for c in cands:
        if c["step"] > 0 and c["reward"] is not None:
            by.setdefault(c["step"], []).append(c["reward"])
    if by:
        ks = sorted(by)
        ax.boxplot([by[k] for k in ks], positions=ks, widths=0.5)
        for k in ks:
            ax.scatter([k] * len(by[k]), by[k], s=10, alpha=0.5)
    ax.set(xlabel="step", ylabel="reward", title="reward per candidate")
    out["rewards"] = _png(fig)

    fig, ax = plt.subplots(figsize=(5, 3))
    xs, ys = _series([s for s in steps if s["step"] > 0], "valid_rate")
    ax.plot(xs, ys, marker="o")
    ax.set(xlabel="step", ylabel="valid fraction", ylim=(-0.05, 1.05), title="verified candidates")
    out["valid"] = _png(fig)

    fig, axs = plt.subplots(2, 2, figsize=(8, 5))
    real = [s for s in steps if s["step"] > 0]
    for ax, (key, label) in zip(axs.flat, [("eps", "eps (KL budget)"), ("beta", "beta (mean)"),
                                           ("ref_kl", "ref-KL (k3, nats/token)"), ("ess_frac", "ESS / G")]):
        xs, ys = _series(real, key)
        ax.plot(xs, ys, marker="o")
        ax.set(title=label, xlabel="step")
    fig.tight_layout()
    out["control"] = _png(fig)
    return out


def _f(x, spec=".4g"):
    return "-" if x is None else (format(x, spec) if isinstance(x, (int, float)) else html.escape(str(x)))


def trained_text(m: dict) -> str:
    """'trained/groups (why the others did not)' for one step's metrics."""
    if m.get("groups") is None:
        return ""
    why = ", ".join(f"{n} {w}" for w, n in (m.get("skipped") or {}).items())
    return f"{m.get('trained_groups')}/{m['groups']}" + (f" ({why})" if why else "")


def drift_text(d) -> str:
    """One line per trained choice group; 'unmoved' where the update left its probabilities as they were."""
    return "; ".join(("unmoved" if g["tv"] < 1e-4 else f"TV {g['tv']:.3f}") +
                     f", {g['p_rewarded_before']:.2f} -> {g['p_rewarded_after']:.2f}" for g in d or ())


def training_summary(steps: list) -> dict:
    """Over a run's steps: groups sampled and trained, why the others were not, and over the trained choice
    groups the mean probability of the options that earned more than their group's mean, before and after, and
    its mean change (dp_rewarded)."""
    ms = [s["stats"].get("metrics", {}) for s in steps]
    why = {}
    for m in ms:
        for w, n in (m.get("skipped") or {}).items():
            why[w] = why.get(w, 0) + n
    drift = [g for m in ms for g in m.get("choice_drift") or ()]
    mean = (lambda k: round(sum(g[k] for g in drift) / len(drift), 4)) if drift else (lambda k: None)
    return {"groups": sum(m.get("groups") or 0 for m in ms), "trained": sum(m.get("trained_groups") or 0 for m in ms),
            "skipped": why, "choice_groups": len(drift), "raised": sum(g["p_rewarded_after"] > g["p_rewarded_before"]
                                                                       for g in drift),
            "p_rewarded_before": mean("p_rewarded_before"), "p_rewarded_after": mean("p_rewarded_after"),
            "tv": mean("tv"), "dp_rewarded": sum(g["p_rewarded_after"] - g["p_rewarded_before"] for g in drift)
            / len(drift) if drift else None}


def training_line(t: dict, train: bool) -> str:
    if not train:
        return "test-time training: off (--no-train): a frozen policy searched"
    why = ", ".join(f"{n} {w}" for w, n in t["skipped"].items())
    out = f"test-time training: {t['trained']} of {t['groups']} groups trained" + (f" (not: {why})" if why else "")
    if t["choice_groups"]:
        out += (f"; the update raised the probability of the options that earned reward in {t['raised']} of "
                f"{t['choice_groups']} trained choice groups, {t['p_rewarded_before']:.2f} -> "
                f"{t['p_rewarded_after']:.2f} on average (total variation {t['tv']:.3f} a step)")
    return out


def _routed_html(r: dict | None) -> str:
    if not r:
        return ""
    if r.get("ratio") is None:
        return f"<h2>After place and route</h2><p>not measured: {html.escape(str(r.get('why')))}</p>"
    img = f'<br><img src="{r["layout"]}" style="max-width:100%">' if r.get("layout") else ""
    return (f"<h2>After place and route</h2><p>{_f(r['synth_ratio'], '.3f')}x after synthesis, "
            f"<b>{_f(r['ratio'], '.3f')}x</b> after place and route on {html.escape(str(r.get('pdk')))} (OpenROAD; "
            f"routed wirelength {_f(r['design']['wirelength_um'])} um against the reference's "
            f"{_f(r['ref']['wirelength_um'])} um, DRC {r['design']['drc']})</p>{img}")


def render_html(steps, cands, decisions, best, config, routed: dict | None = None) -> str:
    imgs = plots(steps, cands)
    rows = []
    for s in steps:
        m = s["stats"].get("metrics", {})
        sec = (m.get("seconds") or {}).get("total")
        rows.append("<tr>" + "".join(f"<td>{_f(v)}</td>" for v in (
            s["step"], m.get("n"), m.get("valid_rate"), m.get("distinct"), m.get("reward_mean"), m.get("reward_max"),
            m.get("best_ratio"), m.get("eps"), m.get("beta"), m.get("ref_kl"), m.get("ess_frac"), m.get("pool_size"),
            sec, trained_text(m), drift_text(m.get("choice_drift")))) + "</tr>")
    dec = "".join(f"<tr><td>{d.get('step')}</td><td>{_f(d.get('eps_old'))}</td><td>{_f(d.get('eps_new'))}</td>"
                  f"<td>{html.escape(str(d.get('cause')))}</td></tr>" for d in decisions)
    fails = {}
    for c in cands:
        if c["step"] > 0:
            k = c["failed"] or "pass"
            fails[k] = fails.get(k, 0) + 1
    fail_rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{v}</td></tr>" for k, v in sorted(fails.items()))
    head = ("step", "candidates", "valid rate", "distinct", "reward mean", "reward max", "best PPA ratio", "eps",
            "beta", "ref-KL", "ESS/G", "pool", "seconds", "groups trained (why not)",
            "choice drift: TV; P(rewarded options) before -> after")
    task = html.escape(str((config or {}).get("task", "")))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>rtl-agent optimize: {task}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:auto}} table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 6px;font-size:13px}} pre{{background:#f4f4f4;padding:8px;overflow:auto}}</style>
</head><body><h1>rtl-agent optimize: {task}</h1>
<p>Best verified design: {html.escape(best.get('source', ''))} from step {best.get('step')},
PPA {_f(best.get('ppa'))} um2*ns*W, PPA_ref / PPA_best = <b>{_f(best.get('ratio'))}</b>.
The reference is the floor: the best design never gets worse across steps.</p>
<img src="data:image/png;base64,{imgs['best']}"> <img src="data:image/png;base64,{imgs['valid']}">
<img src="data:image/png;base64,{imgs['rewards']}"><br><img src="data:image/png;base64,{imgs['control']}">
<h2>Steps</h2><table><tr>{''.join(f'<th>{h}</th>' for h in head)}</tr>{''.join(rows)}</table>
<h2>Outcomes of all candidates</h2><table><tr><th>first failed stage</th><th>count</th></tr>{fail_rows}</table>
<h2>KL-controller decisions</h2><table><tr><th>step</th><th>eps before</th><th>eps after</th><th>cause</th></tr>{dec}</table>
{_routed_html(routed)}
<h2>Best design</h2><pre>{html.escape(best.get('code') or '')}</pre>
<h2>Run settings</h2><pre>{html.escape(json.dumps(config, indent=1))}</pre>
</body></html>
"""
