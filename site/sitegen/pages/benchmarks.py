"""Benchmarks page: every probe file in data/benchmarks/, checked with `gpuplan verify`. A tampered
file's figures are not shown; what verify did not vouch for is marked as such."""

import base64
import glob
import json
import os
import subprocess

from .. import ROOT
from ..format import sig, tflops


def build(site):
    folder = site.args.benchmarks or os.path.join(site.cat.data_dir, "benchmarks")
    files = sorted(glob.glob(os.path.join(folder, "*.json")))
    has_verify = site.cli.has_command("verify")
    site.out.render("benchmarks", date=site.build_date.isoformat(), verify=has_verify,
                    files=[describe(site, path, has_verify) for path in files])


def verify(site, path):
    """(verdict, reason, fingerprint, summary, simulated) from `gpuplan verify --json`."""
    p = subprocess.run([site.cli.path, "verify", path, "--json"], capture_output=True, text=True)
    try:
        v = json.loads(p.stdout) if p.returncode in (0, 1) and p.stdout.strip() else None
    except json.JSONDecodeError:
        v = None
    if v is None:
        return "unreadable", (p.stderr.strip() or f"gpuplan verify exited {p.returncode}"), None, None, None
    return v.get("signature", "?"), v.get("reason") or "", v.get("fingerprint"), v.get("summary"), v.get("simulated")


def read_payload(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        env = json.loads(text)
        if isinstance(env, dict) and "payload" in env:
            return json.loads(base64.b64decode(env["payload"], validate=True)), None
        return (env, None) if isinstance(env, dict) else (None, None)
    except (ValueError, TypeError):
        return None, "the file is not a JSON probe envelope"


def describe(site, path, has_verify):
    verdict, reason, fingerprint, summary, simulated = "not checked", "", None, None, None
    if has_verify:
        verdict, reason, fingerprint, summary, simulated = verify(site, path)
    payload, problem = read_payload(path)
    reason = reason or problem or ""
    # What gpuplan verify did not vouch for is shown, marked as such, from the raw payload.
    if summary is None and payload and verdict != "invalid":
        summary, simulated = payload.get("summary"), payload.get("simulated")
    if verdict == "invalid":
        payload = None  # a tampered payload's claims are not shown
    gemm = (summary or {}).get("gemm_flop_per_s") or {}
    cloud = ((payload or {}).get("host") or {}).get("cloud") or {}
    s = summary or {}

    def gbs(key):
        return f"{sig(s[key] / 1e9, 4)} GB/s" if s.get(key) else "–"
    details = []
    for k, val in s.items():
        if isinstance(val, dict):
            details += [[f"`{k}.{kk}`", "null" if vv is None else sig(vv, 4)] for kk, vv in val.items()]
        else:
            details.append([f"`{k}`", "null" if val is None else (sig(val, 4) if isinstance(val, (int, float))
                                                                 else val)])
    return {"name": os.path.basename(path), "rel": os.path.relpath(path, ROOT), "verdict": verdict,
            "simulated": bool(simulated), "reason": reason, "fingerprint": fingerprint,
            "gpus": f"{s.get('gpu_count', '?')} × {s.get('gpu_name', '?')}" if summary else "–",
            "instance": cloud.get("instance_type"), "started": (payload or {}).get("started_utc", "–"),
            "bf16": tflops(gemm["bf16"]) if gemm.get("bf16") else "–", "hbm": gbs("hbm_copy_bytes_per_s"),
            "busbw": gbs("allreduce_busbw_bytes_per_s"), "details": details}
