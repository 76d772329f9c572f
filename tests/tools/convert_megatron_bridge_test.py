#!/usr/bin/env python3
"""tools/convert_megatron_bridge.py: both table layouts are read (a 25.11 cell "FP8-CS (FP8-MX)" is
two runs); a row is set up from the recipe with its layout, evaluated from source (the recipe's
helpers followed, dataclass defaults, the GPU-dependent dispatcher fallback, what CommOverlapConfig
and MixedPrecisionConfig do at setup), with each system's nodes, NVLink domain and network; rows
without a matching recipe, outside the model zoo, or with settings gpuplan lacks are listed with the
reason; and, when a Megatron-Bridge clone is named by MEGATRON_BRIDGE_GIT, the committed
tests/validation/megatron_bridge.csv is what the converter writes from it."""
import filecmp
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import convert_megatron_bridge as conv  # noqa: E402

BRIDGE_GIT = os.environ.get("MEGATRON_BRIDGE_GIT", "")

# A miniature of the Bridge sources: the config dataclasses, two mixed-precision recipes, the
# comm-overlap config, a shared perf helper, and recipes for three systems.
PKG = "src/megatron/bridge/"
SOURCES = {
    PKG + "training/config.py": '''
from dataclasses import dataclass, field
from megatron.core.distributed import DistributedDataParallelConfig
from megatron.core.optimizer import OptimizerConfig

@dataclass
class TrainingConfig:
    global_batch_size: int = 32
    micro_batch_size: int = 2

@dataclass
class ConfigContainer:
    model: object = None
    train: TrainingConfig = field(default_factory=TrainingConfig)
    ddp: object = None
    optimizer: object = None
    comm_overlap: object = None
    mixed_precision: object = "bf16_mixed"
    env_vars: dict = field(default_factory=dict)
''',
    PKG + "training/mixed_precision.py": '''
from dataclasses import dataclass
import torch

@dataclass(kw_only=True)
class MixedPrecisionConfig:
    bf16: bool = False
    fp8: str = None
    fp8_recipe: str = "tensorwise"
    fp8_param: bool = None
    fp8_param_gather: bool = False
    fp4: str = None
    fp4_param_gather: bool = False
    first_last_layers_bf16: bool = False
    num_layers_at_start_in_bf16: int = 0
    num_layers_at_end_in_bf16: int = 0
    fp8_dot_product_attention: bool = False
    fp8_multi_head_attention: bool = False
    grad_reduce_in_fp32: bool = True

def bf16_mixed():
    return MixedPrecisionConfig(bf16=True, grad_reduce_in_fp32=True)

def bf16_with_mxfp8_mixed():
    cfg = bf16_mixed()
    cfg.fp8 = "e4m3"
    cfg.fp8_recipe = "mxfp8"
    cfg.fp8_param_gather = True
    return cfg

def bf16_with_fp8_current_scaling_mixed():
    cfg = bf16_mixed()
    cfg.fp8 = "hybrid"
    cfg.fp8_recipe = "tensorwise"
    cfg.first_last_layers_bf16 = True
    cfg.num_layers_at_start_in_bf16 = 1
    cfg.num_layers_at_end_in_bf16 = 1
    cfg.fp8_param_gather = True
    return cfg
''',
    PKG + "training/comm_overlap.py": '''
from dataclasses import dataclass

@dataclass(kw_only=True)
class CommOverlapConfig:
    tp_comm_overlap: bool
    overlap_grad_reduce: bool = None
    overlap_param_gather: bool = None
    overlap_moe_expert_parallel_comm: bool = None
''',
    PKG + "perf_recipes/_common.py": '''
from megatron.bridge.models.conversion.auto_bridge import AutoBridge
from megatron.bridge.training.config import ConfigContainer
from megatron.core.distributed import DistributedDataParallelConfig
from megatron.core.optimizer import OptimizerConfig
from megatron.bridge.training.mixed_precision import bf16_with_fp8_current_scaling_mixed, bf16_with_mxfp8_mixed

def _base(model_id):
    cfg = ConfigContainer(ddp=DistributedDataParallelConfig(use_distributed_optimizer=True),
                          optimizer=OptimizerConfig(optimizer="adam", clip_grad=1.0))
    cfg.model = AutoBridge.from_hf_pretrained(model_id).to_megatron_provider(load_weights=False)
    cfg.model.recompute_granularity = None
    cfg.model.mtp_num_layers = None
    cfg.model.cross_entropy_loss_fusion = True
    return cfg

def _perf_precision(name):
    cfg = bf16_with_mxfp8_mixed() if name == "fp8_mx" else bf16_with_fp8_current_scaling_mixed()
    if name == "fp8_cs":
        cfg.first_last_layers_bf16 = False
    return cfg

def _benchmark_common(cfg):
    cfg.mixed_precision.grad_reduce_in_fp32 = False
    if getattr(cfg.model, "cuda_graph_impl", None) == "none":
        cfg.model.cuda_graph_scope = []
''',
    PKG + "perf_recipes/qwen/gb300/qwen3_moe.py": '''
from megatron.bridge.perf_recipes._common import _base, _benchmark_common, _perf_precision
from megatron.bridge.training.comm_overlap import CommOverlapConfig

def _qwen3_30b(batch):
    cfg = _base("Qwen/Qwen3-30B-A3B")
    cfg.mixed_precision = _perf_precision("fp8_mx")
    cfg.model.tensor_model_parallel_size = 1
    cfg.model.pipeline_model_parallel_size = 1
    cfg.model.context_parallel_size = 1
    cfg.model.virtual_pipeline_model_parallel_size = None
    cfg.model.expert_model_parallel_size = 8
    cfg.model.sequence_parallel = False
    cfg.model.seq_length = 4096
    cfg.train.global_batch_size = batch
    cfg.train.micro_batch_size = 8
    cfg.model.moe_router_force_load_balancing = True
    cfg.model.moe_token_dispatcher_type = "flex"
    cfg.model.moe_flex_dispatcher_backend = "hybridep"
    cfg.model.recompute_granularity = "selective"
    cfg.model.recompute_modules = ["moe_act", "layernorm"]
    cfg.model.cuda_graph_impl = "transformer_engine"
    cfg.model.cuda_graph_scope = ["attn", "moe_router", "moe_preprocess"]
    cfg.comm_overlap = CommOverlapConfig(tp_comm_overlap=True, overlap_moe_expert_parallel_comm=True)
    _benchmark_common(cfg)
    cfg.env_vars = {"NVLINK_DOMAIN_SIZE": 8}
    return cfg

def qwen3_30b_a3b_pretrain_8gpu_gb300_fp8mx_config():
    return _qwen3_30b(512)

def qwen3_30b_a3b_pretrain_8gpu_gb300_fp8mx_large_scale_config():
    return _qwen3_30b(2048)

def qwen3_30b_a3b_pretrain_8gpu_gb300_fp8mx_dev_config():
    return _qwen3_30b(1024)

def qwen3_235b_a22b_pretrain_256gpu_gb300_fp8mx_config():
    cfg = _qwen3_30b(8192)
    cfg.model.pipeline_model_parallel_size = 4
    cfg.model.expert_model_parallel_size = 32
    cfg.train.micro_batch_size = 2
    cfg.mixed_precision.fp8_dot_product_attention = True
    return cfg
''',
    PKG + "perf_recipes/llama/h100/llama3.py": '''
from megatron.bridge.perf_recipes._common import _base, _benchmark_common, _perf_precision
from megatron.bridge.training.comm_overlap import CommOverlapConfig

def llama3_70b_pretrain_64gpu_h100_fp8cs_config():
    cfg = _base("meta-llama/Meta-Llama-3-70B")
    cfg.mixed_precision = _perf_precision("fp8_cs")
    cfg.model.tensor_model_parallel_size = 4
    cfg.model.pipeline_model_parallel_size = 8
    cfg.model.virtual_pipeline_model_parallel_size = 5
    cfg.model.sequence_parallel = True
    cfg.model.seq_length = 8192
    cfg.train.global_batch_size = 256
    cfg.train.micro_batch_size = 1
    cfg.model.cuda_graph_impl = "none"
    cfg.model.cuda_graph_scope = ["full_iteration"]
    cfg.comm_overlap = CommOverlapConfig(tp_comm_overlap=True)
    if cfg.model.num_layers > 40:  # unknown: the provider's
        cfg.model.recompute_granularity = None
    else:
        cfg.model.recompute_granularity = None
        cfg.model.apply_rope_fusion = True
    _benchmark_common(cfg)
    return cfg
''',
    PKG + "perf_recipes/deepseek/b200/deepseek_v3.py": '''
from megatron.bridge.perf_recipes._common import _base
from megatron.bridge.training.flex_dispatcher_backend import apply_flex_dispatcher_backend

def dispatcher_config():
    cfg = _base("deepseek-ai/DeepSeek-V3")
    apply_flex_dispatcher_backend(cfg.model, "deepep")
    return cfg
''',
}

SUMMARY = """## 26.08 NeMo Container

### Pre-Training Performance

#### Model: Qwen3_30B_a3B

| System | #-GPUs | Precision | GBS | MBS | Sequence Length | TP | PP | CP | VP | EP | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|--------|--------|-----------|-----|-----|-----------------|----|----|----|----|----|-----------------------|-------------------------|
| DGX-GB300 | 8 | MXFP8 | 512 | 8 | 4096 | 1 | 1 | 1 | n/a | 8 | 44544 | 1029 |
| DGX-GB300 | 8 | MXFP8 | 2048 | 8 | 4096 | 1 | 1 | 1 | n/a | 8 | 44000 | 1010 |
| DGX-GB300 | 8 | MXFP8 | 512 | 4 | 4096 | 1 | 1 | 1 | n/a | 8 | 40000 | 920 |

#### Model: Qwen3_235B_a22B

| System | #-GPUs | Precision | GBS | MBS | Sequence Length | TP | PP | CP | VP | EP | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|--------|--------|-----------|-----|-----|-----------------|----|----|----|----|----|-----------------------|-------------------------|
| DGX-GB300 | 256 | MXFP8 | 8192 | 2 | 4096 | 1 | 4 | 1 | n/a | 32 | 8816 | 1306 |

#### Model: DeepSeekV4 Flash

| System | #-GPUs | Precision | GBS | MBS | Sequence Length | TP | PP | CP | VP | EP | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|--------|--------|-----------|-----|-----|-----------------|----|----|----|----|----|-----------------------|-------------------------|
| DGX-GB300 | 128 | MXFP8 | 2048 | 1 | 4096 | 1 | 1 | 1 | n/a | 64 | 8224 | 748 |

### SFT Performance

#### Model: LLAMA3_70B

| System | #-GPUs | Precision | GBS | MBS | Sequence Length | TP | PP | CP | VP | EP | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|--------|--------|-----------|-----|-----|-----------------|----|----|----|----|----|-----------------------|-------------------------|
| DGX-H100 | 32 | FP8 | 32 | 1 | 4096 | 4 | 4 | 1 | 5 | n/a | 1638 | 710 |
"""

ARCHIVE = """## 25.11 NeMo Container

### Pre-Training Performance

#### System: DGX-H100

| Model | #-GPUs | Precision | GBS | MBS | Sequence Length | FSDP | TP | PP | CP | VP | EP | GA | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|-------|--------|-----------|-----|-----|-----------------|------|----|----|----|----|----|----|-----------------------|-------------------------|
| LLAMA3_70B | 64 | FP8-CS (FP8-MX) | 256 | 1 | 8192 | 0 | 4 | 8 | 1 | 5 | 1 | 64 | 1602 (1500) | 719 (700) |
| LLAMA3_70B | 64 | FP8-CS | 256 | 1 | 8192 | 64 | 4 | 8 | 1 | 5 | 1 | 64 | 1602 | 719 |

## 25.09 NeMo Container

### Pre-Training Performance

#### System: DGX-H100

| Model | #-GPUs | GBS | MBS | Sequence Length | FSDP | TP | PP | CP | VP | EP | GA | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|-------|--------|-----|-----|-----------------|------|----|----|----|----|----|----|-----------------------|-------------------------|
| LLAMA3_70B | 64 | 128 | 1 | 8192 | 0 | 4 | 8 | 1 | 5 | 1 | 64 | 1619 | 727 |
"""


def rows():
    c = conv.Converter(SOURCES)
    return c, (c.rows(SUMMARY, conv.SUMMARY) + c.rows(ARCHIVE, conv.ARCHIVE))


def find(all_rows, container, model, gbs=None, precision=None, fsdp=None):
    return next(r for r in all_rows if r["_container"] == container and r["Model"] == model
                and (gbs is None or r["GBS"] == gbs) and (precision is None or r["Precision"] == precision)
                and (fsdp is None or r.get("FSDP") == fsdp))


class Tables(unittest.TestCase):
    def test_both_layouts_and_parenthesised_runs(self):
        _c, all_rows = rows()
        self.assertEqual(len(all_rows), 10)  # 9 table rows, the 25.11 "(FP8-MX)" cell a second run
        mx = find(all_rows, "25.11", "LLAMA3_70B", precision="FP8-MX")
        self.assertEqual((mx["System"], mx["Tokens / sec / GPU"], mx["FSDP"], mx["_variant"]),
                         ("DGX-H100", "1500", "0", "parenthesised"))
        cs = find(all_rows, "25.11", "LLAMA3_70B", precision="FP8-CS", fsdp="0")
        self.assertEqual(cs["Tokens / sec / GPU"], "1602")
        self.assertEqual(find(all_rows, "26.08", "Qwen3_30B_a3B", gbs="512")["_heading"], ("Model", "Qwen3_30B_a3B"))

    def test_ids_take_a_suffix_when_two_rows_share_one(self):
        _c, all_rows = rows()
        qwen = [(r, conv.row_id(r, "qwen3-30b-a3b")) for r in all_rows if r["Model"] == "Qwen3_30B_a3B"]
        stem = "mb-2608-gb300-qwen3-30b-a3b-mxfp8-8"
        self.assertEqual(conv.unique_ids(qwen), [stem + "-1", stem + "-2", stem + "-3"])  # two share GBS 512
        self.assertEqual(conv.unique_ids(qwen[:2]), [stem + "-gbs512", stem + "-gbs2048"])
        llama = [(r, conv.row_id(r, "llama-3-70b")) for r in all_rows if r["_container"] == "25.11"]
        self.assertEqual(conv.unique_ids(llama[:2]), ["mb-2511-h100-llama-3-70b-fp8-64", "mb-2511-h100-llama-3-70b-mxfp8-64"])


class Converted(unittest.TestCase):
    def test_moe_row_is_set_up_as_its_recipe_runs(self):
        c, all_rows = rows()
        out, why = c.convert(find(all_rows, "26.08", "Qwen3_30B_a3B", gbs="512"))
        self.assertIsNone(why)
        expect = {"id": "mb-2608-gb300-qwen3-30b-a3b-mxfp8-8", "model": "qwen3-30b-a3b", "gpu": "gb300",
                  "num_gpus": 8, "precision": "mxfp8", "batch_size_per_gpu": 8, "seq_len_or_resolution": 4096,
                  "metric": "tokens_per_s_per_gpu", "value": "44544", "batch": 512, "dp": 8, "tp": 1, "pp": 1,
                  "ep": 8, "etp": 1, "zero": 1, "sp": "",
                  # the recipe's own settings
                  "checkpointing": "selective", "recompute_modules": "moe_act,layernorm",
                  "cuda_graph_modules": "attn,moe_router,moe_preprocess", "moe_dispatcher": "hybridep",
                  "moe_a2a_overlap": 1, "moe_imbalance": 1, "quantized_params": 1, "fused_loss": 1,
                  # CommOverlapConfig.setup: DP 8 overlaps both; TP 1 drops the TP overlap
                  "overlap_grad_reduce": 1, "overlap_param_gather": 1, "tp_comm_overlap": "",
                  # _benchmark_common's grad_reduce_in_fp32 False on the mixed-precision config
                  "grad_reduce": "bf16", "mtp_layers": 0, "framework": "megatron", "attention": "cudnn",
                  # trays of 4, the recipe's NVLINK_DOMAIN_SIZE, GB300's 3200 Gb/s per tray
                  "gpus_per_node": 4, "nvlink_domain_gpus": 8, "network_gbps_per_node": 3200,
                  "source": "Megatron-Bridge/performance-summary"}
        self.assertEqual({k: out[k] for k in expect}, expect)

    def test_a_named_variant_serves_when_the_canonical_recipe_differs(self):
        c, all_rows = rows()
        out, why = c.convert(find(all_rows, "26.08", "Qwen3_30B_a3B", gbs="2048"))
        self.assertIsNone(why)
        self.assertEqual((out["batch"], out["value"]), (2048, "44000"))

    def test_dense_row_on_h100_nodes(self):
        c, all_rows = rows()
        out, why = c.convert(find(all_rows, "25.11", "LLAMA3_70B", precision="FP8-CS", fsdp="0"))
        self.assertIsNone(why)
        expect = {"model": "llama-3-70b", "gpu": "h100-sxm5-80gb", "precision": "fp8", "tp": 4, "pp": 8, "vp": 5,
                  "dp": 2, "sp": 1, "tp_comm_overlap": 1, "zero": 1, "checkpointing": "none",
                  "cuda_graph_modules": "", "ep": "", "gpus_per_node": 8, "nvlink_domain_gpus": "",
                  "network_gbps_per_node": 3200, "quantized_params": 1}
        self.assertEqual({k: out[k] for k in expect}, expect)


class Listed(unittest.TestCase):
    def reason(self, row):
        c, _ = rows()
        out, why = c.convert(row)
        self.assertIsNone(out)
        return why

    def test_a_layout_no_recipe_has_is_listed_with_the_difference(self):
        _c, all_rows = rows()
        why = self.reason(next(r for r in all_rows if r["Model"] == "Qwen3_30B_a3B" and r["MBS"] == "4"))
        self.assertTrue(why.startswith("no recipe at 067f987df with this layout ("), why)
        self.assertIn("qwen3_30b_a3b_pretrain_8gpu_gb300_fp8mx_config: MBS 4 (recipe 8)", why)
        self.assertNotIn("_dev_config", why)  # development variants are not tried

    def test_settings_gpuplan_lacks_are_listed(self):
        # FP8 multi-head attention (the linear layers around attention too) has no gpuplan field.
        recipe = "perf_recipes/qwen/gb300/qwen3_moe.py"
        sources = dict(SOURCES)
        sources[PKG + recipe] = sources[PKG + recipe].replace(
            "cfg.mixed_precision.fp8_dot_product_attention = True",
            "cfg.mixed_precision.fp8_multi_head_attention = True")
        c = conv.Converter(sources)
        row = find(c.rows(SUMMARY, conv.SUMMARY), "26.08", "Qwen3_235B_a22B")
        out, why = c.convert(row)
        self.assertIsNone(out)
        self.assertIn("FP8 multi-head attention (fp8_multi_head_attention)", why)

    def test_fp8_attention_is_carried(self):
        c, all_rows = rows()
        out, why = c.convert(find(all_rows, "26.08", "Qwen3_235B_a22B"))
        self.assertIsNone(why)
        self.assertEqual(out["fp8_attention"], 1)

    def test_fsdp_column_must_match(self):
        _c, all_rows = rows()
        why = self.reason(find(all_rows, "25.11", "LLAMA3_70B", fsdp="64"))
        self.assertIn("FSDP True (recipe False)", why)

    def test_rows_outside_the_zoo_fine_tuning_and_without_precision(self):
        _c, all_rows = rows()
        self.assertEqual(self.reason(find(all_rows, "26.08", "DeepSeekV4 Flash")),
                         "DeepSeekV4 Flash is not in gpuplan's model zoo (data/models)")
        self.assertEqual(self.reason(find(all_rows, "26.08", "LLAMA3_70B")),
                         "a SFT (fine-tuning) table, not pre-training")
        self.assertEqual(self.reason(find(all_rows, "25.09", "LLAMA3_70B")),
                         "precision not stated (the 25.09 table has no precision column)")


class Reader(unittest.TestCase):
    def test_the_dispatcher_falls_back_where_deepep_does_not_run(self):
        # apply_flex_dispatcher_backend: DeepEP on B200, all-to-all on GB200 (its GPU check).
        for system, kind in (("b200", "flex"), ("gb200", "alltoall")):
            r = conv.Reader(SOURCES, system)
            cfg = r.call(r.function("megatron.bridge.perf_recipes.deepseek.b200.deepseek_v3", "dispatcher_config"), [], {})
            self.assertEqual(cfg.get("model").get("moe_token_dispatcher_type"), kind)

    def test_a_branch_on_an_unknown_keeps_what_both_agree_on(self):
        r = conv.Reader(SOURCES, "h100")
        cfg = r.call(r.function("megatron.bridge.perf_recipes.llama.h100.llama3", "llama3_70b_pretrain_64gpu_h100_fp8cs_config"),
                     [], {})
        model = cfg.get("model")
        self.assertIsNone(model.get("recompute_granularity"))       # both branches: None
        self.assertIs(model.get("apply_rope_fusion"), conv.UNK)      # one branch only
        self.assertEqual(model.get("cuda_graph_scope"), [])         # _benchmark_common cleared it
        mp = conv.mixed_precision(r, cfg)
        self.assertEqual((mp.get("fp8_recipe"), mp.get("first_last_layers_bf16"), mp.get("grad_reduce_in_fp32")),
                         ("tensorwise", False, False))


@unittest.skipUnless(BRIDGE_GIT and os.path.isdir(BRIDGE_GIT), "no Megatron-Bridge clone named by MEGATRON_BRIDGE_GIT")
class Committed(unittest.TestCase):
    def test_committed_csv_is_what_the_converter_writes(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "megatron_bridge.csv")
            conv.main(BRIDGE_GIT, out)
            self.assertTrue(filecmp.cmp(out, os.path.join(ROOT, "tests", "validation", "megatron_bridge.csv"),
                                        shallow=False))


if __name__ == "__main__":
    unittest.main()
