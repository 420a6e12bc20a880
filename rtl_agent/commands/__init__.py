"""One module per `rtl-agent` subcommand (see rtl_agent/cli.py), and what their parsers share."""
import dataclasses


def defaults(cls) -> dict:
    """Field name -> default value of a config dataclass (a default_factory is called): the CLI's argparse
    defaults come from here, so a default is written once, in the dataclass."""
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out
