#!/usr/bin/env python3
"""gpuplan-measure end to end on the CPU: a tiny model trained by a script (--script mode) and
through the Recorder API, signed by `gpuplan-probe sign`, accepted by `gpuplan verify`, rejected
once one byte of the payload changes, checked against data/schema/measured.schema.json, and shown
beside a prediction by `gpuplan estimate --probe`.

Usage: measure_test.py GPUPLAN GPUPLAN_PROBE REPO_ROOT. `gpuplan-probe sign`'s refusals are checked
first; the rest is skipped (exit 77) without python3-torch.
"""
import base64
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from checklib import check, failures, finish, run as run_command  # noqa: E402

GPUPLAN, PROBE, ROOT = sys.argv[1:4]
PKG = os.path.join(ROOT, "tools", "gpuplan_measure")

TRAIN = """
import sys, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(10000):
    loss = model(torch.randn(int(sys.argv[1]), 32)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
raise SystemExit("the measuring run should have stopped the script")
"""

API = """
import sys, torch, gpuplan_measure
model = torch.nn.Linear(8, 2)
opt = torch.optim.Adam(model.parameters())
with gpuplan_measure.Recorder(steps=6, warmup=2, batch_size=4, out=sys.argv[1], probe=sys.argv[2], key=sys.argv[3]) as m:
    while not m.done:
        model(torch.randn(4, 8)).sum().backward(); opt.step(); opt.zero_grad()
        m.step()
"""


def run(cmd, **kw):
    return run_command(cmd, env=dict(os.environ, PYTHONPATH=PKG, GPUPLAN_PROBE=PROBE), **kw)


def sign_command_checks(tmp):
    """gpuplan-probe sign on its own (no torch needed): what it refuses, and why."""
    key = os.path.join(tmp, "keys", "probe-key")
    junk = os.path.join(tmp, "junk.json")
    with open(junk, "w") as f:
        f.write('{"schema_version": 1, "kind": "gpuplan-measure"}')
    r = run([PROBE, "sign", junk, "--key", key])
    check("sign refuses a payload gpuplan cannot read, naming the field",
          r.returncode == 1 and "missing required field" in r.stderr, r.stderr)
    r = run([PROBE, "sign", os.path.join(tmp, "absent.json"), "--key", key])
    check("sign: an unreadable file is exit 4", r.returncode == 4 and "cannot read" in r.stderr, r.stderr)
    r = run([PROBE, "sign"])
    check("sign without FILE is a usage error", r.returncode == 2 and "FILE is required" in r.stderr, r.stderr)


with tempfile.TemporaryDirectory() as tmp:
    sign_command_checks(tmp)

try:
    import torch  # noqa: F401
except ImportError:
    print(f"skipped: python3-torch is not installed (apt-get install python3-torch); {len(failures)} failures before")
    sys.exit(1 if failures else 77)

with tempfile.TemporaryDirectory() as tmp:
    key = os.path.join(tmp, "keys", "probe-key")
    script = os.path.join(tmp, "train.py")
    with open(script, "w") as f:
        f.write(TRAIN)
    out = os.path.join(tmp, "measured.json")
    r = run([sys.executable, "-m", "gpuplan_measure", "--script", script, "--steps", "12", "--warmup", "3",
             "--out", out, "--key", key, "--", "16"], cwd=tmp)
    check("--script run exits 0", r.returncode == 0, r.stderr)
    again = run([PROBE, "sign", out, "--key", key])
    check("sign refuses a file that is already signed", again.returncode == 1 and "already an envelope" in again.stderr,
          again.stderr)

    v = run([GPUPLAN, "verify", out, "--json"])
    check("gpuplan verify accepts the signed file", v.returncode == 0, v.stdout + v.stderr)
    doc = json.loads(v.stdout) if v.stdout.startswith("{") else {}
    m = doc.get("measured") or {}
    check("signature valid", doc.get("signature") == "valid", doc)
    check("12 timed steps after 3 warm-up", m.get("steps") == 12 and m.get("warmup_steps") == 3, m)
    check("batch seen from the forward inputs", m.get("batch_per_step") == 16, m)
    check("CPU run: no CUDA synchronisation", m.get("cuda_synchronised") is False, m)
    check("CPU run: memory fields absent and marked",
          m.get("peak_allocated_bytes") is None and "CPU" in (m.get("memory_absent_reason") or ""), m)
    check("timings from the CPU are positive", (m.get("step_s") or {}).get("median", 0) > 0, m)

    with open(out) as f:
        envelope = json.load(f)
    payload = base64.b64decode(envelope["payload"])
    try:
        import jsonschema
        with open(os.path.join(ROOT, "data", "schema", "measured.schema.json")) as f:
            jsonschema.validate(json.loads(payload), json.load(f))
        check("payload matches measured.schema.json", True)
    except ImportError:
        print("note: python3-jsonschema missing, schema check not run")
    except jsonschema.ValidationError as e:
        check("payload matches measured.schema.json", False, e.message)

    # One changed byte in the payload (a faster step time) must break the signature.
    text = payload.decode()
    forged = text.replace('"median": 0.', '"median": 1.', 1)
    check("tamper test changes the payload", forged != text)
    envelope["payload"] = base64.b64encode(forged.encode()).decode()
    bad = os.path.join(tmp, "tampered.json")
    with open(bad, "w") as f:
        json.dump(envelope, f)
    t = run([GPUPLAN, "verify", bad])
    check("gpuplan verify rejects a mutated file", t.returncode == 1 and ": invalid (" in t.stdout, t.stdout + t.stderr)

    e = run([GPUPLAN, "estimate", "--model", "resnet18", "--gpu", "a100-sxm4-80gb", "--batch", "16", "--probe", out])
    check("estimate --probe shows measured vs predicted",
          e.returncode == 0 and "Measured with" in e.stdout and "not on a GPU" in e.stdout, e.stdout + e.stderr)

    api_out = os.path.join(tmp, "api.json")
    api = os.path.join(tmp, "api.py")
    with open(api, "w") as f:
        f.write(API)
    a = run([sys.executable, api, api_out, PROBE, key], cwd=tmp)
    check("Recorder API run exits 0", a.returncode == 0, a.stderr)
    va = run([GPUPLAN, "verify", api_out, "--json"])
    ma = json.loads(va.stdout).get("measured", {}) if va.stdout.startswith("{") else {}
    check("Recorder file verifies, batch given, 6 steps", va.returncode == 0 and ma.get("batch_per_step") == 4
          and ma.get("steps") == 6, va.stdout + va.stderr)

    h = run([sys.executable, "-m", "gpuplan_measure", "--help"])
    check("--help says what is measured and what is not",
          h.returncode == 0 and "Measured:" in h.stdout and "Not measured:" in h.stdout, h.stdout)

    idle = os.path.join(tmp, "idle.py")
    with open(idle, "w") as f:
        f.write("print('no training step here')\n")
    few = run([sys.executable, "-m", "gpuplan_measure", "--script", idle, "--out", os.path.join(tmp, "x.json"),
               "--no-sign"], cwd=tmp)
    check("a script without steps writes nothing and says why",
          few.returncode == 1 and "made 0 step(s)" in few.stderr and not os.path.exists(os.path.join(tmp, "x.json")),
          few.stderr)

finish("measure_test")
