"""The check helper the Python CLI tests share (emit_test, published_test, measure_test): each check
prints ok/FAIL with what it saw, and finish() exits 1 when any failed."""
import subprocess
import sys

failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def run(cmd, timeout=300, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def finish(name):
    print(f"{name}: {len(failures)} failures")
    sys.exit(1 if failures else 0)
