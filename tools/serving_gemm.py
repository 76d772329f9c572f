#!/usr/bin/env python3
"""The GEMM rates serving runtimes' own kernels reach, from NVIDIA's measured tables.

NVIDIA's aiconfigurator (github.com/ai-dynamo/aiconfigurator) ships, per GPU, runtime and
runtime version, a table of GEMM latencies its collector measured with the runtime's kernels:
aic-core/src/aiconfigurator_core/systems/data/<system>/gemm/<runtime>/<version>/gemm_perf.parquet
(columns m, n, k, gemm_dtype, latency in ms; earlier snapshots kept a CSV gemm_perf.txt).

From each GPU's newest table of each runtime this tool derives two figures per weight format and
writes them into data/gpus/<id>.json (specs.serving_gemm), with the table as source:

  weight_stream_gb_per_s  the median bytes/s of the GEMMs with at most 16 rows (M <= 16) over a
                          weight of at least 64 MB: weight, input and output bytes over the time.
                          A decode step's matmuls are such GEMMs.
  matmul_tflops           the median FLOP/s (2 M N K / time) of the GEMMs with M, N and K all at
                          least 4096: a prefill chunk's matmuls.

A derived figure needs at least 10 GEMMs of its kind. No number is fitted to a serving
measurement: both are medians of the kernel table.

Usage:
  tools/serving_gemm.py --data DIR --commit SHA --date YYYY-MM-DD [--repo-root .]
    DIR: aiconfigurator's systems/data directory (a checkout), or a directory of the same layout
    whose tables were converted to CSV (<...>/gemm_perf.csv). Parquet tables are read through
    node and the npm package hyparquet (tools/parquet_csv.mjs); install it outside the repo:
      npm install --prefix ~/.cache/gpuplan/parquet hyparquet hyparquet-compressors
      export NODE_PATH=~/.cache/gpuplan/parquet/node_modules
"""
import argparse
import csv
import io
import json
import os
import re
import statistics
import subprocess
import sys

# aiconfigurator system directory -> gpuplan GPU id.
SYSTEMS = {
    "a100_sxm": "a100-sxm4-80gb",
    "h100_sxm": "h100-sxm5-80gb",
    "h200_sxm": "h200-sxm-141gb",
    "b200_sxm": "b200-sxm",
    "b300_sxm": "b300-sxm",
    "gb200": "gb200",
    "gb300": "gb300",
    "l40s": "l40s",
    "rtx_pro_6000_server": "rtx-pro-6000-blackwell-server",
}
RUNTIMES = ("trtllm", "vllm", "sglang")
# Table dtype -> (gpuplan weight-format key, bytes per weight element). NVFP4 stores a 1-byte
# scale per 16 elements (0.5 + 1/16).
FORMATS = {"bfloat16": ("bf16", 2.0), "fp8": ("fp8", 1.0), "nvfp4": ("nvfp4", 0.5625)}
RUNTIME_NAMES = {"trtllm": "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang"}
MIN_GEMMS = 10
STREAM_MAX_ROWS = 16
STREAM_MIN_WEIGHT_BYTES = 64e6
COMPUTE_MIN_DIM = 4096


def derive(gemms, bytes_per_element):
    """(weight_stream_bytes_per_s, flop_per_s, stream_gemms, compute_gemms) from (m, n, k,
    latency_s) tuples of one dtype; None where fewer than MIN_GEMMS qualify."""
    stream, compute = [], []
    for m, n, k, seconds in gemms:
        if m <= 0 or seconds <= 0:
            continue
        weight = n * k * bytes_per_element
        if m <= STREAM_MAX_ROWS and weight >= STREAM_MIN_WEIGHT_BYTES:
            stream.append((weight + m * k * bytes_per_element + 2.0 * m * n) / seconds)
        if min(m, n, k) >= COMPUTE_MIN_DIM:
            compute.append(2.0 * m * n * k / seconds)
    if len(stream) < MIN_GEMMS or len(compute) < MIN_GEMMS:
        return None
    return statistics.median(stream), statistics.median(compute), len(stream), len(compute)


def version_key(version):
    """Sorts '1.3.0rc20' after '1.3.0rc10' and '1.2.0'; '0.5.6.post2' after '0.5.6'."""
    key = []
    for part in re.findall(r"\d+|[a-z]+", version):
        key.append((1, int(part)) if part.isdigit() else (0, {"rc": -2, "post": 1}.get(part, 0)))
    return key + [(0, 0)]  # the release itself: after its candidates, before its post releases


def read_table(path):
    """The rows of a gemm_perf table (CSV, or parquet through node)."""
    if path.endswith(".parquet"):
        here = os.path.dirname(os.path.abspath(__file__))
        text = subprocess.run(["node", os.path.join(here, "parquet_csv.mjs"), path],
                              check=True, capture_output=True, text=True).stdout
    else:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    return list(csv.DictReader(io.StringIO(text)))


def gemms_by_dtype(rows):
    out = {}
    for r in rows:
        out.setdefault(r["gemm_dtype"], []).append(
            (int(r["m"]), int(r["n"]), int(r["k"]), float(r["latency"]) * 1e-3))
    return out


def newest_tables(data_dir, system):
    """{runtime: (version, path)}: the newest gemm_perf table of each runtime for a system."""
    out = {}
    for runtime in RUNTIMES:
        base = os.path.join(data_dir, system, "gemm", runtime)
        if not os.path.isdir(base):
            continue
        for version in sorted(os.listdir(base), key=version_key, reverse=True):
            for name in ("gemm_perf.parquet", "gemm_perf.csv", "gemm_perf.txt"):
                path = os.path.join(base, version, name)
                if os.path.isfile(path):
                    out[runtime] = (version, path)
                    break
            if runtime in out:
                break
    return out


def fact(value, source, note):
    return {"value": round(value) if value >= 100 else round(value, 1), "source": source,
            "note": note}


def gpu_entries(data_dir, system, commit, date):
    """(serving_gemm object, sources) for one system."""
    gemm, sources = {}, {}
    for runtime, (version, path) in sorted(newest_tables(data_dir, system).items()):
        source = "aiconfigurator-gemm-" + runtime
        rel = path[len(data_dir):].lstrip("/")
        derived = {}
        for dtype, gemms in sorted(gemms_by_dtype(read_table(path)).items()):
            if dtype not in FORMATS:
                continue
            key, element = FORMATS[dtype]
            d = derive(gemms, element)
            if d is None:
                continue
            stream, flops, n_stream, n_compute = d
            derived[key] = {
                "weight_stream_gb_per_s": fact(
                    stream / 1e9, source,
                    f"median of {n_stream} {dtype} GEMMs with M <= {STREAM_MAX_ROWS} over a "
                    f"weight of at least 64 MB ((weight + input + output bytes) / latency)"),
                "matmul_tflops": fact(
                    flops / 1e12, source,
                    f"median of {n_compute} {dtype} GEMMs with M, N, K >= {COMPUTE_MIN_DIM} "
                    "(2 M N K / latency)"),
            }
        if not derived:
            continue
        gemm[runtime] = derived
        rel_path = "aic-core/src/aiconfigurator_core/systems/data/" + rel
        sources[source] = {
            "title": (f"ai-dynamo/aiconfigurator@{commit[:8]} {rel_path}: GEMM latencies by M, N, "
                      f"K and dtype that NVIDIA's collector measured with {RUNTIME_NAMES[runtime]} "
                      f"{version}'s kernels; figures derived by tools/serving_gemm.py"),
            "url": f"https://github.com/ai-dynamo/aiconfigurator/blob/{commit}/{rel_path}",
            "date": date,
            "date_kind": "published",
        }
    return gemm, sources


def write_gpu(repo_root, gpu_id, figures, sources, spec_key="serving_gemm",
              source_prefix="aiconfigurator-gemm-"):
    """Replaces a GPU file's specs.<spec_key> and its sources named <source_prefix>..., keeping
    everything else; an empty `figures` removes the key."""
    path = os.path.join(repo_root, "data", "gpus", gpu_id + ".json")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    for key in [k for k in doc["sources"] if k.startswith(source_prefix)]:
        del doc["sources"][key]
    doc["sources"].update(sources)
    if figures:
        doc["specs"][spec_key] = figures
    else:
        doc["specs"].pop(spec_key, None)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def run(argv, description, gpu_entries, spec_key, source_prefix, summary):
    """The command line both table tools share: each known system's figures into its GPU file."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--data", required=True, help="aiconfigurator's systems/data directory")
    p.add_argument("--commit", required=True, help="the aiconfigurator commit the tables are from")
    p.add_argument("--date", required=True, help="that commit's date, YYYY-MM-DD")
    p.add_argument("--repo-root", default=".")
    a = p.parse_args(argv)
    data_dir = os.path.abspath(a.data)
    for system, gpu_id in SYSTEMS.items():
        if not os.path.isdir(os.path.join(data_dir, system)):
            print(f"{spec_key}: {system}: no tables, {gpu_id} unchanged", file=sys.stderr)
            continue
        figures, sources = gpu_entries(data_dir, system, a.commit, a.date)
        write_gpu(a.repo_root, gpu_id, figures, sources, spec_key, source_prefix)
        print(f"{spec_key}: {gpu_id}: " + ", ".join(
            f"{rt} {summary(f)}" for rt, f in sorted(figures.items())))
    return 0


def main(argv):
    return run(argv, __doc__.split("\n")[0], gpu_entries, "serving_gemm", "aiconfigurator-gemm-",
               lambda formats: "/".join(sorted(formats)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
