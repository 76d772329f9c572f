#!/usr/bin/env python3
"""Converts NVIDIA's published Megatron-Bridge training performance tables into the
`gpuplan validate` format, and lists every row it cannot express with the reason.

    tools/convert_megatron_bridge.py BRIDGE_GIT_DIR OUT.csv

BRIDGE_GIT_DIR is a clone (or bare mirror) of NVIDIA-NeMo/Megatron-Bridge holding commit 067f987df;
everything is read at that commit with `git show`:
  - docs/performance-summary.md (the 26.08 NeMo container) and docs/performance-summary-archive.md
    (26.06.01 back to 25.09). The 26.x tables group by "#### Model:" with a System column; 25.11
    and 25.09 group by "#### System:" with a Model column, FSDP and GA columns, and (25.09) no
    Precision column. A 25.11 cell "FP8-CS (FP8-MX)" / "37556 (36108)" is two runs, the
    parenthesised values being the second. Pre-training tables only (SFT and LoRA are listed).
  - the recipes that produced the rows: src/megatron/bridge/perf_recipes/<family>/<system>/<model>.py,
    <family>/common.py, _common.py, and the model recipes and training helpers they call.
The metric is tokens_per_s_per_gpu, the tables' "Tokens / sec / GPU" column (every pre-training
row states it). Columns: tools/convert_llm_scale.py's, plus grad_reduce, master_dtype,
recompute_num_layers and offload_activation_layers (setup keys `gpuplan validate` reads).

Which recipe ran a row. The performance launcher (scripts/performance/README.md, "Performance
recipe configs") resolves a flat recipe by model, task, GPU count, GPU type and precision,
<model>_pretrain_<N>gpu_<system>_<precision>_config, the suffix-less function being the canonical
one (named variants such as _large_scale are opt-in, _dev ones development work). The tables'
precisions are the suffixes: BF16 bf16, FP8 and FP8-CS fp8cs (Transformer Engine's per-tensor
current scaling), MXFP8 and FP8-MX fp8mx, NVFP4 nvfp4. A row is converted only when such a recipe
at 067f987df has the row's layout: TP, PP, CP, VP ("n/a": none), EP ("n/a": 1), MBS, GBS, sequence
length and, where the table has the column, FSDP (64: Megatron-FSDP, 0: not); the canonical recipe
is tried first, then the other non-_dev variants. Everything else is the recipe's: a row no recipe
matches is listed "no recipe at 067f987df with this layout" (no setting is filled in from the docs,
which state none beyond the footnote below).

Reading a recipe. The recipe functions are assignments to a ConfigContainer (cfg.model.X = ...,
cfg.comm_overlap = CommOverlapConfig(...)) and calls to helpers, so they are evaluated here
statement by statement without importing them (no torch, no Megatron-Core): calls into
src/megatron/bridge are followed; its dataclasses start from their field defaults; a model
provider built from a Hugging Face config (AutoBridge) and classes from outside the sources hold
only what the code sets, the rest being unknown; a branch on an unknown condition keeps what both
branches agree on. Helpers that ask the GPU are given their effect for the row's system:
apply_flex_dispatcher_backend (training/flex_dispatcher_backend.py: DeepEP on Hopper, B200 and
B300, else all-to-all; HybridEP on Hopper and Blackwell) and utils/cuda_graph.py's
set_cuda_graph_modules / clear_cuda_graph_modules / set_full_iteration_cuda_graph. Then what
ConfigContainer's setup does to the settings read:
  - MixedPrecisionConfig.setup copies its fields onto the model, DDP and optimizer configs
    (training/mixed_precision.py, update_config_with_precision_overrides): its grad_reduce_in_fp32
    and fp8/fp4_param_gather win; _benchmark_common (perf_recipes/_common.py) sets
    grad_reduce_in_fp32 False, so grad_reduce is bf16 unless a recipe sets it back.
  - CommOverlapConfig.setup (training/comm_overlap.py): tensor-parallel overlap only with TP >= 2
    and sequence parallelism; with the distributed optimizer, overlap_grad_reduce and
    overlap_param_gather are on when DP > 1 unless comm_overlap sets them; the expert all-to-all
    overlap is comm_overlap.overlap_moe_expert_parallel_comm (the model attribute moe_a2a_overlap
    some recipes set is read by nothing in Megatron-Core). Without a comm_overlap config the DDP
    config's values hold.
  - validate_flex_dispatcher_backend: a "flex" dispatcher without a backend runs all-to-all.
Megatron-Core (3rdparty/Megatron-LM at 2a75ac12c54b) supplies: the DDP and optimizer configs'
defaults (distributed_data_parallel_config.py: use_megatron_fsdp, use_distributed_optimizer and the
overlaps False, one distributed-optimizer instance; optimizer_config.py: adam, clip_grad 1.0, fp32
moments and masters, no precision-aware optimizer); a model's parallel sizes (model_parallel_config.py:
EP and CP 1, expert tensor parallelism None, which is TP); recompute_modules None under selective
recompute is ["core_attn"]; an empty per-layer cuda_graph_modules / cuda_graph_scope (or "full") with
the local or Transformer Engine implementation captures the whole layer (gpuplan "layer");
cuda_graph_impl "full_iteration", or "local" with "full_iteration", is one graph of the pass.

How the settings map (as tools/convert_llm_scale_moe.py maps Megatron's): precision mixed-bf16
(bf16 weights and activations, fp32 masters), fp8 (tensorwise scaling), mxfp8, nvfp4;
quantized_params 1 for fp8_param_gather / fp4_param_gather; optimizer adamw (Megatron's adam is
decoupled-weight-decay Adam), optimizer_state_dtype / master_dtype from the precision-aware
optimizer's exp_avg / main_params dtypes; zero 1 for the distributed optimizer, 3 for Megatron-FSDP
(optim_grads_params); moe_dispatcher alltoall / deepep / hybridep from moe_token_dispatcher_type and
moe_flex_dispatcher_backend; moe_a2a_overlap; moe_imbalance 1 for moe_router_force_load_balancing;
checkpointing and recompute_modules by Megatron's names (full recompute: full for uniform over 1
layer, block with recompute_num_layers); cuda_graph_modules by Megatron-Core's module names;
offload_modules for fine-grained activation offloading, offload_activation_layers for
cpu_offloading_num_layers (activations only); mtp_layers from mtp_num_layers (Nemotron 3's
mtp_use_repeated_layer runs one shared block that many times: the passes are right, the weights
one block's, which gpuplan counts per pass); sp, tp_comm_overlap, overlap_grad_reduce,
overlap_param_gather, grad_reduce; fused_loss from cross_entropy_loss_fusion; attention cudnn
(the backend auto or fused: Transformer Engine's cuDNN fused attention); framework megatron;
fp8_attention for fp8_dot_product_attention; bf16_first_layers / bf16_last_layers for a TE
recipe's first_last_layers_bf16; moe_rank_capacity for HybridEP's per-rank budget
(moe_expert_rank_capacity_factor), which also gives the fixed shapes CUDA graphs holding whole MoE
blocks (full_iteration) need. A recipe setting gpuplan has no field for lists the row: FP8
multi-head attention (fp8_multi_head_attention), a per-module quantisation recipe (quant_recipe),
Muon, HSDP (several distributed-optimizer instances), offloading other modules than expert_fc1 and
moe_act or layers' weights, token dropping (moe_expert_capacity_factor), and settings left to the
model provider that matter (recompute, MTP layers, dispatcher). Kernel and runtime choices gpuplan does not model are not read:
fusions (router, permute, rope, bias-activation, Transformer Engine's op fuser and fused grouped
MLP), HybridEP's SM counts, paged stash, the pipeline stage layout (gpuplan splits layers evenly),
delayed weight-gradient compute, parameter gather overlapped with the optimizer step, manual GC,
NCCL and allocator environment. Under forced balance the per-rank budget drops no token.

The tables' own facts used: the MoE footnote ("In MoE training benchmarks, we force-balance the
token distribution among experts and all benchmarks are token-dropless"), with which every matched
recipe agrees (moe_router_force_load_balancing, no capacity factor); 25.09's "tokendrop" rows are
listed (their capacity factor is not stated), 25.11's "w/o MTP" rows are listed when the recipe
trains MTP layers, and rows a footnote marks as a known performance regression are listed.

Hardware per system (gpus_per_node, nvlink_domain_gpus, network_gbps_per_node):
  - DGX-GB300 / DGX-GB200: compute trays of 4 GPUs in an NVL72 rack: gpus_per_node 4,
    nvlink_domain_gpus 72, or the recipe's NVLINK_DOMAIN_SIZE environment value where it says
    less; network per tray as tools/convert_llm_scale_moe.py cites it: 1600 Gb/s on GB200 (four
    ConnectX-7 per 4-GPU tray), 3200 Gb/s on GB300 (four ConnectX-8 per tray, NVIDIA GB300 NVL72
    enterprise reference architecture).
  - DGX-B200: 8 GPUs per node; "4 x OSFP ports for 8 x NVIDIA ConnectX-7 Single Port Cards ...
    InfiniBand (default): Up to 400Gbps" (NVIDIA DGX B200 User Guide, "Introduction to NVIDIA DGX
    B200 Systems", https://docs.nvidia.com/dgx/dgxb200-user-guide/introduction-to-dgxb200.html):
    3200 Gb/s per node.
  - DGX-H100: 8 GPUs per node; "Four OSFP ports serving eight single-port NVIDIA ConnectX-7 VPI ...
    up to 400 Gb/s InfiniBand/Ethernet" (NVIDIA DGX BasePOD reference architecture, "Core
    Components", https://docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-
    enterprise-ai/latest/core-components.html): 3200 Gb/s per node.
  - DGX-B300: 8 GPUs per node; no NVIDIA datasheet stating its compute-fabric bandwidth was found,
    so network_gbps_per_node stays empty and a B300 row over more than one node is listed.

ids: mb-<container without dots>-<system>-<model>-<precision: bf16, fp8, mxfp8, nvfp4>-<GPUs>, with
-gbs<N> (else -<k>) where two rows would share one. source: the key of the summary at 067f987df
(tools/validation_source.py: "Megatron-Bridge/performance-summary"); the archive holds the same
page's past releases, so all rows are one source for the error bands. The file's comment lines
cite each container's section.
"""
import ast
import re
import subprocess
import sys

import convert_llm_scale
from validation_csv import convert_rows, write_csv
from validation_source import source_key

REPO = "NVIDIA-NeMo/Megatron-Bridge"
COMMIT = "067f987df"
SUMMARY = "docs/performance-summary.md"
ARCHIVE = "docs/performance-summary-archive.md"

# tools/convert_llm_scale.py's columns, and the setup keys of `gpuplan validate` these recipes
# also need (the gradient reduction dtype, a bf16/fp16 master copy, block recompute, whole-layer
# activation offloading, HybridEP's per-rank budget, FP8 attention, bf16 first and last layers)
# before the source.
COLUMNS = (convert_llm_scale.COLUMNS[:-1]
           + ["grad_reduce", "master_dtype", "recompute_num_layers", "offload_activation_layers",
              "moe_rank_capacity", "fp8_attention", "bf16_first_layers", "bf16_last_layers"]
           + convert_llm_scale.COLUMNS[-1:])


# ---------------------------------------------------------------------------------------------
# The recipe reader: a small evaluator of the recipes' Python.
# ---------------------------------------------------------------------------------------------

class Unknown:
    """A value the code leaves to the run (a model provider's Hugging Face default, a condition
    on one)."""
    _one = None

    def __new__(cls):
        if cls._one is None:
            cls._one = super().__new__(cls)
        return cls._one

    def __repr__(self):
        return "?"

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self


UNK = Unknown()


class Raised(Exception):
    """The code raised on a path it certainly takes."""


class _Return(Exception):
    def __init__(self, value):
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Obj:
    """A config object: its class name and attributes. `open` objects (model providers, classes
    from outside the sources) answer UNK for attributes the code did not set."""

    def __init__(self, cls, attrs=None, open_=True):
        self.cls, self.attrs, self.open = cls, dict(attrs or {}), open_

    def get(self, name, default=UNK):
        if name in self.attrs:
            return self.attrs[name]
        return UNK if self.open else default

    def __repr__(self):
        return "%s(%s)" % (self.cls, ", ".join("%s=%r" % kv for kv in sorted(self.attrs.items())))


class External:
    """A name from outside the sources read (torch, megatron.core, ...)."""

    def __init__(self, path):
        self.path = path

    def __repr__(self):
        return self.path

    def __eq__(self, other):
        return isinstance(other, External) and other.path == self.path

    def __hash__(self):
        return hash(self.path)

    def __deepcopy__(self, memo):
        return self


class Function:
    def __init__(self, module, node):
        self.module, self.node = module, node

    def __deepcopy__(self, memo):
        return self


class Class:
    def __init__(self, module, node):
        self.module, self.node = module, node

    def __deepcopy__(self, memo):
        return self


class ModRef:
    def __init__(self, name):
        self.name = name

    def __deepcopy__(self, memo):
        return self


class Builtin:
    def __init__(self, name, fn):
        self.name, self.fn = name, fn

    def __deepcopy__(self, memo):
        return self


class Module:
    def __init__(self, name, tree, package):
        self.name, self.tree, self.package = name, tree, package
        self.names, self.values = {}, {}
        for st in tree.body:
            self._collect(st)

    def _collect(self, st):
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.names[st.name] = ("def", st)
        elif isinstance(st, ast.ClassDef):
            self.names[st.name] = ("class", st)
        elif isinstance(st, ast.ImportFrom):
            base = self.absolute(st.module, st.level)
            for a in st.names:
                self.names[a.asname or a.name] = ("from", base, a.name)
        elif isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    self.names[a.asname] = ("module", a.name)
                else:
                    self.names[a.name.split(".")[0]] = ("module", a.name.split(".")[0])
        elif isinstance(st, ast.Assign):
            for t in st.targets:
                if isinstance(t, ast.Name):
                    self.names[t.id] = ("expr", st.value)
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
            self.names[st.target.id] = ("expr", st.value)
        elif isinstance(st, ast.Try):
            for s in st.body:
                self._collect(s)
        elif isinstance(st, ast.If):
            for s in st.body:
                self._collect(s)

    def absolute(self, module, level):
        if not level:
            return module
        parts = self.name.split(".")
        keep = len(parts) - level + (1 if self.package else 0)
        return ".".join(parts[:keep] + ([module] if module else []))


# What a recipe's process reports of its GPU (torch.cuda.get_device_properties(0)).
DEVICES = {"gb300": (10, "NVIDIA GB300"), "gb200": (10, "NVIDIA GB200"), "b300": (10, "NVIDIA B300 SXM6 AC"),
           "b200": (10, "NVIDIA B200"), "h100": (9, "NVIDIA H100 80GB HBM3")}


class Reader:
    """Evaluates recipe functions from `sources` ({path: text}, or a callable path -> text or
    None) for one system's GPU."""

    def __init__(self, sources, system):
        self.sources = sources
        self.system = system
        self.modules = {}
        self.notes = []

    # -- sources -------------------------------------------------------------------------------
    def text(self, path):
        if callable(self.sources):
            return self.sources(path)
        return self.sources.get(path)

    def module(self, name):
        if name in self.modules:
            return self.modules[name]
        mod = None
        if name.startswith("megatron.bridge"):
            base = "src/" + name.replace(".", "/")
            for path, package in ((base + ".py", False), (base + "/__init__.py", True)):
                text = self.text(path)
                if text is not None:
                    mod = Module(name, ast.parse(text), package)
                    break
        self.modules[name] = mod
        return mod

    def resolve(self, module, name):
        """The value of a top-level name of `module`."""
        if name in module.values:
            return module.values[name]
        entry = module.names.get(name)
        if entry is None:
            value = BUILTINS.get(name, UNK)
        elif entry[0] == "def":
            value = Function(module, entry[1])
        elif entry[0] == "class":
            value = Class(module, entry[1])
        elif entry[0] == "from":
            value = self.imported(entry[1], entry[2])
        elif entry[0] == "module":
            value = ModRef(entry[1]) if self.module(entry[1]) else External(entry[1])
        else:
            module.values[name] = UNK  # guards recursion
            try:
                value = self.eval(entry[1], Frame(module, {}))
            except Raised:
                value = UNK
        module.values[name] = value
        return value

    def imported(self, base, name):
        special = SPECIAL.get(base + "." + name)
        if special:
            return Builtin(name, special)
        if base and base.startswith("megatron.bridge"):
            mod = self.module(base)
            if mod is not None and name in mod.names:
                return self.resolve(mod, name)
            if self.module(base + "." + name) is not None:
                return ModRef(base + "." + name)
        return External("%s.%s" % (base, name))

    def function(self, module_name, name):
        mod = self.module(module_name)
        return self.resolve(mod, name) if mod is not None and name in mod.names else None

    # -- calls ---------------------------------------------------------------------------------
    def call(self, fn, args, kwargs):
        if isinstance(fn, Builtin):
            return fn.fn(self, *args, **kwargs)
        if isinstance(fn, Function):
            return self.run_function(fn, args, kwargs)
        if isinstance(fn, Class):
            return self.instantiate(fn, args, kwargs)
        if isinstance(fn, External):
            if fn.path in SPECIAL:
                return SPECIAL[fn.path](self, *args, **kwargs)
            last = fn.path.rsplit(".", 1)[-1]
            if last[:1].isupper():  # a class from outside: what the call sets
                return Obj(last, kwargs)
            return Obj("?")  # a function from outside: an object nothing is known of
        if isinstance(fn, _Method):
            return fn.call(args, kwargs)
        if callable(fn) and not isinstance(fn, (Obj, Unknown)):
            try:
                return fn(*args, **kwargs)
            except Exception:
                return UNK
        return Obj("?")

    def run_function(self, fn, args, kwargs):
        node = fn.node
        frame = Frame(fn.module, {})
        a = node.args
        params = a.posonlyargs + a.args
        defaults = [None] * (len(params) - len(a.defaults)) + list(a.defaults)
        for i, p in enumerate(params):
            if i < len(args):
                frame.vars[p.arg] = args[i]
            elif p.arg in kwargs:
                frame.vars[p.arg] = kwargs.pop(p.arg)
            elif defaults[i] is not None:
                frame.vars[p.arg] = self.eval(defaults[i], Frame(fn.module, {}))
            else:
                frame.vars[p.arg] = UNK
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kwargs:
                frame.vars[p.arg] = kwargs.pop(p.arg)
            else:
                frame.vars[p.arg] = self.eval(d, Frame(fn.module, {})) if d is not None else UNK
        if a.vararg:
            frame.vars[a.vararg.arg] = list(args[len(params):])
        if a.kwarg:
            frame.vars[a.kwarg.arg] = dict(kwargs)
        try:
            self.block(node.body, frame)
        except _Return as r:
            return r.value
        return None

    def instantiate(self, cls, args, kwargs):
        fields, known = self.defaults(cls)
        obj = Obj(cls.node.name, fields, open_=not known)
        for name, value in kwargs.items():
            self.setattr(obj, name, value)
        return obj

    def defaults(self, cls):
        """A dataclass's field defaults (its bases' first), and whether every base was read."""
        out, known = {}, True
        for base in cls.node.bases:
            b = self.eval(base, Frame(cls.module, {}))
            if isinstance(b, Class):
                fields, base_known = self.defaults(b)
                out.update(fields)
                known = known and base_known
            elif not (isinstance(base, ast.Name) and base.id in ("object", "ABC", "Generic")):
                known = False
        frame = Frame(cls.module, {})
        for st in cls.node.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                if st.value is None:
                    out[st.target.id] = UNK
                    continue
                v = st.value
                if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "field":
                    kw = {k.arg: k.value for k in v.keywords}
                    if "default" in kw:
                        out[st.target.id] = self.eval(kw["default"], frame)
                    elif "default_factory" in kw:
                        factory = self.eval(kw["default_factory"], frame)
                        out[st.target.id] = self.call(factory, [], {})
                    else:
                        out[st.target.id] = UNK
                else:
                    out[st.target.id] = self.eval(v, frame)
        return out, known

    def setattr(self, obj, name, value, log=True):
        if not isinstance(obj, Obj):
            return
        if log and self.log is not None:
            self.log.append((obj.attrs, name, obj.attrs.get(name, _ABSENT)))
        obj.attrs[name] = value
        # MixedPrecisionConfig.__setattr__ keeps fp8_param / fp8_param_gather (and fp4) in step.
        if obj.cls == "MixedPrecisionConfig":
            twin = {"fp8_param_gather": "fp8_param", "fp8_param": "fp8_param_gather",
                    "fp4_param_gather": "fp4_param", "fp4_param": "fp4_param_gather"}.get(name)
            if twin and twin in obj.attrs and obj.attrs[twin] is not None and value is not None:
                if log and self.log is not None:
                    self.log.append((obj.attrs, twin, obj.attrs.get(twin, _ABSENT)))
                obj.attrs[twin] = value

    log = None

    # -- statements ----------------------------------------------------------------------------
    def block(self, body, frame):
        for st in body:
            self.stmt(st, frame)

    def stmt(self, st, frame):
        if isinstance(st, ast.Expr):
            if not isinstance(st.value, ast.Constant):
                self.eval(st.value, frame)
        elif isinstance(st, ast.Assign):
            value = self.eval(st.value, frame)
            for t in st.targets:
                self.assign(t, value, frame)
        elif isinstance(st, ast.AnnAssign):
            if st.value is not None:
                self.assign(st.target, self.eval(st.value, frame), frame)
        elif isinstance(st, ast.AugAssign):
            cur = self.eval(st.target, frame)
            self.assign(st.target, self.binop(st.op, cur, self.eval(st.value, frame)), frame)
        elif isinstance(st, ast.Return):
            raise _Return(self.eval(st.value, frame) if st.value is not None else None)
        elif isinstance(st, ast.If):
            self.branch(self.truth(self.eval(st.test, frame)), st.body, st.orelse, frame)
        elif isinstance(st, ast.For):
            items = self.eval(st.iter, frame)
            if isinstance(items, (list, tuple, dict, str, range, set)):
                for item in list(items):
                    self.assign(st.target, item, frame)
                    try:
                        self.block(st.body, frame)
                    except _Break:
                        break
                    except _Continue:
                        continue
            else:
                self.notes.append("loop over an unknown sequence skipped")
        elif isinstance(st, ast.Raise):
            raise Raised(ast.unparse(st)[:120])
        elif isinstance(st, ast.Try):
            try:
                self.block(st.body, frame)
            except Raised:
                if st.handlers:
                    self.block(st.handlers[0].body, frame)
            self.block(st.finalbody, frame)
        elif isinstance(st, ast.With):
            self.block(st.body, frame)
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            tmp = Module(frame.module.name, ast.Module(body=[st], type_ignores=[]), frame.module.package)
            for name in tmp.names:
                frame.vars[name] = self.resolve(tmp, name)
        elif isinstance(st, ast.FunctionDef):
            frame.vars[st.name] = Function(frame.module, st)
        elif isinstance(st, ast.Break):
            raise _Break()
        elif isinstance(st, ast.Continue):
            raise _Continue()
        # Assert, Pass, Global, Delete, ...: no effect on the settings

    def branch(self, cond, body, orelse, frame):
        if cond is True:
            self.block(body, frame)
        elif cond is False:
            self.block(orelse, frame)
        else:
            self.join(body, orelse, frame)

    def join(self, body, orelse, frame):
        """Both branches of an unknown condition: what they agree on stays, the rest is UNK.
        A branch that raises is the one not taken."""
        outcomes = []
        for part in (body, orelse):
            saved, self.log = self.log, []
            vars_before = dict(frame.vars)
            raised, returned = False, None
            try:
                self.block(part, frame)
            except Raised:
                raised = True
            except _Return as r:
                returned = r
            writes = {}
            for attrs, name, _old in self.log:
                writes[(id(attrs), name)] = (attrs, name)
            after = {k: (a, n, a.get(n, _ABSENT)) for k, (a, n) in writes.items()}
            for attrs, name, old in reversed(self.log):
                if old is _ABSENT:
                    attrs.pop(name, None)
                else:
                    attrs[name] = old
            vars_after = dict(frame.vars)
            frame.vars.clear()
            frame.vars.update(vars_before)
            self.log = saved
            outcomes.append((raised, returned, after, vars_after))
        live = [o for o in outcomes if not o[0]]
        if not live:
            raise Raised("both branches raise")
        if len(live) == 1:
            _r, returned, after, vars_after = live[0]
            for attrs, name, value in after.values():
                self._put(attrs, name, value)
            frame.vars.clear()
            frame.vars.update(vars_after)
            if returned is not None:
                raise returned
            return
        (_a, ret_a, after_a, vars_a), (_b, ret_b, after_b, vars_b) = live
        for key in set(after_a) | set(after_b):
            attrs, name = (after_a.get(key) or after_b.get(key))[:2]
            va = after_a[key][2] if key in after_a else attrs.get(name, _ABSENT)
            vb = after_b[key][2] if key in after_b else attrs.get(name, _ABSENT)
            self._put(attrs, name, va if same(va, vb) else UNK)
        for name in set(vars_a) | set(vars_b):
            va, vb = vars_a.get(name, _ABSENT), vars_b.get(name, _ABSENT)
            frame.vars[name] = va if same(va, vb) else UNK
        if ret_a is not None or ret_b is not None:
            if ret_a is not None and ret_b is not None and same(ret_a.value, ret_b.value):
                raise ret_a
            raise _Return(UNK)

    def _put(self, attrs, name, value):
        if self.log is not None:
            self.log.append((attrs, name, attrs.get(name, _ABSENT)))
        if value is _ABSENT:
            attrs.pop(name, None)
        else:
            attrs[name] = value

    def assign(self, target, value, frame):
        if isinstance(target, ast.Name):
            frame.vars[target.id] = value
        elif isinstance(target, ast.Attribute):
            obj = self.eval(target.value, frame)
            self.setattr(obj, target.attr, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (list, tuple)) and len(value) == len(target.elts):
                for t, v in zip(target.elts, value):
                    self.assign(t, v, frame)
            else:
                for t in target.elts:
                    self.assign(t, UNK, frame)
        elif isinstance(target, ast.Subscript):
            obj = self.eval(target.value, frame)
            key = self.eval(target.slice, frame)
            if isinstance(obj, (dict, list)) and not isinstance(key, Unknown):
                try:
                    obj[key] = value
                except Exception:
                    pass

    # -- expressions ---------------------------------------------------------------------------
    def truth(self, v):
        if isinstance(v, (Unknown, Obj)) and (not isinstance(v, Obj) or v.cls == "?"):
            return UNK
        if isinstance(v, (Obj, External, Function, Class, ModRef, Builtin)):
            return True
        try:
            return bool(v)
        except Exception:
            return UNK

    def eval(self, node, frame):
        m = getattr(self, "e_" + type(node).__name__, None)
        if m is None:
            return UNK
        return m(node, frame)

    def e_Constant(self, n, f):
        return n.value

    def e_Name(self, n, f):
        if n.id in f.vars:
            return f.vars[n.id]
        if n.id in f.module.names:
            return self.resolve(f.module, n.id)
        return BUILTINS.get(n.id, UNK)

    def e_Attribute(self, n, f):
        base = self.eval(n.value, f)
        return self.attr(base, n.attr)

    def attr(self, base, name):
        if isinstance(base, Obj):
            if name in base.attrs:
                return base.attrs[name]
            return _Method(self, base, name) if not base.open else UNK
        if isinstance(base, External):
            return External(base.path + "." + name)
        if isinstance(base, ModRef):
            mod = self.module(base.name)
            if name in mod.names:
                return self.resolve(mod, name)
            if self.module(base.name + "." + name):
                return ModRef(base.name + "." + name)
            return UNK
        if isinstance(base, (list, dict, str)):
            return getattr(base, name, UNK)
        return UNK

    def e_Call(self, n, f):
        fn = self.eval(n.func, f)
        args = []
        for a in n.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, f)
                args += list(v) if isinstance(v, (list, tuple)) else []
            else:
                args.append(self.eval(a, f))
        kwargs = {}
        for k in n.keywords:
            v = self.eval(k.value, f)
            if k.arg is None:
                if isinstance(v, dict):
                    kwargs.update(v)
            else:
                kwargs[k.arg] = v
        return self.call(fn, args, kwargs)

    def e_List(self, n, f):
        out = []
        for e in n.elts:
            if isinstance(e, ast.Starred):
                v = self.eval(e.value, f)
                out += list(v) if isinstance(v, (list, tuple)) else [UNK]
            else:
                out.append(self.eval(e, f))
        return out

    def e_Tuple(self, n, f):
        return tuple(self.e_List(n, f))

    def e_Set(self, n, f):
        try:
            return set(self.e_List(n, f))
        except TypeError:
            return UNK

    def e_Dict(self, n, f):
        out = {}
        for k, v in zip(n.keys, n.values):
            if k is None:
                d = self.eval(v, f)
                if isinstance(d, dict):
                    out.update(d)
            else:
                key = self.eval(k, f)
                try:
                    out[key] = self.eval(v, f)
                except TypeError:
                    pass
        return out

    def e_JoinedStr(self, n, f):
        return UNK

    def e_Subscript(self, n, f):
        base = self.eval(n.value, f)
        key = self.eval(n.slice, f)
        if isinstance(base, External):
            return External("%s[%r]" % (base.path, key))
        if isinstance(base, (list, tuple, dict, str)) and not isinstance(key, Unknown):
            try:
                return base[key]
            except Exception:
                return UNK
        return UNK

    def e_Slice(self, n, f):
        parts = [self.eval(p, f) if p is not None else None for p in (n.lower, n.upper, n.step)]
        return slice(*parts) if not any(isinstance(p, Unknown) for p in parts) else UNK

    def e_UnaryOp(self, n, f):
        v = self.eval(n.operand, f)
        if isinstance(n.op, ast.Not):
            t = self.truth(v)
            return UNK if t is UNK else not t
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(n.op, ast.USub) else v
        return UNK

    def e_BoolOp(self, n, f):
        is_and = isinstance(n.op, ast.And)
        result = None
        for e in n.values:
            v = self.eval(e, f)
            t = self.truth(v)
            if t is UNK:
                result = UNK
                continue
            if is_and and not t:
                return v if result is None else (False if result is UNK else v)
            if not is_and and t:
                return v if result is None else (UNK if result is UNK else v)
            if result is None:
                result = v
            elif result is not UNK:
                result = v
        return result

    def e_BinOp(self, n, f):
        return self.binop(n.op, self.eval(n.left, f), self.eval(n.right, f))

    def binop(self, op, a, b):
        if any(isinstance(x, (Unknown, Obj, External)) for x in (a, b)):
            return UNK
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
               ast.Div: lambda: a / b, ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b,
               ast.BitOr: lambda: a | b, ast.Pow: lambda: a ** b}
        try:
            return ops[type(op)]()
        except Exception:
            return UNK

    def e_Compare(self, n, f):
        left = self.eval(n.left, f)
        for op, right_node in zip(n.ops, n.comparators):
            right = self.eval(right_node, f)
            r = compare(op, left, right)
            if r is not True:
                return r
            left = right
        return True

    def e_IfExp(self, n, f):
        t = self.truth(self.eval(n.test, f))
        if t is UNK:
            a, b = self.eval(n.body, f), self.eval(n.orelse, f)
            return a if same(a, b) else UNK
        return self.eval(n.body if t else n.orelse, f)

    def e_ListComp(self, n, f):
        if len(n.generators) != 1:
            return UNK
        g = n.generators[0]
        items = self.eval(g.iter, f)
        if not isinstance(items, (list, tuple, dict, set, str, range)):
            return UNK
        out = []
        inner = Frame(f.module, dict(f.vars))
        for item in list(items):
            self.assign(g.target, item, inner)
            if all(self.truth(self.eval(c, inner)) is True for c in g.ifs):
                out.append(self.eval(n.elt, inner))
        return out

    e_GeneratorExp = e_ListComp

    def e_Lambda(self, n, f):
        return UNK


class Frame:
    def __init__(self, module, vars_):
        self.module, self.vars = module, vars_


class _Method:
    """A method of a closed dataclass object (nothing it does is read)."""

    def __init__(self, reader, obj, name):
        self.reader, self.obj, self.name = reader, obj, name

    def call(self, args, kwargs):
        return Obj("?")


_ABSENT = object()


def same(a, b):
    if a is b:
        return True
    if any(isinstance(x, (Obj, Unknown)) for x in (a, b)):
        return False
    try:
        return type(a) == type(b) and a == b
    except Exception:
        return False


def compare(op, a, b):
    if isinstance(op, (ast.Is, ast.IsNot)):
        if a is UNK or b is UNK:
            return UNK
        r = (a is b) or (a is None and b is None)
        if isinstance(a, Obj) and a.cls == "?" and b is None:
            return UNK
        return r if isinstance(op, ast.Is) else not r
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNK
    if isinstance(op, (ast.In, ast.NotIn)):
        if isinstance(b, Obj) or (isinstance(b, (list, tuple, set)) and any(isinstance(x, Unknown) for x in b)):
            return UNK
        try:
            r = a in b
        except Exception:
            return UNK
        return r if isinstance(op, ast.In) else not r
    if isinstance(a, Obj) or isinstance(b, Obj):
        if isinstance(op, ast.Eq) and (a is None or b is None):
            return UNK if (isinstance(a, Obj) and a.cls == "?") or (isinstance(b, Obj) and b.cls == "?") else False
        return UNK
    try:
        return {ast.Eq: lambda: a == b, ast.NotEq: lambda: a != b, ast.Lt: lambda: a < b,
                ast.LtE: lambda: a <= b, ast.Gt: lambda: a > b, ast.GtE: lambda: a >= b}[type(op)]()
    except Exception:
        return UNK


def _getattr(reader, obj, name, default=_ABSENT):
    if isinstance(obj, Obj):
        if name in obj.attrs:
            return obj.attrs[name]
        if obj.open:
            return UNK
        return None if default is _ABSENT else default
    if isinstance(obj, (External, ModRef)):
        return reader.attr(obj, name)
    if obj is None:
        return None if default is _ABSENT else default
    return getattr(obj, name, UNK if default is _ABSENT else default)


def _hasattr(reader, obj, name):
    if isinstance(obj, Obj):
        return True if name in obj.attrs else (UNK if obj.open else False)
    if isinstance(obj, External):
        return UNK
    return hasattr(obj, name)


def _setattr(reader, obj, name, value):
    reader.setattr(obj, name, value)


def _isinstance(reader, obj, classes):
    classes = classes if isinstance(classes, tuple) else (classes,)
    if all(isinstance(c, type) for c in classes):
        if isinstance(obj, (Obj, Unknown, External)):
            return False if isinstance(obj, Obj) and obj.cls != "?" else UNK
        return isinstance(obj, classes)
    if isinstance(obj, Obj):
        names = [c.node.name if isinstance(c, Class) else c.path.rsplit(".", 1)[-1] if isinstance(c, External)
                 else None for c in classes]
        if obj.cls in names:
            return True
        return UNK
    return UNK


def _plain(fn):
    def call(reader, *args, **kwargs):
        if any(isinstance(a, (Unknown, Obj, External)) for a in args):
            return UNK
        try:
            return fn(*args, **kwargs)
        except Exception:
            return UNK
    return call


def _noop(reader, *args, **kwargs):
    return None


BUILTINS = {
    "None": None, "True": True, "False": False,
    "getattr": Builtin("getattr", _getattr), "hasattr": Builtin("hasattr", _hasattr),
    "setattr": Builtin("setattr", _setattr), "isinstance": Builtin("isinstance", _isinstance),
    "print": Builtin("print", _noop),
    "str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict, "tuple": tuple,
    "set": set, "len": Builtin("len", _plain(len)), "max": Builtin("max", _plain(max)),
    "min": Builtin("min", _plain(min)), "range": Builtin("range", _plain(range)),
    "sorted": Builtin("sorted", _plain(sorted)), "any": Builtin("any", _plain(any)),
    "all": Builtin("all", _plain(all)), "enumerate": Builtin("enumerate", _plain(lambda x: list(enumerate(x)))),
    "zip": Builtin("zip", _plain(lambda *x: list(zip(*x)))), "divmod": Builtin("divmod", _plain(divmod)),
    "abs": Builtin("abs", _plain(abs)), "sum": Builtin("sum", _plain(sum)), "round": Builtin("round", _plain(round)),
    "ValueError": External("ValueError"), "TypeError": External("TypeError"),
    "NotImplementedError": External("NotImplementedError"), "RuntimeError": External("RuntimeError"),
}


def _apply_flex_dispatcher_backend(reader, model, backend=None):
    """training/flex_dispatcher_backend.py apply_flex_dispatcher_backend on the system's GPU:
    DeepEP on Ampere, Hopper, B200 and B300; HybridEP on Ampere, Hopper and Blackwell; else
    the dispatcher falls back to all-to-all (backend cleared)."""
    major, name = DEVICES[reader.system]
    if isinstance(backend, Unknown):
        for key in ("moe_token_dispatcher_type", "moe_flex_dispatcher_backend", "moe_shared_expert_overlap"):
            reader.setattr(model, key, UNK)
        return None
    if backend == "deepep":
        ok = major in (8, 9) or name.startswith(("NVIDIA B200", "NVIDIA B300"))
    elif backend == "hybridep":
        ok = major in (8, 9, 10)
    else:
        return None
    if ok:
        reader.setattr(model, "moe_token_dispatcher_type", "flex")
        reader.setattr(model, "moe_flex_dispatcher_backend", backend)
        reader.setattr(model, "moe_shared_expert_overlap", False)
    else:
        reader.setattr(model, "moe_token_dispatcher_type", "alltoall")
        reader.setattr(model, "moe_flex_dispatcher_backend", None)
    return None


def _graph_names(modules):
    if modules is None:
        return []
    if isinstance(modules, str):
        return [] if modules in ("", "full") else modules.split(",")
    if isinstance(modules, (list, tuple)):
        return [m.path.rsplit(".", 1)[-1].strip("'[]") if isinstance(m, External) else m for m in modules]
    return [modules]


def _set_cuda_graph_modules(reader, config, modules):
    reader.setattr(config, "cuda_graph_modules", _graph_names(modules))
    reader.setattr(config, "cuda_graph_scope", None)


def _clear_cuda_graph_modules(reader, config):
    _set_cuda_graph_modules(reader, config, [])


def _set_full_iteration_cuda_graph(reader, config):
    reader.setattr(config, "cuda_graph_impl", "full_iteration")
    reader.setattr(config, "cuda_graph_modules", [])
    reader.setattr(config, "cuda_graph_scope", None)


def _device_properties(reader, index=0):
    major, name = DEVICES[reader.system]
    return Obj("DeviceProperties", {"major": major, "name": name}, open_=False)


SPECIAL = {
    "megatron.bridge.training.flex_dispatcher_backend.apply_flex_dispatcher_backend": _apply_flex_dispatcher_backend,
    "megatron.bridge.utils.cuda_graph.set_cuda_graph_modules": _set_cuda_graph_modules,
    "megatron.bridge.utils.cuda_graph.clear_cuda_graph_modules": _clear_cuda_graph_modules,
    "megatron.bridge.utils.cuda_graph.set_full_iteration_cuda_graph": _set_full_iteration_cuda_graph,
    "megatron.bridge.utils.common_utils.get_rank_safe": lambda reader, *a, **k: 0,
    "megatron.bridge.utils.common_utils.print_rank_0": _noop,
    "torch.cuda.is_available": lambda reader, *a, **k: True,
    "torch.cuda.get_device_properties": _device_properties,
    "megatron.core.utils.is_te_min_version": lambda reader, *a, **k: True,
    "megatron.core.utils.is_torch_min_version": lambda reader, *a, **k: True,
    "logging.getLogger": lambda reader, *a, **k: Obj("Logger"),
    "warnings.warn": _noop,
}


class GitSources:
    """The files of a git repository at one commit, read with `git show` as they are asked for."""

    def __init__(self, git_dir, commit=COMMIT):
        self.git_dir, self.commit, self.cache = git_dir, commit, {}
        names = subprocess.run(["git", "-C", git_dir, "ls-tree", "-r", "--name-only", commit, "src/megatron/bridge"],
                               check=True, capture_output=True, text=True).stdout.split()
        self.paths = set(names)

    def __call__(self, path):
        if path not in self.cache:
            if path not in self.paths and not path.startswith("docs/"):
                self.cache[path] = None
            else:
                r = subprocess.run(["git", "-C", self.git_dir, "show", "%s:%s" % (self.commit, path)],
                                   capture_output=True, text=True)
                self.cache[path] = r.stdout if r.returncode == 0 else None
        return self.cache[path]


# ---------------------------------------------------------------------------------------------
# The tables.
# ---------------------------------------------------------------------------------------------

SYSTEMS = {"DGX-GB300": "gb300", "DGX-GB200": "gb200", "DGX-B300": "b300", "DGX-B200": "b200", "DGX-H100": "h100"}

# The tables' model names: gpuplan's zoo id (None: not in data/models) and the recipes' name.
MODELS = {
    "DeepSeekV3": ("deepseek-v3", "deepseek_v3"),
    "DeepSeekV4 Flash": (None, "deepseek_v4_flash"),
    "GPT OSS 120B": ("gpt-oss-120b", "gpt_oss_120b"),
    "Qwen3_30B_a3B": ("qwen3-30b-a3b", "qwen3_30b_a3b"),
    "Qwen3_235B_a22B": ("qwen3-235b-a22b", "qwen3_235b_a22b"),
    "Nemotron_3_Nano": ("nemotron-3-nano-30b-a3b", "nemotron_3_nano"),
    "Nemotron_3_5_Lightning": ("nemotron-3.5-lightning-30b-a3b", "nemotron_3_5_lightning"),
    "Nemotron_3_Super": ("nemotron-3-super-120b-a12b", "nemotron_3_super"),
    "Nemotron_3_Ultra": ("nemotron-3-ultra-550b-a55b", "nemotron_3_ultra"),
    "LLAMA3_8B": ("llama-3-8b", "llama3_8b"),
    "LLAMA3_70B": ("llama-3-70b", "llama3_70b"),
    "LLAMA3.1_405B": ("llama-3-405b", "llama31_405b"),
    "Kimi_K2": ("kimi-k2", "kimi_k2"),
}

# The tables' precisions: gpuplan's, and the recipes' suffix.
PRECISIONS = {"BF16": ("mixed-bf16", "bf16"), "FP8": ("fp8", "fp8cs"), "FP8-CS": ("fp8", "fp8cs"),
              "MXFP8": ("mxfp8", "fp8mx"), "FP8-MX": ("mxfp8", "fp8mx"), "NVFP4": ("nvfp4", "nvfp4")}

# Recipe modules per family, for each model name the recipes use.
FAMILY = {"deepseek_v3": ("deepseek", "deepseek_v3"), "deepseek_v4_flash": ("deepseek", "deepseek_v4"),
          "gpt_oss_120b": ("gpt_oss", "gpt_oss"), "qwen3_30b_a3b": ("qwen", "qwen3_moe"),
          "qwen3_235b_a22b": ("qwen", "qwen3_moe"), "nemotron_3_nano": ("nemotronh", "nemotronh"),
          "nemotron_3_5_lightning": ("nemotronh", "nemotronh"), "nemotron_3_super": ("nemotronh", "nemotronh"),
          "nemotron_3_ultra": ("nemotronh", "nemotronh"), "llama3_8b": ("llama", "llama3"),
          "llama3_70b": ("llama", "llama3"), "llama31_405b": ("llama", "llama31"), "kimi_k2": ("kimi", "kimi_k2")}

FOOTNOTE = re.compile(r"\[\^([^\]]+)\]")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def variants(cell):
    """'37556 (36108)' -> ['37556', '36108']; '64 (0)' -> ['64', '0']; '8' -> ['8']."""
    m = re.fullmatch(r"(.*?)\s*\((.*)\)", cell)
    if m and m.group(1):
        return [m.group(1).strip(), m.group(2).strip()]
    return [cell]


def parse_tables(text, file):
    """Every table row of a summary file: a dict of its cells (by the header's names) and where
    it stands: file, container, table ("Pre-Training", "SFT", "LoRA"), heading, the footnotes."""
    rows = []
    container = table = heading = None
    header = None
    footnotes = dict(re.findall(r"^\[\^([^\]]+)\]:\s*(.*)$", text, flags=re.M))
    lines = text.splitlines()
    section_notes = {}
    for i, line in enumerate(lines):
        m = re.match(r"^## (\S+) NeMo Container", line)
        if m:
            container, table, heading, header = m.group(1), None, None, None
            continue
        m = re.match(r"^### (.*) Performance", line)
        if m:
            table, heading, header = m.group(1).strip(), None, None
            continue
        m = re.match(r"^#### (Model|System): (.*)$", line)
        if m:
            heading, header = (m.group(1), m.group(2).strip()), None
            continue
        if line.startswith("|") and container and table and heading:
            c = cells(line)
            if header is None:
                header = c
                continue
            if set("".join(c)) <= set("-: "):
                continue
            row = dict(zip(header, c))
            row.update({"_file": file, "_container": container, "_table": table, "_heading": heading,
                        "_line": i + 1})
            notes = FOOTNOTE.findall(line)
            row["_footnotes"] = [(n, footnotes.get(n, "")) for n in notes]
            for k in list(row):
                if not k.startswith("_"):
                    row[k] = FOOTNOTE.sub("", row[k]).strip()
            if heading[0] == "Model":
                row["Model"] = heading[1]
            else:
                row["System"] = heading[1]
            rows.append(row)
    return rows


def expand(row):
    """A 25.11 / 25.09 row with parenthesised alternatives ('FP8-CS (FP8-MX)', '64 (0)') is two
    measured configurations: the plain values and, where a cell has them, the parenthesised ones."""
    keys = [k for k in row if not k.startswith("_") and k not in ("Model", "System")]
    split = {k: variants(row[k]) for k in keys}
    if all(len(v) == 1 for v in split.values()):
        return [dict(row, _variant="")]
    out = []
    for j in (0, 1):
        r = dict(row)
        for k, v in split.items():
            r[k] = v[j] if len(v) > 1 else v[0]
        r["_variant"] = "plain" if j == 0 else "parenthesised"
        out.append(r)
    return out


# ---------------------------------------------------------------------------------------------
# Rows to recipes.
# ---------------------------------------------------------------------------------------------

def model_name(label):
    """The table's model name without its note ('DeepSeekV3 (w/o MTP)' -> 'DeepSeekV3', 'w/o MTP')."""
    m = re.fullmatch(r"(.*?)\s*\((.*)\)", label.strip())
    return (m.group(1).strip(), m.group(2).strip()) if m else (label.strip(), "")


def recipe_candidates(reader, model, system, precision, gpus):
    """(name, function) of the recipes for a model / system / precision / GPU count: the
    suffix-less one first, then its named variants (not the _dev ones)."""
    family, module = FAMILY[model]
    mod = reader.module("megatron.bridge.perf_recipes.%s.%s.%s" % (family, system, module))
    if mod is None:
        return []
    stem = "%s_pretrain_%sgpu_%s_%s" % (model, gpus, system, precision)
    names = [n for n, e in mod.names.items() if e[0] == "def" and n.startswith(stem + "_") and n.endswith("_config")]
    canonical = [n for n in names if n == stem + "_config"]
    rest = sorted(n for n in names if n != stem + "_config" and not n.endswith("_dev_config"))
    return [(n, reader.resolve(mod, n), "src/%s.py" % mod.name.replace(".", "/")) for n in canonical + rest]


def layout(cfg, dense):
    """The recipe's layout, as the tables state it (a dense model's expert parallelism is 1)."""
    m = lambda k: field(cfg, "model", k)
    vp, ep = m("virtual_pipeline_model_parallel_size"), m("expert_model_parallel_size")
    if dense and isinstance(ep, Unknown):
        ep = 1
    return {"TP": m("tensor_model_parallel_size"), "PP": m("pipeline_model_parallel_size"),
            "CP": m("context_parallel_size"), "VP": None if vp in (None, 1) else vp,
            "EP": 1 if ep is None else ep, "MBS": field(cfg, "train", "micro_batch_size"),
            "GBS": field(cfg, "train", "global_batch_size"), "Sequence Length": m("seq_length"),
            "FSDP": field(cfg, "ddp", "use_megatron_fsdp")}


def row_layout(row):
    def val(k):
        v = row.get(k, "")
        if v in ("n/a", ""):
            return None
        return int(v)
    out = {k: val(k) for k in ("TP", "PP", "CP", "MBS", "GBS", "Sequence Length")}
    out["VP"] = None if val("VP") in (None, 1) else val("VP")
    out["EP"] = val("EP") or 1
    out["FSDP"] = None if "FSDP" not in row else val("FSDP") > 0
    return out


def mismatch(row, cfg, dense=False):
    """The layout fields where a recipe differs from the row ('' when it has the row's layout)."""
    want, have = row_layout(row), layout(cfg, dense)
    diff = []
    for k, v in want.items():
        if v is None and k == "FSDP":
            continue
        h = have[k]
        if k == "FSDP":
            h = bool(h) if h is not UNK else UNK
        if h != v:
            diff.append("%s %s (recipe %s)" % (k, v if v is not None else "n/a", "?" if h is UNK else h))
    return ", ".join(diff)


# ---------------------------------------------------------------------------------------------
# Recipe settings to gpuplan's fields.
# ---------------------------------------------------------------------------------------------

class NotExpressible(Exception):
    pass


# Megatron-Core's defaults (3rdparty/Megatron-LM at 2a75ac12c54b) for the DDP and optimizer
# configs, which the recipes build from Megatron-Core's classes (distributed_data_parallel_config.py,
# optimizer/optimizer_config.py), and for a model's parallel sizes (model_parallel_config.py).
MCORE_DEFAULTS = {
    "ddp": {"use_megatron_fsdp": False, "use_distributed_optimizer": False, "overlap_grad_reduce": False,
            "overlap_param_gather": False, "num_distributed_optimizer_instances": 1,
            "data_parallel_sharding_strategy": "no_shard", "outer_dp_sharding_strategy": "no_shard",
            "grad_reduce_in_fp32": False},
    "optimizer": {"use_precision_aware_optimizer": False, "optimizer": "adam", "clip_grad": 1.0,
                  "exp_avg_dtype": External("torch.float32"), "exp_avg_sq_dtype": External("torch.float32"),
                  "main_params_dtype": External("torch.float32"), "optimizer_cpu_offload": False},
    "model": {"expert_model_parallel_size": 1, "context_parallel_size": 1, "virtual_pipeline_model_parallel_size": None,
              "expert_tensor_parallel_size": None,
              "overlap_moe_expert_parallel_comm": False, "cpu_offloading": False,
              "fine_grained_activation_offloading": False, "moe_expert_capacity_factor": None},
}

RECOMPUTE = {"core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"}
GRAPHS = {"attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba"}
OFFLOAD = {"expert_fc1", "moe_act"}
DTYPES = {"torch.float32": "fp32", "torch.bfloat16": "bf16", "torch.float16": "fp16", "torch.half": "fp16"}


def field(cfg, part, name):
    obj = cfg.get(part) if isinstance(cfg, Obj) else UNK
    v = obj.get(name, None) if isinstance(obj, Obj) else UNK
    if isinstance(v, Unknown) and name in MCORE_DEFAULTS.get(part, {}):
        return MCORE_DEFAULTS[part][name]
    return v


def dtype(v):
    return DTYPES.get(v.path) if isinstance(v, External) else None


def mixed_precision(reader, cfg):
    mp = cfg.get("mixed_precision")
    if isinstance(mp, str):  # a registered recipe's name (training/mixed_precision.py)
        fn = reader.function("megatron.bridge.training.mixed_precision", mp.replace("-", "_"))
        mp = reader.call(fn, [], {}) if fn else UNK
    return mp


def _layout_settings(cfg, row, moe, why, out):
    """The parallel layout and batch columns; returns (tp, pp, dp, sp) for the later sections."""
    m = lambda k: field(cfg, "model", k)
    gpus = int(row["#-GPUs"])
    tp, pp, cp = m("tensor_model_parallel_size"), m("pipeline_model_parallel_size"), m("context_parallel_size")
    vp, ep = m("virtual_pipeline_model_parallel_size"), m("expert_model_parallel_size")
    etp = m("expert_tensor_parallel_size")
    if not moe and isinstance(ep, Unknown):
        ep = 1
    if etp is None:
        etp = tp
    dp = gpus // (tp * pp * cp)
    out.update(tp=tp, pp=pp, cp=cp if cp > 1 else "", vp=vp if vp not in (None, 1) else "", dp=dp,
               batch=field(cfg, "train", "global_batch_size"))
    if moe:
        out.update(ep=ep, etp=etp)
    sp = m("sequence_parallel")
    if isinstance(sp, Unknown):
        if tp > 1:
            why.append("sequence parallelism left to the model provider")
        sp = False
    out["sp"] = 1 if sp and tp > 1 else ""
    return tp, pp, dp, sp


def _precision_settings(cfg, mp, row, why, out):
    """The precision columns from the mixed-precision config (mp) and the model's quantisation."""
    # Precision and what the mixed-precision config copies onto the model, DDP and optimizer.
    model = cfg.get("model")
    g = mp.get
    if g("fp4"):
        precision = "nvfp4" if g("fp4_recipe") == "nvfp4" else None
        quantized = g("fp4_param_gather") or g("fp4_param")
    elif g("fp8"):
        precision = {"mxfp8": "mxfp8", "tensorwise": "fp8", "delayed": "fp8",
                     "blockwise": "fp8-blockwise"}.get(g("fp8_recipe"))
        quantized = g("fp8_param_gather") or g("fp8_param")
    elif g("bf16"):
        precision, quantized = "mixed-bf16", False
    else:
        precision, quantized = None, False
    if precision is None:
        raise NotExpressible("the recipe's precision is not one gpuplan models")
    if precision != PRECISIONS[row["Precision"]][0]:
        why.append("the recipe runs %s, the table says %s" % (precision, row["Precision"]))
    out["precision"] = precision
    if isinstance(quantized, Unknown):
        why.append("parameter gather precision not readable")
    out["quantized_params"] = 1 if quantized is True and precision != "mixed-bf16" else ""
    first, last = g("num_layers_at_start_in_bf16") or 0, g("num_layers_at_end_in_bf16") or 0
    if g("first_last_layers_bf16") and (first > 0 or last > 0):
        out["bf16_first_layers"], out["bf16_last_layers"] = first or "", last or ""
    recipe = model.get("quant_recipe") if isinstance(model, Obj) else UNK
    if recipe is not None and not isinstance(recipe, Unknown):
        why.append("a per-module quantisation recipe (quant_recipe), which gpuplan does not model")
    if g("fp8_multi_head_attention") is True:
        why.append("FP8 multi-head attention (fp8_multi_head_attention), which gpuplan does not model")
    elif g("fp8_dot_product_attention") is True:
        out["fp8_attention"] = 1
    reduce32 = g("grad_reduce_in_fp32")
    out["grad_reduce"] = "fp32" if reduce32 is True else "bf16" if reduce32 is False else ""


def _optimizer_settings(cfg, why, out):
    """The optimizer columns: its kind, gradient clipping and precision-aware state dtypes."""
    # Optimizer.
    opt = field(cfg, "optimizer", "optimizer")
    if opt != "adam":
        why.append("optimizer %s" % opt if not isinstance(opt, Unknown) else "optimizer not readable")
    out["optimizer"] = "adamw"
    clip = field(cfg, "optimizer", "clip_grad")
    out["clip_grad_norm"] = 1 if isinstance(clip, (int, float)) and clip > 0 else 0
    if field(cfg, "optimizer", "use_precision_aware_optimizer") is True:
        moments = {dtype(field(cfg, "optimizer", "exp_avg_dtype")), dtype(field(cfg, "optimizer", "exp_avg_sq_dtype"))}
        master = dtype(field(cfg, "optimizer", "main_params_dtype"))
        if len(moments) != 1 or None in moments or master is None:
            why.append("precision-aware optimizer dtypes not readable")
        else:
            out["optimizer_state_dtype"] = "" if moments == {"fp32"} else moments.pop()
            out["master_dtype"] = "" if master == "fp32" else master
    if field(cfg, "optimizer", "optimizer_cpu_offload") is True:
        why.append("optimizer offloaded to the CPU")


def _data_parallel_settings(cfg, tp, sp, dp, why, out):
    """The ZeRO stage and communication overlaps; returns whether MoE all-to-all overlap is on."""
    # Data parallelism: the distributed optimizer, Megatron-FSDP, and the overlaps.
    m = lambda k: field(cfg, "model", k)
    d = lambda k: field(cfg, "ddp", k)
    if d("use_megatron_fsdp") is True:
        sharding = d("data_parallel_sharding_strategy")
        out["zero"] = {"optim_grads_params": 3, "optim_grads": 2, "optim": 1}.get(sharding, "")
        if out["zero"] == "":
            why.append("Megatron-FSDP sharding %s" % sharding)
    else:
        out["zero"] = 1 if d("use_distributed_optimizer") is True else 0
    instances, outer = d("num_distributed_optimizer_instances"), d("outer_dp_sharding_strategy")
    if instances not in (1, None) or outer not in ("no_shard", None):
        why.append("hybrid sharding (%s distributed-optimizer instances)" % instances)
    co = cfg.get("comm_overlap")
    if isinstance(co, Obj) and co.cls != "?":
        c = co.get
        if d("use_distributed_optimizer") is True:
            grad = c("overlap_grad_reduce") if c("overlap_grad_reduce") is not None else dp > 1
            param = c("overlap_param_gather") if c("overlap_param_gather") is not None else dp > 1
        else:
            grad, param = d("overlap_grad_reduce"), d("overlap_param_gather")
        tpo = c("tp_comm_overlap") is True and tp >= 2 and bool(sp)
        a2a = c("overlap_moe_expert_parallel_comm") is True
    elif co is None:
        grad, param = d("overlap_grad_reduce"), d("overlap_param_gather")
        tpo, a2a = False, m("overlap_moe_expert_parallel_comm") is True
    else:
        raise NotExpressible("the recipe's comm_overlap config is not readable")
    for k, v in (("overlap_grad_reduce", grad), ("overlap_param_gather", param)):
        if isinstance(v, Unknown):
            why.append("%s not readable" % k)
        out[k] = 1 if v is True else 0
    out["tp_comm_overlap"] = 1 if tpo else ""
    return a2a


def _moe_settings(cfg, a2a, why, out):
    """The mixture-of-experts columns: dispatcher, all-to-all overlap (a2a) and router balance."""
    # Mixture of experts.
    m = lambda k: field(cfg, "model", k)
    kind, backend = m("moe_token_dispatcher_type"), m("moe_flex_dispatcher_backend")
    if kind == "flex":
        dispatcher = {"deepep": "deepep", "hybridep": "hybridep", None: "alltoall"}.get(backend, UNK)
    else:
        dispatcher = {"alltoall": "alltoall"}.get(kind, UNK)
    if isinstance(dispatcher, Unknown):
        why.append("MoE dispatcher %s/%s" % (kind, backend) if not isinstance(kind, Unknown) else
                   "MoE dispatcher left to the model provider")
    else:
        out["moe_dispatcher"] = dispatcher
    out["moe_a2a_overlap"] = 1 if a2a else ""
    force = m("moe_router_force_load_balancing")
    if force is not True:
        why.append("the recipe does not force the router's balance (force_load_balancing %s), the table's "
                   "footnote says it does" % force)
    out["moe_imbalance"] = 1
    if m("moe_expert_capacity_factor") is not None:
        why.append("token dropping (capacity factor %s)" % m("moe_expert_capacity_factor"))


def _recompute_settings(cfg, why, out):
    """The activation checkpointing columns from the model's recompute settings."""
    # Recompute.
    m = lambda k: field(cfg, "model", k)
    gran = m("recompute_granularity")
    if gran is None:
        out["checkpointing"] = "none"
    elif gran == "selective":
        modules = m("recompute_modules")
        modules = ["core_attn"] if modules is None else modules
        if isinstance(modules, Unknown):
            why.append("recompute modules left to the model provider")
        elif any(x not in RECOMPUTE for x in modules):
            why.append("recompute modules %s" % ",".join(modules))
        elif modules:
            out["checkpointing"], out["recompute_modules"] = "selective", ",".join(modules)
        else:
            out["checkpointing"] = "none"
    elif gran == "full":
        method, layers = m("recompute_method"), m("recompute_num_layers")
        if method == "block" and isinstance(layers, int):
            out["checkpointing"], out["recompute_num_layers"] = "block", layers
        elif method == "uniform" and layers == 1:
            out["checkpointing"] = "full"
        else:
            why.append("full recompute %s of %s layers" % (method, layers))
    elif isinstance(gran, Unknown):
        why.append("recompute left to the model provider")
    else:
        why.append("recompute granularity %s" % gran)


def _cuda_graph_settings(cfg, moe, why, out):
    """The CUDA graph columns, and the MoE per-rank capacity that graphs of whole MoE blocks need."""
    # CUDA graphs.
    m = lambda k: field(cfg, "model", k)
    impl = m("cuda_graph_impl")
    scope, modules = m("cuda_graph_scope"), m("cuda_graph_modules")
    names = None
    if impl == "none":
        graphs = ""
    elif impl in ("full_iteration",):
        graphs = "full_iteration"
    elif impl in ("local", "transformer_engine"):
        source = scope if scope is not None else modules
        if isinstance(source, Unknown):
            names = UNK
        else:
            names = _graph_names(source)
        if isinstance(names, Unknown):
            why.append("CUDA graph scope not readable")
            graphs = ""
        elif impl == "local" and "full_iteration" in names:
            graphs = "full_iteration"
        elif not names:
            graphs = "layer"
        elif any(x not in GRAPHS for x in names):
            why.append("CUDA graphs of %s (gpuplan has no such module)" % ",".join(x for x in names if x not in GRAPHS))
            graphs = ""
        else:
            graphs = ",".join(names)
    else:
        why.append("CUDA graph implementation %s" % impl)
        graphs = ""
    out["cuda_graph_modules"] = graphs
    rank = m("moe_expert_rank_capacity_factor") if moe else None
    if isinstance(rank, (int, float)) and not isinstance(rank, bool):
        out["moe_rank_capacity"] = rank
    elif moe and graphs and set(graphs.split(",")) & {"full_iteration", "layer", "moe"}:
        # Whole MoE blocks in a graph need fixed shapes: gpuplan refuses them under dropless
        # routing (its estimate.graphs_dropless) unless HybridEP's per-rank budget fixes them.
        why.append("%s CUDA graphs hold whole MoE blocks under dropless routing" % graphs)


def _offload_settings(cfg, pp, why, out):
    """The offloading columns: fine-grained activation offloading and CPU offloading of layers."""
    # Offloading.
    m = lambda k: field(cfg, "model", k)
    if m("fine_grained_activation_offloading") is True:
        mods = m("offload_modules") or []
        if isinstance(mods, Unknown) or any(x not in OFFLOAD for x in mods):
            why.append("activation offloading of %s" % (",".join(mods) if isinstance(mods, list) else mods))
        else:
            out["offload_modules"] = ",".join(mods)
    if m("cpu_offloading") is True:
        if m("cpu_offloading_weights") is not False:
            why.append("CPU offloading of layers' weights")
        elif not isinstance(m("cpu_offloading_num_layers"), int) or pp > 1:
            why.append("CPU offloading of %s layers at PP %s" % (m("cpu_offloading_num_layers"), pp))
        else:
            out["offload_activation_layers"] = m("cpu_offloading_num_layers")


def _mtp_settings(cfg, zoo, why, out):
    """The multi-token prediction column, checked against the zoo model's MTP layers."""
    # Multi-token prediction.
    mtp = field(cfg, "model", "mtp_num_layers")
    if isinstance(mtp, Unknown):
        if zoo.get("mtp_layers"):
            why.append("MTP layers left to the model provider")
        else:
            out["mtp_layers"] = 0
    else:
        out["mtp_layers"] = mtp or 0


def _kernel_settings(cfg, why, out):
    """The kernel columns: the attention backend and the fused cross-entropy loss."""
    # Kernels.
    # The attention backend (None or AttnBackend.auto: Transformer Engine picks cuDNN's fused kernel).
    m = lambda k: field(cfg, "model", k)
    backend = m("attention_backend")
    if isinstance(backend, External):
        backend = backend.path.rsplit(".", 1)[-1]
    attention = "cudnn" if isinstance(backend, Unknown) else {
        None: "cudnn", "auto": "cudnn", "fused": "cudnn", "flash": "flash", "unfused": "eager", "local": "eager"}.get(
        backend, UNK)
    if isinstance(attention, Unknown):
        why.append("attention backend %s" % backend)
    else:
        out["attention"] = attention
    fusion = m("cross_entropy_loss_fusion")
    out["fused_loss"] = 1 if fusion is True else 0 if fusion is False else ""


def settings(reader, cfg, row, zoo):
    """gpuplan's setup columns for a recipe's config (cfg), or NotExpressible with the reasons."""
    why, out = [], {}
    mp = mixed_precision(reader, cfg)
    if not isinstance(mp, Obj):
        raise NotExpressible("the recipe's mixed-precision config is not readable")
    moe = bool(zoo.get("experts"))
    tp, pp, dp, sp = _layout_settings(cfg, row, moe, why, out)
    _precision_settings(cfg, mp, row, why, out)
    _optimizer_settings(cfg, why, out)
    a2a = _data_parallel_settings(cfg, tp, sp, dp, why, out)
    if moe:
        _moe_settings(cfg, a2a, why, out)
    _recompute_settings(cfg, why, out)
    _cuda_graph_settings(cfg, moe, why, out)
    _offload_settings(cfg, pp, why, out)
    _mtp_settings(cfg, zoo, why, out)
    _kernel_settings(cfg, why, out)
    if why:
        raise NotExpressible("; ".join(why))
    return out


# ---------------------------------------------------------------------------------------------
# Rows.
# ---------------------------------------------------------------------------------------------

# Per system: gpuplan's GPU, GPUs per node (tray), NVLink domain, network per node in Gb/s (the
# module docstring cites each).
HARDWARE = {"gb300": ("gb300", 4, 72, 3200), "gb200": ("gb200", 4, 72, 1600), "b300": ("b300-sxm", 8, 8, None),
            "b200": ("b200-sxm", 8, 8, 3200), "h100": ("h100-sxm5-80gb", 8, 8, 3200)}


def zoo_model(model_id):
    import megatron_flops
    return megatron_flops.zoo_model(model_id)


def row_id(row, zoo_or_name):
    precision = PRECISIONS.get(row.get("Precision", ""), (row.get("Precision", "na").lower(),))[0].replace("mixed-", "")
    system = SYSTEMS.get(row["System"], row["System"].lower())
    return "mb-%s-%s-%s-%s-%s" % (row["_container"].replace(".", ""), system, zoo_or_name, precision, row["#-GPUs"])


def slug(name):
    return re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-")


def citation(row):
    heading = "%s: %s" % row["_heading"]
    where = "%s %s, %s Performance, %s" % (row["_container"], "NeMo Container", row["_table"], heading)
    if row["_file"] == SUMMARY:
        return "%s@%s %s ## %s" % (REPO, COMMIT, SUMMARY, where)
    return "%s@%s %s, its archive %s ## %s" % (REPO, COMMIT, SUMMARY, ARCHIVE, where)


class Converter:
    """Converts table rows, reading the recipes from `sources` (see Reader)."""

    def __init__(self, sources):
        self.sources = sources
        self.readers = {}

    def reader(self, system):
        if system not in self.readers:
            self.readers[system] = Reader(self.sources, system)
        return self.readers[system]

    def why_not(self, row):
        """A reason to list the row before any recipe is read, or None."""
        if row["_table"] != "Pre-Training":
            return "a %s (fine-tuning) table, not pre-training" % row["_table"]
        name, note = model_name(row["Model"])
        if "Precision" not in row:
            return "precision not stated (the %s table has no precision column)" % row["_container"]
        if "tokendrop" in note:
            return "token-dropping MoE run, its capacity factor not stated"
        if any("regression" in text or "known issue" in text for _n, text in row["_footnotes"]):
            return "marked a known performance regression in the table's footnote"
        if name not in MODELS:
            return "model %s not mapped" % name
        if MODELS[name][0] is None:
            return "%s is not in gpuplan's model zoo (data/models)" % name
        if row["Precision"] not in PRECISIONS:
            return "precision %s not mapped" % row["Precision"]
        if row["System"] not in SYSTEMS:
            return "system %s not mapped" % row["System"]
        return None

    def recipe(self, row):
        """(recipe name, path, cfg) of the recipe with the row's layout, or (None, reason)."""
        name, _note = model_name(row["Model"])
        system = SYSTEMS[row["System"]]
        reader = self.reader(system)
        tried = []
        for fname, fn, path in recipe_candidates(reader, MODELS[name][1], system, PRECISIONS[row["Precision"]][1],
                                                 row["#-GPUs"]):
            try:
                cfg = reader.call(fn, [], {})
            except Raised as e:
                tried.append("%s raises (%s)" % (fname, e))
                continue
            diff = mismatch(row, cfg, dense=not zoo_model(MODELS[name][0]).get("experts"))
            if not diff:
                return (fname, path, cfg), None
            tried.append("%s: %s" % (fname, diff))
        if not tried:
            return None, "no recipe at %s for %s on %s at %s with %s GPUs" % (
                COMMIT, name, row["System"], row["Precision"], row["#-GPUs"])
        return None, "no recipe at %s with this layout (%s)" % (COMMIT, "; ".join(tried))

    def convert(self, row):
        """(output row, None) or (None, reason)."""
        why = self.why_not(row)
        if why:
            return None, why
        name, note = model_name(row["Model"])
        zoo_id = MODELS[name][0]
        found, why = self.recipe(row)
        if not found:
            return None, why
        fname, path, cfg = found
        zoo = zoo_model(zoo_id)
        system = SYSTEMS[row["System"]]
        try:
            setup = settings(self.reader(system), cfg, row, zoo)
        except NotExpressible as e:
            return None, "%s (%s): %s" % (fname, path, e)
        if note == "w/o MTP" and setup.get("mtp_layers"):
            return None, "the table says w/o MTP, %s trains %s MTP layers" % (fname, setup["mtp_layers"])
        gpu, per_node, domain, network = HARDWARE[system]
        gpus = int(row["#-GPUs"])
        env = cfg.get("env_vars") if isinstance(cfg.get("env_vars"), dict) else {}
        if per_node == 4:
            size = env.get("NVLINK_DOMAIN_SIZE")
            if isinstance(size, int) and size < domain:
                domain = size
        if gpus > per_node and network is None:
            return None, "%s spans %d nodes and no source for a %s node's network bandwidth was found" % (
                row["System"], gpus // per_node, row["System"])
        out = {c: "" for c in COLUMNS}
        out.update(setup)
        out.update({"model": zoo_id, "gpu": gpu, "num_gpus": gpus,
                    "batch_size_per_gpu": int(row["MBS"]), "seq_len_or_resolution": int(row["Sequence Length"]),
                    "task": "train", "metric": "tokens_per_s_per_gpu", "value": row["Tokens / sec / GPU"],
                    "framework": "megatron", "gpus_per_node": per_node,
                    "nvlink_domain_gpus": domain if per_node == 4 else "",
                    "network_gbps_per_node": network if gpus > per_node else "",
                    "source": source_key(citation(row))})
        out["id"] = row_id(row, zoo_id)
        return out, None

    def rows(self, text, file):
        """The rows of one summary file, parenthesised alternatives split (ids to be made unique)."""
        out = []
        for row in parse_tables(text, file):
            if row["_container"] == "25.09" or row["_table"] != "Pre-Training":
                out.append(dict(row, _variant=""))
            else:
                out.extend(expand(row))
        return out


def unique_ids(pairs):
    """Suffixes for ids two rows share: -gbs<N> where the global batches differ, else -<k>."""
    ids = {}
    for row, rid in pairs:
        ids.setdefault(rid, []).append(row)
    out = []
    for row, rid in pairs:
        same_id = ids[rid]
        if len(same_id) > 1:
            if len({r["GBS"] for r in same_id}) == len(same_id):
                rid += "-gbs%s" % row["GBS"]
            else:
                rid += "-%d" % (same_id.index(row) + 1)
        out.append(rid)
    return out


def main(git_dir, dst):
    sources = GitSources(git_dir)
    conv = Converter(sources)
    rows = conv.rows(sources(SUMMARY), SUMMARY) + conv.rows(sources(ARCHIVE), ARCHIVE)
    pairs = []
    for r in rows:
        name, _ = model_name(r["Model"])
        zoo = MODELS.get(name, (None,))[0]
        pairs.append((r, row_id(r, zoo or slug(name))))
    for r, rid in zip(rows, unique_ids(pairs)):
        r["id"] = rid

    def one(row):
        out, why = conv.convert(row)
        if out:
            out["id"] = row["id"]
        return out, why

    converted, listed = convert_rows(rows, one)
    sections = []
    for r in rows:
        line = "mb-%s-*: %s@%s %s ## %s NeMo Container" % (r["_container"].replace(".", ""), REPO, COMMIT, r["_file"],
                                                           r["_container"])
        if line not in sections:
            sections.append(line)
    write_csv(dst, [
        "Generated by tools/convert_megatron_bridge.py from %s@%s %s and %s" % (REPO, COMMIT, SUMMARY, ARCHIVE),
        "(pre-training tables; each row set up as the recipe with its layout in src/megatron/bridge/perf_recipes",
        "at that commit runs it). Setup facts and hardware sources are in the converter's docstring. The rows'",
        "source is the summary's key (the archive is its past releases); the sections the ids come from:",
    ] + sections, listed, COLUMNS, converted)
    print("%d table rows (%d with alternatives split): %d converted, %d listed"
          % (len({(r["_file"], r["_line"]) for r in rows}), len(rows), len(converted), len(listed)), file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
