"""`optimize|cover --suite`: every design's job gets the run's config (OptimizeConfig / CoverConfig) with its
task and run folder, and the CLI's defaults are the config dataclasses'. The jobs' work (`optimize`,
`run_cover`) is replaced: no model, no EDA tool runs."""
import json
from pathlib import Path

import pytest

from rtl_agent import suite_jobs
from rtl_agent.jobs import cover
from rtl_agent.jobs import optimize as opt
from rtl_agent.cli import build_parser
from rtl_agent.commands import defaults

DESIGNS = "adder16,counter8"


def _run(*argv):
    args = build_parser().parse_args(list(argv))
    return args.func(args)


def _fake_optimize(seen):
    def optimize(cfg, on_event=None):
        seen.append(cfg)
        return {"steps": cfg.steps, "best_ratio": 1.0, "best_ppa": 2.0, "ref_ppa": 2.0, "best_source": "reference",
                "best_step": 0, "pool_size": 1, "isolation": "bwrap", "dir": cfg.out}
    return optimize


def test_optimize_suite_gives_each_job_an_optimize_config(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(opt, "optimize", _fake_optimize(seen))
    out = tmp_path / "suite"
    assert _run("optimize", "--suite", "designs", "--designs", DESIGNS, "--out", str(out), "--steps", "3",
                "--actions", "rewrite,diff", "--seed", "2") == 0
    assert [type(c) for c in seen] == [opt.OptimizeConfig] * 2
    assert [c.task for c in seen] == DESIGNS.split(",")
    for c in seen:
        assert Path(c.out) == (out / f"{c.task}-s2").resolve() and (Path(c.out) / suite_jobs.MARK).is_file()
        assert (c.steps, c.actions, c.seed, c.resume, c.adapter) == (3, "rewrite,diff", 2, False, "edit")
    rows = json.loads((out / "summary.json").read_text())["designs"]
    assert [(r["design"], r["status"], r["steps"]) for r in rows] == [("adder16", "done", 3), ("counter8", "done", 3)]

    seen.clear()                     # --resume reaches every job's config
    assert _run("optimize", "--suite", "designs", "--designs", "adder16", "--out", str(out), "--resume") == 0
    assert [(c.task, c.resume) for c in seen] == [("adder16", True)]


def test_a_retried_optimize_job_resumes_its_own_folder(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(opt, "optimize", _fake_optimize(seen))
    cfg = opt.OptimizeConfig(task="adder16", out=str(tmp_path / "a"))
    job = {"task": "adder16", "out": cfg.out, "_token": "t1", "cfg": cfg}
    assert suite_jobs.optimize_job(job)["status"] == "done" and suite_jobs.optimize_job(job)["status"] == "done"
    assert [c.resume for c in seen] == [False, True]     # the second attempt found its own mark


def test_a_bad_optimize_config_fails_before_any_job(tmp_path, monkeypatch):
    monkeypatch.setattr(opt, "optimize", lambda cfg, on_event=None: pytest.fail("a job ran"))
    with pytest.raises(ValueError, match="--steps must be >= 1"):
        _run("optimize", "--suite", "designs", "--designs", DESIGNS, "--out", str(tmp_path / "s"), "--steps", "0")


def test_cover_suite_gives_each_job_the_cover_config(tmp_path, monkeypatch):
    seen = []

    def run_cover(task, out, cfg, policy_spec="default", resume=False, baseline=False, log=print, **kw):
        seen.append((task.name, Path(out), cfg, policy_spec, resume, baseline))
        return {"met": True, "simulations": 1, "total_pct": 100.0, "random_runs": 1, "attribution": {"model": 0},
                "coverage": {"line": {"pct": 100.0}}, "accepted": [], "isolation": "bwrap"}
    monkeypatch.setattr(cover, "run_cover", run_cover)
    out = tmp_path / "suite"
    assert _run("cover", "--suite", "designs", "--designs", DESIGNS, "--out", str(out), "--threads", "0",
                "--target", "line=50", "--budget", "3", "--baseline") == 0
    assert [s[0] for s in seen] == DESIGNS.split(",")
    for name, run_dir, cfg, policy, resume, baseline in seen:
        assert run_dir == (out / name).resolve() and isinstance(cfg, cover.CoverConfig)
        assert (cfg.target, cfg.budget, policy, resume, baseline) == ({"line": 50.0}, 3, "default", False, True)
    assert json.loads((out / "summary.json").read_text())["designs"][0]["status"] == "done"


def test_cli_defaults_are_the_config_defaults():
    d = defaults(opt.OptimizeConfig)
    a = build_parser().parse_args(["optimize", "adder16"])
    for k in ("model", "backend", "steps", "batch", "group", "pdk", "out", "seed", "train", "pool", "fixed_kl",
              "from_spec", "max_tokens", "temperature", "stop", "lr", "actions", "prefill", "repair", "line_edit",
              "header", "keep_lhs", "accept_unproven", "workers", "resume"):
        assert getattr(a, k) == d[k], k
    from rtl_agent.commands.optimize import config_from_args
    assert config_from_args(a) == opt.OptimizeConfig(task="adder16")    # no flags: the config's defaults
    d = defaults(cover.CoverConfig)
    a = build_parser().parse_args(["cover", "counter8"])
    for k in ("budget", "random_budget", "patience", "group", "max_tokens", "temperature", "seed", "lr", "adapter"):
        assert getattr(a, k) == d[k], k
    assert cover.config_from(vars(a)) == cover.CoverConfig()
