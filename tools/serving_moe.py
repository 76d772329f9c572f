#!/usr/bin/env python3
"""The rate at which serving runtimes' own fused-MoE kernels stream expert weights, measured.

NVIDIA's aiconfigurator (github.com/ai-dynamo/aiconfigurator) ships, per GPU, runtime and runtime
version, a table of whole-MoE-layer latencies its collector measured with the runtime's own kernels
(router output to combined expert output: gate/up GEMM, activation, down GEMM):
aic-core/src/aiconfigurator_core/systems/data/<system>/moe/<runtime>/<version>/moe_perf.parquet
(columns num_tokens, hidden_size, inter_size, topk, num_experts, moe_tp_size, moe_ep_size,
moe_dtype, kernel_source, distribution, latency in ms).

A decode step's expert matmuls are such kernels with a few rows per expert: their time is the
touched experts' weights over the rate this tool derives, per weight format, and writes into
data/gpus/<id>.json (specs.serving_moe.<runtime>.<format>.expert_stream_gb_per_s):

  expert_stream_gb_per_s  the median bytes/s of the table's single-GPU rows (moe_tp_size and
                          moe_ep_size 1) with balanced routing, a gated MLP (three matrices per
                          expert), at most 16 tokens per touched expert and at least 64 MB of
                          touched expert weights: (touched experts' weights + 16-bit input and
                          output rows) / latency.

Balanced routing is the collector's balanced_logits (collector/helper.py): token i takes experts
i + j * ceil(E / k) (mod E), so min(E, tokens x k) distinct experts are touched. Each format takes
the newest table that has its rows; mxfp4 takes MXFP4 weights with MXFP8 activations where the
table has them (Blackwell), else with 16-bit activations. MXFP4's scales are counted (one byte per
32 weights), int4's group scales are not (under 3 %).

Only the weight-only 4-bit formats are derived: bf16, fp8 and nvfp4 experts keep the dense GEMM
rates of tools/serving_gemm.py. On Hopper under TensorRT-LLM the MoE tables' balanced-routing
rates for those formats are within about 10 % of the dense ones, and taking them for experts made
the development serving table worse (output tokens/s 19.3 -> 19.8 %): real routing is skewed,
which balanced rows leave out.

A figure needs at least 10 rows. Nothing is fitted to a serving measurement: each figure is a
median of a kernel table.

Usage:
  tools/serving_moe.py --data DIR --commit SHA --date YYYY-MM-DD [--repo-root .]
    DIR: aiconfigurator's systems/data directory (a checkout), or one of the same layout whose
    tables were converted to CSV (moe_perf.csv). Parquet goes through tools/parquet_csv.mjs, as
    for tools/serving_gemm.py (its docstring says how to install the reader).
"""
import os
import statistics
import sys

from serving_gemm import RUNTIME_NAMES, RUNTIMES, fact, read_table, run, version_key
from serving_gemm import write_gpu  # noqa: F401  (the tests write GPU files through this module)

# gpuplan weight format -> (table dtypes in order of preference, bytes per weight element). Only
# the formats no GEMM table measures (tools/serving_gemm.py covers bf16, fp8 and nvfp4, whose
# dense GEMM rates the serving model keeps for experts too).
FORMATS = {
    "mxfp4": (("w4a8_mxfp4_mxfp8", "w4a16_mxfp4"), 0.53125),
    "int4": (("int4_wo",), 0.5),
}
MIN_ROWS = 10
MAX_TOKENS_PER_EXPERT = 16
MIN_WEIGHT_BYTES = 64e6
TABLE = "moe_perf"


def stream_rate(row, bytes_per_element):
    """Bytes/s of one qualifying row of the table, or None where the row does not qualify."""
    if (row["moe_tp_size"] != "1" or row["moe_ep_size"] != "1"
            or row["distribution"] != "balanced" or "nongated" in row["kernel_source"]):
        return None
    tokens, experts, topk = int(row["num_tokens"]), int(row["num_experts"]), int(row["topk"])
    hidden, inter = int(row["hidden_size"]), int(row["inter_size"])
    seconds = float(row["latency"]) * 1e-3
    touched = min(experts, tokens * topk)
    if tokens <= 0 or seconds <= 0 or tokens * topk / touched > MAX_TOKENS_PER_EXPERT:
        return None
    weight = touched * 3 * hidden * inter * bytes_per_element
    if weight < MIN_WEIGHT_BYTES:
        return None
    return (weight + 2 * tokens * hidden * 2) / seconds


def derive(rows, fmt):
    """(bytes_per_s, rows used, table dtype) for one gpuplan format, or None."""
    dtypes, element = FORMATS[fmt]
    for dtype in dtypes:
        rates = [r for r in (stream_rate(row, element) for row in rows if row["moe_dtype"] == dtype)
                 if r is not None]
        if len(rates) >= MIN_ROWS:
            return statistics.median(rates), len(rates), dtype
    return None


def tables(data_dir, system, runtime):
    """[(version, path)] of a system's moe tables for a runtime, newest first."""
    base = os.path.join(data_dir, system, "moe", runtime)
    if not os.path.isdir(base):
        return []
    out = []
    for version in sorted(os.listdir(base), key=version_key, reverse=True):
        for name in (TABLE + ".parquet", TABLE + ".csv"):
            path = os.path.join(base, version, name)
            if os.path.isfile(path):
                out.append((version, path))
                break
    return out


def gpu_entries(data_dir, system, commit, date):
    """(serving_moe object, sources) for one system."""
    moe, sources = {}, {}
    for runtime in RUNTIMES:
        derived = {}
        for version, path in tables(data_dir, system, runtime):
            rows = None
            for fmt in FORMATS:
                if fmt in derived:
                    continue
                rows = rows if rows is not None else read_table(path)
                d = derive(rows, fmt)
                if d is None:
                    continue
                rate, n, dtype = d
                source = f"aiconfigurator-moe-{runtime}-{version}"
                derived[fmt] = {"expert_stream_gb_per_s": fact(
                    rate / 1e9, source,
                    f"median of {n} single-GPU {dtype} MoE layers with balanced routing, at most "
                    f"{MAX_TOKENS_PER_EXPERT} tokens per touched expert and 64 MB or more of "
                    "touched expert weights ((weights + input + output bytes) / latency)")}
                rel = "aic-core/src/aiconfigurator_core/systems/data/" + os.path.relpath(
                    path, data_dir)
                sources[source] = {
                    "title": (f"ai-dynamo/aiconfigurator@{commit[:8]} {rel}: MoE layer latencies "
                              "by token count, shape, routing and dtype that NVIDIA's collector "
                              f"measured with {RUNTIME_NAMES[runtime]} {version}'s kernels; "
                              "figures derived by tools/serving_moe.py"),
                    "url": f"https://github.com/ai-dynamo/aiconfigurator/blob/{commit}/{rel}",
                    "date": date,
                    "date_kind": "published",
                }
        if derived:
            moe[runtime] = dict(sorted(derived.items()))
    return moe, sources


def main(argv):
    return run(argv, __doc__.split("\n")[0], gpu_entries, "serving_moe", "aiconfigurator-moe-",
               lambda formats: " ".join(f"{f} {v['expert_stream_gb_per_s']['value']}"
                                        for f, v in formats.items()))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
