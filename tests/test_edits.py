"""Edit actions (SEARCH/REPLACE), duplicates, context by budget, answer prefill and the flat-group skip
(issue #14). The environment tests use a scripted policy and the real EDA flow on adder16; the
model tests (prefill, token counting) use the bundled model with a few tokens and are marked slow."""
import pytest

from rtl_agent import edits, focus, prompts
from rtl_agent.policy.base import Completion, Policy
from training.loop import Environment, Group, Loop, LoopConfig, has_variance
from training.rows import Candidate, Row

PARENT = ("module t(input [3:0] a, output [3:0] y);\n"
          "  wire [3:0] w;\n"
          "  assign w = a & 4'hf;\n"
          "  assign y = w;\n"
          "endmodule\n")


def block(s, r):
    return f"<<<<<<< SEARCH\n{s}\n=======\n{r}\n>>>>>>> REPLACE\n"


def test_parse_blocks_fenced_several_and_cut_off():
    text = "```verilog\n" + block("  assign w = a & 4'hf;", "  assign w = a;") + \
        block("  assign y = w;", "  assign y = ~~w;") + "<<<<<<< SEARCH\n  wire\n=======\n"
    got = edits.parse_blocks(text)
    assert got == [("  assign w = a & 4'hf;\n", "  assign w = a;\n"), ("  assign y = w;\n", "  assign y = ~~w;\n")]
    assert edits.has_blocks(text) and not edits.has_blocks("module t; endmodule")


def test_apply_exact_whitespace_fuzzy():
    r = edits.apply_blocks(PARENT, [("  assign w = a & 4'hf;", "  assign w = a;")])
    assert r.applied and r.how == ["exact"] and "assign w = a;\n" in r.code and "4'hf" not in r.code
    r = edits.apply_blocks(PARENT, [("assign   w =  a & 4'hf;\nassign y=w;", "assign w = a;\nassign y = w;")])
    assert r.how == ["whitespace"] and "  assign w = a;\n  assign y = w;\n" in r.code      # indentation kept
    r = edits.apply_blocks(PARENT, [("  assign w = a && 4'hf;", "  assign w = a;")])
    assert r.how == ["fuzzy"] and "4'hf" not in r.code
    # several blocks apply in order, each to the result of the previous one
    r = edits.apply_blocks(PARENT, [("  assign w = a & 4'hf;", "  assign w = a;"),
                                    ("  assign w = a;", "  assign w = a | 4'h0;")])
    assert r.how == ["exact", "exact"] and "a | 4'h0" in r.code


def test_apply_failure_names_block_and_closest_lines():
    r = edits.apply_blocks(PARENT, [("  assign y = w;", "  assign y = w;"), ("  always @(posedge clk) q <= d;", "x")])
    assert not r.applied and r.code is None and r.error.startswith("block 2") and "%" in r.error
    assert "|" in r.closest and any(w in r.closest for w in ("assign", "wire"))
    assert not edits.apply_blocks(PARENT, []).applied
    assert "empty" in edits.apply_blocks(PARENT, [("\n", "x")]).error
    # a region: a block outside it does not apply
    r = edits.apply_blocks(PARENT, [("  assign y = w;", "  assign y = a;")], region=(1, 3))
    assert not r.applied and "region" in r.error


def test_duplicate_after_normalisation():
    assert edits.same_design(PARENT, PARENT.replace("  ", "    ") + "// same\n")
    assert not edits.same_design(PARENT, PARENT.replace("4'hf", "4'he"))
    assert not edits.same_design(None, PARENT)


def test_prefill_and_prompt_actions():
    assert prompts.prefill_for("full", "t") == "```verilog\nmodule t"
    assert prompts.prefill_for("diff", "t").endswith("<<<<<<< SEARCH\n")
    v = focus.View("whole", PARENT, None, 5)
    assert "SEARCH" in prompts.edit_prompt("spec", v, None, "t", "diff")[-1]["content"]
    assert "SEARCH" not in prompts.edit_prompt("spec", v, None, "t", "full")[-1]["content"]
    assert "Either" in prompts.edit_prompt("spec", v, None, "t", "mixed")[-1]["content"]


def test_focus_whole_when_it_fits_else_region_on_critical_path():
    big = "module top(input [7:0] a, output [7:0] y);\n" + "".join(
        f"  wire n{i} = a[{i % 8}];\n" for i in range(300)) + "  assign y = crit_sum + n3;\n" + "".join(
        f"  wire m{i} = a[{i % 8}];\n" for i in range(300)) + "endmodule\n"
    rep = {"stages": {"sta": {"data": {"startpoint": "a[0]", "endpoint": "y[7]",
                                       "critical_path": "0.1 0.2 ^ crit_sum/Y (NAND2_X1)"}}}}
    assert focus.choose(big, "top", rep, lambda v: True).mode == "whole"
    v = focus.choose(big, "top", rep, lambda v: len(v.code) < 2000)
    assert v.mode == "focus" and "crit_sum" in v.code and len(v.code) < 2000 and v.interface.startswith("module top(")
    a, b = v.region
    assert big.splitlines()[a - 1:b] == v.code.splitlines() and "crit_sum" in v.hits


def test_focus_centres_on_logic_not_on_declarations():
    """A block of declarations names every path signal at once; the focus goes to the statements."""
    decl = "".join(f"  wire [7:0] crit_sum{i};\n" for i in range(8))
    fill = "".join(f"  wire m{i} = a[{i % 8}];\n" for i in range(200))
    logic = "".join(f"  assign crit_sum{i} = a + {i};\n" for i in range(8))
    big = "module top(input [7:0] a, output [7:0] y);\n" + decl + fill + logic + fill + "endmodule\n"
    rep = {"stages": {"sta": {"data": {"startpoint": "a[0]", "endpoint": "y[7]", "critical_path":
                                       " ".join(f"crit_sum{i}/Y (NAND2_X1)" for i in range(8))}}}}
    v = focus.choose(big, "top", rep, lambda v: len(v.code) < 1500)
    assert "assign crit_sum3" in v.code and "wire [7:0] crit_sum3" not in v.code
    assert edits.targets(big, focus.path_names(rep), v.region)
    small = focus.choose(big, "top", rep, lambda v: len(v.code) < 300)      # a dozen lines: centred on the hits
    assert "assign crit_sum" in small.code and edits.targets(big, focus.path_names(rep), small.region)


def test_has_variance():
    assert not has_variance([-1.0, -1.0]) and not has_variance([0.3]) and has_variance([-1.0, -0.8])


# ---- the loop: flat groups are skipped, and the controller stays put ------------------------------
class ScriptedPolicy(Policy):
    """Returns completions from a script, in order; records what it was asked."""
    prefill_ok = True

    def __init__(self, texts):
        self.texts, self.calls = list(texts), []

    def sample(self, prompts, n=1, temperature=1.0, top_p=1.0, max_tokens=256, stop=None, seed=None, prefill=None):
        self.calls.append({"n": n, "seed": seed, "prefill": prefill, "stop": stop, "prompt": prompts[0]})
        return [[Completion((prefill or "") + self.texts.pop(0), [1, 2], [], [0], "stop") for _ in range(n)]]


class RewardEnv(Environment):
    """Rewards come from the completion text (a number); two steps."""
    def done(self, step):
        return step > 2

    def groups(self, ctx, step):
        return [Group([{"role": "user", "content": "x"}], 2, None)]

    def extract(self, text, group, attempt):
        return Candidate(text)

    def score(self, ctx, step, groups, cands):
        return [[Row(c.value, float(c.value), "x") for c in cs] for cs in cands]


class TwoTexts(ScriptedPolicy):
    """n distinct completions a call, texts taken in order."""
    def sample(self, prompts, n=1, **kw):
        return [[Completion(self.texts.pop(0), [1, k], [], [0], "stop") for k in range(n)]]


def test_flat_group_skips_update_and_controller(tmp_path):
    from training.store import RunStore
    pol = TwoTexts(["-1", "-1", "-1", "0.5"])     # step 1 flat, step 2 has variance
    loop = Loop(RewardEnv(), LoopConfig(train=False), tmp_path, lambda: (pol, None))
    loop.run()
    with RunStore(tmp_path / "run.sqlite") as st:
        d = {x["step"]: x for x in st.decisions()}
        assert d[1]["cause"] == "no reward variance" and d[1]["eps_new"] == d[1]["eps_old"]
        assert d[2]["cause"] != "no reward variance"
        m = {s["step"]: s["stats"]["metrics"] for s in st.steps()}
        assert m[1]["flat_groups"] == 1 and m[2]["flat_groups"] == 0
    events = (tmp_path / "events.jsonl").read_text()
    assert "no reward variance" in events


# ---- the optimize environment with a scripted policy and the real EDA flow -------------------------
@pytest.mark.requires("iverilog", "yosys", "sta")
def test_diff_duplicate_and_repair_in_optimize(tmp_path):
    from training.store import RunStore
    good = block("    assign {cout, sum} = a + b + cin;", "    assign {cout, sum} = cin + b + a;") + "```"
    dup = block("    assign {cout, sum} = a + b + cin;", "    assign {cout, sum} = a + b + cin;  // same") + "```"
    bad = block("    assign q = z;", "    assign q = 0;") + "```"
    from rtl_agent.jobs.optimize import OptimizeConfig
    cfg = OptimizeConfig(task="adder16", out=str(tmp_path / "run"), steps=3, batch=1, group=1, actions="diff",
                         kinds_per_parent=1, train=False, repair=1, workers=1, pool=False, prefill=False)
    pol = ScriptedPolicy([good, dup, bad, bad])     # step 3: the bad edit, then its (still bad) re-prompt
    _run(cfg, pol)
    assert all(c["prefill"] is None and c["stop"] == [">>>>>>> REPLACE"] for c in pol.calls)
    assert "does not apply" in pol.calls[-1]["prompt"][-1]["content"]       # the re-prompt carries the error
    with RunStore(tmp_path / "run" / "run.sqlite") as st:
        rows = {c["step"]: c for c in st.candidates() if c["step"] > 0}
    assert rows[1]["status"] == "pass" and rows[1]["payload"]["candidate"]["applied"]
    assert rows[2]["status"] == "duplicate" and rows[2]["payload"]["eda"] is None
    assert rows[3]["status"] == "apply" and rows[3]["payload"]["candidate"]["repaired"] == 1
    assert rows[1]["sample"]["mode"] == "whole" and rows[1]["sample"]["prompt_tokens"] > 50
    import csv
    got = list(csv.DictReader(open(tmp_path / "run" / "candidates.csv")))
    assert [r["action"] for r in got[1:]] == ["diff"] * 3 and [r["applied"] for r in got[1:]] == ["1", "1", "0"]


# ---- the bundled model -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def model():
    from rtl_agent.policy import make_policy
    return make_policy("default")


@pytest.mark.slow
@pytest.mark.requires(model=True)
def test_prefill_on_the_bundled_model(model):
    pre = "```verilog\nmodule adder16"
    msgs = [{"role": "user", "content": "Write a 16-bit adder in Verilog."}]
    c = model.sample([msgs], n=2, max_tokens=6, temperature=0.8, seed=1, prefill=pre)[0]
    assert all(x.text.startswith(pre) for x in c)
    n_prompt = model.count_tokens(msgs)
    assert all(len(x.prompt_token_ids) > n_prompt and 0 < len(x.token_ids) <= 6 for x in c)  # ids: generated only
    assert model.tok.decode(c[0].prompt_token_ids[n_prompt:]) == pre


@pytest.mark.slow
@pytest.mark.requires(model=True)
def test_count_tokens_and_context_window(model):
    msgs = [{"role": "user", "content": "hello " * 50}]
    n = model.count_tokens(msgs)
    assert n == len(model.encode(msgs)) and 50 <= n <= 120 and model.context_window == 8192
    assert model.count_tokens([{"role": "user", "content": "hello " * 100}]) >= n + 45
    assert Policy().count_tokens(msgs) > 50        # the estimate backends without a tokenizer use


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_prefilled_edit_writes_only_the_replacement(tmp_path):
    """With prefill, a diff's SEARCH part is one statement of the parent: the model writes its replacement,
    the new right-hand side after the kept left-hand side (keep_lhs), one line at the statement's indentation
    (line_edit), or a block when line_edit is off."""
    from rtl_agent.jobs.optimize import OptimizeConfig
    from training.store import RunStore
    head = "<<<<<<< SEARCH\n    assign {cout, sum} = a + b + cin;\n=======\n"
    for name, line_edit, keep_lhs, answer, pre, new in (
            ("lhs", True, True, " b + cin + a;\n", "    assign {cout, sum} =", "assign {cout, sum} = b + cin + a;"),
            ("line", True, False, "assign {cout, sum} = cin + b + a;\n", "    ", "= cin + b + a;"),
            ("block", False, False, "    assign {cout, sum} = cin + a + b;\n", "", "= cin + a + b;")):
        cfg = OptimizeConfig(task="adder16", out=str(tmp_path / name), steps=1, batch=1, group=1,
                             actions="line", kinds_per_parent=1, train=False, workers=1, line_edit=line_edit,
                             keep_lhs=keep_lhs)
        pol = ScriptedPolicy([answer])
        _run(cfg, pol)
        assert pol.calls[0]["prefill"].endswith(head + pre)
        assert pol.calls[0]["stop"] == (["\n"] if line_edit else [">>>>>>> REPLACE"])
        with RunStore(tmp_path / name / "run.sqlite") as st:
            (row,) = st.candidates(1)
        assert row["status"] == "pass" and new in row["text"] and row["sample"]["target_line"] == 9


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_full_rewrite_prefilled_with_the_parent_header(tmp_path):
    from rtl_agent.jobs.optimize import OptimizeConfig
    from training.store import RunStore
    cfg = OptimizeConfig(task="adder16", out=str(tmp_path / "run"), steps=1, batch=1, group=1, actions="rewrite",
                         kinds_per_parent=1, train=False, workers=1)
    pol = ScriptedPolicy(["    assign {cout, sum} = b + a + cin;\nendmodule\n```"])
    _run(cfg, pol)
    pre = pol.calls[0]["prefill"]
    assert pre.startswith("```verilog\nmodule adder16 (\n") and pre.endswith("output        cout\n);\n")
    with RunStore(tmp_path / "run" / "run.sqlite") as st:
        (row,) = st.candidates(1)
    assert row["status"] == "pass" and "b + a + cin" in row["text"]


# ---- the OpenAI-compatible backend: prefill through continue_final_message, or a note ---------------
def _chat_server(accept_continue: bool):
    import http.server
    import json
    import threading

    class H(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            self.server.bodies.append(body)
            if body.get("continue_final_message") and not accept_continue:
                out, code = b'{"error": "unknown field continue_final_message"}', 400
            else:
                out, code = json.dumps({"choices": [{"index": 0, "message": {"content": " adder16(); endmodule"},
                                                     "finish_reason": "stop"}]}).encode(), 200
            self.send_response(code)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass
    srv = http.server.HTTPServer(("127.0.0.1", 0), H)
    srv.bodies = []
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


@pytest.mark.parametrize("accept", [True, False])
def test_openai_prefill_or_note(accept):
    from rtl_agent.policy import make_policy
    srv = _chat_server(accept)
    try:
        pol = make_policy(f"openai:m@http://127.0.0.1:{srv.server_address[1]}", retries=0, timeout=5)
        if accept:
            (c,), = pol.sample(["hi"], max_tokens=4, prefill="module")
            assert c.text == "module adder16(); endmodule" and srv.bodies[0]["continue_final_message"]
            assert srv.bodies[0]["messages"][-1] == {"role": "assistant", "content": "module"}
        else:
            with pytest.warns(UserWarning, match="continue_final_message"):
                (c,), = pol.sample(["hi"], max_tokens=4, prefill="module")
            assert c.text == " adder16(); endmodule" and not pol.prefill_ok      # ignored, with a note
            assert "continue_final_message" not in srv.bodies[-1]
        assert pol.count_tokens([{"role": "user", "content": "x" * 400}]) >= 100 and pol.context_window == 8192
    finally:
        srv.shutdown()


def test_stop_string_put_back_on_its_own_line(tmp_path):
    """A sample that ended by EOS right after a closing fence still gives a parseable block."""
    loop = Loop(RewardEnv(), LoopConfig(stop="endmodule"), tmp_path, lambda: (None, None))
    c = Completion("assign y = a;\n```", [1], [], [0], "stop")
    text = "```verilog\n<<<<<<< SEARCH\n  assign y = w;\n=======\n" + loop.text(c, ">>>>>>> REPLACE")
    assert edits.parse_blocks(text) == [("  assign y = w;\n", "assign y = a;\n")]
    assert loop.text(Completion("x", [1], [], [0], "stop")) == "x\nendmodule"


def _run(cfg, pol):
    from rtl_agent.jobs.optimize import optimize
    optimize(cfg, policies=(pol, None))

def test_targets_are_the_assignments_the_rewrites_can_split():
    """One definition of a one-line assignment (rewrites.is_target): a continuation line of a call or a
    conditional that holds `==` is no target (edits used to take it, and no rewrite could split it)."""
    code = ("module m(input [7:0] a, output reg [7:0] y);\n"
            "  assign w = a & 8'h0f;\n"
            "  always @* begin\n"
            "    y <= a;\n"
            "    $display(\"%d\", a,\n"
            "             a, y == 8'd0);\n"
            "  end\n"
            "endmodule\n")
    assert edits.targets(code) == [1, 3]
    from rtl_agent.rewrites import is_target, statement_head
    assert all(statement_head(code.splitlines()[i]) for i in edits.targets(code))
    assert not is_target("\t\tirq_state == 2'b01 ? 2'b10 : 2'b00;") and is_target("  S4: next = din ? S0 : S4;")
