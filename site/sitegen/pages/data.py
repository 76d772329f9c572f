"""Data page: GPUs, instances, prices (USD, and CNY where the catalog stores a CNY price) with
their ages, providers and compliance flags, models with computed parameter counts."""

import re

from .. import BuildError
from ..facts import PRICE_KINDS, STALE_DAYS, parse_date, price_age, price_cny, price_usd, source_ref_parts
from ..format import cell, cny, link, sig, usd
from .method import rules

PRECISIONS = ["fp32", "tf32", "fp16", "bf16", "fp8", "fp4"]


def build(site):
    gpus(site)
    sources = InstanceSources()
    instances(site, sources)
    prices(site, sources)
    site.out.render("data-instance-sources", rows=sources.rows())
    providers(site)
    models(site)
    rules(site, "data")


def leaf_facts(key, f):
    """(dotted key, fact) for each fact under `key`: peaks per precision, serving GEMM rates per
    runtime and weight format."""
    if isinstance(f, dict) and "value" not in f:
        return [fact for k, sub in f.items() for fact in leaf_facts(f"{key}.{k}", sub)]
    return [(key, f)]


def gpus(site):
    rows, parts = [], []
    for gid, g in sorted(site.cat.gpus_data.items()):
        s = g["specs"]
        dense, sparse = s.get("peak_dense_tflops", {}), s.get("peak_sparse_tflops", {})

        def v(key, scale=1.0):
            f = s.get(key)
            return sig(f["value"] * scale, 4) if f and f.get("value") is not None else "–"
        rows.append([f"[`{gid}`](#gpu-{gid})", g.get("name", ""), v("memory_bytes", 1e-9),
                     v("memory_bandwidth_gb_per_s")] +
                    [sig(dense[p]["value"], 4) if p in dense else "–" for p in PRECISIONS] +
                    [sig(sparse["fp16"]["value"], 4) if "fp16" in sparse else "–",
                     v("nvlink_bandwidth_gb_per_s"), v("tdp_w")])
        facts = [fact for key, f in s.items() for fact in leaf_facts(key, f)]
        parts.append({"id": gid, "name": g.get("name", gid), "file": g["_file"],
                      "facts": [{"key": k, "value": cell(f.get("value")), "note": f.get("note", ""),
                                 "source": source_ref_parts(g.get("sources", {}), f.get("source", ""))}
                                for k, f in facts]})
    site.out.render("data-gpus", rows=rows, precisions=[p.upper() for p in PRECISIONS])
    site.out.render("data-gpu-sources", gpus=parts)


class InstanceSources:
    """Short names for the instance files' sources; the list itself ends the Data page."""

    def __init__(self):
        self.names = {}

    def ref(self, inst, key):
        s = inst.get("sources", {}).get(key)
        if not s:
            return f"`{key}` (?)"
        ident = (s.get("title"), s.get("url"), s.get("date"), s.get("date_kind", ""))
        name, n = key, 1
        while name in self.names and self.names[name] != ident:
            n += 1
            name = f"{key}-{n}"
        self.names[name] = ident
        return f"[{name}](#src-{anchor(name)})"

    def rows(self):
        return [{"anchor": anchor(name), "name": name, "title": link(title or name, url), "kind": kind,
                 "date": date or "?"} for name, (title, url, date, kind) in sorted(self.names.items())]


def anchor(name):
    return re.sub(r"[^a-z0-9-]", "-", name.lower())


def instances(site, sources):
    rows = []
    for iid, i in sorted(site.cat.instances_data.items(), key=lambda kv: (kv[1]["provider"], kv[0])):
        s = i.get("specs", {})

        def sv(key):
            f = s.get(key)
            return cell(f["value"]) if f and f.get("value") is not None else "–"
        gpu = site.cat.gpus_data.get(i["gpu"], {}).get("name", i["gpu"])
        domain = s.get("nvlink_domain_gpus", {}).get("value", i["gpu_count"])
        rows.append([f"`{iid}`", i["provider"], i.get("instance_type", ""), f"{i['gpu_count']} × {gpu}",
                     str(domain), sv("vcpus"), sv("ram_gib"), sv("gpu_interconnect"),
                     sv("network_gbit_per_s"), sources.ref(i, i.get("gpu_source", ""))])
    site.out.render("data-instances", rows=rows)


def price_cells(p):
    """USD per kind, with the CNY figure beside it where the catalog stores the price in CNY."""
    out = []
    for kind in PRICE_KINDS:
        c = price_cny(p, kind)
        out.append(usd(price_usd(p, kind)) + (f" ({cny(c)})" if c is not None else ""))
    return out


def prices(site, sources):
    rows, stale, oldest, with_cny = [], 0, None, 0
    for iid, inst, p in site.cat.prices():
        d = parse_date(p.get("date"))
        age, is_stale = price_age(p.get("date"), site.build_date, bool(p.get("stale")))
        stale += is_stale
        with_cny += any(price_cny(p, k) is not None for k in PRICE_KINDS)
        if d and (oldest is None or d < oldest):
            oldest = d
        # What a figure buys when it is not one instance (the loader converts it to one).
        unit = {"gpu": " (per GPU)", "nvlink-domain": " (per NVLink domain)"}.get(p.get("sold_per"), "")
        rows.append({"cells": [f"`{iid}`", p.get("region", "") + unit] + price_cells(p), "date": p.get("date"),
                     "dated": d is not None, "retrieved": p.get("retrieved"), "age": "?" if age is None else str(age),
                     "stale": is_stale, "source": sources.ref(inst, p.get("source", ""))})
    site.stale_prices = (stale, len(rows))
    site.out.render("data-prices", rows=rows)
    site.out.render("data-stale", date=site.build_date.isoformat(), stale=stale, total=len(rows),
                    days=STALE_DAYS, oldest=oldest.isoformat() if oldest else None, with_cny=with_cny)


def providers(site):
    rows = []
    for pid, p in sorted(site.cat.providers_data.items()):
        for r in p.get("regions", []):
            comp = r.get("compliance", {})
            flags = ", ".join(f"{k}: {v.get('value') if isinstance(v, dict) else v}" for k, v in comp.items()) or "–"
            rows.append([f"`{pid}`", p.get("name", ""), f"`{r.get('id', '')}`",
                         r.get("name", r.get("location", "")) or "", flags, r.get("note", "")])
    site.out.render("data-providers", rows=rows)


def models(site):
    rows = []
    for mid, m in sorted(site.cat.models.items()):
        try:
            params = sig(site.cli.json(["estimate", "--model", mid, "--batch", "1"])["params"], 4)
        except BuildError as e:
            params = f"– ({e})"
        src = m.get("source", {})
        rows.append([f"`{mid}`", m.get("name", ""), m.get("kind", ""), m.get("task", ""), params,
                     f"{link(src.get('title', ''), src.get('url'))} ({src.get('date', '?')})"])
    site.out.render("data-models", rows=rows)
