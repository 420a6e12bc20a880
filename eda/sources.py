"""Normalise the ways callers hand us sources: dict name->text, paths, or one path."""
import re
from pathlib import Path

HDL_SUFFIXES = (".v", ".sv", ".vh", ".svh")
_INCLUDE_RE = re.compile(r'^\s*`include\s+"([^"]+)"', re.M)


def as_texts(src) -> dict:
    """dict[str, str|bytes] from a dict, a Path/str path, or a list of paths."""
    if src is None:
        return {}
    if isinstance(src, dict):
        return dict(src)
    if isinstance(src, (str, Path)):
        src = [src]
    out = {}
    for p in src:
        p = Path(p)
        if not p.is_file():
            raise FileNotFoundError(f"source file not found: {p}")
        data = p.read_bytes()
        try:
            out[p.name] = data.decode("utf-8")
        except UnicodeDecodeError:
            out[p.name] = data
    return out


def included_names(texts: dict) -> set:
    """Basenames that one of `texts` `include`s: compiled there, not on their own (a design may include a .v)."""
    return {Path(m).name for t in texts.values() if isinstance(t, str) and "`include" in t
            for m in _INCLUDE_RE.findall(t)}


def is_header(name: str, texts: dict) -> bool:
    return Path(name).suffix in (".vh", ".svh") or Path(name).name in included_names(texts)


def write_all(texts: dict, folder: Path) -> list[Path]:
    """Write files into `folder`; return the HDL ones (in order) for the compiler."""
    hdl = []
    included = included_names(texts)
    for name, text in texts.items():
        p = folder / Path(name).name
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
        if p.suffix in HDL_SUFFIXES and p.suffix not in (".vh", ".svh") and p.name not in included:
            hdl.append(p)
    return hdl
