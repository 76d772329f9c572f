"""Runs the gpuplan CLI and gpuplan-probe. Every number on the site that the core computes comes
through here, and every call is displayable so pages can show the exact command."""

import glob
import json
import os
import re
import shlex
import subprocess

from . import ROOT, BuildError


class Cli:
    """The gpuplan CLI at `path`; refuses to start if it is missing."""

    def __init__(self, path):
        self.path = path
        if not os.access(path, os.X_OK):
            raise BuildError(f"gpuplan CLI not found at {path} (build it: make native)")
        self.help = self.run_text(["--help"])

    @staticmethod
    def display(args):
        return "gpuplan " + " ".join(shlex.quote(a) for a in args)

    def run_text(self, args, ok_codes=(0,)):
        p = subprocess.run([self.path] + args, capture_output=True, text=True, cwd=ROOT)
        if p.returncode not in ok_codes:
            raise BuildError(f"`{self.display(args)}` exited {p.returncode}: {p.stderr.strip()}")
        return p.stdout

    def json(self, args, ok_codes=(0,)):
        out = self.run_text(args + ["--json"], ok_codes)
        try:
            return json.loads(out)
        except json.JSONDecodeError as e:
            raise BuildError(f"`{self.display(args)} --json` printed no JSON: {e}")

    def has_command(self, name):
        return re.search(rf"^\s+{re.escape(name)}\b", self.help, re.M) is not None


def refuse_stale(cli_gpus, data_gpus, cli_instances, data_instances):
    """The CLI embeds data/ at build time: a stale binary would put old numbers on the site, so a
    difference in ids, bandwidths, dense peaks or price counts stops the build."""
    problems = []
    if set(cli_gpus) != set(data_gpus):
        problems.append(f"GPU ids differ: {sorted(set(cli_gpus) ^ set(data_gpus))}")
    if set(cli_instances) != set(data_instances):
        problems.append(f"instance ids differ: {sorted(set(cli_instances) ^ set(data_instances))}")
    for gid, g in cli_gpus.items():
        d = data_gpus.get(gid)
        if not d:
            continue
        bw = d["specs"].get("memory_bandwidth_gb_per_s", {}).get("value")
        if bw is not None and abs(bw * 1e9 - g["memory_bandwidth_bytes_per_s"]["value"]) > 1:
            problems.append(f"{gid} memory bandwidth")
        for prec, fact in d["specs"].get("peak_dense_tflops", {}).items():
            cli = g.get("peak_dense_flop_per_s", {}).get(prec)
            if cli and abs(fact["value"] * 1e12 - cli["value"]) > 1e6:
                problems.append(f"{gid} dense {prec}")
    for iid, inst in cli_instances.items():
        d = data_instances.get(iid)
        if d and len(d.get("prices", [])) != len(inst.get("prices", [])):
            problems.append(f"{iid} prices")
    if problems:
        raise BuildError("the CLI's embedded catalog differs from data/ (" + "; ".join(problems[:5]) +
                         "): rebuild it with `make native`")


def find_probe_binary(explicit):
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for cand in glob.glob(os.path.join(ROOT, "build", "native", "**", "gpuplan-probe"), recursive=True):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None
