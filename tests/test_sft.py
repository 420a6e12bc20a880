"""`rtl-agent sft`: the data builder (refusal of evaluation sets, overlap check, verified generated pairs,
SEARCH/REPLACE answers that apply) and the SFT loop on the bundled model (steps, resume, merge)."""
import json
import re
import shutil
from pathlib import Path

import pytest

from rtl_agent.jobs.sft import data as sft_data
from rtl_agent.edits import apply_blocks, parse_blocks


@pytest.fixture(scope="module")
def evals():
    return sft_data.eval_items()


def test_refuses_evaluation_sets_by_path_and_content(evals, tmp_path):
    from designs import rtllm, verilog_eval
    for root in (rtllm.root(), verilog_eval.root()):
        with pytest.raises(ValueError, match="evaluation sets"):
            sft_data.collect_files([root], evals)
    ref = sorted(verilog_eval.root().glob("Prob*_ref.sv"))[0]
    (tmp_path / "mine").mkdir()
    shutil.copy(ref, tmp_path / "mine" / "renamed.v")         # same text elsewhere: refused by hash
    with pytest.raises(ValueError, match="VerilogEval"):
        sft_data.collect_files([tmp_path / "mine"], evals)
    with pytest.raises(FileNotFoundError):
        sft_data.collect_files([tmp_path / "nowhere"], evals)


def test_overlap_drops_copies_of_evaluation_items(evals):
    name, text = next((n, t) for n, t in evals["VerilogEval"].items() if n.endswith("_ref.sv") and len(t) > 300)
    leaked = sft_data.example("rtl", "x", [], "", "```verilog\n" + text.replace("RefModule", "Leaky") + "\n```")
    own = sft_data.rtl_pair("gen", "A 4-bit register.", "reg4", {"clk": "input", "d": "input", "q": "output"},
                            "module reg4 (input clk, input [3:0] d, output reg [3:0] q);\n"
                            "  always @(posedge clk) q <= d;\nendmodule\n")
    kept, rep = sft_data.overlap([leaked, own], evals)
    assert kept == [own]
    assert rep["dropped"]["ngram"] + rep["dropped"]["hash"] == 1
    assert set(rep["suites"]) >= {"RTLLM", "VerilogEval"} and rep["suites"]["VerilogEval"]["items_ge_50pct"] == 0


def test_diff_answers_apply_to_their_parent():
    parent = "module m (\n  input a,\n  input b,\n  output y\n);\n  assign y = a & b;\nendmodule\n"
    child = "module m (\n  input a,\n  input b,\n  output y\n);\n  wire t = a;\n  assign y = t & b;\nendmodule\n"
    text = sft_data.diff_blocks(parent, child)
    assert text and apply_blocks(parent, parse_blocks(text)).code.strip() == child.strip()


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_generated_variants_are_verified():
    from eda.flow import FlowJob, evaluate
    from rtl_agent.jobs.sft.generator import designs
    d = next(x for x in designs(seed=1, per_family=1) if x.family == "constmul")
    ok = sft_data._check_design(d, "nangate45")
    assert len(ok) == len(d.variants) >= 2
    d.variants.append(d.variants[0].replace("* ", "* 1 + "))             # not equivalent: dropped
    assert len(sft_data._check_design(d, "nangate45")) == len(ok)
    pairs = sft_data.edit_pairs("gen", d.spec, d.top, ok[0][0], ok[0][1], ok[1][0])
    kinds = {p["kind"] for p in pairs}
    assert kinds == {"edit-full", "edit-diff"}
    diff = next(p for p in pairs if p["kind"] == "edit-diff")
    assert apply_blocks(ok[0][0], parse_blocks(diff["prefill"] + diff["answer"])).applied
    # one-line edit pairs: the prefill is the optimize job's (SEARCH = one statement), the answer its rewrite
    lines = sft_data.line_pairs(pairs)
    assert lines and all(p["kind"] == "edit-line" and p["messages"] == diff["messages"] for p in lines)
    for p in lines:
        res = apply_blocks(ok[0][0], parse_blocks(p["prefill"] + p["answer"] + ">>>>>>> REPLACE\n"))
        assert res.applied and res.code != ok[0][0]
        job = FlowJob(top=d.top, ref={f"{d.top}.v": ok[0][0]}, stages=("lint", "equiv"))
        rep = evaluate(job, {f"{d.top}.v": res.code})
        assert rep.status == "pass", p["answer"]


@pytest.mark.slow
@pytest.mark.requires(modules=("torch", "transformers", "peft"), model=True)
def test_sft_steps_resume_and_merge(tmp_path):
    import torch

    from rtl_agent.policy.hf import HFPolicy
    from rtl_agent.policy.models import resolve_model
    from training.sft import run_sft
    pol = HFPolicy("default", base_adapter=None, lora_alpha=16, threads=2)
    pair = sft_data.rtl_pair("t", "y is a AND b.", "and2", {"a": "input", "b": "input", "y": "output"},
                             "module and2 (input a, input b, output y);\n  assign y = a & b;\nendmodule\n")
    seq = (pol.encode(pair["messages"], pair["prefill"]), pol.tok(pair["answer"])["input_ids"] + [pol.tok.eos_token_id])
    seqs = [seq] * 4
    out = tmp_path / "a"
    kw = dict(epochs=3, batch_tokens=2 * sum(map(len, seq)), lr=1e-3, warmup=1, checkpoint_every=2, max_steps=6)

    class Killed(Exception):
        pass

    def kill_at_3(step, total, stats):
        if step == 3:
            raise Killed
    with pytest.raises(Killed):
        run_sft(pol, seqs, out, settings={"t": 1}, on_step=kill_at_3, **kw)
    assert json.loads((out / "checkpoint" / "state.json").read_text())["step"] == 2
    with pytest.raises(ValueError, match="other settings"):
        run_sft(pol, seqs, out, settings={"t": 2}, **kw)
    res = run_sft(pol, seqs, out, settings={"t": 1}, **kw)
    rows = (out / "loss.csv").read_text().splitlines()
    assert res["steps"] == 6 and len(rows) == 7
    losses = [float(r.split(",")[1]) for r in rows[1:]]
    assert losses[-1] < losses[0]                       # it learns the pair
    # the adapter merged into the base weights scores like base + adapter
    pol.save_adapter(tmp_path / "ad")
    with torch.no_grad():
        want = pol.logprobs(*seq)
    folder = Path(resolve_model("default", tmp_path / "ad"))
    try:
        with torch.no_grad():
            got = HFPolicy(str(folder), base_adapter=None, lora=False).logprobs(*seq)
        assert torch.allclose(got, want, atol=1e-3)
    finally:
        shutil.rmtree(folder)           # a merged copy per test run would fill the user cache


def test_rtl_pairs_prefill_the_interface_and_teach_the_body():
    """Spec -> RTL pairs of generated designs give the header from the typed ports (as regress does) and the
    answer is the body only; prefill + answer is the verified variant, header aside, and lints with the real tools."""
    from eda.flow import FlowJob, evaluate
    from rtl_agent.prompts import extract_verilog
    from rtl_agent.jobs.sft.generator import designs
    for fam in ("counter", "kmap", "gates", "seqdet"):
        d = next(x for x in designs(seed=2, per_family=1, families="all") if x.family == fam)
        typed = [(n, dr, d.widths.get(n, 1), False) for n, dr in d.ports.items()]
        for v in d.variants:
            p = sft_data.rtl_pair("gen", d.spec, d.top, d.ports, v, typed)
            assert p["prefill"].endswith(");\n") and "module " not in p["answer"] and p["answer"].endswith("endmodule\n```")
            code = extract_verilog(p["prefill"] + p["answer"], d.top).code
            job = FlowJob(top=d.top, ref={f"{d.top}.v": d.variants[0]}, clock=d.clock, reset=d.reset,
                          stages=("lint", "equiv"), use_cache=False)
            rep = evaluate(job, {f"{d.top}.v": code})
            assert rep.ok, (fam, rep.to_dict()["stages"])
    # a header with parameters cannot be rebuilt from ports: the old `module <top>` prefill stays
    par = "module p #(parameter W = 4) (input [W-1:0] a, output [W-1:0] y);\n  assign y = a;\nendmodule\n"
    p = sft_data.rtl_pair("f", "copy", "p", {"a": "input", "y": "output"}, par, [("a", "input", 4, False),
                                                                                   ("y", "output", 4, False)])
    assert p["prefill"].endswith("module p") and p["answer"].startswith(" #(parameter")


@pytest.mark.requires("iverilog", "yosys", "sta")
def test_renamed_ports_stay_consistent():
    """Port renames reach the spec, the header, every variant and the clock/reset roles together, and never
    touch names that are English words in the specs."""
    from rtl_agent.prompts import extract_verilog
    from rtl_agent.jobs.sft.generator import DATA_NAMES, ROLE_NAMES, designs
    ds = designs(seed=0, per_family=6, families="all", rename=0.35)
    new = set(DATA_NAMES) | {x for v in ROLE_NAMES.values() for x in v} - {"reset", "rst"}
    assert sum(bool(new & set(d.ports)) for d in ds) > len(ds) // 5
    assert all("a" in d.ports for d in ds if d.family in ("adder", "compare", "alu"))
    for d in ds:
        assert d.clock in (None, *d.ports) and d.reset in (None, *d.ports)
        for v in d.variants:
            code = extract_verilog(v, d.top).code
            for n in d.ports:
                assert re.search(rf"\b{n}\b", code.split(");")[0]), (d.family, n)
    d = next(x for x in ds if x.family == "mux4" and "d0" not in x.ports)     # 2'd0 must stay 2'd0
    assert len(sft_data._check_design(d, "nangate45")) == len(d.variants)


@pytest.mark.slow
@pytest.mark.requires(modules=("torch", "transformers", "peft"), model=True)
def test_sft_cli_continues_from_an_adapter(tmp_path):
    """`rtl-agent sft --init default` starts from the bundled adapter's weights and says so in the manifest."""
    from rtl_agent.cli import main
    src = tmp_path / "src" / "and2.v"
    src.parent.mkdir()
    src.write_text("// y is a AND b.\nmodule and2 (input a, input b, output y);\n  assign y = a & b;\nendmodule\n")
    out = tmp_path / "ad"
    assert main(["sft", "--data", str(src.parent), "--out", str(out), "--per-family", "0", "--no-tasks",
                 "--kinds", "rtl", "--max-steps", "1", "--init", "default", "--threads", "2"]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["training"]["init"].startswith("smollm2-verilog@") and man["training"]["steps"] == 1


def test_bundled_adapters_by_name():
    """`default` and `edit` name the two bundled adapters, for the bundled model only; optimize takes `edit`."""
    from rtl_agent.jobs.optimize import OptimizeConfig
    from rtl_agent.policy import policy_adapter
    from rtl_agent.policy.models import DEFAULT_ADAPTER, EDIT_ADAPTER, adapter_id, resolve_adapter
    assert resolve_adapter("default") == DEFAULT_ADAPTER and resolve_adapter("edit") == EDIT_ADAPTER
    assert resolve_adapter("edit", model="/some/other/model") is None and resolve_adapter("none") is None
    assert adapter_id("edit").startswith("smollm2-verilog-edit@") and adapter_id("edit") != adapter_id("default")
    assert policy_adapter("openai:http://x", "edit") == "none"
    assert OptimizeConfig(task="adder16").adapter == "edit"
    from rtl_agent.cli import build_parser
    from rtl_agent.commands.optimize import config_from_args
    def adapter(*argv):
        return config_from_args(build_parser().parse_args(["optimize", "adder16", *argv])).adapter
    assert adapter() == "edit" and adapter("--from-spec") == "default"     # spec -> RTL is the v4 adapter's skill
    assert adapter("--from-spec", "--adapter", "edit") == "edit" and adapter("--adapter", "none") == "none"
    man = json.loads((EDIT_ADAPTER / "manifest.json").read_text())
    assert man["training"]["init"].startswith("smollm2-verilog-edit@") and man["pairs"]["by_kind"] == {"edit-line": 361}
    from rtl_agent.policy.models import BUNDLED_ADAPTERS
    for name, path in BUNDLED_ADAPTERS.items():      # each one ships whole: weights, config, manifest, README
        assert all((path / f).is_file() for f in ("adapter_model.safetensors", "adapter_config.json",
                                                    "manifest.json", "README.md")), name
    man2 = json.loads((BUNDLED_ADAPTERS["improve2"] / "manifest.json").read_text())
    assert man2["training"]["init"] == adapter_id("improve")        # expert iteration continues the improve one
    assert man2["pairs"]["by_source"]["ei"] > 0 and sum(f["pairs"] for f in man2["pair_files"]) == 13


def _improve_pair(worse: str, better: str) -> dict:
    return sft_data.example("improve-full", "ei:test", [{"role": "user", "content": "Current design:\n" + worse}],
                            "```verilog\n", better + "\n```")


def test_pairs_files_are_checked_like_the_rest(evals, tmp_path):
    """--pairs: a malformed line stops with its place; a pair copying an evaluation item is dropped."""
    from argparse import Namespace
    from rtl_agent.commands.sft import build_data
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"kind": "improve-full", "answer": "x"}) + "\n")
    args = Namespace(data=[], kind="improve", pairs=[str(bad)], seed=0, per_family=0, pdk="nangate45", workers=1,
                     families="improve", min_ratio=1.1, tasks=False)
    with pytest.raises(ValueError, match=r"bad.jsonl:1: a pair needs"):
        build_data(args, tmp_path / "out1", print)
    name, text = next((n, t) for n, t in evals["RTLLM"].items() if len(t) > 400)
    good = tmp_path / "pairs.jsonl"
    mine = _improve_pair("module m(input a, output y); assign y = ~~a; endmodule",
                         "module m(input a, output y); assign y = a; endmodule")
    good.write_text("".join(json.dumps(p) + "\n" for p in (mine, _improve_pair("module x; endmodule", text))))
    args.pairs = [str(good)]
    pairs, meta = build_data(args, tmp_path / "out2", print)
    assert pairs == [mine] and meta["overlap"]["dropped"]["hash"] + meta["overlap"]["dropped"]["ngram"] == 1
    assert meta["pair_files"] == [{"path": str(good), "sha256": meta["pair_files"][0]["sha256"], "pairs": 2}]
