"""A run's last lines are its own: the pyslang parse trees are released before the interpreter exits, so nanobind's
exit check has no "leaked instance" dump to print under them (issue #61 item 2)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The checking hook is registered before the library is imported, so it runs after the library's own exit hooks
# (atexit runs them last-in first-out): it sees what the interpreter's teardown would be left with.
SCRIPT = """
import atexit, gc
def alive():
    from rtl_agent.transforms.syntax import Parsed
    gc.collect()
    print("parse trees alive at exit:", sum(type(o) is Parsed for o in gc.get_objects()))
atexit.register(alive)
from designs import load_task
from rtl_agent import transforms as T
t = load_task("wide_count")
d = T.Design("\\n".join(t.reference_sources().values()), t.top)
print("cnt width", d.parsed().width("cnt"))
"""


def test_parse_trees_released_before_exit():
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "cnt width 32" in r.stdout            # the tree was built and used
    assert "parse trees alive at exit: 0" in r.stdout, r.stdout
    assert "leaked" not in r.stderr, r.stderr[-2000:]
