#!/usr/bin/env python3
"""Refresh data/instances/*.json prices from a public price catalog snapshot.

Reads the per-provider catalog CSVs that SkyPilot's catalog (skypilot-org/skypilot-catalog,
columns InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,
Region[,AvailabilityZone]) and dstack's gpuhunt (columns instance_name,location,price,cpu,memory,
gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags) publish, from a local file or an
http(s) URL, and writes the prices of instances already in the catalog:

- one price entry per region, its source the snapshot (repository, commit, path) and its date;
- the lowest price over a region's availability zones (SkyPilot lists one row per zone);
- entries from any other source (hand-sourced prices, reserved prices, notes) are kept as they are;
- instance types not in the catalog are listed, not added: a new instance needs its GPU mapped and
  sourced by hand first.

Output is deterministic (same input, same bytes). Python 3 standard library only.
"""
import argparse
import csv
import io
import json
import os
import re
import sys
import urllib.request

SKYPILOT_COLUMNS = ["InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "GpuInfo", "Price",
                    "SpotPrice", "Region"]
GPUHUNT_COLUMNS = ["instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "gpu_memory", "spot"]


class InputError(Exception):
    """Bad input: the message says what and where."""


def read_text(where):
    if re.match(r"^https?://", where):
        with urllib.request.urlopen(where, timeout=60) as r:  # network is optional: a local file works too
            return r.read().decode("utf-8")
    with open(where, encoding="utf-8") as f:
        return f.read()


def price_value(text, where, column):
    if text is None or text.strip() == "":
        return None
    try:
        v = float(text)
    except ValueError:
        raise InputError(f"{where}: column {column}: '{text}' is not a number")
    if v != v or v < 0 or v > 2000:
        raise InputError(f"{where}: column {column}: {text} is outside 0 to 2000 USD per hour")
    return v if v > 0 else None


def keep_lowest(prices, key, kind, value):
    if value is None:
        return
    entry = prices.setdefault(key, {})
    if kind not in entry or value < entry[kind]:
        entry[kind] = value


def parse_catalog(text, fmt, name):
    """{(instance_type, region): {"on_demand": usd, "spot": usd}} from one catalog CSV."""
    reader = csv.DictReader(io.StringIO(text))
    need = SKYPILOT_COLUMNS if fmt == "skypilot" else GPUHUNT_COLUMNS
    missing = [c for c in need if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{name}: not a {fmt} catalog CSV: missing column(s) {', '.join(missing)}")
    prices = {}
    for line, row in enumerate(reader, start=2):
        where = f"{name}:{line}"
        if fmt == "skypilot":
            if not row["InstanceType"]:
                continue  # TPU rows have no instance type
            key = (row["InstanceType"], row["Region"])
            keep_lowest(prices, key, "on_demand", price_value(row["Price"], where, "Price"))
            keep_lowest(prices, key, "spot", price_value(row["SpotPrice"], where, "SpotPrice"))
        else:
            spot = row["spot"].strip().lower()
            if spot not in ("true", "false"):
                raise InputError(f"{where}: column spot: '{row['spot']}' is not True or False")
            key = (row["instance_name"], row["location"])
            keep_lowest(prices, key, "spot" if spot == "true" else "on_demand", price_value(row["price"], where, "price"))
    return prices


def update_instance(doc, provider_prices, source_key, source, date):
    """Replaces this snapshot's entries in one instance document; returns True when it changed."""
    before = json.dumps(doc, sort_keys=True)
    kept = [p for p in doc.get("prices", []) if p.get("source") != source_key]
    for region, figures in sorted(provider_prices.items()):
        kept.append({
            "region": region,
            "source": source_key,
            "date": date,
            "on_demand_usd_per_hour": figures.get("on_demand"),
            "reserved_1y_usd_per_hour": None,
            "reserved_3y_usd_per_hour": None,
            "spot_usd_per_hour": figures.get("spot"),
            "note": "written by tools/update_prices from the catalog snapshot; lowest price over the region's zones",
        })
    kept.sort(key=lambda p: (p["region"], p["source"]))
    doc["prices"] = kept
    if any(p["source"] == source_key for p in kept):
        doc.setdefault("sources", {})[source_key] = source
    return json.dumps(doc, sort_keys=True) != before


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--format", choices=["skypilot", "gpuhunt"], required=True)
    ap.add_argument("--provider", required=True, help="provider id in data/providers (e.g. aws)")
    ap.add_argument("--input", required=True, help="catalog CSV: a local path or an http(s) URL")
    ap.add_argument("--snapshot-repo", required=True, help="e.g. skypilot-org/skypilot-catalog")
    ap.add_argument("--snapshot-commit", required=True, help="commit of the snapshot read")
    ap.add_argument("--snapshot-path", required=True, help="path of the CSV in that repository")
    ap.add_argument("--snapshot-date", required=True, help="date of the snapshot's commit, YYYY-MM-DD")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "data"))
    args = ap.parse_args(argv)
    try:
        if not re.match(r"^\d{4}-\d{2}-\d{2}$", args.snapshot_date):
            raise InputError(f"--snapshot-date: '{args.snapshot_date}' is not YYYY-MM-DD")
        if not re.match(r"^[0-9a-f]{7,40}$", args.snapshot_commit):
            raise InputError(f"--snapshot-commit: '{args.snapshot_commit}' is not a git commit id")
        prices = parse_catalog(read_text(args.input), args.format, os.path.basename(args.input))
    except (InputError, OSError) as e:
        print(f"update_prices: error: {e}", file=sys.stderr)
        return 1
    source_key = f"{args.format}-{args.snapshot_date}"
    source = {
        "title": f"{args.snapshot_repo}@{args.snapshot_commit[:12]} {args.snapshot_path} ({args.format} catalog snapshot, "
                 f"read by tools/update_prices)",
        "url": f"https://github.com/{args.snapshot_repo}/blob/{args.snapshot_commit}/{args.snapshot_path}",
        "date": args.snapshot_date,
        "date_kind": "published",
    }
    by_type = {}
    for (itype, region), figures in prices.items():
        by_type.setdefault(itype, {})[region] = figures
    inst_dir = os.path.join(args.data, "instances")
    with open(os.path.join(args.data, "providers", f"{args.provider}.json"), encoding="utf-8") as f:
        known_regions = {r["id"] for r in json.load(f)["regions"]}
    changed, unknown, skipped_regions = [], [], set()
    for itype in by_type:
        for region in list(by_type[itype]):
            if region not in known_regions:
                skipped_regions.add(region)
                del by_type[itype][region]
    for itype in sorted(by_type):
        path = os.path.join(inst_dir, f"{args.provider}-{itype}.json")
        if not os.path.exists(path):
            unknown.append(itype)
            continue
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        if not by_type[itype]:
            continue
        if update_instance(doc, by_type[itype], source_key, source, args.snapshot_date):
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
            changed.append(os.path.basename(path))
    for name in changed:
        print(f"updated {name}")
    if unknown:
        print(f"not in the catalog (add by hand first): {', '.join(unknown)}")
    if skipped_regions:
        print(f"regions not in data/providers/{args.provider}.json (skipped): {', '.join(sorted(skipped_regions))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
