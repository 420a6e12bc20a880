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
from training.rows import Row
from training.store import RunStore

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cands(tag, n=3):
    return [Row(f"module m{i}; // {tag}", float(i), "pass" if i else "fail", None if i else "lint",
                metrics={"area": 10.0 + i, "delay": 1.5, "ppa": 15.0 + i}, group=i // 2, parent=0,
                payload={"tag": tag, "stages": ["lint", "sim"]}, sample={"tokens": i}) for i in range(n)]


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
        assert len(c0) == 4 and {c["payload"]["tag"] for c in c0} == {"c"}
        assert c0[0]["failed"] == "lint" and "power" not in c0[0]["metrics"] and c0[3]["metrics"]["area"] == 13.0
        assert Row.from_store(c0[3]) == _cands("c", 4)[3] and c0[2]["sample"] == {"tokens": 2}
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
        with pytest.raises(ValueError, match="NaN"):
            st.write_step(0, candidates=[Row("x", 1.0, "pass", metrics={"ppa": float("nan")})])
        assert {c["payload"]["tag"] for c in st.candidates(0)} == {"a"} and len(st.candidates(0)) == 3


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
        assert {c["payload"]["tag"] for c in st.candidates(1)} == {"one"} and len(st.candidates()) == 6
        st.write_step(1, eps=0.5, candidates=[{"text": "redo", "reward": 1.0}])   # the resumed run redoes it
        assert len(st.candidates(1)) == 1 and st.steps()[-1]["eps"] == 0.5
        assert st.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_store_of_the_first_format_is_converted_on_open(tmp_path):
    """Run folders from before typed rows (PPA columns, one report holding how the loop sampled) open,
    with the PPA columns as metrics and the loop's keys as the sample; nothing else moves."""
    import json
    import sqlite3
    path = tmp_path / "run.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""CREATE TABLE candidates(step INTEGER NOT NULL, idx INTEGER NOT NULL, grp INTEGER,
        parent INTEGER, text TEXT, reward REAL, status TEXT, failed_stage TEXT, area REAL, delay REAL,
        power REAL, ppa REAL, report TEXT, PRIMARY KEY(step, idx));""")
    rep = {"eda": {"status": "pass"}, "pool_id": 3, "completion": "assign y = a;", "tokens": 7, "mode": "whole"}
    db.execute("INSERT INTO candidates VALUES (1, 0, 0, 0, 'module m; endmodule', 0.5, 'pass', NULL, "
               "10.0, 2.0, NULL, 20.0, ?)", (json.dumps(rep),))
    db.execute("INSERT INTO candidates VALUES (1, 1, 0, 0, NULL, -1.0, 'extract', 'extract', "
               "NULL, NULL, NULL, NULL, NULL)")
    db.commit()
    db.close()
    with RunStore(path) as st:
        a, b = st.candidates(1)
        assert a["metrics"] == {"area": 10.0, "delay": 2.0, "ppa": 20.0} and a["failed"] is None
        assert a["payload"] == {"eda": {"status": "pass"}, "pool_id": 3}
        assert a["sample"] == {"completion": "assign y = a;", "tokens": 7, "mode": "whole"}
        assert b["failed"] == "extract" and b["metrics"] == {} and b["payload"] == {}
    with RunStore(path) as st:                 # converted once; opening again changes nothing
        assert st.candidates(1)[0]["metrics"]["ppa"] == 20.0
