"""Run store: idempotent per-step writes and survival of a kill -9 mid-write."""
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from training.kl_control import KLController
from training.puct import Pool
from training.store import RunStore

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cands(tag, n=3):
    return [{"grp": i // 2, "parent": 0, "text": f"module m{i}; // {tag}", "reward": float(i),
             "status": "pass" if i else "fail", "failed_stage": None if i else "lint",
             "area": 10.0 + i, "delay": 1.5, "power": None, "ppa": 15.0 + i,
             "report": {"tag": tag, "stages": ["lint", "sim"]}} for i in range(n)]


def test_write_read_and_rewrite_replaces(tmp_path):
    path = tmp_path / "run.sqlite"
    pool = Pool(seed=1)
    pool.add("module a; endmodule", 2.0, pool.root)
    ctl = KLController()
    dec = ctl.update(0, ref_kl=0.5)
    with RunStore(path) as st:
        st.set_meta("config", {"groups": 8, "seed": 1})
        st.write_step(0, eps=0.69, stats={"loss": np.float64(0.25), "adv": np.zeros(2)},
                      candidates=_cands("a"), pool=pool.to_dict(), decision=dec)
        st.write_step(1, eps=0.35, candidates=_cands("b", 2))
        st.write_step(0, eps=0.5, candidates=_cands("c", 4))       # redo step 0: replaces, no duplicates
    with RunStore(path) as st:                                     # reopen from disk
        assert st.meta("config") == {"groups": 8, "seed": 1} and st.meta("nope", 7) == 7
        assert st.last_step() == 1 and [s["eps"] for s in st.steps()] == [0.5, 0.35]
        c0 = st.candidates(0)
        assert len(c0) == 4 and {c["report"]["tag"] for c in c0} == {"c"}
        assert c0[0]["failed_stage"] == "lint" and c0[0]["power"] is None and c0[3]["area"] == 13.0
        assert len(st.candidates()) == 6
        assert st.pool(0) is None and st.decisions() == []        # step 0's old pool/decision went too
        best = st.best(2)
        assert [(b["step"], b["reward"]) for b in best] == [(0, 3.0), (0, 2.0)]
        st.write_step(2, pool=pool.to_dict(), decision=dec, stats={"loss": np.float64(0.25)})
        assert Pool.from_dict(st.pool()).to_dict() == pool.to_dict()
        assert st.decisions() == [dec] and st.steps()[-1]["stats"] == {"loss": 0.25}
        st.truncate_after(0)
        assert st.last_step() == 0 and st.pool() is None and len(st.candidates()) == 4


def test_bad_candidates_leave_step_untouched(tmp_path):
    with RunStore(tmp_path / "run.sqlite") as st:
        st.write_step(0, candidates=_cands("a"))
        with pytest.raises(ValueError, match="unknown fields"):
            st.write_step(0, candidates=_cands("b") + [{"txt": "typo"}])
        with pytest.raises(ValueError, match="NaN"):
            st.write_step(0, candidates=[{"reward": float("nan")}])
        assert {c["report"]["tag"] for c in st.candidates(0)} == {"a"} and len(st.candidates(0)) == 3


WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from training.store import RunStore
    st = RunStore({path!r})
    def slow():
        for i in range(1000):
            if i == 50:
                print("MID", flush=True)
                time.sleep(60)          # killed here, inside the transaction
            yield {{"text": "new%d" % i, "reward": float(i)}}
    st.write_step(1, eps=9.0, candidates=slow())
""")


def test_kill_9_mid_write_keeps_previous_step(tmp_path):
    path = str(tmp_path / "run.sqlite")
    with RunStore(path) as st:
        st.write_step(0, eps=0.7, candidates=_cands("zero"))
        st.write_step(1, eps=0.6, candidates=_cands("one"))
    proc = subprocess.Popen([sys.executable, "-c", WRITER.format(root=ROOT, path=path)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "MID"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    with RunStore(path) as st:                 # reopen: the half-written rewrite is gone
        assert [s["eps"] for s in st.steps()] == [0.7, 0.6]
        assert {c["report"]["tag"] for c in st.candidates(1)} == {"one"} and len(st.candidates()) == 6
        st.write_step(1, eps=0.5, candidates=[{"text": "redo", "reward": 1.0}])   # the resumed run redoes it
        assert len(st.candidates(1)) == 1 and st.steps()[-1]["eps"] == 0.5
        assert st.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
