"""Benchmarks page: every probe file in data/benchmarks/, checked with `gpuplan verify`. A tampered
file's figures are not shown; what verify did not vouch for is marked as such."""

import base64
import csv
import glob
import json
import os
import re
import subprocess

from .. import ROOT
from ..format import gb, sig, tflops


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


def csv_header(path):
    """The column names of a validation CSV (its first line that is not a # comment)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                return next(csv.reader([line]))
    return []


def anchor(table, family):
    """The id the calculator links to for a band's pool ("decoder/16-bit/*" -> band-time-decoder-16-bit,
    "TTFT/TPOT at rate" -> band-serving-ttft-tpot-at-rate): web/model/page_model.cpp's
    benchmarks_rows_url makes the same slug."""
    slug = re.sub(r"[^a-z0-9._]+", "-", family.replace("*", "").lower()).strip("-")
    return f"band-{table}-{slug}"


def band_cells(r, unit):
    b = r["band"]
    if not b["stated"]:
        return "no band", "–"
    return f"{value(b['low'], unit)}–{value(b['high'], unit)}", ("yes" if b["inside"] else "**no**")


def coverage_rows(cov):
    return [{"key": c["key"], "rows": c["rows"], "inside": c["inside"], "coverage": c["coverage"],
             "mape": c["mape"], "judged": c["rows"] >= 20} for c in cov]


METRIC_UNITS = {"samples_per_s_total": "samples/s", "tokens_per_s_per_gpu": "tokens/s/GPU"}


def family_sections(table, rows):
    """The rows grouped by family, sorted, with the anchors of every pool level a band can name:
    the kind ("decoder/*"), kind and precision ("decoder/16-bit/*") and the family itself."""
    by = {}
    for r in rows:
        by.setdefault(r["family"], []).append(r)
    sections, seen = [], set()
    for family in sorted(by):
        parts = family.split("/")
        ids = []
        for level in ("/".join(parts[:1]) + "/*", "/".join(parts[:2]) + "/*", family):
            if level not in seen:
                seen.add(level)
                ids.append(anchor(table, level))
        cells = []
        for r in sorted(by[family], key=lambda r: (r.get("source", ""), r["id"])):
            unit = "bytes" if table == "memory" else METRIC_UNITS.get(r["metric"], r["metric"])
            band, inside = band_cells(r, unit)
            measured = r["measured_bytes"] if unit == "bytes" else r["measured"]
            what = f"`{r['model']}` {r['mode']}" if unit == "bytes" else f"`{r['model']}` on `{r['gpu']}`"
            cells.append([r["id"], r.get("source") or "–", what, value(measured, unit), band, inside,
                          f"{'+' if r['error'] >= 0 else ''}{sig(100 * r['error'], 3)} %"])
        inside = sum(1 for r in by[family] if r["band"]["stated"] and r["band"]["inside"])
        stated = sum(1 for r in by[family] if r["band"]["stated"])
        sections.append({"family": family, "ids": ids, "rows": cells, "inside": inside, "stated": stated})
    return sections


def bands(site):
    """Band coverage (issue 28): every row of each tests/validation CSV with a source column, its
    80 % band computed from the other sources' runs, and the share of measured values inside it,
    per source, per family and overall, from `gpuplan validate --json`. Serving rows are summed
    up per source only (there are thousands)."""
    paths = [p for p in sorted(glob.glob(os.path.join(ROOT, "tests", "validation", "*.csv")))
             if "source" in csv_header(p)]
    if not (site.cli.has_command("validate") and paths):
        site.out.render("benchmarks-bands", b=None)
        return
    time_rows, memory_rows, serving, commands = [], [], None, []
    for path in paths:
        rel = os.path.relpath(path, ROOT)
        doc = site.cli.json(["validate", rel])
        commands.append(site.cli.display(["validate", rel, "--json"]))
        if doc.get("kind") == "serving":
            families = coverage_rows(doc["coverage"]["by_family"])
            for f in families:
                f["id"] = anchor("serving", f["key"])
            serving = {"file": rel, "sources": coverage_rows(doc["coverage"]["by_source"]),
                       "families": families, "all": anchor("serving", "all"),
                       "overall": coverage_rows([doc["coverage"]["overall"]])[0]}
        elif doc.get("kind") == "memory":
            memory_rows += [r for r in doc["rows"] if r["mode"] in ("train", "infer")]
        else:
            time_rows += [r for r in doc["rows"] if r["metric"] != "mfu"]
    b = {"time": summary(time_rows), "memory": summary(memory_rows), "serving": serving,
         "time_sections": family_sections("time", time_rows),
         "memory_sections": family_sections("memory", memory_rows),
         "time_all": anchor("time", "all"), "memory_all": anchor("memory", "all"), "commands": commands}
    site.out.render("benchmarks-bands", b=b)


def summary(rows):
    """Coverage per source, per family and overall of validation rows with their band."""
    def one(key, group):
        stated = [r for r in group if r["band"]["stated"]]
        inside = sum(1 for r in stated if r["band"]["inside"])
        return {"key": key, "rows": len(stated), "inside": inside,
                "coverage": inside / len(stated) if stated else None,
                "mape": sum(abs(r["error"]) for r in stated) / len(stated) if stated else None,
                "judged": len(stated) >= 20, "without": len(group) - len(stated)}
    groups = lambda key: sorted({key(r) for r in rows})  # noqa: E731
    return {"sources": [one(s, [r for r in rows if r.get("source") == s]) for s in groups(lambda r: r.get("source"))],
            "families": [one(f, [r for r in rows if r["family"] == f]) for f in groups(lambda r: r["family"])],
            "overall": one("all", rows)}
