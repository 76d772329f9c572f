"""Probe guide: what of native_probe/ exists in this build, its usage and cases (from the binary
when it was built, else from the sources), the sizes it uses and an example file, verified."""

import base64
import glob
import json
import os
import re
import subprocess
import tempfile

from .. import LANGS, ROOT
from ..cli import find_probe_binary
from ..format import code_block

SRC = os.path.join(ROOT, "native_probe")
SIMULATE = ["--simulate", "h100-sxm5-80gb:2", "--no-metadata"]


def build(site):
    cmake = os.path.join(SRC, "CMakeLists.txt")
    cuda = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SRC, "src", "cuda", "*.cu")))
    targets = []
    if os.path.exists(cmake):
        with open(cmake, encoding="utf-8") as f:
            targets = re.findall(r"add_executable\(\s*([A-Za-z0-9_.+-]+)", f.read())
    binary = find_probe_binary(site.args.probe)
    has_verify = site.cli.has_command("verify")
    site.out.render("probe-status", cmake=os.path.exists(cmake), targets=targets, cuda=cuda, binary=bool(binary),
                    verify=has_verify)
    site.out.render("probe-build", target=targets[0] if targets else None)
    usage_and_list(site, binary)
    env = read_source(os.path.join(SRC, "src", "host_info.cpp"),
                      r"environment_allow_list\(\)\s*\{.*?names\s*=\s*\{(.*?)\};")
    site.out.render("probe-env", names=re.findall(r'"([A-Z0-9_]+)"', env) if env else None)
    site.out.render("probe-sizes", sizes=simulated_sizes(binary) if binary else None, binary=bool(binary))
    example(site, binary, has_verify)


def read_source(path, pattern):
    try:
        with open(path, encoding="utf-8") as f:
            m = re.search(pattern, f.read(), re.S)
        return m.group(1) if m else None
    except OSError:
        return None


def usage_and_list(site, binary):
    if binary:
        usage = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
        listing = subprocess.run([binary, "--list"], capture_output=True, text=True).stdout
        for lang in LANGS:  # the binary's own output, the same on both pages
            site.out.write(f"probe-usage.{lang}.md", code_block("$ gpuplan-probe --help\n" + usage, "text"))
            site.out.write(f"probe-list.{lang}.md", code_block("$ gpuplan-probe --list\n" + listing, "text"))
        return
    usage = read_source(os.path.join(SRC, "src", "options.cpp"), r'usage_text\(\)\s*\{\s*return\s+R"\((.*?)\)";')
    site.out.render("probe-usage", usage=code_block(usage.strip("\n"), "text") if usage else None)
    site.out.render("probe-list")


def binary_size(b):
    for unit, div in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= div and b % div == 0:
            return f"{b // div} {unit}"
    return f"{b} B"


def param_values(prm):
    if "sweep" in prm:
        return [f"n = {s['n']}" for s in prm["sweep"]]
    if "n" in prm:
        return [f"n = {prm['n']}"]
    if "array_bytes" in prm:
        return [f"{binary_size(prm['array_bytes'])} arrays"]
    if "bytes" in prm:
        return [binary_size(prm["bytes"])]
    return []


def simulated_sizes(binary):
    """The sizes each case uses in a quick and a full run, read from two simulated runs; None when
    a run fails."""
    sizes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("quick", "full"):
            out = os.path.join(tmp, mode + ".json")
            p = subprocess.run([binary] + SIMULATE + ["--" + mode, "--out", out, "--key", os.path.join(tmp, "key")],
                               capture_output=True, text=True, timeout=120)
            if p.returncode not in (0, 1) or not os.path.exists(out):
                return None
            with open(out, encoding="utf-8") as f:
                payload = json.loads(base64.b64decode(json.load(f)["payload"]))
            for r in payload.get("results", []):
                cur = sizes.setdefault(r["case"], {"quick": [], "full": []})[mode]
                cur += [v for v in param_values(r.get("params") or {}) if v not in cur]
    return [[f"`{case}`", ", ".join(v["quick"]) or "–", ", ".join(v["full"]) or "–"] for case, v in sizes.items()]


def example(site, binary, has_verify):
    """A simulated run: what a file looks like, checked with `gpuplan verify`."""
    if not binary:
        site.out.render("probe-example", ok=False, rc=None)
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "example.json")
        args = SIMULATE + ["--case", "gemm_bf16", "--case", "hbm_copy", "--case", "nccl_allreduce", "--out", out,
                           "--key", os.path.join(tmp, "key")]
        p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=120)
        if p.returncode not in (0, 1) or not os.path.exists(out):
            site.out.render("probe-example", ok=False, rc=p.returncode, stderr=p.stderr.strip()[:300])
            return
        with open(out, encoding="utf-8") as f:
            envelope = json.load(f)
        payload = json.loads(base64.b64decode(envelope["payload"]))
        short_env = dict(envelope, payload=envelope["payload"][:40] + "…")
        # Keep the example readable and free of this machine's details: the first GPU and the
        # first result row, temporary paths and the host name elided.
        shown = json.loads(json.dumps(payload).replace(tmp, "…"))
        if isinstance(shown.get("host"), dict):
            shown["host"]["hostname"] = "…"
        for key in ("gpus", "results"):
            items = shown.get(key, [])
            shown[key] = items[:1] + (["…"] if len(items) > 1 else [])
        verify = site.cli.run_text(["verify", out], ok_codes=(0, 1)).replace(tmp, "…") if has_verify else None
        site.out.render("probe-example", ok=True,
                        command="gpuplan-probe " + " ".join(a if tmp not in a else "…" for a in args),
                        envelope=code_block(json.dumps(short_env, indent=2, ensure_ascii=False), "json"),
                        payload=code_block(json.dumps(shown, indent=2, ensure_ascii=False), "json"),
                        verify=code_block(verify, "text") if verify is not None else None)
