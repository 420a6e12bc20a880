"""Yosys and OpenSTA scripts shipped as package data, filled in with string.Template
(`${name}` fields; a literal `$` is written `$$`).

    text = render("synth.ys", files="a.v b.v", top="add", lib="/x.lib", ...)
"""
from pathlib import Path
from string import Template

HERE = Path(__file__).resolve().parent


def render(name: str, **fields) -> str:
    """The script `name` with every field filled in (KeyError for a missing one)."""
    return Template((HERE / name).read_text()).substitute(**{k: str(v) for k, v in fields.items()})
