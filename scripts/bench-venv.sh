#!/usr/bin/env bash
# The Python environment of the CPU benchmarks' references: PyTorch's CPU wheel (oneDNN) and NumPy
# (OpenBLAS), pinned, in the git-ignored .venv-bench at the repository root, which `pnpm bench:cpu`
# and `pnpm bench:cpu-tune` use when it exists (packages/runtime/bench/bench-python.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
"$PYTHON" -m venv .venv-bench
.venv-bench/bin/pip install --no-input "torch==2.13.0+cpu" "numpy==2.4.6" \
  --extra-index-url https://download.pytorch.org/whl/cpu
.venv-bench/bin/python -c "import torch, numpy; print('torch', torch.__version__, 'numpy', numpy.__version__, 'threads', torch.get_num_threads())"
