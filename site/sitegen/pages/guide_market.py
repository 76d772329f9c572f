"""The guide's market claims: the three configuration tiers (GPUs, price ranges, discounts), spot
savings, the provider/instance pairs and compliance, each against the catalog. Numbers typed here
are the guide's own; see guide.py."""

import re
import statistics

from ..facts import ALIBABA_FRAMEWORKS, HYBRID_CUBE_MESH, PROVIDER_FALLBACK, price_cny, price_usd
from ..format import cny, gb, pct, usd

# The guide's tiers: the GPUs it names (with the memory it states, GB) as catalog ids, its
# on-demand range ($/h per instance) and the discount it promises, with the catalog price kinds
# that come closest to that discount's commitment, closest first.
TIERS = {
    "entry": {"gpus": [("T4", 16, ["t4"]), ("MI25", None, ["mi25"])], "range": (0.35, 0.8),
              "discount": 0.30, "kinds": ["reserved_1y"]},
    "mid": {"gpus": [("A40", 48, ["a40"]), ("V100 32GB", 32, ["v100-sxm2-32gb", "v100-pcie-32gb"])],
            "range": (1.2, 2.5), "discount": 0.40, "kinds": ["reserved_1y", "reserved_3y"]},
    "high": {"gpus": [("H100 80GB", 80, ["h100-sxm5-80gb", "h100-pcie-80gb"]),
                      ("A100 80GB", 80, ["a100-sxm4-80gb", "a100-pcie-80gb"])],
             "range": (8.0, 15.0), "discount": 0.50, "kinds": ["reserved_3y", "reserved_1y"]},
}
ORDER = ["correct", "qualified", "catalog", "misleading", "wrong"]


def worse(a, b):
    return a if ORDER.index(a) > ORDER.index(b) else b


def discount_verdict(discounts, claimed):
    if not discounts:
        return "misleading"
    if abs(statistics.median(discounts) - claimed) <= 0.05:
        return "correct"
    return "qualified" if min(discounts) - 0.05 <= claimed <= max(discounts) + 0.05 else "wrong"


def memory_matches(mem_bytes, claimed_gb):
    return any(abs(mem_bytes / scale / claimed_gb - 1) <= 0.03 for scale in (1e9, 2**30))


class Checks:
    def __init__(self, site, claim_type):
        self.site, self.cat, self.cli = site, site.cat, site.cli
        self.Claim = claim_type

    def claim(self, key, template=None):
        return self.Claim(key, self.cli, template)

    def carrying(self, gpu_ids):
        return sorted(i for i, d in self.cat.instances_data.items() if d["gpu"] in gpu_ids)

    def tier_gpus(self, tier):
        c = self.claim(f"{tier}-gpus", "tier-gpus")
        c.commands += [self.cli.display(["gpus"]) + " --json", self.cli.display(["instances"]) + " --json"]
        verdict, missing, rented = "correct", [], {}
        for name, claimed_gb, ids in TIERS[tier]["gpus"]:
            ids = [g for g in ids if g in self.cat.gpus_data]
            for gid in ids:
                mem = self.cat.memory(gid)
                c.fact("memory", f"{gb(mem)} ({mem / 2**30:.1f} GiB)", gpu=gid)
                if claimed_gb and not memory_matches(mem, claimed_gb):
                    verdict = worse(verdict, "wrong")
            rented[name] = self.carrying(ids)
            c.fact("instances", ", ".join(f"`{i}`" for i in rented[name]) or "–", gpu=name)
            if not ids or not rented[name]:
                missing.append(name)
                verdict = worse(verdict, "misleading")
        c.verdict = verdict
        c.ctx = dict(tier=tier, missing=missing, rented={k: len(v) for k, v in rented.items()})
        return c

    def tier_discounts(self, ids, kinds):
        """(kind, scope, discounts): sourced discounts of the closest price kind that the tier's
        instances have; where none has one, of the closest kind any catalog instance has."""
        for scope in ("tier", "catalog"):
            for kind in kinds:
                found = [1 - price_usd(p, kind) / price_usd(p, "on_demand") for _, inst, p in self.cat.prices()
                         if (scope == "catalog" or inst["gpu"] in ids) and price_usd(p, kind) is not None
                         and price_usd(p, "on_demand")]
                if found:
                    return kind, scope, found
        return kinds[0], "catalog", []

    def tier_prices(self, tier):
        t = TIERS[tier]
        c = self.claim(f"{tier}-prices", "tier-prices")
        c.commands.append(self.cli.display(["instances"]) + " --json")
        ids = {g for _, _, gids in t["gpus"] for g in gids}
        lo, hi = t["range"]
        od, per_gpu = [], []
        for iid, inst, p in self.cat.prices():
            v = price_usd(p, "on_demand")
            if inst["gpu"] not in ids or v is None:
                continue
            od.append(v)
            per_gpu.append(v / inst["gpu_count"])
            c_od = price_cny(p, "on_demand")
            c.fact("price", usd(v) + (f" ({cny(c_od)})" if c_od is not None else ""), inst=iid,
                   region=p.get("region", ""), n=inst["gpu_count"])
        kind, scope, discounts = self.tier_discounts(ids, t["kinds"])
        median = statistics.median(discounts) if discounts else None
        c.fact("discounts", f"{pct(min(discounts), 2)}–{pct(max(discounts), 2)}, median {pct(median, 2)}"
               if discounts else "–", kind=kind, n=len(discounts))
        inside = sum(lo <= v <= hi for v in od)
        share = inside / len(od) if od else 0
        price_v = "correct" if od and share == 1 else "qualified" if share >= 0.5 else \
            "misleading" if share > 0 else "wrong"
        c.verdict = worse(price_v, discount_verdict(discounts, t["discount"]))
        c.ctx = dict(tier=tier, n=len(od), inside=inside, lo=min(od, default=None), hi=max(od, default=None),
                     gpu_lo=min(per_gpu, default=None), gpu_hi=max(per_gpu, default=None), kind=kind, scope=scope,
                     n_disc=len(discounts), median=median, price_verdict=price_v)
        return c

    def spot(self):
        """Sourced spot prices against on-demand; then what interruptions leave of the saving."""
        c = self.claim("spot")
        pairs = [(iid, price_usd(p, "spot"), price_usd(p, "on_demand")) for iid, _, p in self.cat.prices()
                 if price_usd(p, "spot") and price_usd(p, "on_demand")]
        for iid, s, o in pairs:
            c.fact("pair", f"{usd(s)} / {usd(o)} → −{pct(1 - s / o, 2)}", inst=iid)
        discounts = [1 - s / o for _, s, o in pairs]
        rule = self.cat.pricing_rules["discounts"]["spot"]
        base = ["estimate", "--model", "gpt2-small", "--batch", "64", "--seq", "1024", "--precision", "amp-bf16",
                "--instance", "aws-g6e.xlarge", "--tokens", "1e9"]
        on_demand = c.run(base)["cost"]
        spot = c.run(base + ["--pricing", "spot", "--spot-interruptions-per-hour", "0.1",
                             "--checkpoint-interval-hours", "1", "--restart-hours", "0.25"])["cost"]
        effective = 1 - spot["usd_total"] / on_demand["usd_total"]
        c.fact("rule", f"−{pct(rule, 2)}")
        c.fact("effective", f"{usd(on_demand['usd_total'])} → {usd(spot['usd_total'])}: −{pct(effective, 2)}")
        nominal = statistics.median(discounts) if discounts else rule
        if abs(nominal - 0.7) > 0.1:
            c.verdict = "wrong"
        else:
            c.verdict = "correct" if discounts and effective >= 0.6 else "qualified"
        c.ctx = dict(n=len(pairs), lo=min(discounts) if discounts else None, hi=max(discounts) if discounts else None,
                     median=nominal, sourced=bool(discounts), rule=rule, effective=effective,
                     hours=on_demand["hours"], expected_hours=spot["expected_hours"])
        return c

    def family(self, provider, family):
        """The catalog's instances of a provider's family (`ecs.gn6i-c4g1.xlarge` is family gn6i)."""
        def fam(instance_type):
            t = instance_type.lower()
            t = t[4:] if t.startswith("ecs.") else t
            return re.split(r"[.\-]", t)[0]
        return sorted((i for i in self.cat.instances.values()
                       if i["provider"] == provider and fam(i["instance_type"]) == family), key=lambda i: i["id"])

    def provider_pair(self, key, provider, family, claimed_gpu_prefix):
        """Which GPU a family carries, from the catalog, else from the provider's documentation."""
        c = self.claim(key)
        c.commands.append(self.cli.display(["instances", "--provider", provider]) + " --json")
        found = self.family(provider, family)
        gpus = {}
        for i in found:
            d = self.cat.instances_data[i["id"]]
            gpus[i["gpu"]] = self.cat.gpus[i["gpu"]]["name"]
            inter = (d.get("specs", {}).get("gpu_interconnect") or {}).get("value")
            c.fact("instance", f"{i['gpu_count']} × {gpus[i['gpu']]}" + (f", {inter}" if inter else ""),
                   inst=i["id"])
        fallback = None
        if not found:
            fallback = PROVIDER_FALLBACK[(provider, family)]
            gpus = {fallback["gpu"]: fallback["gpu_name"]}
            c.fact("documented", f"{fallback['gpu_name']} ({fallback['gpu_memory_gb']} GB)")
        claimed_ok = all(g.startswith(claimed_gpu_prefix) for g in gpus)
        c.ctx = dict(found=[i["id"] for i in found], gpus=list(gpus.values()), gpu_ids=list(gpus),
                     fallback=fallback, claimed_ok=claimed_ok, max_gpus=max((i["gpu_count"] for i in found),
                                                                             default=None))
        return c

    def aws_p4d(self):
        c = self.provider_pair("aws-p4d", "aws", "p4d", "a100")
        counts = [self.cat.instances[i]["gpu_count"] for i in c.ctx["found"]]
        c.verdict = "qualified" if c.ctx["claimed_ok"] and 8 in counts else "wrong"
        return c

    def alibaba_gn6i(self):
        c = self.provider_pair("alibaba-gn6i", "alibaba", "gn6i", "v100")
        c.ctx["frameworks"] = ALIBABA_FRAMEWORKS
        c.verdict = "qualified" if c.ctx["claimed_ok"] else "wrong"
        return c

    def tencent_gn10xp(self):
        c = self.provider_pair("tencent-gn10xp", "tencent", "gn10xp", "h100")
        v100 = any(g.startswith("v100") for g in c.ctx["gpu_ids"])
        c.fact("topology", f"{HYBRID_CUBE_MESH['gpus']} × V100: {HYBRID_CUBE_MESH['neighbours']} / "
                           f"{HYBRID_CUBE_MESH['gpus'] - 1}" if v100 else "–")
        c.ctx.update(mesh=HYBRID_CUBE_MESH, v100=v100)
        c.verdict = "qualified" if c.ctx["claimed_ok"] else "wrong"
        return c

    def govcloud(self):
        """The catalog's compliance flags of AWS's government regions, and where GDPR regions are."""
        c = self.claim("govcloud")
        gov, gdpr = [], []
        for pid, p in sorted(self.cat.providers_data.items()):
            for r in p.get("regions", []):
                flags = {k: (v.get("value") if isinstance(v, dict) else v) for k, v in r.get("compliance", {}).items()}
                if flags.get("gov"):
                    gov.append((pid, r["id"], flags))
                if flags.get("gdpr_eu"):
                    gdpr.append(f"{pid} {r['id']}")
        priced = {rid: sum(1 for _, _, pr in self.cat.prices() if pr.get("region") == rid) for _, rid, _ in gov}
        mark = {True: "✔", False: "✘", None: "?"}
        for pid, rid, flags in gov:
            c.fact("gov", f"HIPAA {mark[flags.get('hipaa')]}, GDPR (EU) {mark[flags.get('gdpr_eu')]}; {priced[rid]}",
                   region=f"{pid} {rid}")
        c.fact("gdpr", ", ".join(gdpr) or "–")
        hipaa = any(f.get("hipaa") for _, _, f in gov)
        gdpr_gov = any(f.get("gdpr_eu") for _, _, f in gov)
        c.verdict = "correct" if hipaa and gdpr_gov else "misleading" if gov else "wrong"
        c.ctx = dict(gov=[f"{p} {r}" for p, r, _ in gov], hipaa=hipaa, gdpr_gov=gdpr_gov, gdpr=gdpr,
                     priced=sum(priced.values()))
        return c
