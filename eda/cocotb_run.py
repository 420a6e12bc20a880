"""Subprocess entry point that drives cocotb's runner; never imported by the flow itself.

The sim stage (eda.cocotb_sim) starts it through `eda.sandbox.run` in the simulation's work dir,
once to build and once to test, so both steps get the sandbox and the limits of every simulation:

    python -m eda.cocotb_run build --sim icarus --top adder16 [--timescale 1ns/1ps] --src a.v b.v
    python -m eda.cocotb_run test  --sim icarus --top adder16 --module test_adder16 --results results.xml

`test` does not judge: cocotb writes its xUnit results file and the parent reads it.
"""
import argparse
import os
import sys
from pathlib import Path

BUILD_ARGS = {"icarus": [], "verilator": ["-Wno-fatal", "-Wno-lint", "-Wno-style"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eda.cocotb_run")
    ap.add_argument("step", choices=("build", "test"))
    ap.add_argument("--sim", required=True, choices=sorted(BUILD_ARGS))
    ap.add_argument("--top", required=True, help="HDL toplevel (the design under test)")
    ap.add_argument("--module", default=None, help="test: the Python test module (in the work dir)")
    ap.add_argument("--build-dir", default="sim_build")
    ap.add_argument("--results", default="results.xml")
    ap.add_argument("--timescale", default="1ns/1ps", help="unit/precision")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--src", nargs="+", default=[], dest="sources", help="build: HDL files (in the work dir)")
    ap.add_argument("--coverage", action="store_true", help="build: Verilator line/toggle/expr/user coverage "
                    "(the test then writes coverage.dat; eda.coverage.cocotb_coverage_run)")
    a = ap.parse_args(argv)
    wd = Path.cwd()
    sys.path.insert(0, str(wd))                 # the test module lives in the work dir
    os.environ.setdefault("COCOTB_ANSI_OUTPUT", "0")
    from cocotb_tools.runner import get_runner

    from eda.tools import VERILATOR
    runner = get_runner(a.sim)
    ts = tuple(a.timescale.split("/", 1)) if a.timescale else None
    bdir = wd / a.build_dir
    try:
        if a.step == "build":
            runner.build(sources=[wd / s for s in a.sources], hdl_toplevel=a.top, build_dir=bdir,
                         build_args=BUILD_ARGS[a.sim] + (list(VERILATOR.COVERAGE) if a.coverage else []),
                         timescale=ts, always=True)
        else:
            # a fresh runner: the language is given (build() would have inferred it from the sources)
            runner.test(test_module=a.module, hdl_toplevel=a.top, hdl_toplevel_lang="verilog", build_dir=bdir,
                        test_dir=wd, results_xml=str(wd / a.results), timescale=ts, seed=a.seed)
    except SystemExit as e:        # the runner exits with the simulator's status; results decide
        return e.code if isinstance(e.code, int) else 1
    except Exception as e:  # noqa: BLE001 - reported to the parent through the log
        print(f"cocotb_run: {a.step} failed: {e.__class__.__name__}: {e}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
