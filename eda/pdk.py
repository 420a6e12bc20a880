"""PDK registry: one record per PDK (Liberty files by corner, the cells synthesis names, the place-and-route
views), and the default PDK.

Search order: $RTL_AGENT_PDK_ROOT, <shared>/pdks (../shared), the user cache
(<cache>/pdks, filled by `rtl-agent pdk fetch`). `.lib.gz` is decompressed once
into the cache because Yosys reads only plain `.lib`.
"""
import gzip
import hashlib
import os
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path

from .config import cache_dir, shared_root
from .fsutil import atomic_write

OPENSTA_COMMIT = "737b52f33b66e4c2ccc3e3ef22c3adfe9aec8d09"
UPSTREAM = f"https://raw.githubusercontent.com/parallaxsw/OpenSTA/{OPENSTA_COMMIT}/examples"


@dataclass(frozen=True)
class LibFile:
    rel: str        # path below a pdk root, also below the upstream examples/ folder
    sha256: str


@dataclass(frozen=True)
class Pdk:
    """Everything the flow needs of one standard-cell library, in one record."""
    name: str
    libs: dict                 # corner -> LibFile (Liberty: synthesis, timing, power)
    default_corner: str
    # cells the synthesis script needs by name: ties for constants, a buffer for plain assigns (OpenSTA
    # cannot read assign/concat netlists), and latches (Yosys 0.23's dfflibmap mapped flops only; kept on 0.70)
    cells: dict
    # physical views for place and route (OpenROAD-flow-scripts' platform files, in ../shared/pdks/<pdk>/):
    # technology and cell LEF, per-layer wire RC (setRC.tcl), the row site, pin and routing layers, the
    # clock-tree buffer
    lefs: tuple = ()
    setrc: str = ""
    site: str = ""
    pin_layers: tuple = ()
    route_layers: tuple = ()
    cts_buffer: str = ""


_ALL = (
    Pdk("nangate45",
        {"typ": LibFile("nangate45/nangate45_typ.lib.gz",
                        "7ee6c11d0c8964f9971ba28b879a6cad28e178f86911adda71ac0672ce00f7ef"),
         "slow": LibFile("nangate45/nangate45_slow.lib.gz",
                         "6bb0afb42df14944031c1aa10c49595f41726e867f69e39a411f563c2ae002ec"),
         "fast": LibFile("nangate45/nangate45_fast.lib.gz",
                         "d93c6758c7ed42b90b010ed1ac12754477e67ed790db87fd1756e8ab6fe318c1")}, "typ",
        {"tie_hi": "LOGIC1_X1 Z", "tie_lo": "LOGIC0_X1 Z", "buf": "BUF_X1 A Z",
         "latch_p": ("DLH_X1", "D", "G", "Q"), "latch_n": ("DLL_X1", "D", "GN", "Q")},
        lefs=("nangate45/lef/NangateOpenCellLibrary.tech.lef", "nangate45/lef/NangateOpenCellLibrary.macro.mod.lef"),
        setrc="nangate45/setRC.tcl", site="FreePDK45_38x28_10R_NP_162NW_34O",
        pin_layers=("metal3", "metal2"), route_layers=("metal2", "metal10"), cts_buffer="CLKBUF_X3"),
    Pdk("sky130hd",
        {"tt": LibFile("sky130hd/sky130hd_tt.lib.gz",
                       "210e56be3a3a0907b5241a34d277f664cf4b4d91dcb49a27ff813df4406a5889")}, "tt",
        {"tie_hi": "sky130_fd_sc_hd__conb_1 HI", "tie_lo": "sky130_fd_sc_hd__conb_1 LO",
         "buf": "sky130_fd_sc_hd__buf_1 A X",
         "latch_p": ("sky130_fd_sc_hd__dlxtp_1", "D", "GATE", "Q"),
         "latch_n": ("sky130_fd_sc_hd__dlxtn_1", "D", "GATE_N", "Q")},
        lefs=("sky130hd/lef/sky130_fd_sc_hd.tlef", "sky130hd/lef/sky130_fd_sc_hd_merged.lef.gz"),
        setrc="sky130hd/setRC.tcl", site="unithd", pin_layers=("met3", "met2"), route_layers=("met1", "met5"),
        cts_buffer="sky130_fd_sc_hd__clkbuf_4"),
)
PDKS = {p.name: p for p in _ALL}
DEFAULT_PDK = "nangate45"       # a job, a task or a command that names no PDK gets this one


class PdkMissing(FileNotFoundError):
    pass


def roots() -> list[Path]:
    out = []
    if os.environ.get("RTL_AGENT_PDK_ROOT"):
        out.append(Path(os.environ["RTL_AGENT_PDK_ROOT"]))
    sh = shared_root()
    if sh:
        out.append(sh / "pdks")
    out.append(cache_dir() / "pdks")
    return out


def get(pdk: str) -> Pdk:
    """The PDK's record; PdkMissing naming the known ones when there is none."""
    if pdk not in PDKS:
        raise PdkMissing(f"unknown PDK '{pdk}'; known: {', '.join(PDKS)}")
    return PDKS[pdk]


def _entry(pdk: str, corner: str | None) -> LibFile:
    p = get(pdk)
    corner = corner or p.default_corner
    if corner not in p.libs:
        raise PdkMissing(f"PDK '{pdk}' has no corner '{corner}'; known: {', '.join(p.libs)}")
    return p.libs[corner]


def source(pdk: str, corner: str | None = None) -> Path:
    """The (possibly gzipped) Liberty file as found in the search roots."""
    e = _entry(pdk, corner)
    looked = []
    for r in roots():
        p = r / e.rel
        looked.append(str(p))
        if p.is_file():
            return p
    raise PdkMissing(f"Liberty file for {pdk} not found; looked in: {', '.join(looked)}. "
                     f"Set RTL_AGENT_PDK_ROOT, or run `rtl-agent pdk fetch {pdk}`.")


def physical(pdk: str) -> Pdk:
    """The PDK's record with its LEF and setRC.tcl paths found in the search roots (for place and route);
    PdkMissing naming every path looked at when one is absent."""
    p = PDKS.get(pdk)
    if p is None or not p.lefs:
        raise PdkMissing(f"no place-and-route views known for PDK '{pdk}'; "
                         f"known: {', '.join(n for n, q in PDKS.items() if q.lefs)}")

    def find(rel):
        looked = [r / rel for r in roots()]
        for f in looked:
            if f.is_file():
                return f
        raise PdkMissing(f"{pdk} place-and-route file missing: {', '.join(map(str, looked))}")
    return replace(p, lefs=tuple(find(r) for r in p.lefs), setrc=find(p.setrc))


def liberty(pdk: str, corner: str | None = None) -> Path:
    """Path to a plain `.lib` (decompressed once into the cache)."""
    e = _entry(pdk, corner)
    src = source(pdk, corner)
    if src.suffix != ".gz":
        return src
    out = cache_dir() / "lib" / f"{e.sha256[:16]}_{Path(e.rel).name[:-3]}"
    if not out.is_file():
        with gzip.open(src, "rb") as fi:
            atomic_write(out, fi.read())   # parallel workers never see half a file
    return out


def lib_hash(pdk: str, corner: str | None = None) -> str:
    return _entry(pdk, corner).sha256


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(pdks=None, base_url: str = UPSTREAM, dest: Path | None = None, timeout=60, progress=print) -> list[Path]:
    """Download Liberty files from `base_url/<rel>` into the cache; verify sha256."""
    dest = dest or cache_dir() / "pdks"
    got = []
    for name in pdks or list(PDKS):
        for corner, e in get(name).libs.items():
            out = dest / e.rel
            if out.is_file() and sha256(out) == e.sha256:
                progress(f"{name}/{corner}: already present ({out})")
                got.append(out)
                continue
            url = f"{base_url.rstrip('/')}/{e.rel}"
            try:
                with urllib.request.urlopen(url, timeout=timeout) as r:
                    data = r.read()
            except OSError as ex:
                raise PdkMissing(f"download failed for {url}: {ex}") from ex
            digest = hashlib.sha256(data).hexdigest()
            if digest != e.sha256:
                raise PdkMissing(f"checksum mismatch for {url}: got {digest}, expected {e.sha256}")
            atomic_write(out, data)
            progress(f"{name}/{corner}: fetched {url} -> {out} (sha256 ok)")
            got.append(out)
    return got
