"""One line per stage result for a person (`rtl-agent eval`'s table): each stage's row in eda.stages names its
function here, so a new stage brings its own line and the renderer names no stage."""


def _f(x, spec=".4g"):
    return "-" if x is None else format(x, spec)


def sim(d: dict) -> str:
    return f"{d.get('simulator') or 'no simulator'}"


def synth(d: dict) -> str:
    return f"area {_f(d.get('area_um2'))} um2, {d.get('cells', 0)} cells"


def sta(d: dict) -> str:
    return f"delay {_f(d.get('delay_ns'))} ns, power {_f(d.get('power_w'))} W, clock {d.get('clock') or 'virtual'}"


def pnr(d: dict) -> str:
    if "delay_ns" not in d:
        return ""
    return (f"routed: delay {_f(d['delay_ns'])} ns, power {_f(d['power_w'])} W, cells {_f(d['cell_area_um2'])} "
            f"um2 in a {_f(d['core_area_um2'])} um2 core, wire {_f(d['wirelength_um'])} um, {d['vias']} vias, "
            f"DRC {d['drc']}; DEF {d.get('def')}")
