"""What the run can see about the machine: the device (torch, nvidia-smi) and the host.

Only the standard library and torch. nvidia-smi is asked, if present, for clocks and the driver
(torch does not expose them); every fact it cannot get is None in the payload, never guessed.
"""
import os
import platform
import shutil
import socket
import subprocess


def host_facts(torch):
    return {
        "hostname": socket.gethostname(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "torch": getattr(torch, "__version__", "unknown"),
    }


def _nvidia_smi(index):
    """name, memory.total (MiB), max SM and memory clocks (MHz) and driver of GPU `index`, or {}."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return {}
    query = "name,memory.total,clocks.max.sm,clocks.max.mem,driver_version"
    try:
        out = subprocess.run([exe, f"--query-gpu={query}", "--format=csv,noheader,nounits", "-i", str(index)],
                             capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    fields = [f.strip() for f in out.strip().splitlines()[0].split(",")] if out.strip() else []
    if len(fields) != 5:
        return {}

    def number(text):
        try:
            return float(text)
        except ValueError:  # "[N/A]"
            return None

    return {"name": fields[0], "sm_clock_max_mhz": number(fields[2]), "memory_clock_max_mhz": number(fields[3]),
            "driver_version": fields[4]}


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_facts(torch, use_cuda):
    """The device the run uses (CUDA device 0 of this process, or the CPU)."""
    if not use_cuda:
        return {"type": "cpu", "name": _cpu_name(), "count": os.cpu_count() or 1, "memory_bytes": None,
                "sm_count": None, "compute_capability": None, "sm_clock_max_mhz": None,
                "memory_clock_max_mhz": None, "driver_version": None, "cuda_runtime": None}
    index = torch.cuda.current_device()
    props = torch.cuda.get_device_properties(index)
    smi = _nvidia_smi(index)
    return {
        "type": "cuda",
        "name": props.name,
        "count": torch.cuda.device_count(),
        "memory_bytes": int(props.total_memory),
        "sm_count": int(props.multi_processor_count),
        "compute_capability": f"{props.major}.{props.minor}",
        "sm_clock_max_mhz": smi.get("sm_clock_max_mhz"),
        "memory_clock_max_mhz": smi.get("memory_clock_max_mhz"),
        "driver_version": smi.get("driver_version"),
        "cuda_runtime": torch.version.cuda,
    }


def world(torch):
    """(world size, rank) from torch.distributed when initialised, else the launcher's variables."""
    dist = getattr(torch, "distributed", None)
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_world_size(), dist.get_rank()
    return int(os.environ.get("WORLD_SIZE", "1")), int(os.environ.get("RANK", "0"))
