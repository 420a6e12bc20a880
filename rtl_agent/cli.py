"""`rtl-agent`: one entry point; each subcommand lives in rtl_agent/commands/<name>.py.

A command module defines `register(sub)` that adds its parser and sets `func=run`.
"""
import os

# OpenMP threads that spin while waiting make torch 10-50x slower on a loaded 2-core machine (one forward
# of the 135M model: 9.7 s spinning vs 0.2 s passive). Must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse  # noqa: E402
import importlib
import signal
import sys

COMMANDS = ["eval", "equiv", "pdk", "regress", "optimize", "cover", "sft", "task", "fit_costs"]

EPILOG = """examples:
  rtl-agent eval adder.v --top adder --pdk nangate45 --tb tb.v      score one design
  rtl-agent regress --suite rtllm --policy reference                 RTLLM v2.0 regression
  rtl-agent optimize designs/adder16                                 test-time RL on one design
  rtl-agent cover designs/fifo --target line=95,branch=90            coverage closure
  rtl-agent sft --data ../shared/corpus --out runs/sft/verilog          supervised LoRA warm start
"""


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="rtl-agent", description="Hardware-design agent that learns from EDA feedback.",
                                 epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-isolation", action="store_true",
                    help="run EDA tools without the bubblewrap sandbox (unsafe; also RTL_AGENT_ISOLATION=off); "
                         "accepted anywhere on the command line, and every report says isolation=off")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"rtl_agent.commands.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"rtl_agent.commands.{name}":
                continue  # command not built yet
            raise
        mod.register(sub)
    return ap


def main(argv=None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # `rtl-agent ... | head` ends quietly
    from eda.sandbox import check_isolation, set_isolation
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--no-isolation" in argv:            # a global flag, wherever it is written
        argv = [a for a in argv if a != "--no-isolation"]
        set_isolation("off")
    ap = build_parser()
    args = ap.parse_args(argv)
    if not getattr(args, "func", None):
        ap.print_help()
        return 2
    try:
        if args.command != "pdk":
            check_isolation()               # no bwrap / no namespaces: say so before any work
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted; the run folder keeps what finished (re-run with the same command to resume)", file=sys.stderr)
        return 130
    except (FileNotFoundError, RuntimeError, ValueError) as e:
        print(f"rtl-agent: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
