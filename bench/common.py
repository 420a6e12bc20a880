"""Shared bits for benchmark scripts: tool versions, date, markdown tables."""
import datetime
import platform

import pandas as pd

from eda import tools


def header(title: str, extra: dict | None = None) -> str:
    lines = [f"# {title}", "", f"- date: {datetime.date.today().isoformat()}",
             f"- machine: {platform.machine()}, {_cores()} cores, Python {platform.python_version()}"]
    lines += [f"- {k}: {v}" for k, v in tools.versions().items()]
    lines += [f"- {k}: {v}" for k, v in (extra or {}).items()]
    return "\n".join(lines) + "\n"


def _cores():
    import os
    return os.cpu_count()


def md_table(df: pd.DataFrame, floatfmt=".4g") -> str:
    cols = list(df.columns)
    out = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        cells = []
        for c in cols:
            v = row[c]
            if isinstance(v, float):
                cells.append("" if pd.isna(v) else format(v, floatfmt))
            else:
                cells.append(str(v).replace("|", "/").replace("\n", " "))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
