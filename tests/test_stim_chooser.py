"""The stimulus chooser trained on verified outcomes (rtl_agent/jobs/cover/stim_chooser.py) with its shipped
weights: the holes' features, its test-time update, and `cover --chooser policy` running what it chose on a real
Verilator build, reaching a magic-word branch that the random runs before it missed."""
from designs import load_task
from designs.adhoc import write_task
from eda import coverage as cov
from eda import stim_programs as sp
from rtl_agent.jobs.cover import programs as P
from rtl_agent.jobs.cover.stim_chooser import HOLE, Bias, StimChooser, hole_vec

# a command register: the write arm needs a 24-bit address that random values meet once in 2^22 cycles
CMD = """module cmd_reg(input clk, input rst, input c_valid, output c_ready, input [23:0] c_addr, input [15:0] c_data,
               output reg [15:0] r0, output reg [15:0] r1);
  assign c_ready = 1'b1;
  always @(posedge clk) begin
    if (rst) begin
      r0 <= 16'd0;
      r1 <= 16'd0;
    end else if (c_valid) begin
      case (c_addr)
        24'h51a3c0: r0 <= c_data;
        24'h9e0044: r1 <= c_data ^ r0;
        default: ;
      endcase
    end
  end
endmodule
"""


def test_hole_features_and_test_time_update():
    ports = _task_ports()
    ifc = sp.recognise(ports, "clk", "rst", False, CMD)
    assert ifc.dictionary.get("c_addr")
    db = cov.CoverageDB({"cmd_reg.v": CMD})
    arm = next(i for i, x in enumerate(CMD.splitlines(), 1) if "r0 <= c_data" in x)
    db.add([cov.Point("cmd_reg.v", arm, "line", "cmd_reg", "cmd_reg", "", 0, 0, (arm,), "k1")])
    hv = hole_vec(db, ["line"], ifc, {p.name for p in ports if p.direction == "input"})
    assert hv[HOLE.index("dict")] == 1.0 and hv[HOLE.index("literal")] == 1.0 and hv[HOLE.index("reset")] == 0.0
    # what paid more than its step-mates and more than predicted is drawn more on this design
    b = Bias()
    b.update([("dictionary", 0.0, 300), ("handshake", 0.0, 0)])
    assert b.of("dictionary") > 0 > b.of("handshake") and b.of("corners") == 0.0


def _task_ports():
    from eda.ports import Port
    return [Port(n, d, w) for n, d, w in (("clk", "input", 1), ("rst", "input", 1), ("c_valid", "input", 1),
                                          ("c_ready", "output", 1), ("c_addr", "input", 24), ("c_data", "input", 16),
                                          ("r0", "output", 16), ("r1", "output", 16))]


def test_cover_chooser_policy_reaches_the_magic_arm(tmp_path):
    """cover --stimulus programs --chooser policy: the shipped chooser ranks a compared-literals program first on
    these holes; its runs carry their score and step, and reach the arm the random runs missed."""
    from rtl_agent.jobs.cover import CoverConfig, parse_target, run_cover
    from rtl_agent.jobs.cover.targets import points_of
    from training.store import RunStore
    task = load_task(write_task({"cmd_reg.v": CMD}, "cmd_reg", tmp_path / "task"))
    ifc, opts = P.menu(task)
    ch = StimChooser.load()
    assert ch.meta.get("modules") and "cmd_reg" not in ch.meta["modules"]
    cfg = CoverConfig(target=parse_target("line=100,branch=100"), budget=6, random_budget=2, patience=2, group=2,
                      train=False, formal=False, stimulus="programs", chooser="policy")
    run_cover(task, tmp_path / "run", cfg)
    with RunStore(tmp_path / "run" / "run.sqlite") as st:
        sims = sorted((c["payload"] for c in st.candidates()), key=lambda p: p["sim"])
    arm = next(i for i, x in enumerate(CMD.splitlines(), 1) if "r0 <= c_data" in x)

    def reached(p):
        return any(q.count > 0 and q.type == "line" and arm in q.lines for q in points_of(p.get("cov") or []))
    rnd = [p for p in sims if p["kind"] == "random"]
    progs = [p for p in sims if p["kind"] == "program"]
    assert rnd and not any(reached(p) for p in rnd)
    assert len(progs) >= 2 and all(p["pred"] is not None and p["batch"] is not None for p in progs)
    assert progs[0]["option"].startswith("dictionary"), [p["option"] for p in progs]
    assert any(reached(p) for p in progs)
    # the test-time update from this design's runs: a program that earned far more than its step-mates in
    # three earlier steps is drawn first (no simulation: the phase's choice from the records alone)
    phase = P.ProgramPhase(task, task.reference_sources(), cfg, [], None)
    db = cov.CoverageDB(task.reference_sources())
    for p in sims:
        if p["kind"] == "random":
            db.add(points_of(p["cov"]))
    first = phase.group(db, ["line", "branch"], [], 2, 0).choices[0]
    assert first.startswith("dictionary")
    hs = next(lab for lab in phase.labels if lab.startswith("handshake"))
    past = [{"kind": "program", "option": lab, "pred": 0.0, "gain": g, "batch": b}
            for b in range(3) for lab, g in ((hs, 5000), (first, 0))]
    assert phase.group(db, ["line", "branch"], past, 2, 0).choices[0].startswith("handshake")
