"""`rtl-agent task init`: write a task folder for a design a team already has (designs/adhoc.py)."""
from pathlib import Path

from eda.pdk import DEFAULT_PDK, PDKS
from rtl_agent.commands import design_args


def register(sub):
    p = sub.add_parser("task", help="make a task folder from an existing design (task init)",
                       description="Write a task folder (task.yaml, spec.md, rtl/) for an existing design: it is the "
                       "reference, ports come from its parse, clock and reset are detected (or --clock/--reset); "
                       "candidates are judged by equivalence to it, after a generated testbench that compares them "
                       "with it on random inputs (tb_compare.v). Edit the folder, then run "
                       "`rtl-agent optimize DIR` or `rtl-agent cover DIR`.")
    s = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    i = s.add_parser("init", help="write the task folder")
    design_args.add(i, sources=True)
    i.add_argument("--top", default=None, help="top module (default: the one module no other instantiates)")
    i.add_argument("-o", "--out", required=True, metavar="DIR", help="task folder to write")
    i.add_argument("--clock", default=None, help="clock input (default: detected)")
    i.add_argument("--reset", default=None, help="reset input (default: detected)")
    i.add_argument("--pdk", default=DEFAULT_PDK, choices=sorted(PDKS),
                   help=f"the task's PDK (default {DEFAULT_PDK})")
    p.set_defaults(func=run)


def make(args, out: Path) -> Path:
    """The task folder for the design `args` names (sources and -f/-I/-D/-P), written to `out`."""
    from designs.adhoc import write_task
    texts = design_args.texts(args)
    files = [*args.sources, *(f"-f {f}" for f in args.filelists), *(f"-P {p}" for p in args.params),
             *(f"-D {d}" for d in args.defines)]
    return write_task(texts, args.top, out, getattr(args, "clock", None), getattr(args, "reset", None),
                      getattr(args, "pdk", None) or DEFAULT_PDK, origin=" ".join(map(str, files)))


def run(args) -> int:
    out = Path(args.out)
    if (out / "task.yaml").exists():
        raise ValueError(f"-o {out}: a task is already there (task.yaml); choose another folder")
    make(args, out)
    from designs import load_task
    t = load_task(out)              # read back: what optimize and cover will see
    print(f"wrote {out}/task.yaml: top {t.top}, {len(t.ports)} ports, clock {t.clock or 'none'}, "
          f"reset {t.reset or 'none'}; candidates are judged by equivalence to the design"
          + (f", after {t.testbenches[0].name} (random inputs, outputs compared)" if t.testbenches else ""))
    return 0


def add_design_task_args(p):
    """Options of optimize/cover for a design given as files instead of a task (their TASK takes the files)."""
    design_args.add(p)
    p.add_argument("--top", default=None, help="with design files: the top module (default: the one module no "
                   "other instantiates)")
    p.add_argument("--clock", default=None, help="with design files: the clock input (default: detected)")
    p.add_argument("--reset", default=None, help="with design files: the reset input (default: detected)")


def resolve(args) -> str | None:
    """args.task (a list: a task, or design files) as one task: design files (or -f/-P/...) are written as a task
    folder runs/tasks/<top> (the same folder on a resume) and its path returned."""
    from designs.adhoc import is_design_arg
    given = list(args.task or [])
    files = [a for a in given if is_design_arg(a)]
    if not files and not design_args.given(args):
        if len(given) > 1:
            raise ValueError(f"one TASK, got {len(given)}: {' '.join(given)} (design files end in .v or .sv)")
        if given and given[0].endswith((".v", ".sv")):
            raise ValueError(f"{given[0]}: no such design file")
        return given[0] if given else None
    other = [a for a in given if a not in files]
    if other:
        raise ValueError(f"{other[0]}: not a design file (.v/.sv) beside {files[0] if files else 'the -f list'}")
    args.sources = files
    top = design_args.check_top(design_args.texts(args), args.top)
    args.top = top
    return str(make(args, Path("runs") / "tasks" / top))
