#!/usr/bin/env python3
"""Megatron-LM's own FLOPs count for a training step, so that a run published only as the TFLOP/s
Megatron logs can be turned back into tokens/s: tokens/s per GPU = TFLOP/s per GPU x 1e12 /
(Megatron's FLOPs per token).

The count is `num_floating_point_operations` in megatron/training/training.py (its
`transformer_flops`), read at NVIDIA/Megatron-LM@eb0783b6d356 (2025-11-03) and
NVIDIA/Megatron-LM@f13818d69535 (2026-07-16), which agree for unpacked (BSHD) batches:
  - every GEMM three times (forward, weight and data gradients) at 2 FLOPs a multiply-add;
  - MLPs: hidden x ffn x 3 (SwiGLU) for dense layers, x top-k for routed experts, shared experts
    at their intermediate size, on every MoE layer;
  - attention: the projections, plus the core (QK^T and softmax.V) counted half for the causal
    mask; MLA (DeepSeek) counts its q/kv low-rank projections with the norm (the "+ 1") and the
    RoPE key projection;
  - logits: hidden x padded vocabulary, once per multi-token prediction module too, and the MTP
    modules' norms and eh projection; MTP layers add one layer of the last layer's kind;
  - recomputation is not counted (model FLOPs, not hardware FLOPs).
The padded vocabulary is Megatron's _vocab_size_with_padding: a multiple of
make_vocab_size_divisible_by (128 by default) x tensor-parallel size.

The model's shape comes from its gpuplan zoo file (data/models/<id>.json), whose fields are the
Hugging Face config's.
"""
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def zoo_model(model_id):
    """The transformer fields of a zoo model."""
    with open(os.path.join(ROOT, "data", "models", model_id + ".json")) as f:
        d = json.load(f)
    return d.get("transformer", d)


def padded_vocab(vocab, tp, divisible_by=128):
    multiple = divisible_by * tp
    return -(-vocab // multiple) * multiple


def attention_per_token(m, seq_len):
    """(token-linear, core) forward+backward FLOPs of one attention layer per token."""
    h, heads = m["hidden"], m["heads"]
    if m.get("kv_lora_rank"):  # MLA
        qk, rope, v = m["qk_nope_head_dim"], m["qk_rope_head_dim"], m["v_head_dim"]
        q_lora = m.get("q_lora_rank") or 0
        q_term = q_lora * (h + heads * (qk + rope) + 1) if q_lora else h * heads * (qk + rope)
        linear = (q_term + m["kv_lora_rank"] * (h + heads * (qk + v) + 1) + h * rope + heads * v * h)
        core = seq_len * (heads * (qk + rope) / 2 + heads * v / 2)
        return 6 * linear, 6 * core
    head_dim = m.get("head_dim") or h // heads
    q = head_dim * heads
    kv = head_dim * (m.get("kv_heads") or heads)
    linear = h * (q + 2 * kv) + q * h
    core = q * seq_len / 2 * 2  # causal half, QK^T and softmax.V
    return 6 * linear, 6 * core


def flops_per_token(m, seq_len, tp=1, mtp_layers=0):
    """Megatron's training FLOPs per token for zoo model fields `m` at `seq_len`."""
    layers, h = m["layers"], m["hidden"]
    gated = 3 if m.get("gated_mlp") else 2
    experts = m.get("experts") or 0
    first_dense = m.get("first_dense_layers") or 0
    moe_layers = layers - first_dense if experts else 0
    dense_layers = layers - moe_layers
    # MTP layers are of the last layer's kind (Megatron: last_layer_is_moe).
    if experts:
        moe_layers += mtp_layers
    else:
        dense_layers += mtp_layers
    moe_ffn = m.get("moe_ffn_hidden") or m["ffn_hidden"]
    shared_ffn = (m.get("shared_experts") or 0) * (m.get("shared_expert_ffn_hidden") or moe_ffn)
    mlp = 6 * h * (m["ffn_hidden"] * gated * dense_layers
                   + (moe_ffn * (m.get("experts_per_token") or 0) * gated + shared_ffn * gated) * moe_layers)
    linear, core = attention_per_token(m, seq_len)
    attention = (linear + core) * (layers + mtp_layers)
    mtp = 6 * mtp_layers * (3 * h + 2 * h * h)
    logits = 6 * h * padded_vocab(m["vocab"], tp) * (mtp_layers + 1)
    return mlp + attention + mtp + logits


def tokens_per_s_per_gpu(tflops_per_gpu, model_id, seq_len, tp=1, mtp_layers=0):
    """Tokens/s per GPU of a run Megatron logged at `tflops_per_gpu`."""
    return tflops_per_gpu * 1e12 / flops_per_token(zoo_model(model_id), seq_len, tp, mtp_layers)
