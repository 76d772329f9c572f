#!/usr/bin/env bash
# Regenerates fixtures/cpu-mlp.measured.json, the measured-run file the page's browser test loads
# (tests/browser/panels.test.mjs): gpuplan-measure timing a tiny MLP's training step on the CPU
# (python3-torch), signed by `gpuplan-probe sign` with tests/probe/fixtures/test-probe-key (a
# public throwaway key: never trust it for real files). Run after a payload format change:
#   tests/measure/make_fixture.sh build/native/native_probe/gpuplan-probe [PYTHON3]
set -euo pipefail
probe=$(realpath "${1:?usage: make_fixture.sh PATH_TO_GPUPLAN_PROBE [PYTHON3]}")
python=${2:-python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
install -m 600 "$here/../probe/fixtures/test-probe-key" "$tmp/key"
cat >"$tmp/train.py" <<'PY'
import sys, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(10000):
    loss = model(torch.randn(16, 32)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
PY
cd "$tmp"
PYTHONPATH="$here/../../tools/gpuplan_measure" "$python" -m gpuplan_measure --script train.py \
  --steps 20 --warmup 5 --device cpu --probe "$probe" --key "$tmp/key" --out "$here/fixtures/cpu-mlp.measured.json"
