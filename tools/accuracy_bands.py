#!/usr/bin/env python3
"""Writes data/accuracy.json: every validated run the error bands are computed from, taken from
`gpuplan validate --json` over each tests/validation/*.csv whose header has a source column.

For each row it keeps the source (the published document the row came from), the family (model
kind / precision / parallelism), the ground (model kind, precision, parallel dimensions, GPU
architecture, GPU count) and the signed error (predicted - measured) / measured. Throughput rows
(not MFU: each repeats its tokens/s row's run) give the time rows, peak-memory rows of training
and inference the memory rows. Serving files (a source_kind column) give the serving rows: their
family is the row's group ("output tokens/s", "TTFT/TPOT at rate", ...), their ground adds the
serving engine, their error is on the row's own metric. The bands themselves are computed by the
core from these rows (core/src/evidence/accuracy.cpp): a validation row's band leaves its own
source out, a user's query (an estimate, a serving plan) gets the band of every row.

With --check it compares instead of writing and exits 1 when the file is stale (the model changed
but the rows were not regenerated).

Usage: tools/accuracy_bands.py GPUPLAN [--check] [--date YYYY-MM-DD]
"""
import csv
import datetime
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def header(path):
    """The CSV's column names (its first line that is not a # comment)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                return next(csv.reader([line]))
    return []


def validate(cli, path):
    out = subprocess.run([cli, "validate", path, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("accuracy_bands: gpuplan validate %s failed: %s" % (path, out.stderr.strip()))
    return json.loads(out.stdout)


def table_row(r):
    if not r.get("source"):
        sys.exit("accuracy_bands: row %s has no source" % r["id"])
    g = r["ground"]
    row = {"id": r["id"], "source": r["source"], "family": r["family"], "kind": g["kind"],
           "precision": g["precision"], "parallel": g["parallel"], "arch": g["arch"], "gpus": g["gpus"]}
    if g.get("runtime"):
        row["runtime"] = g["runtime"]
    row["error"] = round(r["error"], 4)
    return row


def collect(cli, paths):
    """(time rows, memory rows, serving rows, files read)."""
    time_rows, memory_rows, serving_rows, used = [], [], [], []
    for path in paths:
        rel = os.path.relpath(path, ROOT)
        doc = validate(cli, path)
        used.append(rel)
        if doc.get("kind") == "serving":
            serving_rows += [table_row(r) for r in doc["rows"]]
        elif doc.get("kind") == "memory":
            memory_rows += [table_row(r) for r in doc["rows"] if r["mode"] in ("train", "infer")]
        else:
            time_rows += [table_row(r) for r in doc["rows"] if r["metric"] != "mfu"]
    key = lambda r: (r["source"], r["id"])  # noqa: E731
    return sorted(time_rows, key=key), sorted(memory_rows, key=key), sorted(serving_rows, key=key), used


TABLES = ("time", "memory", "serving")


def dump(doc):
    """The document with one row per line, so that a diff shows which runs moved."""
    head = {k: v for k, v in doc.items() if k not in TABLES}
    text = json.dumps(head, indent=2)[:-2] + ",\n"
    for key in TABLES:
        rows = ",\n".join("    " + json.dumps(r) for r in doc[key])
        text += '  "%s": [\n%s\n  ]%s\n' % (key, rows, "," if key != TABLES[-1] else "")
    return text + "}\n"


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    cli, check = argv[0], "--check" in argv
    date = argv[argv.index("--date") + 1] if "--date" in argv else datetime.date.today().isoformat()
    paths = [p for p in sorted(glob.glob(os.path.join(ROOT, "tests", "validation", "*.csv"))) if "source" in header(p)]
    time_rows, memory_rows, serving_rows, used = collect(cli, paths)
    path = os.path.join(ROOT, "data", "accuracy.json")
    doc = {"schema_version": 3, "kind": "accuracy", "generated": date,
           "source": "gpuplan validate --json over %s (each row's source: the published document it came "
                     "from); tools/accuracy_bands.py" % ", ".join(used),
           "note": "One entry per validated run: its source, family, ground (model kind, precision, parallel "
                   "dimensions, GPU architecture, GPUs; serving runs also the engine) and signed error "
                   "(predicted - measured) / measured. Time rows are throughput rows (not MFU), memory rows "
                   "peak memory of training and inference, serving rows a serving file's rows on their own "
                   "metric (family: the row's group). The core computes the error bands from them "
                   "(gpuplan/accuracy.h).",
           "time": time_rows, "memory": memory_rows, "serving": serving_rows}
    if check:
        old = json.load(open(path))
        same = all(old.get(k) == doc[k] for k in ("schema_version",) + TABLES)
        print("accuracy_bands: data/accuracy.json is %s" % ("current" if same else
              "stale: run tools/accuracy_bands.py build/native/tools/cli/gpuplan"))
        return 0 if same else 1
    with open(path, "w") as f:
        f.write(dump(doc))
    print("accuracy_bands: wrote %s (%d time rows, %d memory rows, %d serving rows, from %s)" %
          (path, len(time_rows), len(memory_rows), len(serving_rows), ", ".join(used)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
