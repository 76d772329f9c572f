"""Benchmarks page: every probe file in data/benchmarks/, checked with `gpuplan verify`. A tampered
file's figures are not shown; what verify did not vouch for is marked as such."""

import base64
import glob
import json
import os
import subprocess

from .. import ROOT
from ..format import gb, sig, tflops


def build(site):
    folder = site.args.benchmarks or os.path.join(site.cat.data_dir, "benchmarks")
    files = sorted(glob.glob(os.path.join(folder, "*.json")))
    has_verify = site.cli.has_command("verify")
    site.out.render("benchmarks", date=site.build_date.isoformat(), verify=has_verify,
                    files=[describe(site, path, has_verify) for path in files])
    published(site)


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


def published(site):
    """Every published measurement (data/published, `gpuplan published --json`) beside gpuplan's
    prediction and the error per row: the public accuracy report of issue 16. A CLI without the
    command renders the fragment's "not available" branch."""
    if not site.cli.has_command("published"):
        site.out.render("benchmarks-published", doc=None, rows=[], tables=[])
        return
    doc = site.cli.json(["published"])
    rows = [published_row(r) for r in doc["rows"]]
    tables = [published_table(t, [r for r in doc["rows"] if r["table"] == t["id"]]) for t in doc["tables"]]
    site.out.render("benchmarks-published", doc=doc, rows=rows, tables=tables)


def published_row(r):
    """One table row; the last cell is the signed error or, for a row gpuplan does not predict, the
    CLI's reason (the same text on both language pages, so their numbers agree)."""
    if r.get("seq_len"):
        shape = f"seq {r['seq_len']}"
    else:
        shape = f"{r['resolution']} px" if r.get("resolution") else "–"
    predicted = "–" if r["predicted"] is None else value(r["predicted"], r["unit"])
    if r.get("predicted_low") is not None:  # the measured value's likely range (error band)
        predicted += f" ({value(r['predicted_low'], r['unit'])}–{value(r['predicted_high'], r['unit'])})"
    if r["predicted"] is None:
        error = r.get("not_predicted") or "–"
    else:
        error = f"{'+' if r['error'] >= 0 else ''}{sig(100 * r['error'], 3)} %"
    return {"id": r["id"], "url": r["source_url"], "model": r["model"], "gpus": f"{r['num_gpus']} × {r['gpu']}",
            "system": r["system"], "task": r["task"], "precision": r["precision"], "micro_batch": r["micro_batch"],
            "shape": shape, "measured": value(r["measured"], r["unit"]), "predicted": predicted,
            "error": error, "is_predicted": r["predicted"] is not None}


def value(x, unit):
    return gb(x, 4) if unit == "bytes" else f"{sig(x, 4)} {unit}"


def published_table(t, rows):
    """A source table with its rows' count, how many gpuplan predicts and their mean absolute error."""
    errors = [abs(r["error"]) for r in rows if r["predicted"] is not None]
    return {"id": t["id"], "title": t["title"], "publisher": t["publisher"], "url": t["url"], "date": t["date"],
            "rows": len(rows), "predicted": len(errors), "mape": sum(errors) / len(errors) if errors else None,
            "caveats": t.get("caveats", [])}
