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
    /usr/bin/python3 tools/torch_reference.py [--out PATH] [--threads N]
                                              [--models a,b,...]

Needs python3-torch and python3-torchvision (Debian bookworm: torch 1.13.1,
torchvision 0.14.1).  No network, no pretrained weights (weights are random;
none of the numbers depend on their values).  About 3-4 minutes on 2 CPU
cores; most of it is GPT-2 at seq_len 1024, whose matmuls go through the
reference BLAS of the Debian build.

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
                  torch.no_grad(): sum of evt.flops over
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
                  op name -> call count for ops the profiler saw but did not
                  count (the eval/no_grad forward).
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
                  the graph and reading each node's _saved_* attributes), e.g.
                  "ConvolutionBackward0+NativeBatchNormBackward0" = conv input
                  that is also a batch-norm output... (key = sorted node names
                  joined by "+").
notes             what the profiler counted and other caveats.
"""

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
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


def profile_flops(fn):
    """Run fn under the profiler; return (total, by_op(nonzero), zero_ops, result)."""
    with profile(with_flops=True) as prof:
        result = fn()
    total, by_op, zero_ops = 0, {}, {}
    for evt in prof.key_averages():
        f = evt.flops or 0
        total += f
        if f:
            by_op[evt.key] = by_op.get(evt.key, 0) + f
        else:
            zero_ops[evt.key] = zero_ops.get(evt.key, 0) + evt.count
    return total, dict(sorted(by_op.items())), dict(sorted(zero_ops.items())), result


def forward_flops(model, inp):
    model.eval()
    counter, handles = analytic_flop_hooks(model)
    with torch.no_grad():
        total, by_op, zero_ops, _ = profile_flops(lambda: model(inp))
    for h in handles:
        h.remove()
    mm_conv = sum(v for k, v in by_op.items() if k in MATMUL_CONV_OPS)
    return {
        "forward_flops_profiler": total,
        "forward_flops_by_op": by_op,
        "forward_flops_matmul_conv": mm_conv,
        "forward_flops_analytic_matmul_conv": counter["flops"],
        "ops_with_zero_flops": zero_ops,
        "_attention_analytic": counter["attention"],
    }


def graph_savers(root):
    """storage data_ptr -> set of autograd node names that saved it."""
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
            except Exception:  # e.g. undefined saved tensor
                continue
            vals = val if isinstance(val, (tuple, list)) else (val,)
            for v in vals:
                if isinstance(v, torch.Tensor):
                    try:
                        ptr, _ = storage_of(v)
                    except Exception:
                        continue
                    savers[ptr].add(name)
        for nxt, _ in node.next_functions:
            stack.append(nxt)
    return savers


def measure_saved(model, inp, n_classes_dim_last=True):
    """Training forward (+ CE loss) under saved_tensors_hooks.  See docstring."""
    model.train()
    param_ptrs = {storage_of(p)[0] for p in model.parameters()}
    buffer_ptrs = {storage_of(b)[0] for b in model.buffers()}
    input_ptr = storage_of(inp)[0]
    records = {}  # ptr -> (nbytes, dtype)
    no_storage_bytes = [0]

    def pack(t):
        try:
            ptr, nbytes = storage_of(t)
        except Exception:  # tensor without storage (not expected on CPU fp32)
            no_storage_bytes[0] += t.numel() * t.element_size()
            return t
        if nbytes and ptr not in records:
            records[ptr] = (nbytes, str(t.dtype).replace("torch.", ""))
        return t

    def unpack(t):
        return t

    counter, handles = analytic_flop_hooks(model)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        train_flops, _, _, out = profile_flops(lambda: model(inp))
        fwd_records = dict(records)
        logits = out.reshape(-1, out.shape[-1])
        target = torch.randint(0, out.shape[-1], (logits.shape[0],))
        loss = F.cross_entropy(logits, target)
    for h in handles:
        h.remove()
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
    missing = [p for p in records if p not in savers]
    detail = {
        "unique_storages": len(fwd_records),
        "unique_storages_with_loss": len(records),
        "activation_bytes_by_dtype": fwd_dtype,
        "activation_bytes_by_saving_nodes": fwd_saver,
        "storages_not_found_by_graph_walk": len(missing),
        "logits_bytes": out.numel() * out.element_size(),
    }
    if no_storage_bytes[0]:
        detail["no_storage_bytes"] = no_storage_bytes[0]
    del loss, out, logits
    return {
        "activation": fwd["activation"],
        "activation_with_loss": full["activation"],
        "param": fwd["param"],
        "buffer": fwd["buffer"],
        "input": fwd["input"],
        "target": full["target"],
        "train_flops": train_flops,
        "detail": detail,
    }


# --------------------------------------------------------------------------
# per-model drivers
# --------------------------------------------------------------------------
def build(name):
    if name == "gpt2":
        return GPT2()
    return getattr(torchvision.models, name)(weights=None, num_classes=1000)


def image(batch):
    return torch.randn(batch, 3, 224, 224)


def tokens(seq, batch=1):
    return torch.randint(0, 50257, (batch, seq))


def run_model(name, log):
    torch.manual_seed(0)
    model = build(name)
    params, trainable, buffers = count_params(model)
    entry = {"params": params, "trainable_params": trainable, "buffers_numel": buffers}
    if name == "gpt2":
        assert params == GPT2_PARAMS, params
        configs = [("seq1024_batch1", 1024), ("seq128_batch1", 128)]
        entry["input"] = {"batch": 1, "seq_len": 1024, "dtype": "int64"}
        entry["config"] = {"vocab": 50257, "n_ctx": 1024, "d_model": 768, "n_layer": 12,
                           "n_head": 12, "dropout": 0.1, "tied_lm_head": True,
                           "gelu": "tanh approximation (F.gelu approximate='tanh')"}
        ff = {}
        for key, seq in configs:
            t0 = time.time()
            ff[key] = forward_flops(model, tokens(seq))
            log(f"  flops {key}: {ff[key]['forward_flops_profiler']:,} ({time.time() - t0:.1f}s)")
        main = ff["seq1024_batch1"]
        entry.update({k: v for k, v in main.items() if not k.startswith("_")})
        entry["forward_flops_profiler_seq128"] = ff["seq128_batch1"]["forward_flops_profiler"]
        entry["forward_flops_by_op_seq128"] = ff["seq128_batch1"]["forward_flops_by_op"]
        entry["forward_flops_analytic_matmul_conv_seq128"] = \
            ff["seq128_batch1"]["forward_flops_analytic_matmul_conv"]
        entry["attention_flops_analytic"] = {
            key: 2 * 2 * seq * seq * 768 * 12 for key, seq in configs}
        assert main["_attention_analytic"] == entry["attention_flops_analytic"]["seq1024_batch1"]
        saved_runs = [(key, tokens(seq), 0.1) for key, seq in configs]
        saved_runs += [(key + "_no_dropout", tokens(seq), 0.0) for key, seq in configs]
    else:
        entry["input"] = {"batch": 1, "resolution": 224}
        t0 = time.time()
        main = forward_flops(model, image(1))
        log(f"  flops: {main['forward_flops_profiler']:,} ({time.time() - t0:.1f}s)")
        entry.update({k: v for k, v in main.items() if not k.startswith("_")})
        if name == "vit_b_16":
            seq, hidden, layers = 197, 768, 12
            entry["attention_flops_analytic"] = 2 * 2 * seq * seq * hidden * layers
            assert main["_attention_analytic"] == entry["attention_flops_analytic"]
        batches = (1, 8) if name == "resnet50" else (1,)
        saved_runs = [(f"batch{b}", image(b), None) for b in batches]

    sab, sabl, detail = {}, {}, {}
    train_flops = {}
    for key, inp, pdrop in saved_runs:
        if pdrop is not None:
            for mod in model.modules():
                if isinstance(mod, nn.Dropout):
                    mod.p = pdrop
        t0 = time.time()
        r = measure_saved(model, inp)
        log(f"  saved {key}: act={r['activation']:,} param={r['param']:,} "
            f"input={r['input']:,} ({time.time() - t0:.1f}s)")
        sab[key], sabl[key], detail[key] = r["activation"], r["activation_with_loss"], r["detail"]
        train_flops[key] = r["train_flops"]
        first = key == saved_runs[0][0]
        if first:
            entry["saved_param_bytes"] = r["param"]
            entry["saved_buffer_bytes"] = r["buffer"]
            entry["saved_input_bytes"] = {}
            entry["saved_target_bytes"] = {}
        entry["saved_input_bytes"][key] = r["input"]
        entry["saved_target_bytes"][key] = r["target"]
        assert r["param"] == entry["saved_param_bytes"]
    for mod in model.modules():  # restore
        if isinstance(mod, nn.Dropout) and name == "gpt2":
            mod.p = 0.1
    entry["saved_activation_bytes"] = sab
    entry["saved_activation_bytes_with_ce_loss"] = sabl
    entry["forward_flops_profiler_train_mode"] = train_flops
    entry["saved_detail"] = detail
    entry["notes"] = notes_for(name, entry)
    return entry


def notes_for(name, e):
    common = (
        "FLOPs: eval() + no_grad forward, batch 1; profiler counts 2*MAC for "
        "conv2d/mm/addmm/bmm and 1/elem for add/mul, nothing else (no bias, "
        "BN, activation, pooling, softmax, layernorm FLOPs). "
        "Saved bytes: train() forward, fp32, CPU (mkldnn conv), unique storages; "
        "saved_activation_bytes EXCLUDES the input storage (saved_input_bytes), "
        "parameters (saved_param_bytes) and buffers (saved_buffer_bytes). ")
    if name in ("resnet18", "resnet50", "resnet101", "mobilenet_v2"):
        extra = (
            "Counted ops: aten::conv2d (+ addmm for fc, add for residuals). "
            "BatchNorm (training) saves its input (= conv output) plus "
            "save_mean/save_invstd and the running_mean/running_var buffers; "
            "the in-place ReLU/ReLU6 writes into the BN output, which is saved "
            "once by the activation (result) and by the next conv/pool. "
            "max_pool2d saves its input plus int64 indices (2x the fp32 output).")
        if name == "mobilenet_v2":
            extra += " Depthwise convs: the profiler's conv2d formula accounts for groups."
    elif name == "vgg16":
        extra = ("Counted ops: aten::conv2d, aten::addmm (classifier). No BN. "
                 "ReLU(inplace) saves its result, which is also the next "
                 "conv/pool input. Classifier dropout (p=0.5) saves a bool mask.")
    elif name == "vit_b_16":
        extra = (
            "torchvision ViT uses nn.MultiheadAttention. In eval()+no_grad it "
            "takes the fast path aten::_native_multi_head_attention (no flop "
            "formula itself) whose inner aten::mm (qkv projection, bias separate) "
            "and aten::bmm (q@k^T and attn@v) ARE counted; with autograd on "
            "(train) it goes through F.multi_head_attention_forward: addmm for the "
            "projections and bmm for attention. Either way attention_flops_analytic "
            "(2*2*197*197*768*12) is already included in forward_flops_profiler "
            "(aten::bmm) - do NOT add it again. Dropout p=0.0 saves nothing.")
    else:
        extra = (
            "Plain-torch GPT-2 small (HF layout), attention with explicit "
            "q@k^T / softmax / @v -> aten::bmm (counted, full TxT even though "
            "causal); lm_head tied to wte (counted once in params) is an "
            "aten::mm of 768x50257 per token. Embedding lookups, layernorm, "
            "gelu, softmax, where(mask) count 0; residual and wte+wpe adds count "
            "1/elem. Saved bytes measured without loss (logits not saved) and "
            "with a CE loss over all positions (log_softmax output saved, "
            "B*T*50257*4 bytes). Dropout p=0.1 saves a bool mask per dropout "
            "(embd, attn probs, attn resid, mlp resid); *_no_dropout keys set "
            "p=0. The causal mask is a bool buffer (counted in "
            "buffers_numel and saved_buffer_bytes). saved_input_bytes = the int64 "
            "token ids (saved by the embedding).")
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
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                              capture_output=True, text=True, timeout=10).stdout or None
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--out", default=os.path.join(root, "tests/reference/torch_reference.json"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", default=",".join(ALL_MODELS),
                    help="comma-separated subset of " + ",".join(ALL_MODELS))
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

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
        "models": {},
    }
    t_all = time.time()
    for name in args.models.split(","):
        log(f"{name}:")
        t0 = time.time()
        result["models"][name] = run_model(name, log)
        log(f"  done in {time.time() - t0:.1f}s")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    log(f"wrote {args.out} in {time.time() - t_all:.1f}s")


if __name__ == "__main__":
    main()
