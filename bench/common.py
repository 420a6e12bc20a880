"""Shared bits for benchmark scripts: tool versions, date, markdown tables."""
import csv
import datetime
import platform


from eda import tools
from rtl_agent.tables import md_table  # noqa: F401  (re-exported for bench scripts)


def header(title: str, extra: dict | None = None) -> str:
    lines = [f"# {title}", "", f"- date: {datetime.date.today().isoformat()}",
             f"- machine: {platform.machine()}, {_cores()} cores, Python {platform.python_version()}"]
    lines += [f"- {k}: {v}" for k, v in tools.versions().items()]
    lines += [f"- {k}: {v}" for k, v in (extra or {}).items()]
    return "\n".join(lines) + "\n"


def _cores():
    import os
    return os.cpu_count()


def write_rows(path, rows: list):
    """rows (dicts with the same keys) as CSV; rewritten whole after each run, so a partial benchmark
    still leaves a readable file."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def kept_reading(md) -> str:
    """A regenerated report keeps the hand-written reading of the one it replaces (from its heading on)."""
    try:
        text = md.read_text()
    except OSError:
        return ""
    i = text.find("\n## Reading")
    return "" if i < 0 else "\n" + text[i + 1:]


def write_with_reading(md, body: str):
    """body, then the kept reading after one blank line, so regenerating a report never moves it."""
    reading = kept_reading(md)
    md.write_text(body.rstrip("\n") + "\n" + ("\n" + reading.lstrip("\n") if reading else ""))
