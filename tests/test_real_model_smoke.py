"""Paths that only a real model exercises, kept small (a few designs, a few tokens): regress with the
bundled model on transformers and on vLLM (ModelPolicy.prefetch: batched, one prefill per prompt), the
OpenAI-compatible backend with answer prefill against a real local vLLM server, and an edit repair round
of optimize answered by the bundled model."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from rtl_agent.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.requires("iverilog", "yosys", "sta", model=True)]
DESIGNS = "adder16,counter8"


def _regress(tmp_path, policy, *extra):
    out = tmp_path / "run"
    rc = main(["regress", "--suite", "designs", "--designs", DESIGNS, "--policy", policy, "-n", "2", "-k", "1",
               "--max-tokens", "48", "--jobs", "1", "--out", str(out), *extra])
    assert rc == 0
    for name in DESIGNS.split(","):
        d = json.loads((out / "designs" / f"{name}.json").read_text())
        assert len(d["samples"]) == 2 and d["reference"]["status"] == "pass"
        for s in d["samples"]:
            assert s["status"] in ("pass", "fail", "error", "rejected", "timeout") and s["sample"]
            assert (out / "samples" / name / f"{s['sample']}.txt").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["summary"]["designs"] == 2 and summary["summary"]["samples"] == 4
    return out


def test_regress_with_the_bundled_model_on_transformers(tmp_path):
    _regress(tmp_path, "default")


@pytest.mark.requires(modules=("vllm",))
def test_regress_with_the_bundled_model_on_vllm_prefetches(tmp_path, capsys):
    """vLLM takes one prefill per prompt: every design's samples come from one batched call before scoring."""
    _regress(tmp_path, "vllm:default")
    assert "sampled 2/2 design(s)" in capsys.readouterr().out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory):
    """`vllm serve` of the bundled model on 127.0.0.1 (CPU: eager, bf16), stopped after the module."""
    from rtl_agent.policy.models import resolve_model
    from rtl_agent.policy.vllm_backend import _cpu_share
    port, log = _free_port(), tmp_path_factory.mktemp("vllm") / "server.log"
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", resolve_model("default", "none"),
           "--served-model-name", "smollm2", "--host", "127.0.0.1", "--port", str(port), "--max-model-len", "1024",
           "--enforce-eager", "--dtype", "bfloat16", "--gpu-memory-utilization", f"{_cpu_share():.3f}"]
    with open(log, "w") as fh:
        p = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env={**os.environ, "VLLM_LOGGING_LEVEL": "WARNING"})
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 600
    try:
        while time.time() < deadline:
            assert p.poll() is None, log.read_text()[-3000:]
            try:
                urllib.request.urlopen(url + "/models", timeout=2).read()
                break
            except OSError:
                time.sleep(2)
        else:
            pytest.fail("the vLLM server did not come up in 600 s:\n" + log.read_text()[-3000:])
        yield url
    finally:
        p.terminate()
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()


@pytest.mark.requires(modules=("vllm",))
def test_openai_backend_prefill_against_a_real_vllm_server(vllm_server):
    """continue_final_message on a real server: the answer continues the prefill, which it starts with."""
    from rtl_agent.policy import make_policy
    pol = make_policy(f"openai:smollm2@{vllm_server}")
    assert pol.prefill_ok and "smollm2" in pol.models()
    pre = "```verilog\nmodule inv (\n  input a,\n  output y\n);\n"
    msgs = [{"role": "user", "content": "Write a Verilog inverter module inv with input a and output y."}]
    (g,) = pol.sample([msgs], n=2, temperature=0.8, max_tokens=16, seed=3, prefill=pre)
    assert len(g) == 2 and all(c.text.startswith(pre) and len(c.text) > len(pre) for c in g)
    assert pol.prefill_ok                        # the server took continue_final_message: no fallback


def test_an_edit_repair_round_answered_by_the_bundled_model(tmp_path):
    """optimize's repair: an edit whose SEARCH matches nothing is re-prompted with its error (a Retry);
    the bundled model answers the repair prompt, and the candidate records the round."""
    from rtl_agent.jobs.optimize import OptimizeConfig, OptimizeEnv
    from rtl_agent.policy import make_policy
    from training.loop import Group
    from training.rows import Attempt, Candidate, Retry
    env = OptimizeEnv(OptimizeConfig(task="adder16", repair=1, prefill=True), tmp_path)
    env.open()
    env.start(None)
    pol = make_policy("default", adapter="edit")
    env.attach(pol)
    g = env._kind_group(env.pool_[env.pool_.root], env.pool_.root, 1, "line", 1)
    g = Group(g.prompt, 1, g.parent, g.prefill, {**g.info, "line_edit": False}, g.stop)
    bad = "```\n<<<<<<< SEARCH\n  assign nothing_here = 1'b0;\n=======\n  assign q = 0;\n>>>>>>> REPLACE\n```"
    retry = env.extract(bad, g, Attempt(0, g.prompt))
    assert isinstance(retry, Retry) and "does not apply" in retry.prompt[-1]["content"]
    (c,), = pol.sample([retry.prompt], n=1, temperature=0.8, max_tokens=64, seed=2, prefill=retry.prefill,
                       stop=[retry.stop] if retry.stop else None)
    assert c.text.startswith(retry.prefill) and c.token_ids
    got = env.extract(c.text, g, Attempt(1, retry.prompt))
    assert isinstance(got, Candidate) and got.value["repaired"] == 1 and got.value["action"] == "diff"
    assert got.value["applied"] in (True, False) and (got.value["applied"] or got.value["error"])
    pol.close()


def _optimize(tmp_path, *extra):
    out = tmp_path / "opt"
    rc = main(["optimize", "mult8", "--steps", "1", "--group", "2", "--max-tokens", "64", "--no-noise", "--quiet",
               "--no-pnr", "--choice-group", "0", "--out", str(out), *extra])
    assert rc == 0
    best = json.loads((out / "best.json").read_text())
    assert best["ratio"] >= 1.0 and (out / "candidates.csv").read_text().count("\n") == 4    # header, ref, 2
    return out


def test_optimize_with_a_local_model_folder(tmp_path):
    """The GPU recipe's path (--model a local folder or HF id, no bundled adapter) on CPU with the bundled
    model's safetensors folder."""
    from rtl_agent.policy.models import resolve_model
    from training.store import RunStore
    out = _optimize(tmp_path, "--model", resolve_model("default", "none"))
    with RunStore(out / "run.sqlite") as st:
        assert st.meta("config")["adapter"] == "none"      # a foreign model gets no bundled LoRA


@pytest.mark.requires(modules=("vllm",))
def test_optimize_frozen_search_against_an_openai_server(vllm_server, tmp_path, capsys):
    """--policy-backend openai: a served model searches with a frozen policy (its prompts sized to the
    server's 1024-token window, which vLLM refuses to exceed); training is refused."""
    _optimize(tmp_path, "--policy-backend", "openai", "--model", f"smollm2@{vllm_server}", "--no-train")
    capsys.readouterr()
    rc = main(["optimize", "mult8", "--steps", "1", "--policy-backend", "openai", "--model", f"smollm2@{vllm_server}",
               "--out", str(tmp_path / "x"), "--quiet", "--no-noise"])
    assert rc == 2 and "--no-train" in capsys.readouterr().err
