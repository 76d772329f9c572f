#!/usr/bin/env python3
"""Writes data/accuracy.json: the error bands gpuplan shows beside every predicted time and memory
figure, from `gpuplan validate --json` over the development data in tests/validation/.

For each family of rows (model kind / precision / parallelism, as the core's accuracy_family names
them) it keeps the 10th and 90th percentile of the signed error (predicted - measured) / measured
and the mean absolute error; throughput rows (not MFU) give the time bands, peak-memory rows the
memory bands, and "all" pools every row. With --check it compares instead of writing and exits 1
when the file is stale (the model changed but the bands were not regenerated).

Usage: tools/accuracy_bands.py GPUPLAN [--check] [--date YYYY-MM-DD]
"""
import datetime
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THROUGHPUT = ["tests/validation/throughput_dev.csv", "tests/validation/llm_dev.csv"]
MEMORY = ["tests/validation/memory_dev.csv"]


def validate(cli, path):
    out = subprocess.run([cli, "validate", os.path.join(ROOT, path), "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("accuracy_bands: gpuplan validate %s failed: %s" % (path, out.stderr.strip()))
    return json.loads(out.stdout)["rows"]


def percentile(values, q):
    v = sorted(values)
    if len(v) < 5:  # too few for a percentile: the extremes
        return v[0] if q < 0.5 else v[-1]
    x = q * (len(v) - 1)
    i = int(x)
    return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (x - i)


def bands(errors_by_family):
    pooled = [e for errors in errors_by_family.values() for e in errors]
    out = []
    for family, errors in sorted(errors_by_family.items()) + [("all", pooled)]:
        if not errors:
            continue
        out.append({"family": family, "rows": len(errors), "error_p10": round(percentile(errors, 0.1), 4),
                    "error_p90": round(percentile(errors, 0.9), 4),
                    "mape": round(sum(abs(e) for e in errors) / len(errors), 4)})
    return out


def group(rows, keep):
    by = {}
    for r in rows:
        if keep(r):
            by.setdefault(r["family"], []).append(r["error"])
    return by


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    cli, check = argv[0], "--check" in argv
    date = argv[argv.index("--date") + 1] if "--date" in argv else datetime.date.today().isoformat()
    time_rows = [r for p in THROUGHPUT for r in validate(cli, p)]
    memory_rows = [r for p in MEMORY for r in validate(cli, p)]
    path = os.path.join(ROOT, "data", "accuracy.json")
    doc = {"schema_version": 1, "kind": "accuracy", "generated": date,
           "source": "gpuplan validate over tests/validation/*.csv (sources per row there); tools/accuracy_bands.py",
           "note": "Signed errors (predicted - measured) / measured per family of development rows: 10th and 90th "
                   "percentile (the extremes under 5 rows) and mean absolute error. Time bands come from "
                   "throughput rows, memory bands from peak-memory rows (training and inference, not the "
                   "CUDA-context-only rows).",
           "time": bands(group(time_rows, lambda r: r["metric"] != "mfu")),
           "memory": bands(group(memory_rows, lambda r: r["mode"] in ("train", "infer")))}
    if check:
        old = json.load(open(path))
        same = all(old.get(k) == doc[k] for k in ("time", "memory"))
        print("accuracy_bands: data/accuracy.json is %s" % ("current" if same else
              "stale: run tools/accuracy_bands.py build/native/tools/cli/gpuplan"))
        return 0 if same else 1
    with open(path, "w") as f:
        f.write(json.dumps(doc, indent=2) + "\n")
    print("accuracy_bands: wrote %s (%d time, %d memory families)" % (path, len(doc["time"]), len(doc["memory"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
