"""Where jobs run: a local process pool, or a Ray cluster (`--executor local|ray`).

    ex = make_executor("ray", address="auto", jobs=2)
    for result in ex.map(fn, items):      # results as they complete (any order)
        ...                                # the driver alone writes run folders and stores
    ex.close()

`fn` must be a module-level function (it is pickled by reference) and must not write run folders:
it returns what it computed and the driver writes it, so a retried or duplicated task never leaves
two copies behind.

Ray (an optional extra: `pip install .[ray]`, or `bash scripts/setup.sh`) runs every item as one
task with `num_cpus=1` (configurable), a memory request, and `max_retries` that only re-run a task
whose worker process or node died (`retry_exceptions=False`: a candidate's own failure is a result,
and a bug in `fn` is raised in the driver, never retried). EDA tools run on the task's node, each in
its own sandbox (eda.sandbox), with the driver's isolation mode and evaluation-cache settings.
Every node must run the same tool versions and Liberty files as the driver: a node that differs is
refused with a message that names the node and the difference (checked once per node at start, and
again inside every task, so a node that joins later is caught too).
"""
import functools
import hashlib
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

KINDS = ("local", "ray")
ENV_KEYS = ("RTL_AGENT_ISOLATION", "RTL_AGENT_CACHE", "RTL_AGENT_SHARED", "RTL_AGENT_PDK_ROOT",
            "RTL_AGENT_ALLOW_SKIP", "OMP_WAIT_POLICY")   # what tasks inherit from the driver
RAY_HINT = "pip install '.[ray]' (or: bash scripts/setup.sh, which installs it into .venv)"


class ExecutorError(RuntimeError):
    """An executor cannot run here (Ray missing, cluster unreachable, a node with other tools)."""


def add_arguments(p, jobs_help: str | None = None):
    """--executor and --ray-address (and their Ray resource knobs) on a command's parser."""
    p.add_argument("--executor", default="local", choices=KINDS,
                   help="where the jobs run: local (a process pool on this machine) or ray (tasks on a Ray "
                        "cluster; needs the ray extra: pip install '.[ray]')")
    p.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="Ray cluster to join with --executor ray (default auto: the cluster started with "
                        "`ray start` on this machine, or $RAY_ADDRESS; 'local' starts a private one)")
    p.add_argument("--ray-memory-mb", type=int, default=None, metavar="MB",
                   help="Ray memory request per task (default 1024 for an EDA evaluation)")


def make_executor(kind: str = "local", address: str | None = None, jobs: int = 2, **ray_opts):
    """`local`: a pool of `jobs` processes (inline when jobs <= 1). `ray`: tasks on the cluster at
    `address` (default "auto"); ray_opts: num_cpus, num_gpus, memory_mb, max_retries, resources."""
    if kind == "local":
        return LocalExecutor(jobs)
    if kind == "ray":
        return RayExecutor(address or "auto", **ray_opts)
    raise ValueError(f"unknown executor '{kind}'; choose one of {', '.join(KINDS)}")


def from_args(args, jobs: int = 2, **ray_opts):
    """make_executor from the options add_arguments defined."""
    if getattr(args, "ray_memory_mb", None):
        ray_opts.setdefault("memory_mb", args.ray_memory_mb)
    return make_executor(getattr(args, "executor", "local") or "local", getattr(args, "ray_address", None),
                         jobs=jobs, **ray_opts)


class LocalExecutor:
    kind = "local"

    def __init__(self, jobs: int = 2):
        self.jobs = max(1, int(jobs))
        self.workers = self.jobs

    def map(self, fn, items):
        if self.jobs <= 1:            # inline, lazily: item i+1 is made after result i is out
            for it in items:
                yield fn(it)
            return
        items = list(items)
        with ProcessPoolExecutor(min(self.jobs, len(items))) as ex:
            pending = {ex.submit(fn, it) for it in items}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---- node fingerprint: the tools and Liberty files a result depends on -------------------------------
@functools.cache
def _file_sha(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def fingerprint() -> dict:
    """Tool versions and the sha256 of each PDK's Liberty file as this node sees them."""
    from eda import pdk as pdks
    from eda import tools
    out = {"tools": tools.key_versions(), "liberty": {}}
    for name in sorted(pdks.PDKS):
        try:
            out["liberty"][name] = _file_sha(str(pdks.source(name)))
        except Exception as e:   # noqa: BLE001 - a node without the file differs; say how
            out["liberty"][name] = f"missing ({type(e).__name__})"
    return out


def differences(mine: dict, theirs: dict) -> list[str]:
    out = []
    for group in ("tools", "liberty"):
        a, b = mine.get(group, {}), theirs.get(group, {})
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                out.append(f"{k}: driver '{a.get(k)}', node '{b.get(k)}'")
    return out


class NodeMismatch(RuntimeError):
    pass


def _on_node(fn, item, env: dict, expect: dict | None):
    """Body of every Ray task: the driver's settings, the node check, then fn(item)."""
    import ray
    os.environ.update(env)
    node = ray.get_runtime_context().get_node_id()
    if expect is not None:
        diff = differences(expect, fingerprint())
        if diff:
            raise NodeMismatch(f"Ray node {node[:12]} refused: its EDA tools or Liberty files differ from the "
                               f"driver's ({'; '.join(diff)}); install the same versions there "
                               "(bash scripts/setup.sh) or remove the node from the cluster")
    t0 = time.time()
    res = fn(item)
    return res, node, t0, time.time()


def _probe(env: dict):
    import ray
    os.environ.update(env)
    return ray.get_runtime_context().get_node_id(), fingerprint()


class RayExecutor:
    kind = "ray"

    def __init__(self, address: str = "auto", num_cpus: float = 1, num_gpus: float = 0, memory_mb: int | None = 1024,
                 max_retries: int = 3, resources: dict | None = None, check_nodes: bool = True):
        try:
            import ray
        except ImportError:
            raise ExecutorError(f"--executor ray needs Ray, which is not installed: {RAY_HINT}") from None
        self.ray = ray
        self.env = {k: os.environ[k] for k in ENV_KEYS if k in os.environ}
        if "RTL_AGENT_SHARED" not in self.env:        # ../shared as the driver found it
            from eda.config import shared_root
            root = shared_root()
            if root:
                self.env["RTL_AGENT_SHARED"] = str(Path(root).resolve())
        self.opts = {"num_cpus": num_cpus, "max_retries": max_retries, "retry_exceptions": False}
        if num_gpus:
            self.opts["num_gpus"] = num_gpus
        if memory_mb:
            self.opts["memory"] = int(memory_mb) * 1024 * 1024
        if resources:
            self.opts["resources"] = dict(resources)
        if not ray.is_initialized():
            try:
                if address == "local":
                    ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
                else:
                    ray.init(address=address, log_to_driver=False, configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise ExecutorError(f"cannot join the Ray cluster at '{address}': {e}; start one with "
                                    "`ray start --head` (and `ray start --address HEAD:PORT` on the other "
                                    "machines) or pass --ray-address") from None
        self.expect = fingerprint() if check_nodes else None
        self.placements: list[dict] = []   # per finished task: node, start, end (wall clock)
        self.submit_s = 0.0
        if check_nodes:
            self.check_nodes()

    @property
    def workers(self) -> int:
        return int(self.ray.cluster_resources().get("CPU", 1) // max(self.opts["num_cpus"], 1e-9)) or 1

    def nodes(self) -> list[dict]:
        return [n for n in self.ray.nodes() if n.get("Alive")]

    def check_nodes(self):
        """Refuse the run when a node runs other tool versions or Liberty files than the driver."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        probe = self.ray.remote(_probe)
        refs = [probe.options(num_cpus=0, max_retries=1, scheduling_strategy=NodeAffinitySchedulingStrategy(
            n["NodeID"], soft=False)).remote(self.env) for n in self.nodes()]
        bad, gone = [], (self.ray.exceptions.TaskUnschedulableError, self.ray.exceptions.NodeDiedError,
                         self.ray.exceptions.WorkerCrashedError)
        for ref in refs:
            try:
                node, fp = self.ray.get(ref)
            except gone:
                continue    # the node left the cluster since it was listed: it runs nothing (tasks check again)
            diff = differences(self.expect, fp)
            if diff:
                bad.append(f"node {node[:12]}: {'; '.join(diff)}")
        if bad:
            raise ExecutorError("Ray nodes refused, their EDA tools or Liberty files differ from the driver's "
                                "(results would not be comparable): " + " | ".join(bad) +
                                "; install the same versions there (bash scripts/setup.sh) or remove the node")

    def map(self, fn, items, **opts):
        """Submit every item as a task; yield fn(item) as tasks finish. opts override the task options."""
        remote = self.ray.remote(_on_node).options(**{**self.opts, **opts})
        t0 = time.monotonic()
        refs = [remote.remote(fn, it, self.env, self.expect) for it in items]
        self.submit_s += time.monotonic() - t0
        pending = list(refs)
        try:
            while pending:
                done, pending = self.ray.wait(pending, num_returns=1)
                for r in done:
                    try:
                        res, node, start, end = self.ray.get(r)
                    except self.ray.exceptions.RayTaskError as e:
                        cause = e.cause if getattr(e, "cause", None) is not None else e
                        if isinstance(cause, NodeMismatch):
                            raise ExecutorError(str(cause)) from None
                        raise cause from None
                    self.placements.append({"node": node, "start": start, "end": end})
                    yield res
        finally:
            for r in pending:      # the driver stopped early: do not leave work behind
                try:
                    self.ray.cancel(r, force=True)
                except Exception:  # noqa: BLE001
                    pass

    def close(self):
        pass   # stay connected: ray.shutdown() at exit; the cluster stays up for the next command

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
