#!/usr/bin/env bash
# gpuplan-probe-mpi under mpirun: two ranks on this machine stand for two nodes (simulated GPUs).
# Rank 0 writes one signed file holding both; gpuplan verify reads it; the payload follows the
# schema. Skipped (exit 77) where OpenMPI's mpirun or the MPI build is missing.
# Usage: mpi_test.sh PATH_TO_GPUPLAN_PROBE_MPI PATH_TO_GPUPLAN
set -uo pipefail
probe=${1:?usage: mpi_test.sh GPUPLAN_PROBE_MPI GPUPLAN}
gpuplan=${2:?usage: mpi_test.sh GPUPLAN_PROBE_MPI GPUPLAN}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/usr/bin/python3}
if ! command -v mpirun >/dev/null || [ ! -x "$probe" ]; then
  echo "skipped: mpirun or gpuplan-probe-mpi not available (apt-get install openmpi-bin libopenmpi-dev)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# OpenMPI's session directories go under TMPDIR: keep them in this test's folder.
export HOME=$tmp/home XDG_CONFIG_HOME= TMPDIR=$tmp/mpi-tmp
mkdir -p "$HOME" "$TMPDIR"
# CI runs as root in a container: OpenMPI refuses root unless told, and the container may
# have fewer cores than ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Containers often forbid the cross-process memory attach OpenMPI's shared-memory transport tries.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# The MPI runtime itself must start here; if it cannot (no usable transport in this sandbox),
# that is the machine, not gpuplan: skip and say why.
if ! timeout 60 mpirun -np 2 true >"$tmp/sanity" 2>&1; then
  echo "skipped: mpirun cannot start 2 ranks on this machine: $(tail -3 "$tmp/sanity")"
  exit 77
fi
failed=0
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

timeout 120 mpirun -np 2 "$probe" --simulate a100-sxm4-80gb:2 --no-metadata --out "$tmp/cluster.json" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || bad "mpirun exit $rc: $(tail -5 "$tmp/err")"
grep -qF "4 GPU(s) on 2 node(s)" "$tmp/err" || bad "no summary line for 2 nodes: $(tail -3 "$tmp/err")"
[ "$(ls "$tmp" | grep -c '\.json$')" -eq 1 ] || bad "expected one file, got: $(ls "$tmp")"

"$gpuplan" verify "$tmp/cluster.json" >"$tmp/verify" 2>&1 || bad "verify: $(cat "$tmp/verify")"
grep -qF "4 x NVIDIA A100 SXM4 80GB (catalog a100-sxm4-80gb) on 2 nodes" "$tmp/verify" || bad "verify text: $(cat "$tmp/verify")"
"$gpuplan" verify "$tmp/cluster.json" --json >"$tmp/verify.json" 2>&1 || bad "verify --json"
$py - "$tmp/verify.json" "$tmp/cluster.json" "$here/../../data/schema/probe.schema.json" <<'PY' || bad "file content"
import base64, json, sys
v = json.load(open(sys.argv[1]))
s = v["summary"]
assert v["signature"] == "valid" and s["node_count"] == 2 and s["gpu_count"] == 4, s
# The all-reduce spans both nodes: capped by the simulated network (84.8 GB/s).
assert 0 < s["allreduce_busbw_bytes_per_s"] <= 84.8e9 * 1.011, s
p = json.loads(base64.b64decode(json.load(open(sys.argv[2]))["payload"]))
assert [n["first_gpu"] for n in p["nodes"]] == [0, 2], p["nodes"]
assert [g["index"] for g in p["gpus"]] == [0, 1, 2, 3]
rows = [r for r in p["results"] if r["case"] == "nccl_allreduce"]
assert len(rows) == 3 and all(r["params"]["ranks"] == 4 and r["node"] is None for r in rows), rows
try:
    import jsonschema
except ImportError:
    sys.exit(0)
jsonschema.Draft202012Validator(json.load(open(sys.argv[3]))).validate(p)
PY

# A rank without a GPU stops every rank with exit 3 and no file (a real run here has no driver).
timeout 120 mpirun -np 2 "$probe" --no-metadata --out "$tmp/none.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 3 ] || bad "no GPU: exit $rc, wanted 3: $(tail -3 "$tmp/err")"
[ ! -e "$tmp/none.json" ] || bad "no GPU: a file was written"

[ "$failed" -eq 0 ] && echo "mpi_test: all passed" || exit 1
