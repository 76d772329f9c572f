#!/usr/bin/python3
"""Reference numbers from real PyTorch for gpuplan's FLOP and memory predictions.

What
----
For a fixed set of models this script measures, with PyTorch itself (CPU,
fp32), the quantities that gpuplan predicts, and writes them to a JSON file
(by default tests/reference/torch_reference.json) that gpuplan's tests compare
against.  Models: torchvision resnet18, resnet50, resnet101, vgg16,
mobilenet_v2, vit_b_16 (num_classes=1000, 224x224 input) and GPT-2 small,
implemented here in plain torch (transformers is not available as a Debian
package); its attention is written with explicit matmuls.

How to run
----------
    /usr/bin/python3 tools/torch_reference.py [--out PATH] [--models a,b,...]
                                              [--jobs 2] [--threads 1] [--full]

Needs python3-torch and python3-torchvision (Debian bookworm: torch 1.13.1,
torchvision 0.14.1).  No network, no pretrained weights (weights are random
from seed 0; none of the numbers depend on their values, so the output is
the same on every run except "date" and "host_cpu").  The work is split into
independent jobs run by --jobs worker processes (spawned).  About 3 minutes
on 2 CPU cores; nearly all of it is GPT-2 at seq_len 1024, whose matmuls go
through the single-threaded reference BLAS of the Debian build (~2-6
GFLOP/s), hence one process per core rather than torch threads.  --full also
runs the GPT-2 seq-1024 eval/no_grad forward (+2 minutes) and asserts that
it counts the same FLOPs as the train-mode forward without dropout.

What each number means (per model entry in "models")
----------------------------------------------------
params            sum of numel over the model's unique parameters (shared /
                  tied parameters counted once).
trainable_params  same, only those with requires_grad.
buffers_numel     sum of numel over buffers (BatchNorm running stats and
                  num_batches_tracked; for GPT-2 the causal-mask buffer).
input             the input used for the FLOP count (batch 1).
forward_flops_profiler
                  FLOPs of ONE forward pass, batch 1, model.eval() under
                  torch.no_grad() (GPT-2 seq 1024: train() forward with all
                  dropout p=0, which runs the same ops; see notes): sum of evt.flops over
                  torch.profiler.profile(with_flops=True).key_averages().
                  Convention of the profiler: a multiply-add is 2 FLOPs for
                  aten::conv2d / mm / addmm / bmm (bias adds not counted);
                  aten::add and aten::mul count 1 FLOP per output element.
                  Every other op (softmax, layer_norm, batch_norm, relu, gelu,
                  pooling, div, ...) counts 0.  See forward_flops_by_op.
forward_flops_by_op
                  op name -> FLOPs for the ops that the profiler gave a
                  nonzero count.
forward_flops_matmul_conv
                  the part of forward_flops_profiler from conv2d/mm/addmm/bmm
                  (i.e. without the elementwise add/mul).
forward_flops_analytic_matmul_conv
                  independent check computed from module shapes with forward
                  hooks: 2*MACs of every Conv2d (groups taken into account),
                  Linear, MultiheadAttention (in/out projections and both
                  attention matmuls) and the GPT-2 attention matmuls.
forward_flops_profiler_train_mode
                  the same profiler sum for the training forward (model.train(),
                  autograd on) that is used for the saved-tensor measurement.
ops_with_zero_flops
                  op name -> call count for the top-level ops (called from
                  Python; names that also occur nested inside other ops, e.g.
                  aten::view, are left out) that the profiler gave 0 FLOPs,
                  in the forward used for forward_flops_profiler.
attention_flops_analytic   (ViT, GPT-2)
                  2*2*seq*seq*hidden*layers per sample: QK^T plus attn@V.
                  Already included in forward_flops_profiler (aten::bmm), see
                  notes.
saved_activation_bytes
                  bytes of tensors saved for backward during ONE training
                  forward (model.train(), fp32, autograd on, no loss), measured
                  with torch.autograd.graph.saved_tensors_hooks: the pack hook
                  records each saved tensor's storage (data_ptr, nbytes); every
                  storage is counted once (a storage saved by several ops, or
                  several views of one storage, count once, with the storage's
                  full size).  EXCLUDED: storages of parameters
                  (saved_param_bytes), of buffers (saved_buffer_bytes) and of
                  the model input (saved_input_bytes).  So the total bytes kept
                  alive by the graph are activation + input (+ param + buffer,
                  which exist anyway).  Keyed by "batch1", "batch8"
                  (resnet50), or "seq1024_batch1" etc. for GPT-2.
saved_activation_bytes_with_ce_loss
                  the same, measured after also computing
                  F.cross_entropy(logits, random targets) (over all positions
                  for GPT-2, without the shift that HF does); the targets'
                  storage is excluded (saved_target_bytes).
saved_param_bytes, saved_buffer_bytes, saved_input_bytes
                  unique bytes of parameter / buffer / input storages saved
                  (model forward only).
saved_detail      per measured configuration: number of unique storages,
                  activation bytes by dtype, and activation bytes by the set
                  of autograd nodes that saved the storage (found by walking
                  the graph and reading each node's _saved_* attributes; key =
                  sorted node names joined by "+", e.g.
                  "ConvolutionBackward0+ReluBackward0" = an in-place ReLU
                  result that the next conv saves too, counted once), and
                  logits_bytes (size of the model output, not saved).
notes             what the profiler counted and other caveats.
"""

import argparse
import datetime
import functools
import json
import math
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import profile

MATMUL_CONV_OPS = ("aten::conv2d", "aten::mm", "aten::addmm", "aten::bmm")
RESNET_LIKE = ("resnet18", "resnet50", "resnet101", "vgg16", "mobilenet_v2")
ALL_MODELS = RESNET_LIKE + ("vit_b_16", "gpt2")


# --------------------------------------------------------------------------
# GPT-2 small in plain torch (HF layout: pre-LN, tied lm_head, tanh GELU)
# --------------------------------------------------------------------------
class GPT2Attention(nn.Module):
    def __init__(self, d_model, n_head, pdrop):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(d_model, 3 * d_model)
        self.c_proj = nn.Linear(d_model, d_model)
        self.attn_dropout = nn.Dropout(pdrop)
        self.resid_dropout = nn.Dropout(pdrop)

    def forward(self, x, mask):
        B, T, C = x.shape
        hd = C // self.n_head
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, hd).transpose(1, 2)  # B,H,T,hd
        k = k.view(B, T, self.n_head, hd).transpose(1, 2)
        v = v.view(B, T, self.n_head, hd).transpose(1, 2)
        att = q @ k.transpose(-2, -1)  # explicit matmul -> aten::bmm
        att = att / math.sqrt(hd)  # scalar division: saves nothing
        att = torch.where(mask[:, :, :T, :T], att,
                          torch.tensor(torch.finfo(att.dtype).min, dtype=att.dtype))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v  # explicit matmul -> aten::bmm
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class GPT2MLP(nn.Module):
    def __init__(self, d_model, pdrop):
        super().__init__()
        self.c_fc = nn.Linear(d_model, 4 * d_model)
        self.c_proj = nn.Linear(4 * d_model, d_model)
        self.dropout = nn.Dropout(pdrop)

    def forward(self, x):
        # HF's "gelu_new" is the same function, but written as python
        # elementwise ops (which would save several more tensors); here the
        # single fused op F.gelu(approximate="tanh") is used.
        return self.dropout(self.c_proj(F.gelu(self.c_fc(x), approximate="tanh")))


class GPT2Block(nn.Module):
    def __init__(self, d_model, n_head, pdrop):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model, eps=1e-5)
        self.attn = GPT2Attention(d_model, n_head, pdrop)
        self.ln_2 = nn.LayerNorm(d_model, eps=1e-5)
        self.mlp = GPT2MLP(d_model, pdrop)

    def forward(self, x, mask):
        x = x + self.attn(self.ln_1(x), mask)
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT2(nn.Module):
    def __init__(self, vocab=50257, n_ctx=1024, d_model=768, n_layer=12, n_head=12,
                 pdrop=0.1):
        super().__init__()
        self.wte = nn.Embedding(vocab, d_model)
        self.wpe = nn.Embedding(n_ctx, d_model)
        self.drop = nn.Dropout(pdrop)
        self.h = nn.ModuleList([GPT2Block(d_model, n_head, pdrop) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model, eps=1e-5)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied
        mask = torch.tril(torch.ones(n_ctx, n_ctx, dtype=torch.bool)).view(1, 1, n_ctx, n_ctx)
        self.register_buffer("causal_mask", mask, persistent=False)
        self.n_layer, self.d_model = n_layer, d_model

    def forward(self, idx):
        B, T = idx.shape
        pos = torch.arange(T, dtype=torch.long).unsqueeze(0)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x, self.causal_mask)
        return self.lm_head(self.ln_f(x))


GPT2_PARAMS = 124_439_808


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def storage_of(t):
    """(data_ptr, nbytes) of the storage underlying tensor t."""
    if hasattr(t, "untyped_storage"):  # torch >= 2.0
        s = t.untyped_storage()
    else:  # torch 1.13
        s = t.storage().untyped()
    return s.data_ptr(), s.nbytes()


def count_params(model):
    seen, total, trainable = set(), 0, 0
    for p in model.parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        total += p.numel()
        if p.requires_grad:
            trainable += p.numel()
    buffers = sum(b.numel() for b in model.buffers())
    return total, trainable, buffers


def analytic_flop_hooks(model):
    """Forward hooks adding 2*MACs of Conv2d/Linear/MultiheadAttention/GPT-2
    attention matmuls into counter['flops']."""
    counter = {"flops": 0, "attention": 0}
    handles = []

    def conv_hook(m, inp, out):
        kh, kw = m.kernel_size
        counter["flops"] += 2 * out.numel() * (m.in_channels // m.groups) * kh * kw

    def linear_hook(m, inp, out):
        counter["flops"] += 2 * out.numel() * m.in_features

    def mha_hook(m, inp, out):
        # called with keyword args, which forward hooks do not see: use the
        # output (B, S, E) (batch_first=True in torchvision's ViT)
        B, S, E = out[0].shape
        att = 2 * 2 * B * S * S * E
        counter["flops"] += 2 * B * S * E * 3 * E + 2 * B * S * E * E + att
        counter["attention"] += att

    def gpt2_attn_hook(m, inp, out):
        B, T, C = inp[0].shape
        att = 2 * 2 * B * T * T * C  # q@k^T and att@v, full (masked) TxT
        counter["flops"] += att
        counter["attention"] += att

    for mod in model.modules():
        if isinstance(mod, nn.Conv2d):
            handles.append(mod.register_forward_hook(conv_hook))
        elif isinstance(mod, nn.MultiheadAttention):
            handles.append(mod.register_forward_hook(mha_hook))
        elif isinstance(mod, nn.Linear) and not isinstance(
                mod, nn.modules.linear.NonDynamicallyQuantizableLinear):
            # MHA's out_proj is called functionally, not as a module, and is
            # accounted for in mha_hook.
            handles.append(mod.register_forward_hook(linear_hook))
        elif isinstance(mod, GPT2Attention):
            handles.append(mod.register_forward_hook(gpt2_attn_hook))
    return counter, handles


def profiled_forward(model, inp):
    """One forward under torch.profiler.profile(with_flops=True) plus the
    analytic hooks.  Returns (flop dict, model output)."""
    counter, handles = analytic_flop_hooks(model)
    try:
        with profile(with_flops=True) as prof:
            out = model(inp)
    finally:
        for h in handles:
            h.remove()
    total, by_op = 0, {}
    for evt in prof.key_averages():
        f = evt.flops or 0
        total += f
        if f:
            by_op[evt.key] = by_op.get(evt.key, 0) + f
    # Ops called directly from Python that got no FLOPs.  The ops nested below
    # them depend on backend and thread count, so keep only names that never
    # appear with a parent op (the profiler's parent links are occasionally
    # wrong for events with equal timestamps, which this also filters out).
    top, nested = defaultdict(int), set()
    for evt in prof.events():
        if evt.cpu_parent is None:
            top[evt.name] += 1
        else:
            nested.add(evt.name)
    zero_ops = {n: c for n, c in top.items() if n not in nested and n not in by_op}
    flops = {
        "forward_flops_profiler": total,
        "forward_flops_by_op": dict(sorted(by_op.items())),
        "forward_flops_matmul_conv": sum(v for k, v in by_op.items() if k in MATMUL_CONV_OPS),
        "forward_flops_analytic_matmul_conv": counter["flops"],
        "ops_with_zero_flops": dict(sorted(zero_ops.items())),
        "attention_analytic": counter["attention"],
    }
    return flops, out


def eval_flops(model, inp):
    """FLOPs of one eval() forward under torch.no_grad()."""
    model.eval()
    with torch.no_grad():
        flops, _ = profiled_forward(model, inp)
    return flops


def graph_savers(root):
    """storage data_ptr -> set of autograd node names that saved it, found by
    walking the graph from root and reading every node's _saved_* attributes."""
    savers = defaultdict(set)
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        name = type(node).__name__
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            try:
                val = getattr(node, attr)
            except Exception:  # e.g. an undefined optional tensor
                continue
            for v in (val if isinstance(val, (tuple, list)) else (val,)):
                if isinstance(v, torch.Tensor):
                    try:
                        savers[storage_of(v)[0]].add(name)
                    except Exception:
                        pass
        for nxt, _ in node.next_functions:
            stack.append(nxt)
    return savers


def measure_saved(model, inp):
    """Training forward (then a CE loss) under saved_tensors_hooks; the forward
    is also profiled.  Returns a dict (see the module docstring)."""
    model.train()
    param_ptrs = {storage_of(p)[0] for p in model.parameters()}
    buffer_ptrs = {storage_of(b)[0] for b in model.buffers()}
    input_ptr = storage_of(inp)[0]
    records = {}  # storage data_ptr -> (nbytes, dtype); tensors are NOT kept here
    no_storage = [0]

    def pack(t):
        try:
            ptr, nbytes = storage_of(t)
        except Exception:  # tensor without storage (not expected on CPU fp32)
            no_storage[0] += t.numel() * t.element_size()
            return t
        if nbytes and ptr not in records:
            records[ptr] = (nbytes, str(t.dtype).replace("torch.", ""))
        return t  # the graph keeps the tensor alive, so data_ptrs stay unique

    def unpack(t):
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        flops, out = profiled_forward(model, inp)
        fwd_records = dict(records)
        logits = out.reshape(-1, out.shape[-1])
        target = torch.randint(0, out.shape[-1], (logits.shape[0],))
        loss = F.cross_entropy(logits, target)
    target_ptr = storage_of(target)[0]
    savers = graph_savers(loss.grad_fn)

    def classify(recs):
        res = {"activation": 0, "param": 0, "buffer": 0, "input": 0, "target": 0}
        by_dtype, by_saver = defaultdict(int), defaultdict(int)
        for ptr, (nbytes, dtype) in recs.items():
            if ptr in param_ptrs:
                res["param"] += nbytes
            elif ptr in buffer_ptrs:
                res["buffer"] += nbytes
            elif ptr == input_ptr:
                res["input"] += nbytes
            elif ptr == target_ptr:
                res["target"] += nbytes
            else:
                res["activation"] += nbytes
                by_dtype[dtype] += nbytes
                by_saver["+".join(sorted(savers.get(ptr, {"<not found in graph>"})))] += nbytes
        return res, dict(sorted(by_dtype.items())), dict(sorted(by_saver.items()))

    fwd, fwd_dtype, fwd_saver = classify(fwd_records)
    full, _, _ = classify(records)
    detail = {
        "unique_storages": len(fwd_records),
        "unique_storages_with_loss": len(records),
        "activation_bytes_by_dtype": fwd_dtype,
        "activation_bytes_by_saving_nodes": fwd_saver,
        "storages_not_found_by_graph_walk": sum(1 for p in records if p not in savers),
        "logits_bytes": out.numel() * out.element_size(),
    }
    if no_storage[0]:
        detail["no_storage_bytes"] = no_storage[0]
    return {
        "activation": fwd["activation"],
        "activation_with_loss": full["activation"],
        "param": fwd["param"],
        "buffer": fwd["buffer"],
        "input": fwd["input"],
        "target": full["target"],
        "flops": flops,
        "detail": detail,
    }


# --------------------------------------------------------------------------
# jobs: (model name, [task, ...]); a task is (kind, key, arg)
#   kind "eval":  eval_flops;   kind "saved": measure_saved
#   arg: batch size (images) or (seq_len, dropout p) for GPT-2
# Each job builds its model from seed 0, so jobs are independent and can run
# in parallel worker processes (the Debian torch uses the single-threaded
# reference BLAS, so matmul-heavy GPT-2 is what takes the time).
# --------------------------------------------------------------------------
def build(name):
    if name == "gpt2":
        return GPT2()
    import torchvision  # here, so that the GPT-2 classes import without it

    return getattr(torchvision.models, name)(weights=None, num_classes=1000)


def make_input(name, arg):
    if name == "gpt2":
        return torch.randint(0, 50257, (1, arg[0]))
    return torch.randn(arg, 3, 224, 224)


def jobs_for(models, full):
    jobs = []
    for name in models:
        if name == "gpt2":
            # seq 1024: the flops come from the train-mode forward without
            # dropout (identical op set; asserted at seq 128 and with --full).
            jobs.append((name, [("saved", "seq1024_batch1_no_dropout", (1024, 0.0))]))
            jobs.append((name, [("saved", "seq1024_batch1", (1024, 0.1))]))
            if full:
                jobs.append((name, [("eval", "seq1024_batch1", (1024, 0.1))]))
            jobs.append((name, [("eval", "seq128_batch1", (128, 0.1)),
                                ("saved", "seq128_batch1", (128, 0.1)),
                                ("saved", "seq128_batch1_no_dropout", (128, 0.0))]))
        else:
            tasks = [("eval", "batch1", 1), ("saved", "batch1", 1)]
            if name == "resnet50":
                tasks.append(("saved", "batch8", 8))
            jobs.append((name, tasks))
    return jobs


def run_job(job, threads):
    torch.set_num_threads(threads)
    name, tasks = job
    torch.manual_seed(0)
    model = build(name)
    counts = count_params(model)
    results = []
    for kind, key, arg in tasks:
        t0 = time.time()
        torch.manual_seed(1)
        if name == "gpt2":
            for mod in model.modules():
                if isinstance(mod, nn.Dropout):
                    mod.p = arg[1]
        inp = make_input(name, arg)
        r = eval_flops(model, inp) if kind == "eval" else measure_saved(model, inp)
        results.append((kind, key, r, time.time() - t0))
    return name, counts, results


def assemble(name, counts, by_task):
    """by_task: (kind, key) -> result.  Builds the JSON entry of one model."""
    params, trainable, buffers = counts
    e = {"params": params, "trainable_params": trainable, "buffers_numel": buffers}
    saved = {key: r for (kind, key), r in by_task.items() if kind == "saved"}
    if name == "gpt2":
        assert params == GPT2_PARAMS, params
        e["input"] = {"batch": 1, "seq_len": 1024, "dtype": "int64"}
        e["config"] = {"vocab": 50257, "n_ctx": 1024, "d_model": 768, "n_layer": 12,
                       "n_head": 12, "dropout": 0.1, "tied_lm_head": True,
                       "gelu": "tanh approximation, F.gelu(approximate='tanh')"}
        f1024 = saved["seq1024_batch1_no_dropout"]["flops"]
        f128 = by_task[("eval", "seq128_batch1")]
        # eval/no_grad and train-without-dropout forwards count the same
        assert f128["forward_flops_profiler"] == \
            saved["seq128_batch1_no_dropout"]["flops"]["forward_flops_profiler"]
        if ("eval", "seq1024_batch1") in by_task:
            assert by_task[("eval", "seq1024_batch1")]["forward_flops_profiler"] == \
                f1024["forward_flops_profiler"]
        main = f1024
        e.update({k: v for k, v in f1024.items() if k != "attention_analytic"})
        e["forward_flops_profiler_seq128"] = f128["forward_flops_profiler"]
        e["forward_flops_by_op_seq128"] = f128["forward_flops_by_op"]
        e["forward_flops_analytic_matmul_conv_seq128"] = \
            f128["forward_flops_analytic_matmul_conv"]
        e["attention_flops_analytic"] = {
            "seq1024_batch1": 2 * 2 * 1024 * 1024 * 768 * 12,
            "seq128_batch1": 2 * 2 * 128 * 128 * 768 * 12}
        assert f128["attention_analytic"] == e["attention_flops_analytic"]["seq128_batch1"]
        order = ["seq1024_batch1", "seq128_batch1",
                 "seq1024_batch1_no_dropout", "seq128_batch1_no_dropout"]
    else:
        e["input"] = {"batch": 1, "resolution": 224}
        main = by_task[("eval", "batch1")]
        e.update({k: v for k, v in main.items() if k != "attention_analytic"})
        if name == "vit_b_16":
            e["attention_flops_analytic"] = 2 * 2 * 197 * 197 * 768 * 12
        order = sorted(saved, key=lambda k: int(k[len("batch"):]))
    if "attention_flops_analytic" in e and name == "vit_b_16":
        assert main["attention_analytic"] == e["attention_flops_analytic"]
    first = saved[order[0]]
    for key in order:  # params/buffers saved do not depend on the input size
        assert saved[key]["param"] == first["param"], key
    e["saved_activation_bytes"] = {k: saved[k]["activation"] for k in order}
    e["saved_activation_bytes_with_ce_loss"] = {k: saved[k]["activation_with_loss"] for k in order}
    e["saved_param_bytes"] = first["param"]
    e["saved_buffer_bytes"] = first["buffer"]
    e["saved_input_bytes"] = {k: saved[k]["input"] for k in order}
    e["saved_target_bytes"] = {k: saved[k]["target"] for k in order}
    e["forward_flops_profiler_train_mode"] = {
        k: saved[k]["flops"]["forward_flops_profiler"] for k in order}
    e["saved_detail"] = {k: saved[k]["detail"] for k in order}
    e["notes"] = notes_for(name)
    return e


def notes_for(name):
    common = (
        "FLOPs: eval() + no_grad forward, batch 1; the profiler counts 2*MAC "
        "for conv2d/mm/addmm/bmm (bias adds not counted) and 1/element for "
        "add/mul, nothing else (no BN, activation, pooling, softmax, layernorm, "
        "embedding FLOPs). Saved bytes: train() forward, fp32, CPU (mkldnn "
        "conv), unique storages; saved_activation_bytes EXCLUDES the input "
        "storage (saved_input_bytes), parameters (saved_param_bytes) and "
        "buffers (saved_buffer_bytes). ")
    if name in ("resnet18", "resnet50", "resnet101"):
        extra = (
            "Counted ops: aten::conv2d, aten::addmm (fc); the residual adds are "
            "in-place (add_, 0 FLOPs). BatchNorm (training) saves its input "
            "(= conv output, NativeBatchNormBackward0) plus save_mean/save_invstd "
            "and the running_mean/running_var buffers; the in-place ReLU saves "
            "its result (= BN output storage), which is the same storage the "
            "next conv / max-pool / mean saves, so it is counted once. "
            "max_pool2d saves its input plus int64 indices (2x the fp32 output "
            "bytes). The train-mode forward also does num_batches_tracked.add_ "
            "(not counted).")
    elif name == "mobilenet_v2":
        extra = (
            "Counted ops: aten::conv2d (depthwise groups accounted for: matches "
            "the analytic count), aten::addmm, aten::add (residuals, 1/elem). "
            "SURPRISE: in torch 1.13 ReLU6(inplace=True) -> hardtanh_ is not "
            "memory-saving under autograd: it saves a CLONE of its input "
            "(HardtanhBackward0 storages are separate from the conv inputs), "
            "so every ReLU6 costs an extra copy of the BN output. Classifier "
            "dropout (p=0.2, CPU) saves a float32 mask (MulBackward0).")
    elif name == "vgg16":
        extra = (
            "Counted ops: aten::conv2d, aten::addmm (classifier). No BN. "
            "ReLU(inplace) saves its result, which is also the next conv / "
            "max-pool input (counted once). max_pool2d saves int64 indices. "
            "Classifier dropout (p=0.5) on CPU is input*mask: it saves a "
            "float32 mask (MulBackward0) and the train-mode profile counts "
            "the aten::mul (1/elem).")
    elif name == "vit_b_16":
        extra = (
            "torchvision ViT uses nn.MultiheadAttention. In eval()+no_grad it "
            "takes the fast path aten::_native_multi_head_attention (no flop "
            "formula itself) whose inner aten::mm (qkv projection; its bias add "
            "is separate) and aten::bmm (q@k^T and attn@v) ARE counted; with "
            "autograd on (train) it runs F.multi_head_attention_forward: addmm "
            "for the projections and bmm for attention; both give the same "
            "total. So attention_flops_analytic (2*2*197*197*768*12) is ALREADY "
            "INCLUDED in forward_flops_profiler (aten::bmm) - do not add it "
            "again. aten::add is the two residual adds per block + pos "
            "embedding. Dropout p=0.0 saves nothing. Saved: LN inputs, linear "
            "inputs, q/k/v copies for bmm, softmax output (shared with the "
            "attn@v bmm), gelu input; DivBackward0 is a 0-dim float64 scalar.")
    else:
        extra = (
            "Plain-torch GPT-2 small (HF layout; nn.Linear instead of HF Conv1D, "
            "same parameters). Attention is explicit q@k^T / softmax / @v -> "
            "aten::bmm (counted over the full TxT, although causal); lm_head "
            "(tied to wte, counted once in params) is an aten::mm (no bias). "
            "Embedding lookups, layernorm, gelu, softmax, where(mask), the "
            "1/sqrt(d) division count 0; residual adds and wte+wpe count "
            "1/elem. forward_flops_* at seq 1024 come from the train-mode "
            "forward with dropout p=0 (the script asserts that it equals the "
            "eval/no_grad count at seq 128, and at 1024 with --full); "
            "ops_with_zero_flops is from that forward. "
            "Saved bytes: *_no_dropout keys set every dropout p=0; the plain "
            "keys use p=0.1 (HF default: embd, attn probs, attn resid, mlp "
            "resid). CPU dropout is input*mask with a FLOAT32 mask "
            "(MulBackward0; CUDA's fused dropout keeps a 1-byte bool mask "
            "instead), and the attn@v bmm then saves the dropped probabilities "
            "as a separate tensor, so attention dropout adds 2 x B*H*T*T*4 bytes "
            "per layer. Measured without loss (logits are not saved) and with "
            "a CE loss over all positions (log_softmax output saved, "
            "B*T*50257*4 bytes). The causal mask is a bool buffer (in "
            "buffers_numel and saved_buffer_bytes, saved by where). "
            "saved_input_bytes = int64 token ids (saved by the wte embedding); "
            "the int64 position ids (EmbeddingBackward0) count as activation.")
    return common + extra


def host_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def debian_version(pkg):
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                             capture_output=True, text=True, timeout=10).stdout
        return out or None
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--out", default=os.path.join(root, "tests/reference/torch_reference.json"))
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads per worker")
    ap.add_argument("--models", default=",".join(ALL_MODELS),
                    help="comma-separated subset of " + ",".join(ALL_MODELS))
    ap.add_argument("--full", action="store_true",
                    help="also run the eval/no_grad GPT-2 forward at seq 1024 (+2 min)")
    args = ap.parse_args()
    models = args.models.split(",")
    for m in models:
        if m not in ALL_MODELS:
            ap.error(f"unknown model {m}")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    t_all = time.time()
    jobs = jobs_for(models, args.full)
    per_model = {m: {} for m in models}
    counts = {}

    def collect(res):
        name, cnt, results = res
        counts[name] = cnt
        for kind, key, r, dt in results:
            per_model[name][(kind, key)] = r
            if kind == "eval":
                log(f"{name} {kind} {key}: flops={r['forward_flops_profiler']:,} ({dt:.1f}s)")
            else:
                log(f"{name} {kind} {key}: act={r['activation']:,} param={r['param']:,} "
                    f"input={r['input']:,} ({dt:.1f}s)")

    if args.jobs <= 1:
        for job in jobs:
            collect(run_job(job, args.threads))
    else:
        # spawn, not fork: forking after OpenMP/torch initialisation can hang
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(args.jobs) as pool:
            for res in pool.imap_unordered(functools.partial(run_job, threads=args.threads),
                                           jobs):
                collect(res)

    import torchvision

    result = {
        "generated_by": "tools/torch_reference.py",
        "torch_version": torch.__version__,
        "torchvision_version": torchvision.__version__,
        "torch_package": debian_version("python3-torch"),
        "torchvision_package": debian_version("python3-torchvision"),
        "date": datetime.date.today().isoformat(),
        "host_cpu": host_cpu(),
        "device": "cpu",
        "dtype": "float32",
        "models": {m: assemble(m, counts[m], per_model[m]) for m in models},
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    log(f"wrote {args.out} in {time.time() - t_all:.1f}s")


if __name__ == "__main__":
    main()
