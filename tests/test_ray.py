"""`--executor ray` on a real two-node Ray cluster started on this machine (no mocks).

The cluster: a head with 1 CPU and a second node with 1 CPU and a custom resource `node2`, each with a
100 MB object store and no dashboard; `ray stop --force` at teardown. Checks: a regression on Ray
writes the same results.csv as the local executor; the driver killed mid-run and the same command
re-run resumes; the second node's raylet killed mid-run loses and duplicates nothing; a node with other
tool versions is refused; a failing job is not retried; without Ray the message says how to install it.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import require_module

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CLI = [sys.executable, "-m", "rtl_agent.cli"]
DESIGNS = "adder16,counter8,gray_counter,prio_enc8,crc8"
N = len(DESIGNS.split(","))



def _regress(out: Path, cache: Path, *extra, wait=True, timeout=600):
    cmd = CLI + ["regress", "--suite", "designs", "--designs", DESIGNS, "--policy", "reference", "--out", str(out),
                 "--jobs", "2", *extra]
    env = {**os.environ, "RTL_AGENT_CACHE": str(cache)}
    if not wait:
        return subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    r = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout + r.stderr


def _wait_designs(out: Path, n: int, proc, timeout=300):
    t_end = time.monotonic() + timeout
    while len(list((out / "designs").glob("*.json"))) < n:
        assert proc.poll() is None, f"run ended early: {proc.stdout.read()[-3000:]}"
        assert time.monotonic() < t_end, "no design finished in time"
        time.sleep(0.2)


def _same(a: Path, b: Path):
    da, db = pd.read_csv(a / "results.csv"), pd.read_csv(b / "results.csv")
    assert sorted(da.design) == sorted(DESIGNS.split(",")) and da.design.is_unique
    assert list(da.columns) == list(db.columns)
    cols = ["design", "samples", "syntax_pass", "func_pass", "pass@1", "best_ppa", "ref_ppa", "ppa_ratio",
            "ref_status", "simulator", "isolation"] + [c for c in da.columns if c.startswith("fail_")]
    pd.testing.assert_frame_equal(da.sort_values("design")[cols].reset_index(drop=True),
                                  db.sort_values("design")[cols].reset_index(drop=True))


@pytest.fixture(scope="module")
def cluster():
    require_module("ray")     # installed by scripts/setup.sh (requirements.txt): missing is a failure
    from bench.ray_cluster import LocalCluster
    c = LocalCluster(nodes=[{"num_cpus": 1}, {"num_cpus": 1, "resources": {"node2": 1}}], object_store_mb=100)
    try:
        c.start()
        yield c
    finally:
        c.stop()     # ray stop --force


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "run"
    _regress(out, tmp_path_factory.mktemp("cache-local"), "--executor", "local")
    return out


@pytest.mark.slow
@pytest.mark.requires("iverilog", "yosys", "sta", modules=("ray",))
def test_ray_same_results_as_local(cluster, local_run, tmp_path):
    out = tmp_path / "run"
    _regress(out, tmp_path / "cache", "--executor", "ray", "--ray-address", cluster.address)
    _same(local_run, out)
    meta = json.loads((out / "summary.json").read_text())["meta"]
    assert meta["executor"] == "ray"


@pytest.mark.slow
@pytest.mark.requires("iverilog", "yosys", "sta", modules=("ray",))
def test_ray_driver_killed_resumes(cluster, local_run, tmp_path):
    out = tmp_path / "run"
    args = ("--executor", "ray", "--ray-address", cluster.address)
    p = _regress(out, tmp_path / "cache", *args, wait=False)
    try:
        _wait_designs(out, 1, p)
    finally:
        p.kill()          # the driver dies; Ray drops its unfinished tasks
        p.wait()
    before = len(list((out / "designs").glob("*.json")))
    assert before < N, "the run finished before the driver was killed: nothing to resume"
    log = _regress(out, tmp_path / "cache", *args)
    assert f"resuming: {before} design(s) already finished" in log
    _same(local_run, out)


@pytest.mark.slow
@pytest.mark.requires("iverilog", "yosys", "sta", modules=("ray",))
def test_ray_refuses_other_tools_and_never_retries_failures(cluster, tmp_path):
    import ray

    from rtl_agent import executor as ex_mod
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:      # connects this process as a driver: it must disconnect whatever happens, or it exits later
        ex = ex_mod.make_executor("ray", address=cluster.address, memory_mb=64)
        assert ex.expect["tools"]["yosys"]
        # a job that fails is a result of the job: raised in the driver, run once (no retry)
        counter = tmp_path / "attempts"
        with pytest.raises(ValueError, match="candidate bug"):
            list(ex.map(_fails, [str(counter)]))
        assert counter.read_text() == "x"
        # a node whose tools differ from the driver's is refused with a message naming the difference
        ex.expect = {**ex.expect, "tools": {**ex.expect["tools"], "yosys": "Yosys 0.0 (other node)"}}
        with pytest.raises(ex_mod.ExecutorError, match=r"refused.*yosys: driver 'Yosys 0.0 \(other node\)'"):
            ex.check_nodes()
        with pytest.raises(ex_mod.ExecutorError, match="refused"):
            list(ex.map(_square, [3]))
    finally:
        ray.shutdown()


def _fails(path):
    with open(path, "a") as f:
        f.write("x")
    raise ValueError("candidate bug")


def _square(x):
    return x * x


def test_without_ray_the_message_says_how_to_install(tmp_path):
    code = ("import sys; sys.modules['ray'] = None; from rtl_agent.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    r = subprocess.run([sys.executable, "-c", code, "regress", "--suite", "designs", "--designs", "adder16",
                        "--out", str(tmp_path / "r"), "--executor", "ray"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, env={**os.environ, "RTL_AGENT_CACHE": str(tmp_path / "c")})
    assert r.returncode == 2
    assert "needs Ray, which is not installed" in r.stderr and "pip install '.[ray]'" in r.stderr


def test_local_executor_yields_as_completed():
    from rtl_agent.executor import make_executor
    ex = make_executor("local", jobs=2)
    assert sorted(ex.map(_square, [1, 2, 3])) == [1, 4, 9]
    assert list(make_executor("local", jobs=1).map(_square, [2, 3])) == [4, 9]
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("slurm")


# Last in the module: it kills a node of the module's cluster.
@pytest.mark.slow
@pytest.mark.requires("iverilog", "yosys", "sta", modules=("ray",))
def test_ray_node_lost_mid_run(cluster, local_run, tmp_path):
    out = tmp_path / "run"
    p = _regress(out, tmp_path / "cache", "--executor", "ray", "--ray-address", cluster.address, wait=False)
    try:
        _wait_designs(out, 1, p)
        assert len(list((out / "designs").glob("*.json"))) < N
        cluster.kill_raylet(1)     # node 2 is lost with whatever ran there; its tasks are retried on the head
        text, _ = p.communicate(timeout=600)
    finally:
        p.kill()
    assert p.returncode == 0, text[-3000:]
    files = sorted(f.stem for f in (out / "designs").glob("*.json"))
    assert files == sorted(DESIGNS.split(","))          # nothing lost
    df = pd.read_csv(out / "results.csv")
    assert len(df) == N and df.design.is_unique         # nothing duplicated
    _same(local_run, out)
