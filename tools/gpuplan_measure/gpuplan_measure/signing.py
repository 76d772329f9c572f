"""Signing through `gpuplan-probe sign FILE`: the probe's key and DSSE envelope, no crypto here."""
import os
import shutil
import subprocess


class SigningError(RuntimeError):
    """The file was written but could not be signed."""


def find_probe(probe=None):
    """The gpuplan-probe to sign with: `probe`, $GPUPLAN_PROBE, or gpuplan-probe on PATH."""
    for candidate in (probe, os.environ.get("GPUPLAN_PROBE"), shutil.which("gpuplan-probe")):
        if candidate:
            return candidate
    return None


def sign_file(path, probe=None, key=None):
    exe = find_probe(probe)
    if not exe:
        raise SigningError(f"{path} was written unsigned: gpuplan-probe was not found (give --probe PATH, set "
                           "GPUPLAN_PROBE, or put it on PATH; --no-sign writes an unsigned file on purpose)")
    cmd = [exe, "sign", path] + (["--key", key] if key else [])
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise SigningError(f"{path} was written unsigned: running {exe} failed: {e}") from e
    if r.returncode != 0:
        raise SigningError(f"{path} was written unsigned: {exe} sign exited {r.returncode}: {r.stderr.strip()}")
    return r.stderr.strip()
