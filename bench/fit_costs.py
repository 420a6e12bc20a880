"""The datapath e-graph's cost table is fitted by the product command `rtl-agent fit-costs` (see its --help);
this name stays for the commands written down before it moved.

    .venv/bin/python -m bench.fit_costs [--pdks nangate45,sky130hd] [--widths 1,2,4,8,16,32] [--ops add,...]
"""
import sys

from rtl_agent.cli import main

if __name__ == "__main__":
    sys.exit(main(["fit-costs", *sys.argv[1:]]))
