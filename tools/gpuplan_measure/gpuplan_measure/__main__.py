"""python3 -m gpuplan_measure --script train.py [--steps 50] [--out measured.json] [-- ARGS...]"""
import argparse
import functools
import runpy
import sys

import gpuplan_measure
from . import recorder as recorder_module
from .signing import SigningError

HELP = """Runs your training script and times its steps, then writes one JSON file in gpuplan's probe
family and signs it with `gpuplan-probe sign` (the probe's Ed25519 key and envelope).

A step is one optimizer.step() of any torch.optim optimizer (or one gpuplan_measure.step() call
from the script). The script is stopped after the warm-up and timed steps.

Measured:
  step time: median, mean, min, max over the timed steps; warm-up steps excluded; on CUDA each
    step boundary waits for the GPU (torch.cuda.synchronize)
  samples/s: batch per step x world size / median step time
  peak memory: torch.cuda.max_memory_allocated and max_memory_reserved (CUDA only; on the CPU the
    fields are null and the file says why)
Seen, not measured:
  the GPU: name, count, memory, SMs, compute capability (torch); max SM/memory clocks and driver
    (nvidia-smi, when present); CUDA runtime version
  the setup: world size and rank (torch.distributed or WORLD_SIZE/RANK), parameter dtype and
    count, autocast dtype, batch per step (--batch, else the first dimension of the first tensor
    given to each outermost module call, summed per step)
Not measured:
  time outside the step marks (data loading before the first step, evaluation, checkpointing);
  clock throttling during the run; GPU memory outside PyTorch's allocator (CUDA context, NCCL);
  the split of a step into compute and communication; accuracy

exit codes: 0 written (and signed unless --no-sign), 1 the script failed or made too few steps,
2 usage, 4 written but not signed (the message says why)"""


def parse(argv):
    p = argparse.ArgumentParser(prog="python3 -m gpuplan_measure", description=HELP,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--script", required=True, help="the training script to run (as __main__)")
    p.add_argument("--steps", type=int, default=50, help="timed steps (default 50)")
    p.add_argument("--warmup", type=int, default=5, help="steps left out first (default 5)")
    p.add_argument("--batch", type=int, default=None, help="samples per step on one process (default: seen)")
    p.add_argument("--out", default="measured.json", help="output file (default measured.json)")
    p.add_argument("--device", choices=["cuda", "cpu"], default=None, help="default: CUDA when the script uses it")
    p.add_argument("--no-sign", action="store_true", help="write the payload unsigned")
    p.add_argument("--probe", default=None, help="gpuplan-probe to sign with (default $GPUPLAN_PROBE or PATH)")
    p.add_argument("--key", default=None, help="signing key (default ~/.config/gpuplan/probe-key)")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="after --: the script's own arguments")
    a = p.parse_args(argv)
    if a.steps < 1 or a.warmup < 0 or (a.batch is not None and a.batch < 1):
        p.error("--steps and --batch must be >= 1, --warmup >= 0")
    if a.script_args[:1] == ["--"]:
        a.script_args = a.script_args[1:]
    return a


class _Finished(BaseException):
    """Raised from inside the script once enough steps are recorded (not an Exception, so the
    script's own `except Exception` does not swallow it)."""


def _hook_optimizers(torch, on_step):
    """Calls on_step() after every optimizer.step(): the global hook where torch has one (2.0+),
    else a wrapper on each optimizer class as its first instance is made."""
    import importlib
    optim = torch.optim.Optimizer
    module = importlib.import_module("torch.optim.optimizer")
    if hasattr(module, "register_optimizer_step_post_hook"):
        return module.register_optimizer_step_post_hook(lambda opt, args, kwargs: on_step(opt))
    original_init = optim.__init__

    @functools.wraps(original_init)
    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        cls = type(self)
        if not getattr(cls.step, "_gpuplan_measure", False):
            inner = cls.step

            @functools.wraps(inner)
            def step(opt, *a, **k):
                result = inner(opt, *a, **k)
                on_step(opt)
                return result
            step._gpuplan_measure = True
            cls.step = step
    optim.__init__ = init
    return None


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    import torch
    rec = recorder_module.Recorder(steps=a.steps, warmup=a.warmup, batch_size=a.batch, out=None,
                                   sign=not a.no_sign, probe=a.probe, key=a.key, device=a.device,
                                   arguments=sys.argv[1:] if argv is None else argv)

    def on_step(opt=None):
        if opt is not None and rec.optimizer_params is None:
            rec.optimizer_params = [p for g in opt.param_groups for p in g["params"]]
        rec.step()
        if rec.done:
            raise _Finished()

    _hook_optimizers(torch, on_step)
    gpuplan_measure._active = rec
    saved_argv = sys.argv
    sys.argv = [a.script] + a.script_args
    try:
        with rec:
            try:
                runpy.run_path(a.script, run_name="__main__")
            except _Finished:
                pass
    except SystemExit as e:  # the script called sys.exit() before enough steps
        if e.code not in (None, 0):
            print(f"gpuplan-measure: {a.script} exited with {e.code}", file=sys.stderr)
            return 1
    finally:
        sys.argv = saved_argv
        gpuplan_measure._active = None
    return _write(rec, a)


def _write(rec, a):
    if len(rec.durations_s) <= rec.warmup:
        print(f"gpuplan-measure: {a.script} made {len(rec.durations_s)} step(s); at least {rec.warmup + 1} are "
              f"needed ({rec.warmup} warm-up)", file=sys.stderr)
        return 1
    try:
        path = rec.write(a.out)
    except SigningError as e:
        print(f"gpuplan-measure: {e}", file=sys.stderr)
        return 4
    kept, _ = rec._timed()
    if path:
        print(f"gpuplan-measure: wrote {path} ({len(kept)} timed steps{'' if a.no_sign else ', signed'})",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
