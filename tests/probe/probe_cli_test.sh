#!/usr/bin/env bash
# gpuplan-probe and gpuplan verify as a user runs them: exit codes, messages, the key file's
# mode, signals, tampering, metadata from a fake server on 127.0.0.1.
# Usage: probe_cli_test.sh PATH_TO_GPUPLAN_PROBE PATH_TO_GPUPLAN
set -uo pipefail
probe=${1:?usage: probe_cli_test.sh GPUPLAN_PROBE GPUPLAN}
gpuplan=${2:?usage: probe_cli_test.sh GPUPLAN_PROBE GPUPLAN}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/usr/bin/python3}
passed=0
failed=0
tmp=$(mktemp -d)
pids=()
cleanup() {
  # Only the script itself cleans up: a background child killed before it runs its command
  # would otherwise run this inherited trap and delete the folder under the rest of the test.
  [ "$BASHPID" = "$$" ] || return 0
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_CONFIG_HOME=
mkdir -p "$HOME"

ok() { passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

# expect NAME WANT_EXIT WANT_STDERR_SUBSTRING -- COMMAND...
expect() {
  local name=$1 want_rc=$2 want_err=$3
  shift 4
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne "$want_rc" ]; then bad "$name: exit $rc, wanted $want_rc; stderr: $(tail -3 "$tmp/err")"; return; fi
  if [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$tmp/err" "$tmp/out"; then
    bad "$name: output lacks '$want_err': $(tail -3 "$tmp/err")"
    return
  fi
  ok
}
mode() { stat -c %a "$1"; }
sim=(--simulate h100-sxm5-80gb --no-metadata)

expect help 0 "130  interrupted (SIGINT)" -- "$probe" --help
expect list 0 "nccl_allreduce" -- "$probe" --list
grep -q '^gemm_fp8 ' "$tmp/out" && ok || bad "list: gemm_fp8 missing"
expect unknown-case 2 "--case: unknown case 'gemm_fp4'" -- "$probe" --case gemm_fp4
expect unknown-option 2 "unknown option '--fast'" -- "$probe" --fast
expect fault-needs-simulate 2 "--fault works only with --simulate" -- "$probe" --fault hang:gemm_bf16
expect under-mpirun 2 "built without MPI; use gpuplan-probe-mpi" -- env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 "$probe" "${sim[@]}"
expect unknown-gpu 2 "--simulate: unknown GPU id 'h900'" -- "$probe" --simulate h900

# The real device here: no driver (or, on a GPU machine, no GPU visible). Exit 3, nothing written.
expect real-no-gpu 3 "gpuplan-probe: no usable GPU:" -- env CUDA_VISIBLE_DEVICES= "$probe" --no-metadata --out "$tmp/real.json"
[ ! -e "$tmp/real.json" ] && ok || bad "real-no-gpu: wrote a file"
[ ! -e "$HOME/.config/gpuplan/probe-key" ] && ok || bad "real-no-gpu: made a key"

# Simulated run: key made on first use at the default path, mode 0600, folder 0700.
expect simulate 0 "signing key SHA256:" -- "$probe" "${sim[@]}" --out "$tmp/sim.json"
grep -qF "(new, written to $HOME/.config/gpuplan/probe-key)" "$tmp/err" && ok || bad "simulate: key path not printed"
fp=$(grep -o 'SHA256:[A-Za-z0-9+/]*' "$tmp/err" | head -1)
[ "$(mode "$HOME/.config/gpuplan/probe-key")" = 600 ] && ok || bad "key mode $(mode "$HOME/.config/gpuplan/probe-key")"
[ "$(mode "$HOME/.config/gpuplan")" = 700 ] && ok || bad "key folder mode"
ls -a "$tmp" | grep -q '\.tmp\.' && bad "simulate: temporary file left" || ok

expect simulate-again 0 "" -- "$probe" "${sim[@]}" --case gemm_bf16 --out "$tmp/sim2.json"
grep -qF "$fp (from" "$tmp/err" && ok || bad "second run: different key or not reused: $(head -1 "$tmp/err")"
[ "$(mode "$HOME/.config/gpuplan/probe-key")" = 600 ] && ok || bad "existing key lost mode 0600"

expect verify-valid 0 "SIMULATED" -- "$gpuplan" verify "$tmp/sim.json"
head -1 "$tmp/out" | grep -q "sim.json: valid$" && ok || bad "verify: first line $(head -1 "$tmp/out")"
expect verify-json 0 "" -- "$gpuplan" verify "$tmp/sim.json" --json
pk=$($py - "$tmp/out" "$here/../../data/assumptions.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["signature"] == "valid" and d["simulated"] is True and d["trusted"] is False, d
s = d["summary"]
gemm = json.load(open(sys.argv[2]))["assumptions"]["gemm_efficiency"]["value"]  # what the simulation uses
assert abs(s["gemm_flop_per_s"]["bf16"] / (989e12 * gemm) - 1) < 0.011, s
assert s["catalog_gpu_id"] == "h100-sxm5-80gb" and s["gpu_count"] == 1 and s["p2p_bytes_per_s"] is None
print(d["public_key"])
PY
) && ok || bad "verify --json content"
expect verify-trusted 0 "trusted (--trust)" -- "$gpuplan" verify "$tmp/sim.json" --trust "$pk"
expect verify-other-key 1 "NOT one of the --trust keys" -- "$gpuplan" verify "$tmp/sim.json" --trust AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
expect verify-bad-trust 2 "expected a base64 Ed25519 public key" -- "$gpuplan" verify "$tmp/sim.json" --trust nope
expect verify-no-file 2 "FILE is required" -- "$gpuplan" verify --json

# Tampering: a better GEMM figure written into the payload; an unsigned copy.
$py - "$tmp/sim.json" "$tmp/tampered.json" "$tmp/unsigned.json" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
payload = base64.b64decode(env["payload"]).decode()
i = payload.index('"bf16": ') + len('"bf16": ')
env["payload"] = base64.b64encode((payload[:i] + "9" + payload[i + 1:]).encode()).decode()
json.dump(env, open(sys.argv[2], "w"))
open(sys.argv[3], "w").write(payload)
PY
expect verify-tampered 1 "invalid (the Ed25519 signature does not verify" -- "$gpuplan" verify "$tmp/tampered.json"
expect verify-unsigned 1 "unsigned (the file is a bare payload" -- "$gpuplan" verify "$tmp/unsigned.json"
echo '{"payloadType":' >"$tmp/broken.json"
expect verify-malformed 1 "not valid JSON at line" -- "$gpuplan" verify "$tmp/broken.json"

# Faults: a lost device and a hung case give a valid file with the failed case marked, exit 1.
# (On the simulated H100, sm_90, the block-scaled gemm_mxfp8 and gemm_nvfp4 are waived.)
expect device-lost 1 "10 passed, 2 waived, 7 failed" -- "$probe" "${sim[@]}" --fault device-lost:hbm_triad --out "$tmp/lost.json"
expect device-lost-file-valid 0 "" -- "$gpuplan" verify "$tmp/lost.json" --json
$py - "$tmp/lost.json" <<'PY' && ok || bad "device-lost: failed case not marked"
import base64, json, sys
rows = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["results"]
lost = [r for r in rows if r["case"] == "hbm_triad"][0]
assert lost["status"] == "failed" and lost["error"]["kind"] == "device_lost", lost
assert lost["error"]["location"].startswith("simulated_device.cpp:"), lost
later = [r for r in rows if r["case"] == "h2d_pinned"][0]
assert later["status"] == "failed" and later["reason"].startswith("not run: the GPU was lost"), later
PY
# The first case selected hangs, so no case that should pass runs inside a --case-timeout window
# (a loaded machine could stretch it past the limit); every later case is marked not run.
expect hang-timeout 1 "" -- "$probe" "${sim[@]}" --case 'gemm_*' --fault hang:gemm_fp64 --case-timeout 0.5 --out "$tmp/hang.json"
$py - "$tmp/hang.json" <<'PY' && ok || bad "hang: timeout not recorded"
import base64, json, sys
rows = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["results"]
r = [r for r in rows if r["case"] == "gemm_fp64"][0]
assert r["error"]["kind"] == "timeout" and "did not finish within 0.5 s" in r["reason"], r
later = [r for r in rows if r["case"] == "gemm_fp16"][0]
assert later["reason"].startswith("not run: gemm_fp64 gpu 0 timed out before it"), later
PY

# until_seen PID CONDITION...: waits while PID runs and CONDITION fails; no time limit of its own
# (a loaded machine only makes it wait longer; CTest's TIMEOUT ends a real hang).
until_seen() {
  local pid=$1
  shift
  while ! "$@"; do
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
}

# Signals: no file and no temporary file; exit 128 + signal. The case hangs until cancelled and the
# file waits before its rename far longer than any test runs, so the signal always lands there.
# The error file is emptied first: an earlier run's "gemm_bf16" in it must not pass for this
# probe's (that race signalled the shell before it started the probe).
: >"$tmp/err"
"$probe" "${sim[@]}" --fault hang:gemm_bf16 --case-timeout 3600 --out "$tmp/term.json" 2>"$tmp/err" &
p=$!; pids+=("$p")
until_seen "$p" grep -q "gemm_bf16" "$tmp/err" || bad "SIGTERM: the probe ended before its hanging case"
kill -TERM "$p"
wait "$p"; rc=$?
[ "$rc" -eq 143 ] && ok || bad "SIGTERM: exit $rc, wanted 143"
grep -q "terminated (SIGTERM); no file written" "$tmp/err" && ok || bad "SIGTERM: message"
ls -a "$tmp" | grep -q 'term.json' && bad "SIGTERM: left a file" || ok

"$probe" "${sim[@]}" --case device_properties --fault stall-before-rename:3600 --out "$tmp/int.json" 2>"$tmp/err" &
p=$!; pids+=("$p")
has_tmp() { ls -a "$tmp" | grep -q '^\.int\.json\.tmp\.'; }
until_seen "$p" has_tmp && ok || bad "SIGINT: temporary file never appeared"
kill -INT "$p"
wait "$p"; rc=$?
[ "$rc" -eq 130 ] && ok || bad "SIGINT: exit $rc, wanted 130"
ls -a "$tmp" | grep -q 'int.json' && bad "SIGINT: left $(ls -a "$tmp" | grep int.json)" || ok

# Output and key problems: exit 4, nothing written.
expect no-folder 4 "cannot write to folder" -- "$probe" "${sim[@]}" --out "$tmp/nope/x.json"
install -m 644 "$HOME/.config/gpuplan/probe-key" "$tmp/open-key"
expect key-readable-by-others 4 "run 'chmod 600 $tmp/open-key'" -- "$probe" "${sim[@]}" --key "$tmp/open-key" --out "$tmp/k.json"
[ ! -e "$tmp/k.json" ] && ok || bad "bad key: wrote a file"

# Cloud metadata from a fake GCP server on 127.0.0.1, and one that never answers (it logs each
# connection it accepts). The answering server gets a 30 s limit a loaded machine cannot reach.
$py "$here/fake_metadata.py" gcp "$tmp/gcp.port" & gcp_pid=$!; pids+=($gcp_pid)
$py "$here/fake_metadata.py" silent "$tmp/silent.port" "$tmp/silent.log" & silent_pid=$!; pids+=($silent_pid)
until_seen "$gcp_pid" test -s "$tmp/gcp.port" || bad "the fake GCP server did not start"
until_seen "$silent_pid" test -s "$tmp/silent.port" || bad "the silent server did not start"
expect metadata-gcp 0 "" -- "$probe" --simulate h100-sxm5-80gb --case device_properties \
  --metadata-url "http://127.0.0.1:$(cat "$tmp/gcp.port")" --metadata-timeout 30 --out "$tmp/gcp.json"
expect metadata-gcp-shown 0 "cloud:      gcp a3-highgpu-8g us-central1" -- "$gpuplan" verify "$tmp/gcp.json"
# The probe gives up on a server that never answers (each request has a 0.3 s limit; without one
# it would wait forever and CTest's TIMEOUT would fail the test) and, since AWS, GCP and Azure
# share that address, asks it once: the first request's timeout ends the lookup.
expect metadata-silent 0 "" -- "$probe" --simulate h100-sxm5-80gb --case device_properties \
  --metadata-url "http://127.0.0.1:$(cat "$tmp/silent.port")" --out "$tmp/silent.json"
conns=$(wc -l <"$tmp/silent.log")
[ "$conns" -eq 1 ] && ok || bad "metadata-silent: the silent server was asked $conns times, wanted once"
"$gpuplan" verify "$tmp/silent.json" | grep -q "cloud:" && bad "metadata-silent: recorded a cloud" || ok

# The payloads follow data/schema/probe.schema.json (checked where python3-jsonschema is installed).
if $py -c 'import jsonschema' 2>/dev/null; then
  $py - "$here/../../data/schema/probe.schema.json" "$tmp/sim.json" "$tmp/lost.json" "$tmp/hang.json" "$tmp/gcp.json" <<'PY' \
    && ok || bad "payload does not match data/schema/probe.schema.json"
import base64, json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
for f in sys.argv[2:]:
    env = json.load(open(f))
    jsonschema.validate(env, dict(schema["$defs"]["envelope"], **{"$defs": schema["$defs"]}))
    jsonschema.Draft202012Validator(schema).validate(json.loads(base64.b64decode(env["payload"])))
PY
else
  echo "note: python3-jsonschema not installed; schema check skipped"
fi

echo "probe: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
