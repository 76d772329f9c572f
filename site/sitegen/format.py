"""Formatting of numbers and markdown pieces. The same formatting serves both languages, so the
English and the Chinese page show the same digits (tests/site compares them)."""

_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sig(x, digits=3):
    """x with `digits` significant digits, thousands separated; scientific from 1e7 on."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e7 or ax < 1e-3:
        exp = int(f"{ax:e}".split("e")[1])
        mant = x / 10 ** exp
        return f"{mant:.{max(digits - 1, 0)}f} × 10{str(exp).translate(_SUP)}"
    decimals = max(0, digits - 1 - int(f"{ax:e}".split("e")[1]))
    return f"{x:,.{decimals}f}"


def gb(b, digits=3):
    return f"{sig(b / 1e9, digits)} GB"


def tflops(f, digits=3):
    return f"{sig(f / 1e12, digits)} TFLOPS"


def duration(s):
    if s is None:
        return "–"
    if s == 0:
        return "0 s"
    for limit, scale, unit in ((1e-3, 1e6, "µs"), (1, 1e3, "ms"), (120, 1, "s"), (2 * 3600, 1 / 60, "min")):
        if s < limit:
            return f"{sig(s * scale)} {unit}"
    return f"{sig(s / 3600)} h"


def usd(x):
    return "–" if x is None else f"${x:,.2f}" if x >= 10 else f"${x:,.3f}"


def cny(x):
    return "–" if x is None else f"¥{x:,.2f}" if x >= 10 else f"¥{x:,.3f}"


def pct(x, digits=3):
    return f"{sig(100 * x, digits)} %"


def times(x, digits=2):
    return f"{sig(x, digits)}×"


def cell(text):
    """Text safe inside a markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def tbody(rows, ncols=None):
    """The alignment line and the rows of a markdown table; the header line is the template's."""
    n = ncols or (len(rows[0]) if rows else 1)
    out = ["|" + "|".join(["---"] * n) + "|"]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def table(headers, rows):
    return "| " + " | ".join(headers) + " |\n" + tbody(rows, len(headers)) + "\n"


def link(title, url):
    if not url:
        return title
    if url.startswith("http://") or url.startswith("https://"):
        return f"[{title}]({url})"
    return f"{title} (`{url}`)"


def code_block(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```\n"
