"""cocotb testbench for counter8: reset > load > enable, wrap at 255, tc = en & (q == 255).
A Python model runs beside the design for 600 random cycles after the directed checks.

    rtl-agent eval designs/counter8/reference.v --top counter8 --tb designs/counter8/test_counter8.py
"""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value, dut.en.value, dut.load.value, dut.d.value = 1, 0, 0, 0
    await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)


async def step(dut, model, rst, en, load, d):
    """Drive inputs on the falling edge, check tc before and q after the rising edge."""
    dut.rst.value, dut.en.value, dut.load.value, dut.d.value = rst, en, load, d
    await RisingEdge(dut.clk)
    tc = int(dut.tc.value)
    assert tc == (en and model == 255), f"tc={tc} with en={en} q={model}"
    model = 0 if rst else d if load else (model + 1) & 0xFF if en else model
    await FallingEdge(dut.clk)
    q = int(dut.q.value)
    assert q == model, f"after rst={rst} en={en} load={load} d={d}: q={q}, expected {model}"
    return model


@cocotb.test()
async def directed(dut):
    await start(dut)
    assert int(dut.q.value) == 0, f"q={int(dut.q.value)} after reset, expected 0"
    m = 0
    m = await step(dut, m, 0, 0, 1, 250)           # load
    for _ in range(8):                              # count through the wrap
        m = await step(dut, m, 0, 1, 0, 0)
    m = await step(dut, m, 0, 1, 1, 7)              # load wins over enable
    m = await step(dut, m, 1, 1, 1, 9)              # reset wins over load
    m = await step(dut, m, 0, 0, 0, 3)              # hold


@cocotb.test()
async def random_cycles(dut):
    await start(dut)
    rng = random.Random(8)
    m = 0
    for _ in range(600):
        m = await step(dut, m, int(rng.random() < 0.03), int(rng.random() < 0.8), int(rng.random() < 0.05),
                       rng.choice([0xFE, 0xFF, rng.getrandbits(8)]))
