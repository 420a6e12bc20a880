"""`rtl-agent pdk`: list where the Liberty files are found, or fetch them."""
from eda import pdk


def register(sub):
    p = sub.add_parser("pdk", help="list or download standard-cell libraries",
                       description="Liberty files are looked up in $RTL_AGENT_PDK_ROOT, ../shared/pdks, then the "
                       "user cache. `fetch` downloads them from the OpenSTA examples folder and checks sha256.")
    s = p.add_subparsers(dest="pdk_cmd", metavar="ACTION")
    ls = s.add_parser("list", help="show each library and where it is found")
    ls.set_defaults(func=run_list)
    f = s.add_parser("fetch", help="download Liberty files into the user cache (sha256-checked)")
    f.add_argument("names", nargs="*", help=f"PDKs to fetch (default all: {', '.join(pdk.PDKS)})")
    f.add_argument("--url", default=pdk.UPSTREAM, help="base URL holding <pdk>/<file>.lib.gz")
    f.add_argument("--dest", default=None, help="folder to store them (default: user cache)")
    f.set_defaults(func=run_fetch)
    p.set_defaults(func=run_list)


def run_list(args) -> int:
    missing = 0
    for name, p in pdk.PDKS.items():
        for corner in p.libs:
            try:
                print(f"{name:10s} {corner:5s} {pdk.source(name, corner)}")
            except pdk.PdkMissing as e:
                missing += 1
                print(f"{name:10s} {corner:5s} MISSING: {e}")
    return 1 if missing else 0


def run_fetch(args) -> int:
    from pathlib import Path
    try:
        pdk.fetch(args.names or None, base_url=args.url, dest=Path(args.dest) if args.dest else None)
    except pdk.PdkMissing as e:
        print(f"rtl-agent pdk fetch: {e}")
        return 1
    return 0
