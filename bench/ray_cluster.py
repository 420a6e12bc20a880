"""A small Ray cluster of several nodes on this machine, for tests and benchmarks.

    with LocalCluster(nodes=[{"num_cpus": 1}, {"num_cpus": 1, "resources": {"node2": 1}}]) as c:
        run(["rtl-agent", "regress", "--executor", "ray", "--ray-address", c.address, ...])
        c.kill_raylet(1)      # node 2's raylet dies (SIGKILL)

Every node is a `ray start` with its own ports, few CPUs, a small object store and no dashboard;
teardown is `ray stop --force`.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ports() -> list:
    return ["--node-manager-port", str(free_port()), "--object-manager-port", str(free_port()),
            "--dashboard-agent-listen-port", str(free_port()), "--dashboard-agent-grpc-port", str(free_port()),
            "--runtime-env-agent-port", str(free_port()), "--metrics-export-port", str(free_port()),
            "--min-worker-port", "0", "--max-worker-port", "0"]


class LocalCluster:
    def __init__(self, nodes=({"num_cpus": 1},), object_store_mb: int = 100, env: dict | None = None,
                 timeout: float = 180):
        self.nodes = [dict(n) for n in nodes]
        self.object_store = str(object_store_mb * 1024 * 1024)
        self.env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **(env or {})}
        self.timeout = timeout
        self.address = None
        self.raylets: list[int | None] = []

    def _start(self, node: dict, head: bool):
        argv = [RAY, "start", "--num-cpus", str(node.get("num_cpus", 1)), "--num-gpus", str(node.get("num_gpus", 0)),
                "--object-store-memory", self.object_store, "--disable-usage-stats", *_ports()]
        if node.get("resources"):
            argv += ["--resources", json.dumps(node["resources"])]
        if head:
            port = free_port()
            argv += ["--head", "--port", str(port), "--include-dashboard=false",
                     "--ray-client-server-port", str(free_port())]
            self.address = f"127.0.0.1:{port}"
        else:
            argv += ["--address", self.address]
        before = set(self._raylet_pids())
        r = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=self.timeout)
        if r.returncode != 0:
            raise RuntimeError(f"ray start failed ({r.returncode}): {r.stdout[-2000:]} {r.stderr[-2000:]}")
        new = [p for p in self._raylet_pids() if p not in before]
        self.raylets.append(new[0] if len(new) == 1 else None)

    @staticmethod
    def _raylet_pids() -> list[int]:
        out = []
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    if (d / "comm").read_text().strip() == "raylet":
                        out.append(int(d.name))
                except OSError:
                    pass
        return out

    def start(self, attempts: int = 3):
        # `ray start` gives a node 30 s (hard-coded in ray/_private/node.py) to register with the GCS; on a
        # loaded machine that is not always enough, so a failed start is torn down and tried again
        for k in range(attempts):
            try:
                for i, n in enumerate(self.nodes):
                    self._start(n, head=i == 0)
                self.wait_nodes(len(self.nodes))
                return self
            except RuntimeError:
                self.stop()
                self.address, self.raylets = None, []
                if k == attempts - 1:
                    raise
                time.sleep(5)

    def wait_nodes(self, n: int):
        code = ("import ray,sys; ray.init(address=sys.argv[1], log_to_driver=False); "
                "print(sum(1 for x in ray.nodes() if x['Alive']))")
        t_end = time.monotonic() + self.timeout
        while True:
            r = subprocess.run([sys.executable, "-c", code, self.address], env=self.env, capture_output=True,
                               text=True, timeout=self.timeout)
            if r.returncode == 0 and r.stdout.strip().splitlines()[-1:] == [str(n)]:
                return
            if time.monotonic() > t_end:
                raise RuntimeError(f"Ray cluster at {self.address}: {n} nodes not alive: {r.stdout} {r.stderr[-1000:]}")
            time.sleep(1)

    def kill_raylet(self, i: int):
        """SIGKILL node i's raylet (the node is lost: its workers die, its tasks must be retried)."""
        pid = self.raylets[i]
        if pid is None:
            raise RuntimeError(f"raylet of node {i} not identified")
        os.kill(pid, signal.SIGKILL)

    def stop(self):
        subprocess.run([RAY, "stop", "--force"], env=self.env, capture_output=True, timeout=120)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
