"""Stimulus programs (eda.stim_programs) and their choice in cover (rtl_agent.jobs.cover.programs): ports
recognised, one real Verilator build running every option, a program reaching what random misses, choosers
deterministic per seed, and the cover job running programs as its model phase."""
import pytest

from eda import coverage as cov
from eda import stim_programs as sp
from eda.ports import Port
from eda.random_stim import seeded_stimulus
from eda.stim_programs.constants import dictionary
from rtl_agent.jobs.cover import programs as P

# a valid/ready register with a 16-bit magic word: random data meets it once in 65536 beats
MAGIC = """module vr_magic(input clk, input rst, input [15:0] s_data, input s_valid, output s_ready, input s_last,
                output reg [15:0] m_data, output reg m_valid, input m_ready, output reg hit);
  assign s_ready = !m_valid || m_ready;
  always @(posedge clk) begin
    if (rst) begin
      m_valid <= 1'b0;
      hit <= 1'b0;
    end else begin
      if (m_valid && m_ready) m_valid <= 1'b0;
      if (s_valid && s_ready) begin
        m_valid <= 1'b1;
        m_data <= s_data;
        if (s_data[7:0] == 8'hA5 && s_data[15:8] == 8'h3C)
          hit <= 1'b1;
      end
    end
  end
endmodule
"""


def _ports(spec):
    return [Port(n, d, w) for n, d, w in spec]


def test_recognise_streams_axil_and_others():
    ports = _ports([("clk", "input", 1), ("rst", "input", 1), ("s_axis_tdata", "input", 16),
                    ("s_axis_tkeep", "input", 2), ("s_axis_tvalid", "input", 2), ("s_axis_tready", "output", 2),
                    ("s_axis_tlast", "input", 2), ("m_axis_tvalid", "output", 1), ("m_axis_tready", "input", 1),
                    ("m_axis_tdata", "output", 8), ("s_axil_awaddr", "input", 4), ("s_axil_awvalid", "input", 1),
                    ("s_axil_awready", "output", 1), ("s_axil_wdata", "input", 8), ("s_axil_wvalid", "input", 1),
                    ("s_axil_wready", "output", 1), ("s_axil_arvalid", "input", 1), ("s_axil_araddr", "input", 4),
                    ("s_axil_bvalid", "output", 1), ("s_axil_bready", "input", 1), ("rate", "input", 8)])
    ifc = sp.recognise(ports, "clk", "rst")
    src = {s.prefix: s for s in ifc.sources}
    assert src["s_axis_t"].lanes == 2 and src["s_axis_t"].last == ("s_axis_tlast", 2)
    assert src["s_axis_t"].keep == ("s_axis_tkeep", 2)
    assert ("s_axil_awaddr", 4) in src["s_axil_aw"].fields and ("s_axil_awaddr", 4) not in src["s_axil_w"].fields
    assert {s.prefix for s in ifc.sinks} == {"m_axis_t", "s_axil_b"}
    assert ifc.axil == ["s_axil_"] and ifc.others == [("rate", 8)]
    programs = {o.program for o in sp.options(ifc)}
    assert {"handshake", "frames", "axil", "fill_drain", "reset_mid", "corners", "long_run"} <= programs
    assert "dictionary" not in programs          # no RTL given: no compared literals


def test_dictionary_reads_compared_literals():
    d = dictionary(MAGIC + "\nmodule x(input [7:0] op); always @* case (op[3:0]) 4'h2, 4'h7: ; 4'd9: ; endcase endmodule",
                   [("s_data", 16), ("op", 8), ("s_valid", 1)])
    assert d["s_data"] == [(0, 8, [0xA5]), (8, 8, [0x3C])]
    assert d["op"] == [(0, 4, [2, 7, 9])]
    assert "s_valid" not in d


def test_program_reaches_what_random_misses(tmp_path):
    """One build runs every option; the dictionary program sets the magic word that 4 random runs never send."""
    ports = _ports([("clk", "input", 1), ("rst", "input", 1), ("s_data", "input", 16), ("s_valid", "input", 1),
                    ("s_ready", "output", 1), ("s_last", "input", 1), ("m_data", "output", 16),
                    ("m_valid", "output", 1), ("m_ready", "input", 1), ("hit", "output", 1)])
    src = {"vr_magic.v": MAGIC}
    ifc = sp.recognise(ports, "clk", "rst", False, MAGIC)
    assert [s.role for s in ifc.streams] == ["source", "sink"] and ifc.dictionary
    opts = sp.options(ifc)
    tb = sp.testbench(ifc, ports, "vr_magic", opts)
    hit_line = next(i for i, x in enumerate(MAGIC.splitlines(), 1) if "hit <= 1'b1" in x)

    def reached(points):
        return any(p.count > 0 and p.type in ("line", "branch") and hit_line in p.lines for p in points)
    rnd = cov.coverage_runs(src, "vr_magic", seeded_stimulus(ports, "vr_magic", "clk", "rst", styles=True),
                            [[f"+seed={k}"] for k in range(4)], clock="clk")
    assert all(r.ok for r in rnd) and not any(reached(r.points) for r in rnd)
    with sp.Built(src, "vr_magic", tb, clock="clk") as built:
        assert built.error is None, built.error and built.error.log[-500:]
        k = next(i for i, o in enumerate(opts) if o.program == "dictionary")
        r = built.run(k, 1)
        assert r.ok and reached(r.points), r.log[-500:]
        h = built.run(next(i for i, o in enumerate(opts) if o.program == "handshake"), 1)
        assert h.ok and len([p for p in h.points if p.count > 0]) > 10


def test_choosers_deterministic_per_seed():
    ifc = sp.recognise(_ports([("clk", "input", 1), ("rst", "input", 1), ("a_valid", "input", 1),
                               ("a_ready", "output", 1), ("a_data", "input", 8), ("b_valid", "output", 1),
                               ("b_ready", "input", 1)]), "clk", "rst")
    opts = sp.options(ifc)
    assert len(opts) > 8
    for chooser in ("random", "bandit"):
        a, b = P.pick(chooser, opts, 4, seed=3), P.pick(chooser, opts, 4, seed=3)
        assert a == b and len(set(a)) == 4
    assert P.pick("random", opts, 4, seed=3) != P.pick("random", opts, 4, seed=4)
    # what paid is drawn first once every kind was tried
    bandit = P.KindBandit([o.program for o in opts])
    for kind in bandit.kinds:
        bandit.update(kind, 0.9 if kind == "fill_drain" else 0.0)
    first = P.pick("bandit", opts, 1, seed=5, bandit=bandit)[0]
    assert opts[first].program == "fill_drain"
    with pytest.raises(ValueError):
        P.pick("oracle", opts, 2, seed=0)
    assert P.index_of(P.PREFILL + opts[2].label, [o.label for o in opts]) == 2


def test_cover_runs_programs_phase(tmp_path):
    """cover --stimulus programs --chooser bandit: the model phase runs chosen programs, recorded with their option."""
    import json

    from designs import load_task
    from designs.adhoc import write_task
    from rtl_agent.jobs.cover import CoverConfig, parse_target, run_cover
    task = load_task(write_task({"vr_magic.v": MAGIC}, "vr_magic", tmp_path / "task"))
    cfg = CoverConfig(target=parse_target("line=100,branch=100"), budget=6, random_budget=2, patience=2, group=4,
                      train=False, formal=False, stimulus="programs", chooser="bandit")
    s = run_cover(task, tmp_path / "run", cfg)
    assert s["simulations"] == 6
    from training.store import RunStore
    with RunStore(tmp_path / "run" / "run.sqlite") as st:
        progs = [c["payload"] for c in st.candidates() if c["payload"].get("kind") == "program"]
    assert len(progs) == 4 and all(p["option"] for p in progs)
    assert all(any(a.startswith("+opt=") for a in p["plusargs"]) for p in progs)
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["simulations"] == 6
