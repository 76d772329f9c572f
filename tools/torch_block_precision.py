#!/usr/bin/python3
"""What one transformer block saves for backward under each precision recipe, in real PyTorch.

gpuplan's training memory counts a block's saved activations per recipe (core/src/workload/transformer.cpp,
precision_bytes in core/src/workload/estimate.cpp). This script measures the same quantity with PyTorch on
the CPU for the GPT-2 block of tools/torch_reference.py (hidden 768, 12 heads, explicit attention
matmuls) at batch 1, sequence 128, and writes tests/reference/torch_block_precision.json, which
tests/core/transformer_test.cpp compares against.

Recipes measured, each with dropout 0 and 0.1:
  fp32           fp32 weights and inputs;
  autocast-bf16  fp32 weights under torch.autocast("cpu", dtype=torch.bfloat16), gpuplan's amp-bf16;
  bf16           weights and inputs in bf16 (block.to(torch.bfloat16)): the activation layout of
                 gpuplan's mixed-bf16 (FSDP param_dtype=bf16, Megatron --bf16), whose fp32 masters
                 live in the optimizer, not in the block.

For each: unique storages saved through saved_tensors_hooks during one training forward, split into
  input_bytes        the block input (saved by the first LayerNorm);
  weight_cast_bytes  16-bit copies of fp32 weights that autocast makes and autograd saves (a saved
                     tensor with a weight's shape, transposed or not, in another dtype);
  score_bytes        tensors of batch x heads x seq x seq elements: softmax output, dropout mask
                     and output (the causal-mask condition is a slice of a buffer: left out);
  other_bytes        everything else (matmul and norm inputs, GELU input, dropout masks).
parameters and buffers themselves are left out.

CPU vs CUDA, which the test accounts for:
  - CPU's dropout keeps its mask in the input's dtype; CUDA's fused dropout keeps a 1-byte mask.
  - CPU autocast (torch 1.13) runs softmax in bf16; CUDA autocast runs it in fp32 and the second
    attention matmul casts the probabilities back to 16 bits (gpuplan models the CUDA policy).
  - Both keep LayerNorm in fp32 under autocast, so the residual stream and norm inputs stay fp32.

Run: /usr/bin/python3 tools/torch_block_precision.py [--out PATH | --check]  (about 10 s)
--check measures again and fails when the committed file differs (ctest reference.block_precision;
exit 77, skipped, without python3-torch).
"""

import argparse
import contextlib
import datetime
import json
import os
import sys

try:
    import torch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_reference as ref  # the GPT-2 block and the storage helper
except ImportError as e:
    print(f"torch_block_precision: skipped, {e} (install python3-torch)")
    sys.exit(77)

HIDDEN, HEADS, SEQ = 768, 12, 128


def measure(block, x, mask, autocast):
    """Bytes saved for backward by one training forward of block, by category."""
    params = {ref.storage_of(p)[0]: p for p in block.parameters()}
    weight_shapes = {tuple(p.shape) for p in block.parameters() if p.dim() == 2}
    buffer_ptrs = {ref.storage_of(mask)[0]}
    input_ptr = ref.storage_of(x)[0]
    seen = {}

    def category(t, ptr):
        if ptr == input_ptr:
            return "input_bytes"
        if t.dim() == 2 and (tuple(t.shape) in weight_shapes or tuple(t.t().shape) in weight_shapes):
            return "weight_cast_bytes"
        if t.numel() == HEADS * SEQ * SEQ:  # (batch 1, heads, seq, seq), whatever its layout
            return "score_bytes"
        return "other_bytes"

    def pack(t):
        ptr, nbytes = ref.storage_of(t)
        if ptr not in params and ptr not in buffer_ptrs and ptr not in seen and nbytes:
            seen[ptr] = (category(t, ptr), nbytes)
        return t

    ctx = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), ctx:
        out = block(x, mask)
    out.float().sum().backward()  # the graph was whole: every saved tensor was used
    totals = {"input_bytes": 0, "weight_cast_bytes": 0, "score_bytes": 0, "other_bytes": 0}
    for cat, nbytes in seen.values():
        totals[cat] += nbytes
    return totals


def run(recipe, dropout):
    torch.manual_seed(0)
    block = ref.GPT2Block(HIDDEN, HEADS, dropout)
    dtype = torch.bfloat16 if recipe == "bf16" else torch.float32
    block = block.to(dtype).train()
    x = torch.randn(1, SEQ, HIDDEN, dtype=dtype, requires_grad=True)
    mask = torch.tril(torch.ones(SEQ, SEQ, dtype=torch.bool)).view(1, 1, SEQ, SEQ)
    return measure(block, x, mask, autocast=recipe == "autocast-bf16")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    committed = os.path.join(here, "..", "tests", "reference", "torch_block_precision.json")
    ap.add_argument("--out", default=committed)
    ap.add_argument("--check", action="store_true", help="compare with the committed file")
    args = ap.parse_args()
    torch.set_num_threads(1)
    results = {}
    for recipe in ("fp32", "autocast-bf16", "bf16"):
        for dropout in (0.0, 0.1):
            results[f"{recipe}_dropout{dropout}"] = run(recipe, dropout)
    if args.check:
        with open(committed) as f:
            stored = json.load(f)["saved"]
        if stored != results:
            print(f"{committed} differs from PyTorch {torch.__version__} today:\n"
                  f"stored   {json.dumps(stored, sort_keys=True)}\n"
                  f"measured {json.dumps(results, sort_keys=True)}\n"
                  "rerun tools/torch_block_precision.py and check the tests that read it")
            return 1
        print(f"torch_block_precision: {committed} matches PyTorch {torch.__version__}")
        return 0
    doc = {
        "generated_by": "tools/torch_block_precision.py",
        "torch_version": torch.__version__,
        "torch_package": ref.debian_version("python3-torch"),
        "date": datetime.date.today().isoformat(),
        "block": {"kind": "gpt2", "hidden": HIDDEN, "heads": HEADS, "seq_len": SEQ, "batch": 1},
        "saved": results,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    for key, r in results.items():
        print(f"{key:24s} " + "  ".join(f"{k}={v}" for k, v in r.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
