"""The project installs as a package (issue 49 item 4): a wheel built from the checkout, installed into a fresh
venv, runs `rtl-agent eval` on a corpus module. Nothing is downloaded: the fresh venv sees the pinned packages
already installed (a .pth to this venv's site folder) and pip runs with --no-index, so a dependency that
pyproject.toml declares but the pinned set does not satisfy fails the install."""
import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from eda.config import require_shared

ROOT = Path(__file__).resolve().parent.parent


def _run(argv, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, f"{' '.join(map(str, argv))}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return r


@pytest.mark.slow
def test_wheel_installs_and_runs_eval(tmp_path):
    rtl = require_shared("corpus/verilog-axis/rtl/axis_register.v")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path / "dist"),
          str(ROOT)])
    wheel = next((tmp_path / "dist").glob("rtl_agent-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "pinned.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([str(py), "-m", "pip", "install", "--no-index", "-q", str(wheel)])
    exe = env_dir / "bin" / "rtl-agent"
    # from a folder outside the checkout: the installed package, not the checkout's, answers
    where = _run([str(py), "-c", "import eda; print(eda.__file__)"], cwd=tmp_path).stdout
    assert str(site) in where, where
    # an installed package has no ../shared beside it: the data folder is named, as a user would
    env = {**os.environ, "RTL_AGENT_SHARED": str(rtl.parents[3])}
    r = _run([str(exe), "eval", str(rtl), "--json", "--no-cache"], cwd=tmp_path, env=env)
    rep = json.loads(r.stdout)
    assert rep["status"] == "pass" and rep["top"] == "axis_register" and rep["ppa"] > 0
