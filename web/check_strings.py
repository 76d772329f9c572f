#!/usr/bin/env python3
"""Checks the page's string table and that the UI code takes its text from it.

1. web/model/strings.inc: every entry has an English and a Chinese text with the same printf
   placeholders in the same order, and ids are unique.
2. The UI code (web/ui/ui_*.cpp, widgets.cpp, charts.cpp, app.cpp) has no prose string literal:
   a literal with two words, or a capitalised word, that is not a technical token below.
Exit 0 when clean; otherwise one line per problem and exit 1.
"""
import pathlib
import re
import sys

WEB = pathlib.Path(__file__).resolve().parent
TABLE = WEB / "model" / "strings.inc"
UI = WEB / "ui"
ENTRY = re.compile(r'^X\((\w+),\s*"((?:[^"\\]|\\.)*)",\s*"((?:[^"\\]|\\.)*)"\)\s*$')
PLACEHOLDER = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:ll|l|z)?[diouxXeEfgGsc%]")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# Units, precisions and names that are the same in every language.
TECHNICAL = {"GEMM ", "TFLOPS", "GB/s", "USD", "W", "GPU", "CNY"}


def check_table(problems):
    ids = set()
    for n, line in enumerate(TABLE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("X("):
            continue
        m = ENTRY.match(line)
        if not m:
            problems.append(f"strings.inc:{n}: not X(id, \"English\", \"Chinese\")")
            continue
        sid, en, zh = m.groups()
        if sid in ids:
            problems.append(f"strings.inc:{n}: id {sid} twice")
        ids.add(sid)
        if not en or not zh:
            problems.append(f"strings.inc:{n}: {sid} has an empty text")
        if PLACEHOLDER.findall(en) != PLACEHOLDER.findall(zh):
            problems.append(f"strings.inc:{n}: {sid}: placeholders differ: {PLACEHOLDER.findall(en)} vs "
                            f"{PLACEHOLDER.findall(zh)}")


def is_prose(text):
    if text in TECHNICAL or text.startswith("#") or "##" in text:
        return False
    if re.fullmatch(r'[\w\-./\\"]+', text):  # identifiers: widget names, ids, JSON keys
        return False
    words = re.findall(r"[A-Za-z]{2,}", text)
    return len(words) >= 2 or any(w[0].isupper() and w[1:].islower() for w in words)


def check_ui(problems):
    files = sorted(UI.glob("ui_*.cpp")) + [UI / f for f in ("widgets.cpp", "charts.cpp", "charts_lines.cpp", "app.cpp")]
    for path in files:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//")[0]
            if code.lstrip().startswith("#include"):
                continue
            for lit in LITERAL.findall(code):
                if is_prose(lit):
                    problems.append(f"{path.name}:{n}: text \"{lit}\" belongs in strings.inc")


def main():
    problems = []
    check_table(problems)
    check_ui(problems)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
