"""Kind `datapath` (e-graph rewriting): real parser, real egglog, real flow (Yosys equivalence + synthesis)."""
import os
import subprocess
import sys
import time

import pytest

from eda.flow import FlowJob, evaluate
from rtl_agent import transforms as T
from rtl_agent.transforms.datapath import egraph
from rtl_agent.transforms.datapath import agrees
from rtl_agent.transforms.datapath.sites import sites

# two adders whose results are mutually exclusive under the select: one adder with muxed operands suffices
SHARED = """// two sums, one chosen
module sel_add (
    input  [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d,
    input        s,
    output reg [7:0] y
);
    always @* begin
        if (s) y = a + b;   // first pair
        else   y = c + d;
    end
endmodule
"""

# both sums reach the output in one cycle: sharing one adder between them would be wrong
BOTH = """module both_add (
    input  [7:0] a, input [7:0] b, input [7:0] c, input [7:0] d,
    input        s,
    output [7:0] y
);
    wire [7:0] p = a + b;
    wire [7:0] q = c + d;
    assign y = s ? (p ^ q) : (p & q);
endmodule
"""


def _job(top, ref):
    return FlowJob(top=top, stages=("equiv", "synth", "sta"), clock=None, ref={f"{top}_ref.v": ref})


def test_shared_adder_found_proven_and_smaller():
    d = T.Design(SHARED, "sel_add")
    t0 = time.monotonic()
    opts = T.options(d, ["datapath"])
    assert time.monotonic() - t0 < 10
    area = [o for o in opts if o.params["mode"] == "area"]
    assert area, [o.label for o in opts]
    assert "1 add" in area[0].label and "was 2 add" in area[0].label
    new = T.apply(d, area[0])
    assert "// two sums, one chosen" in new and "// first pair" not in new
    assert new.count("+") == 1
    job = _job("sel_add", SHARED)
    ref, cand = evaluate(job.replace(ref={}), {"sel_add.v": SHARED}), evaluate(job, {"sel_add.v": new})
    assert cand.equiv_status == "proven", cand.failure_reason
    assert cand.area_um2 < ref.area_um2


def test_not_mutually_exclusive_is_not_shared():
    d = T.Design(BOTH, "both_add")
    opts = T.options(d, ["datapath"])
    for o in opts:       # whatever is offered keeps two adders, and the flow proves it
        new = T.apply(d, o)
        assert new.count("+") >= 2
        assert evaluate(_job("both_add", BOTH), {"both_add.v": new}).equiv_status == "proven"
    # the rule that would share them does not fire: every extracted form keeps both sums
    found, _ = sites(T.Design(BOTH, "both_add").parsed())
    r = egraph.saturate(found[-1].roots)
    from rtl_agent.transforms.datapath.costs import Model
    best = egraph.extract(r, Model("nangate45", "area"))
    assert sum(1 for n in __import__("rtl_agent.transforms.datapath.ir", fromlist=["nodes"]).nodes(best)
               if n[0] in ("add", "addsub")) == 2


def test_wrong_sharing_is_rejected_by_the_flow():
    # the unsound rewrite written by hand: one adder over muxed operands, used for both results
    wrong = BOTH.replace("wire [7:0] p = a + b;\n    wire [7:0] q = c + d;",
                         "wire [7:0] p = (s ? a : c) + (s ? b : d);\n    wire [7:0] q = p;")
    rep = evaluate(_job("both_add", BOTH), {"both_add.v": wrong})
    assert rep.equiv_status != "proven"


def test_width_guard_blocks_reassociation():
    eight = ("var", 8, "a"), ("var", 8, "b"), ("var", 8, "c")
    a4, b4 = ("slice", 4, eight[0], 0), ("slice", 4, eight[1], 0)
    inner4 = ("zext", 8, ("add", 4, a4, b4))          # the inner sum truncates to 4 bits
    truncating = ("add", 8, ("add", 4, eight[0], eight[1]), eight[2])
    full = ("add", 8, ("add", 8, eight[0], eight[1]), eight[2])
    for root, movable in ((truncating, False), (full, True), (("add", 8, inner4, eight[2]), False)):
        r = egraph.saturate([root], algebra=True)
        moved = egraph.Add(8, egraph.Var("a", 8), egraph.Add(8, egraph.Var("b", 8), egraph.Var("c", 8)))
        r.egraph.register(moved)
        same = r.egraph.check_bool(egraph.eq(r.roots[0]).to(moved))
        assert same == movable, root


def test_random_screen_tells_terms_apart():
    a, b = ("var", 8, "a"), ("var", 8, "b")
    assert agrees([("add", 8, a, b)], [("add", 8, b, a)])
    assert not agrees([("add", 8, a, b)], [("sub", 8, a, b)])


def test_no_site_is_fast_and_empty():
    seq = "module r(input clk, input [3:0] d, output reg [3:0] q);\n always @(posedge clk) q <= d;\nendmodule\n"
    t0 = time.monotonic()
    assert T.options(T.Design(seq, "r"), ["datapath"]) == []
    assert time.monotonic() - t0 < 2


def test_parse_error_raises():
    assert "datapath" in T.kinds()
    with pytest.raises(T.ParseError):
        T.REGISTRY["datapath"].options(T.Design("module x(; endmodule", "x"))
    assert T.options(T.Design("module x(; endmodule", "x"), ["datapath"]) == []    # the registry catches it


CHAIN = """module chain (input [7:0] a, b, c, d, e, f, g, h, output [7:0] y, output [7:0] m);
    assign y = a + b + c + d + e + f + g + h;
    wire [7:0] m1 = (a > b) ? a : b;
    wire [7:0] m2 = (m1 > c) ? m1 : c;
    assign m = (m2 > d) ? m2 : d;
endmodule
"""


def test_chains_rebalanced_and_proven():
    d = T.Design(CHAIN, "chain")
    opts = {o.site.split(" (")[0]: o for o in T.options(d, ["datapath"]) if o.params["mode"] == "delay"}
    assert "assign y" in opts and "assign m" in opts, list(opts)
    y = T.apply(d, opts["assign y"])
    assert "((a + b) + (c + d)) + ((e + f) + (g + h))" in y.replace("\n", " ")
    m = T.apply(d, opts["assign m"])
    assert "wire [7:0] m1" not in m and "wire [7:0] m2" not in m     # the chain's wires went with it
    for new in (y, m):
        assert evaluate(_job("chain", CHAIN), {"chain.v": new}).equiv_status == "proven"


def test_shared_alu_task_option_proven_better():
    from designs import load_task
    task = load_task("shared_alu")
    code = "\n".join(task.reference_sources().values())
    d = T.Design(code, task.top, pdk=task.pdk)
    area = [o for o in T.options(d, ["datapath"]) if o.params["mode"] == "area"]
    assert area and "addsub" in area[0].label
    job = task.flow_job().replace(stages=("equiv", "synth", "sta"))
    ref = evaluate(job.replace(ref={}), {"shared_alu.v": code})
    rep = evaluate(job, {"shared_alu.v": T.apply(d, area[0])})
    assert rep.equiv_status == "proven" and rep.area_um2 < 0.8 * ref.area_um2


def test_rules_keep_meaning_on_mixed_widths():
    """Every extracted form equals its original on random inputs (the rules' guards, not the screen, keep it)."""
    from rtl_agent.transforms.datapath.costs import Model
    a9, b9, c8, d8 = ("var", 9, "a"), ("var", 9, "b"), ("var", 8, "c"), ("var", 8, "d")
    s = ("var", 1, "s")
    max9 = ("mux", 9, ("lt", 1, a9, b9), b9, a9)
    terms = [
        ("mux", 8, ("lt", 1, ("slice", 8, max9, 0), c8), c8, ("slice", 8, max9, 0)),   # max of a truncated max
        ("mux", 8, s, ("add", 9, a9, b9), ("sub", 8, c8, d8)),                          # add/sub of two widths
        ("mux", 9, s, ("concat", 9, ("var", 1, "h"), c8), ("concat", 9, ("var", 1, "g"), d8)),
        ("add", 8, ("zext", 8, ("add", 4, ("slice", 4, c8, 0), ("slice", 4, d8, 0))), c8),
        ("mux", 1, s, ("lt", 1, a9, ("zext", 9, c8)), ("lt", 1, b9, ("zext", 9, d8))),
        ("mux", 8, s, ("mul", 8, c8, ("const", 8, 4)), ("shl", 8, d8, ("const", 3, 2))),
    ]
    for t in terms:
        r = egraph.saturate([t], node_cap=3000)
        for mode in ("area", "delay"):
            try:
                best = egraph.extract(r, Model("nangate45", mode))
            except ValueError:
                continue
            assert agrees([t], best, trials=512), (t, best)


def test_signed_shift_printed_in_its_own_wire():
    """`$signed(x) >>> k` inline beside an unsigned arm would shift logically (found by the flow on RTLLM alu)."""
    from rtl_agent.transforms.datapath.ir import Printer
    x, b, k, s = ("var", 8, "x"), ("var", 8, "b"), ("var", 3, "k"), ("var", 1, "s")
    decls, (expr,) = Printer("n", set()).lines([("mux", 8, s, ("sra", 8, x, k), ("shr", 8, b, k))])
    body = "\n".join("    " + line for line in decls)
    cand = (f"module sh(input [7:0] x, input [7:0] b, input [2:0] k, input s, output [7:0] y);\n{body}\n"
            f"    assign y = {expr};\nendmodule\n")
    ref = ("module sh(input [7:0] x, input [7:0] b, input [2:0] k, input s, output [7:0] y);\n"
           "    wire signed [7:0] xs = x;\n    wire [7:0] t = xs >>> k;\n    assign y = s ? t : (b >> k);\nendmodule\n")
    assert ">>>" in body and ">>>" not in expr
    assert evaluate(_job("sh", ref), {"sh.v": cand}).equiv_status == "proven"


MAXES = """module mx (input [7:0] a, b, c, d, output [7:0] m);
    wire [7:0] m1 = (a > b) ? a : b;
    wire [7:0] m2 = (m1 > c) ? m1 : c;
    assign m = (m2 > d) ? m2 : d;
endmodule
"""


def _menu(d):
    """What the kind offers on d (site, mode, extracted terms, their costs) and the e-graph work behind each
    (iterations, e-nodes, why it stopped): options() labels these candidates."""
    return [(c[0].label, c[1], c[2], c[3], c[4], c[5].iterations, c[5].nodes, c[5].stopped)
            for c in T.REGISTRY["datapath"].candidates(d)]


def test_menu_is_the_same_under_cpu_load():
    """The e-graph stops on work caps, not wall time: busy loops on every core change nothing (under the former
    0.8 s cap an idle machine offered this chain of maxes delay-first, a loaded one, 10 runnable on 2 cores,
    offered nothing)."""
    d = T.Design(MAXES, "mx")
    quiet = _menu(d)
    assert quiet and quiet[0][-1] == "saturated", quiet
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range((os.cpu_count() or 2) + 1)]
    try:
        time.sleep(0.3)
        loaded = _menu(d)
        assert all(p.poll() is None for p in busy)         # the load lasted the whole computation
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert loaded == quiet


@pytest.mark.requires("yosys", "sta")
def test_fit_costs_command_measures_named_entries_and_keeps_the_rest(tmp_path, capsys):
    import json

    from rtl_agent.cli import main
    out = tmp_path / "costs.json"
    out.write_text(json.dumps({"pdks": {"nangate45": {"mul": {"8": [1.0, 0.1]}}}}))
    assert main(["fit-costs", "--pdks", "nangate45", "--widths", "4", "--ops", "add", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    area, delay = data["pdks"]["nangate45"]["add"]["4"]
    assert area > 0 and delay > 0
    assert data["pdks"]["nangate45"]["mul"] == {"8": [1.0, 0.1]}          # not named: kept
    assert data["how"]["command"] == "rtl-agent fit-costs" and data["how"]["ops"] == ["add"]
    assert main(["fit-costs", "--ops", "add,div", "--out", str(out)]) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()                  # one line, naming what is wrong
    assert err.startswith("rtl-agent: error: fit-costs: unknown div (PDKs: nangate45")
