"""The evaluation stages, in the order a candidate goes through them (the one list every
consumer derives from: the flow, the regression's fail_<stage> columns, the optimizer's penalties).

    screen     refuse unsafe or malformed sources before any tool runs
    lint       Icarus, then Verilator --lint-only
    sim        the task's self-checking testbench
    interface  same ports as the reference (runs as part of equiv)
    equiv      formal equivalence / bounded check / co-simulation against the reference
    synth      Yosys to the PDK's cells: area
    sta        OpenSTA: delay, power
"""
STAGES = ("screen", "lint", "sim", "interface", "equiv", "synth", "sta")
FRONT = STAGES[:5]      # depend on the testbench and the reference, not the PDK
BACK = STAGES[5:]       # depend on the PDK and the clock
RUN_WITH = {"interface": "equiv"}   # stages that run as part of another and cannot be asked for alone
