"""What the validation converters share: convert each measured row or list it with the reason, and
write the `gpuplan validate` CSV with its provenance comment, the listed rows and the header."""
import csv


def convert_rows(rows, convert):
    """(converted rows, [(id, reason)]): `convert(row)` gives (row or list of rows, None) or
    (None, reason)."""
    converted, listed = [], []
    for row in rows:
        out, why = convert(row)
        if out:
            converted += out if isinstance(out, list) else [out]
        else:
            listed.append((row["id"], why))
    return converted, listed


def write_csv(dst, comment_lines, listed, columns, rows, listed_as="skipped"):
    """The CSV: each comment line after '# ', then '# <listed_as> ID: REASON' per listed row, then
    the header and the rows."""
    with open(dst, "w", newline="") as f:
        for line in comment_lines:
            f.write("# %s\n" % line)
        for rid, why in listed:
            f.write("# %s %s: %s\n" % (listed_as, rid, why))
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
