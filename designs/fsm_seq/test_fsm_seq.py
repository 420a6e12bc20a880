"""cocotb testbench for fsm_seq: overlapping "1011" detector (Moore), synchronous active-low reset.
A Python model of the last four samples since reset runs beside the design.

    rtl-agent eval designs/fsm_seq/reference.v --top fsm_seq --tb designs/fsm_seq/test_fsm_seq.py
"""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge


class Model:
    def __init__(self):
        self.hist = []

    def edge(self, rst_n, din):
        self.hist = (self.hist + [din])[-4:] if rst_n else []
        return int(self.hist == [1, 0, 1, 1])


async def run(dut, stream):
    """stream: (rst_n, din) per cycle; checks det after every edge."""
    m = Model()
    for i, (rst_n, din) in enumerate(stream):
        dut.rst_n.value, dut.din.value = rst_n, din
        await RisingEdge(dut.clk)
        want = m.edge(rst_n, din)
        await FallingEdge(dut.clk)
        got = int(dut.det.value)
        assert got == want, f"cycle {i} (rst_n={rst_n}, din={din}, last samples {m.hist}): det={got}, expected {want}"


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst_n.value, dut.din.value = 0, 0
    await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)


@cocotb.test()
async def overlapping(dut):
    await start(dut)
    await run(dut, [(1, b) for b in (1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1)])


@cocotb.test()
async def reset_clears_history(dut):
    await start(dut)
    await run(dut, [(1, 1), (1, 0), (1, 1), (0, 1), (1, 1), (1, 0), (1, 1), (1, 1)])


@cocotb.test()
async def random_stream(dut):
    await start(dut)
    rng = random.Random(1011)
    await run(dut, [(int(rng.random() > 0.02), rng.getrandbits(1)) for _ in range(800)])
