"""cocotb testbench for adder16: {cout, sum} = a + b + cin, corner cases then random vectors.

    rtl-agent eval designs/adder16/reference.v --top adder16 --tb designs/adder16/test_adder16.py
"""
import random

import cocotb
from cocotb.triggers import Timer


async def check(dut, a, b, cin):
    dut.a.value, dut.b.value, dut.cin.value = a, b, cin
    await Timer(1, unit="ns")
    want = a + b + cin
    got = (int(dut.cout.value) << 16) | int(dut.sum.value)
    assert got == want, f"a={a:#06x} b={b:#06x} cin={cin}: got cout,sum={got:#07x}, expected {want:#07x}"


@cocotb.test()
async def corners(dut):
    for a, b, cin in [(0, 0, 0), (0xFFFF, 1, 0), (0xFFFF, 0, 1), (0xFFFF, 0xFFFF, 1), (0x8000, 0x8000, 0),
                      (0x00FF, 0x0001, 0), (0x0F0F, 0xF0F0, 1)]:
        await check(dut, a, b, cin)


@cocotb.test()
async def random_vectors(dut):
    rng = random.Random(16)
    for _ in range(500):
        await check(dut, rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(1))
