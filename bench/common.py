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


def write_with_reading(md, body: str):
    """body, then the hand-written reading of the report it replaces (from its `## Reading` heading on)
    after one blank line, so regenerating a report never loses or moves it."""
    try:
        text = md.read_text()
    except OSError:
        text = ""
    i = text.find("\n## Reading")
    md.write_text(body.rstrip("\n") + "\n" + ("\n" + text[i + 1:] if i >= 0 else ""))
