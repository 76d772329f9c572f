"""Recorder: times the user's training steps and writes a gpuplan-measure payload.

A step is the time between two step marks (Recorder.step(), or in --script mode each
optimizer.step()). The first `warmup` steps are left out: they include CUDA context creation,
cuDNN/cuBLAS autotuning, the caching allocator growing and lazy compilation. On CUDA each mark
first waits for the device (torch.cuda.synchronize), so a step's time is the GPU's, not the
time the host took to queue its kernels.
"""
import datetime
import json
import os
import statistics
import sys
import time
import weakref

from . import facts, signing

SCHEMA_VERSION = 1
KIND = "gpuplan-measure"
VERSION = "0.1.0"

NOT_MEASURED = [
    "time outside the step marks (data loading before the first mark, evaluation, checkpoint saving)",
    "clock throttling during the run: the clocks recorded are the maxima nvidia-smi reports",
    "GPU memory used outside PyTorch's caching allocator (CUDA context, NCCL buffers, other processes)",
    "how a step divides into compute, communication and waiting",
    "convergence or accuracy",
]


def _utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _autocast_dtype(torch):
    """The autocast dtype in force (CUDA, then CPU), or None."""
    for device, enabled, getter in (("cuda", "is_autocast_enabled", "get_autocast_gpu_dtype"),
                                    ("cpu", "is_autocast_cpu_enabled", "get_autocast_cpu_dtype")):
        try:
            if getattr(torch, "get_autocast_dtype", None) and torch.is_autocast_enabled(device):
                return str(torch.get_autocast_dtype(device)).replace("torch.", "")
        except TypeError:  # torch < 2.4: is_autocast_enabled() takes no device
            pass
        if getattr(torch, enabled, None) and getattr(torch, enabled)():
            return str(getattr(torch, getter)()).replace("torch.", "")
    return None


class _ForwardWatch:
    """Global module hooks: per step, the samples of the outermost forward calls (first dimension
    of their first tensor argument), the autocast dtype in force, and the outermost module."""

    def __init__(self, torch):
        self.torch = torch
        self.depth = 0
        self.samples = 0
        self.autocast = None
        self.module = None
        self.handles = []
        hooks = torch.nn.modules.module
        if hasattr(hooks, "register_module_forward_pre_hook") and hasattr(hooks, "register_module_forward_hook"):
            self.handles = [hooks.register_module_forward_pre_hook(self._pre),
                            hooks.register_module_forward_hook(self._post)]

    def _pre(self, module, args):
        if self.depth == 0:
            first = next((a for a in args if isinstance(a, self.torch.Tensor) and a.dim() > 0), None)
            if first is not None:
                self.samples += int(first.shape[0])
            self.autocast = self.autocast or _autocast_dtype(self.torch)
            if self.module is None:
                self.module = weakref.ref(module)
        self.depth += 1

    def _post(self, module, args, output):
        self.depth = max(0, self.depth - 1)

    def take_samples(self):
        n, self.samples = self.samples, 0
        return n

    def close(self):
        for h in self.handles:
            h.remove()
        self.handles = []


class Recorder:
    """with Recorder(steps=50, out="measured.json") as m: ... m.step()  (once per training step)

    steps: timed steps to keep (None: all after warm-up); warmup: steps left out first;
    batch_size: samples per step on this process (None: seen from the forward inputs);
    out: file to write on exit (rank 0 only; None: write nothing, read .payload());
    sign: sign with `gpuplan-probe sign` (probe: its path; key: the key file);
    device: "cuda" or "cpu" (None: CUDA when this process has allocated CUDA memory).
    """

    def __init__(self, steps=None, warmup=5, batch_size=None, out=None, sign=True, probe=None, key=None,
                 device=None, arguments=None):
        import torch  # imported here so `--help` works without torch
        if warmup < 0 or (steps is not None and steps < 1):
            raise ValueError("warmup must be >= 0 and steps >= 1")
        self.torch = torch
        self.steps, self.warmup, self.batch_size = steps, warmup, batch_size
        self.out, self.sign, self.probe, self.key, self.device = out, sign, probe, key, device
        self.arguments = list(arguments if arguments is not None else sys.argv[1:])
        self.durations_s, self.samples, self.warnings = [], [], []
        self.optimizer_params = None
        self._watch = None
        self._last = None
        self.started_utc = self.finished_utc = None
        self.written = None

    # --- recording ---------------------------------------------------------------------------
    def __enter__(self):
        self.started_utc = _utc_now()
        self._watch = _ForwardWatch(self.torch)
        self._last = self._now()
        return self

    def _uses_cuda(self):
        if self.device is not None:
            return self.device == "cuda"
        cuda = self.torch.cuda
        return cuda.is_available() and cuda.is_initialized() and cuda.memory_allocated() > 0

    def _now(self):
        if self._uses_cuda():
            self.torch.cuda.synchronize()
        return time.perf_counter()

    def step(self, batch_size=None):
        """Marks the end of one training step (call after optimizer.step())."""
        if self._last is None:
            raise RuntimeError("Recorder.step() outside 'with Recorder(...)'")
        now = self._now()
        self.durations_s.append(now - self._last)
        seen = self._watch.take_samples()
        self.samples.append(batch_size or self.batch_size or seen or None)
        self._last = now

    @property
    def done(self):
        """True once warm-up and `steps` timed steps are recorded."""
        return self.steps is not None and len(self.durations_s) >= self.warmup + self.steps

    def __exit__(self, exc_type, exc, tb):
        self.finished_utc = _utc_now()
        self._watch_module = self._watch.module() if self._watch and self._watch.module else None
        self._autocast = self._watch.autocast if self._watch else None
        if self._watch:
            self._watch.close()
        if exc_type is None and self.out:
            self.write(self.out)
        return False

    # --- the payload -------------------------------------------------------------------------
    def _timed(self):
        kept = self.durations_s[self.warmup:]
        samples = self.samples[self.warmup:]
        if self.steps is not None:
            kept, samples = kept[:self.steps], samples[:self.steps]
        return kept, samples

    def _setup(self, world_size, rank, samples):
        known = [s for s in samples if s]
        batch = int(statistics.median(known)) if known else None
        if known and len(set(known)) > 1:
            self.warnings.append(f"the batch per step varied ({min(known)}..{max(known)}); the median is recorded")
        params = list(self._watch_module.parameters()) if getattr(self, "_watch_module", None) is not None else []
        if not params and self.optimizer_params:
            params = self.optimizer_params
        dtype = str(params[0].dtype).replace("torch.", "") if params else "unknown"
        source = ("given" if self.batch_size else "forward inputs (first dimension of the first tensor argument of "
                  "each outermost module call, summed per step)") if batch else None
        return {"world_size": world_size, "rank": rank, "batch_per_step": batch, "batch_source": source,
                "param_dtype": dtype, "autocast_dtype": getattr(self, "_autocast", None),
                "parameters": sum(int(p.numel()) for p in params) if params else None}

    def _memory(self, cuda):
        if not cuda:
            return {"peak_allocated_bytes": None, "peak_reserved_bytes": None,
                    "absent_reason": "CPU run: PyTorch's peak-memory counters (torch.cuda.max_memory_allocated, "
                                     "max_memory_reserved) exist only for CUDA devices"}
        return {"peak_allocated_bytes": int(self.torch.cuda.max_memory_allocated()),
                "peak_reserved_bytes": int(self.torch.cuda.max_memory_reserved()), "absent_reason": None}

    def payload(self):
        """The payload as a dict (schema: data/schema/measured.schema.json)."""
        kept, samples = self._timed()
        if not kept:
            raise RuntimeError(f"no timed step: {len(self.durations_s)} step(s) recorded, {self.warmup} are warm-up")
        cuda = self._uses_cuda()
        world_size, rank = facts.world(self.torch)
        setup = self._setup(world_size, rank, samples)
        median = statistics.median(kept)
        batch = setup["batch_per_step"]
        timing = {
            "cuda_synchronised": cuda, "warmup_steps": self.warmup, "steps": len(kept),
            "step_s": {"median": median, "mean": statistics.fmean(kept), "min": min(kept), "max": max(kept)},
            "samples_per_s": batch * world_size / median if batch and median > 0 else None,
        }
        return {
            "schema_version": SCHEMA_VERSION, "kind": KIND,
            "tool": {"name": "gpuplan-measure", "version": VERSION},
            "started_utc": self.started_utc, "finished_utc": self.finished_utc or _utc_now(),
            "arguments": self.arguments, "host": facts.host_facts(self.torch),
            "device": facts.device_facts(self.torch, cuda), "setup": setup, "timing": timing,
            "memory": self._memory(cuda), "not_measured": NOT_MEASURED, "warnings": list(self.warnings),
        }

    def write(self, path):
        """Writes the payload (rank 0 only) and signs it unless sign=False; returns the path or None."""
        payload = self.payload()
        if payload["setup"]["rank"] != 0:
            return None
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(json.dumps(payload, indent=2) + "\n")
        os.replace(tmp, path)
        if self.sign:
            signing.sign_file(path, self.probe, self.key)
        self.written = path
        return path
