"""What the site states about the catalog: data/ read directly (sources, dates, notes) and the
catalog as the CLI reports it (the numbers the core uses). The two must agree (cli.refuse_stale).

Dataset sizes that two of the guide's claims need are not part of the catalog; each is cited here
and on the page that shows it."""

import csv
import datetime as dt
import glob
import json
import os

from . import ROOT
from .cli import refuse_stale
from .format import link

STALE_DAYS = 180  # a price older than this (relative to the build date) is flagged stale

IMAGENET_TRAIN_IMAGES = 1281167   # ILSVRC-2012 training set (Russakovsky et al. 2015, table 2)
MNLI_TRAIN_EXAMPLES = 392702      # GLUE MNLI training split (Williams et al. 2018; GLUE, Wang et al. 2018)
BERT_FINETUNE_EPOCHS = 3          # Devlin et al. 2018, sec. 4.1: "fine-tune for 3 epochs" on GLUE

PRICE_KINDS = ("on_demand", "reserved_1y", "reserved_3y", "spot")


def load_json_dir(data, kind):
    out = []
    for path in sorted(glob.glob(os.path.join(data, kind, "*.json"))):
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        d["_file"] = os.path.relpath(path, ROOT)
        out.append(d)
    return out


def parse_date(s):
    """YYYY-MM-DD, or YYYY-MM (a source that gives only the month: its first day, so the age is
    never understated); anything else (\"unknown\", None) is None."""
    try:
        return dt.date.fromisoformat(s + "-01" if isinstance(s, str) and len(s) == 7 else s)
    except (TypeError, ValueError):
        return None


def price_age(date, build_date, flagged=False):
    """(age in days, stale?) of a price dated `date` at `build_date`; undated, or flagged stale by
    the catalog (an undated snapshot), is stale."""
    d = parse_date(date)
    if d is None:
        return None, True
    age = (build_date - d).days
    return age, flagged or age > STALE_DAYS


def source_ref_parts(sources, key):
    """One source key of a data file, for the templates' `src` macro (title linked, date kind, date)."""
    s = sources.get(key)
    if not s:
        return {"key": key, "missing": True}
    return {"key": key, "missing": False, "title": link(s.get("title", key), s.get("url")),
            "kind": s.get("date_kind", ""), "date": s.get("date", "?")}


def price_cny(p, kind):
    """The CNY figure of a price the catalog stores in CNY (`<kind>_cny_per_hour`), else None."""
    v = p.get(f"{kind}_cny_per_hour")
    return v if isinstance(v, (int, float)) else None


def usd_per_cny(p):
    rate = p.get("usd_per_cny")
    rate = rate.get("value") if isinstance(rate, dict) else rate
    return rate if isinstance(rate, (int, float)) and rate > 0 else None


def price_usd(p, kind):
    """USD per hour: the stored USD figure, or a CNY price converted at the rate stored with it."""
    v = p.get(f"{kind}_usd_per_hour")
    if isinstance(v, (int, float)):
        return v
    c, rate = price_cny(p, kind), usd_per_cny(p)
    return c * rate if c is not None and rate else None


def measured_rows():
    """The published measurements of tests/validation/throughput_dev.csv (NVIDIA DeepLearningExamples)."""
    path = os.path.join(ROOT, "tests", "validation", "throughput_dev.csv")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(ln for ln in f if not ln.startswith("#")))


class Catalog:
    """data/ as files (`*_data`, with sources) and as the CLI reports it (gpus, instances, models)."""

    def __init__(self, cli, data_dir):
        self.data_dir = data_dir
        self.gpus_data = {g["id"]: g for g in load_json_dir(data_dir, "gpus")}
        self.instances_data = {i["id"]: i for i in load_json_dir(data_dir, "instances")}
        self.models_data = {m["id"]: m for m in load_json_dir(data_dir, "models")}
        self.providers_data = {p["id"]: p for p in load_json_dir(data_dir, "providers")}
        with open(os.path.join(data_dir, "assumptions.json"), encoding="utf-8") as f:
            self.assumptions = json.load(f)
        with open(os.path.join(data_dir, "pricing_rules.json"), encoding="utf-8") as f:
            self.pricing_rules = json.load(f)
        self.gpus = {g["id"]: g for g in cli.json(["gpus"])}
        self.instances = {i["id"]: i for i in cli.json(["instances"])}
        self.models = {m["id"]: m for m in cli.json(["models"])}
        refuse_stale(self.gpus, self.gpus_data, self.instances, self.instances_data)

    def assumption(self, key):
        return self.assumptions["assumptions"][key]["value"]

    def dense_peak(self, gid, prec):
        """FLOP/s, or None where the catalog has no sourced dense peak at that precision."""
        f = self.gpus[gid].get("peak_dense_flop_per_s", {}).get(prec)
        return f["value"] if f else None

    def sparse_peak(self, gid, prec):
        f = self.gpus_data[gid]["specs"].get("peak_sparse_tflops", {}).get(prec)
        return f["value"] * 1e12 if f else None

    def bandwidth(self, gid):
        """Bytes/s, or None where the catalog has no sourced memory bandwidth."""
        return (self.gpus[gid].get("memory_bandwidth_bytes_per_s") or {}).get("value")

    def memory(self, gid):
        return self.gpus_data[gid]["specs"]["memory_bytes"]["value"]

    def spec(self, gid, key):
        f = self.gpus_data[gid]["specs"].get(key)
        return f.get("value") if isinstance(f, dict) else None

    def prices(self):
        """(instance id, instance data, price) for every dated price in data/instances."""
        for iid, inst in sorted(self.instances_data.items(), key=lambda kv: (kv[1]["provider"], kv[0])):
            for p in inst.get("prices", []):
                yield iid, inst, p


# Public facts behind the guide's provider claims, used only where data/instances has no instance
# of the family yet (the catalog takes precedence as soon as it has one). Quotes from the providers'
# own documentation repositories.
PROVIDER_FALLBACK = {
    ("alibaba", "gn6i"): {
        "gpu": "t4", "gpu_name": "NVIDIA T4", "gpu_memory_gb": 16, "interconnect": None,
        "title": "AlibabaCloudDocs/ecs, cn.zh-CN/实例/实例规格族.md (GPU计算型实例规格族gn6i: \"GPU加速器：T4\", "
                 "\"单GPU显存16 GB\")",
        "url": "https://github.com/AlibabaCloudDocs/ecs/blob/master/cn.zh-CN/实例/实例规格族.md",
        "date": "2021-07-17"},
    ("tencent", "gn10xp"): {
        "gpu": "v100-sxm2-32gb", "gpu_name": "NVIDIA Tesla V100 NVLink 32 GB", "gpu_memory_gb": 32,
        "interconnect": "nvlink-hybrid-cube-mesh",
        "title": "tencentyun/intlcloud-documents, yehe_doc/计算/GPU 云服务器/实例类型/计算型实例_intl_zh.md "
                 "(GN10Xp: \"NVIDIA Tesla V100 NVLink 32G\", \"300GB/s NVLink\")",
        "url": "https://github.com/tencentyun/intlcloud-documents/blob/b7e17ea691c4ad7ae878e00e9d6dc37ff7ae1f1c/"
               "yehe_doc/计算/GPU%20云服务器/实例类型/计算型实例_intl_zh.md",
        "date": "2023-06-30"},
}
# What Alibaba Cloud says of its optional training environment on GPU instances (the guide claims a
# PyTorch image preinstalled on gn6i).
ALIBABA_FRAMEWORKS = {
    "quote": "Conda环境包括AIACC-Training及OpenMPI等依赖包，但不包括深度学习框架",
    "title": "AlibabaCloudDocs/ecs, cn.zh-CN/实例/选择实例规格/GPU计算型/使用AIACC-Training.md",
    "url": "https://github.com/AlibabaCloudDocs/ecs/blob/7e46ccdcfbe5aaf868e15a862ee8e692d9361831/cn.zh-CN/实例/"
           "选择实例规格/GPU计算型/使用AIACC-Training.md",
    "date": "commit 7e46ccd"}
# Eight V100s on NVLink 2 (six links each) form a hybrid cube mesh: each GPU links directly to four
# of the other seven, so the eight are not fully connected (NVSwitch, from A100 on, is).
HYBRID_CUBE_MESH = {
    "neighbours": 4, "gpus": 8,
    "title": "PyTorch, torch/csrc/distributed/c10d/intra_node_comm.cu, NOTE [hybrid cube mesh]: \"every device "
             "has exactly 4 neighbors\"",
    "url": "https://github.com/pytorch/pytorch/blob/v2.3.0/torch/csrc/distributed/c10d/intra_node_comm.cu",
    "date": "2024-04-24"}
