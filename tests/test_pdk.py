"""PDK registry lookup order, clear errors, and `rtl-agent pdk fetch` against a local HTTP server."""
import functools
import http.server
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from eda import pdk
from eda.config import shared_root

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def served_pdks(tmp_path):
    """A copy of ../shared/pdks served on 127.0.0.1 (stand-in for the upstream URL)."""
    src = shared_root() / "pdks"
    www = tmp_path / "www"
    shutil.copytree(src, www)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    handler.log_message = lambda *a: None
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", www
    srv.shutdown()


def test_fetch_verifies_and_is_found(served_pdks, tmp_path, monkeypatch):
    url, www = served_pdks
    cache = tmp_path / "cache"
    monkeypatch.setenv("RTL_AGENT_CACHE", str(cache))
    r = subprocess.run([sys.executable, "-m", "rtl_agent.cli", "pdk", "fetch", "nangate45", "--url", url],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("sha256 ok") == 3
    got = cache / "pdks" / "nangate45" / "nangate45_typ.lib.gz"
    assert pdk.sha256(got) == pdk.PDKS["nangate45"].libs["typ"].sha256
    # a second fetch downloads nothing
    r2 = subprocess.run([sys.executable, "-m", "rtl_agent.cli", "pdk", "fetch", "nangate45", "--url", url],
                        capture_output=True, text=True, cwd=ROOT)
    assert r2.stdout.count("already present") == 3


def test_fetch_rejects_a_corrupted_file(served_pdks, tmp_path):
    url, www = served_pdks
    (www / "sky130hd" / "sky130hd_tt.lib.gz").write_bytes(b"not a liberty file")
    with pytest.raises(pdk.PdkMissing, match="checksum mismatch"):
        pdk.fetch(["sky130hd"], base_url=url, dest=tmp_path / "d", progress=lambda *_: None)
    assert not (tmp_path / "d" / "sky130hd" / "sky130hd_tt.lib.gz").exists()


def test_refused_connection_is_a_clear_error(tmp_path):
    with pytest.raises(pdk.PdkMissing, match="download failed for http://127.0.0.1:9/"):
        pdk.fetch(["sky130hd"], base_url="http://127.0.0.1:9", dest=tmp_path, timeout=5, progress=lambda *_: None)


def test_lookup_order_and_missing_message(tmp_path, monkeypatch):
    monkeypatch.setenv("RTL_AGENT_PDK_ROOT", str(tmp_path / "mine"))
    (tmp_path / "mine" / "sky130hd").mkdir(parents=True)
    shutil.copy(shared_root() / "pdks/sky130hd/sky130hd_tt.lib.gz", tmp_path / "mine/sky130hd/")
    assert pdk.source("sky130hd") == tmp_path / "mine/sky130hd/sky130hd_tt.lib.gz"
    assert pdk.liberty("sky130hd").read_text()[:200].lstrip().startswith("library")
    monkeypatch.setenv("RTL_AGENT_SHARED", str(tmp_path / "nowhere"))
    monkeypatch.setattr(pdk, "shared_root", lambda: None)
    monkeypatch.setenv("RTL_AGENT_CACHE", str(tmp_path / "emptycache"))
    with pytest.raises(pdk.PdkMissing) as e:
        pdk.source("nangate45")
    msg = str(e.value)
    assert str(tmp_path / "mine" / "nangate45" / "nangate45_typ.lib.gz") in msg and "rtl-agent pdk fetch" in msg
    with pytest.raises(pdk.PdkMissing, match="unknown PDK"):
        pdk.source("tsmc3")


@pytest.mark.requires("yosys", "sta")
def test_a_missing_liberty_is_not_cached(tmp_path, monkeypatch):
    """A clone without ../shared fails synthesis with PdkMissing; a later run with the files must not be
    served that failure from the cache (the key cannot tell the two machines apart)."""
    from eda.cache import Cache
    from eda.flow import FlowJob, evaluate
    code = {"a.v": "module a(input [3:0] x, y, output [4:0] s); assign s = x + y; endmodule\n"}
    job = FlowJob(top="a", stages=("synth", "sta"), clock=None, cache=Cache(tmp_path / "cache"))
    with monkeypatch.context() as m:
        m.setenv("RTL_AGENT_PDK_ROOT", str(tmp_path / "mine"))
        m.setenv("RTL_AGENT_SHARED", str(tmp_path / "nowhere"))
        m.setattr(pdk, "shared_root", lambda: None)
        m.setenv("RTL_AGENT_CACHE", str(tmp_path / "emptycache"))
        missing = evaluate(job, code)
    assert missing.status != "pass" and "not found" in missing.failure_reason
    again = evaluate(job, code)
    assert again.status == "pass" and again.ppa and not again.cached
