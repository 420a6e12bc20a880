"""The design options every command that takes a design shares, as EDA tools take them: sources, `-f files.f`,
`-I DIR`, `-D NAME[=VALUE]`, `-P NAME=VALUE` (top parameters); read by eda.design_inputs.gather."""
from eda.design_inputs import check_top, gather  # noqa: F401 - check_top: for the commands


def add(p, sources: bool = False):
    """Add the options (and, with `sources`, the positional source files) to parser `p`."""
    if sources:
        p.add_argument("sources", nargs="*", help="Verilog/SystemVerilog files of the design (.v, .sv)")
    p.add_argument("-f", dest="filelists", action="append", default=[], metavar="FILES.f",
                   help="file list (Verilator/Icarus style: sources, +incdir+DIR, +define+N=V, -I, -D, nested -f)")
    p.add_argument("-I", dest="incdirs", action="append", default=[], metavar="DIR", help="include folder")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]", help="define a macro")
    p.add_argument("-P", dest="params", action="append", default=[], metavar="NAME=VALUE",
                   help="set a parameter of the top module (its default in the source is replaced)")


def given(args) -> bool:
    """Any design option given (beyond plain sources)."""
    return bool(args.filelists or args.incdirs or args.defines or args.params)


def texts(args, sources=None, top: str | None = None) -> dict:
    """name -> text of the design `args` names (`sources`: other files than args.sources, e.g. --ref)."""
    return gather(args.sources if sources is None else sources, args.filelists, args.incdirs, args.defines,
                  args.params, top if top is not None else getattr(args, "top", None))
