"""Writing files so that a reader (another worker, a resumed run) never sees half of one."""
import os
import threading
from pathlib import Path


def atomic_write(path, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8, or bytes) to `path` through a temporary file in the same folder and
    an atomic rename; the folder is created when missing. A concurrent writer of the same path wins or
    loses whole."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_bytes(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
