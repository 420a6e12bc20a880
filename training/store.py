"""SQLite store of one RL run: steps, candidates, pool snapshots, KL decisions.

Writes are per step and idempotent: write_step(step, ...) deletes every row of
that step in every table and inserts the new ones inside one transaction, so
re-running a step after a crash replaces it and never duplicates it, and a
process killed mid-write leaves the previous state of that step (SQLite's WAL
rolls the unfinished transaction back on the next open).  Steps are otherwise
append-only; truncate_after(step) drops the steps a resumed run will redo.

Tables (step is the key everywhere; idx is a candidate's position in its step):
  steps(step, time, eps, stats)                 stats: JSON of rl_step's stats
  candidates(step, idx, grp, parent, text, reward, status, failed,
             metrics, payload, sample)          training.rows.Row; metrics, payload, sample: JSON
                                                (metrics: the environment's own columns)
  pool_snapshots(step, pool)                    pool: JSON (puct.Pool.to_dict)
  decisions(step, eps_old, eps_new, cause, record)
  meta(key, value)                              run config etc., JSON values
"""
import json
import math
import sqlite3
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS steps(step INTEGER PRIMARY KEY, time REAL, eps REAL, stats TEXT);
CREATE TABLE IF NOT EXISTS candidates(
    step INTEGER NOT NULL, idx INTEGER NOT NULL, grp INTEGER, parent INTEGER, text TEXT,
    reward REAL, status TEXT, failed TEXT, metrics TEXT, payload TEXT, sample TEXT, PRIMARY KEY(step, idx));
CREATE TABLE IF NOT EXISTS pool_snapshots(step INTEGER PRIMARY KEY, pool TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS decisions(step INTEGER PRIMARY KEY, eps_old REAL, eps_new REAL,
    cause TEXT, record TEXT);
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
"""
CAND_COLS = ("grp", "parent", "text", "reward", "status", "failed", "metrics", "payload", "sample")
_JSON = ("metrics", "payload", "sample")
# Format 1 (before typed rows) had PPA columns and one report in which the loop had merged how it
# sampled (these keys: its own and those of both jobs' Group.info); a store in it is converted on open.
_V1_METRICS = ("area", "delay", "power", "ppa")
_V1_SAMPLE_KEYS = ("completion", "tokens", "finish", "seed", "prefill", "mode", "prompt_tokens", "budget",
                   "action", "region", "target_line", "line_edit")
_TABLES = ("steps", "candidates", "pool_snapshots", "decisions")


def _num(name, v):
    if v is None:
        return None
    x = float(v)
    # SQLite stores NaN as NULL silently; say so instead
    if math.isnan(x):
        raise ValueError(f"candidate {name} is NaN")
    return x


class RunStore:
    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per write
        self.db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self._upgrade_v1()
        self.db.executescript(SCHEMA)

    def _upgrade_v1(self):
        cols = [r[1] for r in self.db.execute("PRAGMA table_info(candidates)")]
        if "area" not in cols:
            return
        old = [dict(zip(cols, r)) for r in self.db.execute("SELECT * FROM candidates")]

        def body():
            self.db.execute("DROP TABLE candidates")
            self.db.execute(SCHEMA.split(";")[1])
            for c in old:
                rep = json.loads(c["report"]) if c["report"] else {}
                sample = {k: rep.pop(k) for k in _V1_SAMPLE_KEYS if k in rep}
                metrics = {k: c[k] for k in _V1_METRICS if c[k] is not None}
                self.db.execute("INSERT INTO candidates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                (c["step"], c["idx"], c["grp"], c["parent"], c["text"], c["reward"], c["status"],
                                 c["failed_stage"], json.dumps(metrics), json.dumps(rep), json.dumps(sample)))
        self._tx(body)

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- writes -----------------------------------------------------------
    def _tx(self, fn):
        self.db.execute("BEGIN IMMEDIATE")
        try:
            fn()
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def write_step(self, step: int, eps: float | None = None, stats: dict | None = None,
                   candidates=(), pool: dict | None = None, decision: dict | None = None):
        """Replace everything stored for `step` with these rows, atomically.
        candidates: training.rows.Row, or dicts with keys from CAND_COLS (metrics/payload/sample: dicts)."""
        step = int(step)

        def rows():
            for i, c in enumerate(candidates):
                c = c.to_store() if hasattr(c, "to_store") else c
                extra = set(c) - set(CAND_COLS)
                if extra:
                    raise ValueError(f"candidate {i} of step {step}: unknown fields {sorted(extra)}")
                for name, v in (c.get("metrics") or {}).items():
                    _num(f"metric {name}", v)
                yield (step, i, *(_num(k, c.get(k)) if k == "reward" else
                                  json.dumps(c.get(k) or {}) if k in _JSON else c.get(k) for k in CAND_COLS))

        def body():
            for t in _TABLES:
                self.db.execute(f"DELETE FROM {t} WHERE step = ?", (step,))
            self.db.execute("INSERT INTO steps VALUES (?, ?, ?, ?)",
                            (step, time.time(), eps, json.dumps(stats or {}, default=_jsonable)))
            self.db.executemany(f"INSERT INTO candidates VALUES ({', '.join('?' * (2 + len(CAND_COLS)))})",
                                rows())
            if pool is not None:
                self.db.execute("INSERT INTO pool_snapshots VALUES (?, ?)", (step, json.dumps(pool)))
            if decision is not None:
                self.db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?, ?)",
                                (step, decision.get("eps_old"), decision.get("eps_new"),
                                 decision.get("cause"), json.dumps(decision, default=_jsonable)))
        self._tx(body)

    def truncate_after(self, step: int):
        """Drop every step > step (a run resumed from a checkpoint at `step` redoes them)."""
        self._tx(lambda: [self.db.execute(f"DELETE FROM {t} WHERE step > ?", (int(step),)) for t in _TABLES])

    def set_meta(self, key: str, value):
        self._tx(lambda: self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value))))

    # -- reads ------------------------------------------------------------
    def meta(self, key: str, default=None):
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def last_step(self) -> int | None:
        return self.db.execute("SELECT MAX(step) FROM steps").fetchone()[0]

    def steps(self) -> list[dict]:
        return [{"step": s, "time": t, "eps": e, "stats": json.loads(st)}
                for s, t, e, st in self.db.execute("SELECT * FROM steps ORDER BY step")]

    def _cands(self, where: str, args: tuple) -> list[dict]:
        out = []
        for row in self.db.execute(f"SELECT * FROM candidates {where}", args):
            d = dict(zip(("step", "idx") + CAND_COLS, row))
            for k in _JSON:
                d[k] = json.loads(d[k]) if d[k] else {}
            out.append(d)
        return out

    def candidates(self, step: int | None = None) -> list[dict]:
        if step is None:
            return self._cands("ORDER BY step, idx", ())
        return self._cands("WHERE step = ? ORDER BY idx", (int(step),))

    def best(self, n: int = 1) -> list[dict]:
        """The n candidates with the highest reward over the whole run."""
        return self._cands("WHERE reward IS NOT NULL ORDER BY reward DESC, step, idx LIMIT ?", (int(n),))

    def pool(self, step: int | None = None) -> dict | None:
        """The pool snapshot at `step`, or the latest one."""
        q, a = (("SELECT pool FROM pool_snapshots WHERE step = ?", (int(step),)) if step is not None
                else ("SELECT pool FROM pool_snapshots ORDER BY step DESC LIMIT 1", ()))
        row = self.db.execute(q, a).fetchone()
        return json.loads(row[0]) if row else None

    def decisions(self) -> list[dict]:
        return [json.loads(r[0]) for r in self.db.execute("SELECT record FROM decisions ORDER BY step")]


def _jsonable(o):
    # numpy scalars and arrays appear in stats; anything else becomes its repr
    if hasattr(o, "tolist"):
        return o.tolist()
    return repr(o)
