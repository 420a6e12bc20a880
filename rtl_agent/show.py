"""Terminal rendering shared by the commands."""
from rich.console import Console
from rich.table import Table

from eda import stages

STYLE = {"pass": "green", "skipped": "dim", "fail": "red", "rejected": "red", "error": "red", "timeout": "yellow"}


def status_style(s: str) -> str:
    if s.startswith(("proven", "bounded", "cosim")):
        return "green"
    return STYLE.get(s.split("(")[0], "red")


def fmt(x, spec=".4g"):
    return "-" if x is None else format(x, spec)


def print_report(rep, console: Console | None = None):
    c = console or Console()
    t = Table(title=f"{rep.top} on {rep.pdk}" + (" (cached)" if rep.cached else ""))
    for col in ("stage", "status", "time s", "tool", "details"):
        t.add_column(col)
    for name, st in rep.stages.items():
        row = stages.BY_NAME.get(name)
        det = row.details(st.data) if row else ""
        if st.diagnostics:
            det = (det + "; " if det else "") + "; ".join(str(x) for x in st.diagnostics[:2])
        t.add_row(name, f"[{status_style(st.status)}]{st.status}[/]", f"{st.seconds:.2f}", st.tool, det[:240])
    c.print(t)
    c.print(f"status [{status_style(rep.status)}]{rep.status}[/]  area {fmt(rep.area_um2)} um2  "
            f"delay {fmt(rep.delay_ns)} ns  power {fmt(rep.power_w)} W  PPA {fmt(rep.ppa)} um2*ns*W")
    syn = rep.stages.get("synth")
    if syn and syn.data.get("memory_bits_not_in_ppa"):
        c.print(f"[yellow]PPA without a memory of {syn.data['memory_bits_not_in_ppa']} bits (a black box: no memory "
                "model)[/]")
