// Parsers for data/gpus, data/instances, data/providers and data/pricing_rules.json.
// Every fact is {"value": ..., "source": KEY, "note"?, "see_also"?} where KEY names an entry of
// the file's "sources" map, which must carry a title and a date.
#include <cmath>
#include <cstdio>

#include "gpuplan/catalog.h"
#include "catalog/assumption_keys.h"
#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

using Sources = std::map<std::string, FactSource>;

bool is_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

void read_sources(JsonReader& r, Sources& out, bool required = true) {
  const nlohmann::json* j = r.object("sources", required);
  if (!j) return;
  for (const auto& [key, value] : j->items()) {
    JsonReader sr(value, r.where(), "sources." + key);
    FactSource s;
    s.title = sr.string("title", std::nullopt);
    const nlohmann::json* url = sr.value("url", false);
    if (url && url->is_string())
      s.url = url->get<std::string>();
    else if (url && !url->is_null())
      sr.fail("sources." + key + ".url: expected a string or null");
    s.date = sr.string("date", std::nullopt);
    sr.choice("date_kind", {"published", "retrieved"}, 0);
    sr.ignore("note");
    if (!sr.error() && !is_date(s.date))
      sr.fail("sources." + key + ".date: '" + s.date + "' is not YYYY-MM-DD");
    if (!sr.error() && s.title.empty()) sr.fail("sources." + key + ".title: must not be empty");
    if (auto err = sr.finish()) r.fail_with(*err);
    out[key] = s;
  }
}

// Reads a fact object at `path`; returns its "value" (or nullptr if absent and optional) and
// records the fact's source under `name`.
const nlohmann::json* read_fact(JsonReader& parent, const nlohmann::json& obj,
                                const std::string& path, const Sources& sources,
                                std::map<std::string, FactSource>* record,
                                const std::string& name) {
  JsonReader f(obj, parent.where(), path);
  const nlohmann::json* value = f.value("value", false);
  const std::string source = f.string("source", std::nullopt);
  f.ignore("note");
  if (const nlohmann::json* also = f.value("see_also", false)) {
    if (!also->is_array())
      f.fail(path + ".see_also: expected an array of source keys");
    else {
      for (const auto& k : *also) {
        if (!k.is_string() || !sources.count(k.get<std::string>())) {
          f.fail(path + ".see_also: '" + (k.is_string() ? k.get<std::string>() : k.dump()) +
                 "' is not in sources");
          break;
        }
      }
    }
  }
  if (!f.error() && !value) f.fail(path + ".value: missing required field");
  if (!f.error() && !sources.count(source))
    f.fail(path + ".source: '" + source + "' is not in sources");
  if (auto err = f.finish()) {
    parent.fail_with(*err);
    return nullptr;
  }
  if (record) (*record)[name] = sources.at(source);
  return value;
}

// The precisions a peak or measured-rate map may name: "fp6" and "fp4" are the tensor-core rates
// of the 6- and 4-bit formats (NVFP4 and MXFP4 run at the fp4 rate, MXFP8 at the fp8 rate).
const std::vector<const char*> kPeakPrecisions = {"fp64", "fp32", "tf32", "fp16", "bf16",
                                                  "fp8",  "fp6",  "fp4",  "int8"};

// A numeric fact within [min, max] (plausibility check); nullopt when absent.
std::optional<double> number_fact(JsonReader& r, const nlohmann::json* parent,
                                  const std::string& parent_path, const char* key,
                                  const Sources& sources, std::map<std::string, FactSource>* record,
                                  double min, double max) {
  if (!parent || !parent->contains(key)) return std::nullopt;
  const std::string path = parent_path.empty() ? key : parent_path + "." + key;
  const nlohmann::json* v = read_fact(r, parent->at(key), path, sources, record, key);
  if (!v) return std::nullopt;
  if (!v->is_number()) {
    r.fail(path + ".value: expected a number, got " + JsonReader::type_of(*v));
    return std::nullopt;
  }
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < min || x > max) {
    auto fmt = [](double d) {
      char b[32];
      std::snprintf(b, sizeof b, "%g", d);
      return std::string(b);
    };
    r.fail(path + ".value: " + v->dump() + " is implausible (expected " + fmt(min) + " to " +
           fmt(max) + ")");
    return std::nullopt;
  }
  return x;
}

std::optional<std::string> string_fact(JsonReader& r, const nlohmann::json* parent,
                                       const std::string& parent_path, const char* key,
                                       const Sources& sources,
                                       std::map<std::string, FactSource>* record) {
  if (!parent || !parent->contains(key)) return std::nullopt;
  const std::string path = parent_path.empty() ? key : parent_path + "." + key;
  const nlohmann::json* v = read_fact(r, parent->at(key), path, sources, record, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    r.fail(path + ".value: expected a string, got " + JsonReader::type_of(*v));
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::vector<std::string> string_list(JsonReader& r, const char* key) {
  std::vector<std::string> out;
  if (const nlohmann::json* v = r.value(key, false)) {
    if (!v->is_array()) {
      r.fail(std::string(key) + ": expected an array of strings");
      return out;
    }
    for (const auto& s : *v) {
      if (!s.is_string()) {
        r.fail(std::string(key) + ": expected an array of strings");
        break;
      }
      out.push_back(s.get<std::string>());
    }
  }
  return out;
}

// Checks that every key of a fact map is one we read.
void only_keys(JsonReader& r, const nlohmann::json* obj, const std::string& path,
               const std::vector<const char*>& known) {
  if (!obj) return;
  for (const auto& item : obj->items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || item.key() == k;
    if (!ok) {
      r.fail(path + "." + item.key() + ": unknown field (check its spelling against the schema)");
      return;
    }
  }
}

Result<nlohmann::json> open_document(std::string_view text, const std::string& where) {
  return parse_json_text(text, where, kMaxJsonBytes);
}

// A price date: YYYY-MM-DD, or YYYY-MM where the source gives only the month ("as of September
// 2024").
bool is_price_date(const std::string& s) {
  return is_date(s) || (s.size() == 7 && is_date(s + "-01"));
}

// The pricing-model names a price entry may carry, with their JSON key stems.
constexpr std::pair<const char*, const char*> kPriceKinds[] = {{"on-demand", "on_demand"},
                                                               {"reserved-1y", "reserved_1y"},
                                                               {"reserved-3y", "reserved_3y"},
                                                               {"spot", "spot"}};

// "sources_by_kind": {"spot": {"source": KEY, "date": "2024-09"}}: a kind priced by another
// document.
void read_kind_origins(JsonReader& pr, const std::string& path, const Sources& sources, Price& p) {
  const nlohmann::json* by = pr.object("sources_by_kind", false);
  if (!by) return;
  for (const auto& [kind, value] : by->items()) {
    bool known = false;
    for (const auto& [name, stem] : kPriceKinds) known = known || kind == name;
    JsonReader kr(value, pr.where(), path + ".sources_by_kind." + kind);
    if (!known)
      kr.fail(path + ".sources_by_kind." + kind +
              ": not a price kind (on-demand, reserved-1y, reserved-3y, spot)");
    const std::string key = kr.string("source", std::nullopt);
    PriceOrigin o;
    o.date = kr.string("date", std::nullopt);
    if (!kr.error() && !sources.count(key))
      kr.fail(path + ".sources_by_kind." + kind + ".source: '" + key + "' is not in sources");
    if (!kr.error() && !is_price_date(o.date))
      kr.fail(path + ".sources_by_kind." + kind + ".date: '" + o.date +
              "' is not YYYY-MM-DD or YYYY-MM");
    if (auto err = kr.finish()) {
      pr.fail_with(*err);
      return;
    }
    o.source = sources.at(key);
    p.origin_by_kind[kind] = o;
  }
}

// The hourly figures of one price entry: *_usd_per_hour, or *_cny_per_hour with "currency": "CNY"
// and a sourced "usd_per_cny" rate (converted here, the CNY figure kept for display).
void read_price_figures(JsonReader& pr, const nlohmann::json& j, const std::string& path,
                        const Sources& sources, Price& p) {
  p.currency = pr.choice("currency", {"USD", "CNY"}, 0) == 1 ? "CNY" : "USD";
  const bool cny = p.currency == "CNY";
  if (cny) {
    std::map<std::string, FactSource> rec;
    pr.ignore("usd_per_cny");
    if (!pr.has("usd_per_cny"))
      pr.fail(path + ".usd_per_cny: a CNY price needs its conversion rate (a sourced fact)");
    else if (auto v = number_fact(pr, &j, path, "usd_per_cny", sources, &rec, 0.05, 0.5)) {
      p.usd_per_cny = *v;
      p.rate_source = rec["usd_per_cny"];
    }
  }
  std::optional<double>* usd[] = {&p.on_demand_usd_per_hour, &p.reserved_1y_usd_per_hour,
                                  &p.reserved_3y_usd_per_hour, &p.spot_usd_per_hour};
  int i = 0;
  for (const auto& [kind, stem] : kPriceKinds) {
    const std::string key = std::string(stem) + (cny ? "_cny_per_hour" : "_usd_per_hour");
    const std::string other = std::string(stem) + (cny ? "_usd_per_hour" : "_cny_per_hour");
    std::optional<double>& out = *usd[i++];
    if (pr.has(other.c_str()) && !pr.value(other.c_str(), true)->is_null()) {
      pr.fail(path + "." + other + ": this price's currency is " + p.currency +
              " (set \"currency\" to match)");
      return;
    }
    pr.ignore(other.c_str());
    const nlohmann::json* v = pr.value(key.c_str(), false);
    if (!v || v->is_null()) continue;
    const double max = cny ? 15000 : 2000;
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0.01 ||
        v->get<double>() > max) {
      pr.fail(path + "." + key + ": " + v->dump() + " is implausible (expected 0.01 to " +
              std::to_string(int(max)) + " " + p.currency + " per hour)");
      return;
    }
    p.native_per_hour[kind] = v->get<double>();
    out = cny ? v->get<double>() * p.usd_per_cny : v->get<double>();
  }
}

// "sold_per": what one published figure buys. A per-GPU figure is gpu_count of them per host; a
// whole NVLink domain (an NVL72 rack) is shared by its hosts. Every figure is stored per host hour.
void apply_sale_unit(JsonReader& pr, const std::string& path, const Instance& in, Price& p) {
  static const std::vector<std::string> kUnits = {"instance", "gpu", "nvlink-domain"};
  p.sold_per = kUnits[pr.choice("sold_per", kUnits, 0)];
  double per_host = 1;
  if (p.sold_per == "gpu") per_host = in.gpu_count;
  if (p.sold_per == "nvlink-domain") {
    if (in.hosts_per_domain() < 2) {
      pr.fail(path +
              ".sold_per: 'nvlink-domain' needs specs.nvlink_domain_gpus larger than the "
              "host's gpu_count");
      return;
    }
    per_host = 1.0 / in.hosts_per_domain();
  }
  for (std::optional<double>* v : {&p.on_demand_usd_per_hour, &p.reserved_1y_usd_per_hour,
                                   &p.reserved_3y_usd_per_hour, &p.spot_usd_per_hour}) {
    if (*v) **v *= per_host;
  }
  for (auto& [kind, figure] : p.native_per_hour) figure *= per_host;
}

Price parse_price(JsonReader& r, const nlohmann::json& j, const std::string& path,
                  const Sources& sources, const Instance& in) {
  JsonReader pr(j, r.where(), path);
  Price p;
  p.region = pr.string("region", std::nullopt);
  p.date = pr.string("date", std::nullopt);
  p.stale = pr.boolean("stale", false);
  const std::string source = pr.string("source", std::nullopt);
  pr.ignore("note");
  if (!pr.error() && !sources.count(source))
    pr.fail(path + ".source: '" + source + "' is not in sources");
  if (!pr.error() && p.date == "unknown") {
    // An undated snapshot: keep when it was retrieved, never invent a date.
    p.date.clear();
    p.retrieved = pr.string("retrieved", std::nullopt);
    if (!pr.error() && !is_date(p.retrieved))
      pr.fail(path + ".retrieved: '" + p.retrieved + "' is not YYYY-MM-DD");
    if (!pr.error() && !p.stale)
      pr.fail(path + ".stale: an undated price must be marked stale (\"stale\": true)");
  } else if (!pr.error() && !is_price_date(p.date)) {
    pr.fail(path + ".date: '" + p.date + "' is not YYYY-MM-DD, YYYY-MM or \"unknown\"");
  }
  if (!pr.error()) p.source = sources.at(source);
  if (!pr.error()) read_price_figures(pr, j, path, sources, p);
  if (!pr.error()) apply_sale_unit(pr, path, in, p);
  if (!pr.error()) read_kind_origins(pr, path, sources, p);
  if (auto err = pr.finish()) r.fail_with(*err);
  return p;
}

// "pricing_models": {"spot": {"value": true, "source": KEY}, ...}: what the provider really sells.
void read_pricing_models(JsonReader& r, const Sources& sources, Provider& p) {
  const nlohmann::json* m = r.object("pricing_models", false);
  if (!m) return;
  only_keys(r, m, "pricing_models",
            {"on-demand", "monthly", "reserved-1y", "reserved-3y", "bulk", "spot"});
  for (const auto& [kind, value] : m->items()) {
    std::map<std::string, FactSource> rec;
    const nlohmann::json* v = read_fact(r, value, "pricing_models." + kind, sources, &rec, kind);
    if (!v) return;
    if (!v->is_boolean()) {
      r.fail("pricing_models." + kind + ".value: expected true or false");
      return;
    }
    p.pricing_models[kind] = {v->get<bool>(), rec[kind]};
  }
}

// "spot_interruption_buckets": [{"id", "provider", "label", "min_fraction_per_month",
// "max_fraction_per_month", "source"}]: the published buckets a user may pick.
void read_spot_buckets(JsonReader& r, const Sources& sources, PricingRules& rules) {
  const nlohmann::json* b = r.value("spot_interruption_buckets", false);
  if (!b) return;
  if (!b->is_array()) {
    r.fail("spot_interruption_buckets: expected an array");
    return;
  }
  for (size_t i = 0; i < b->size() && !r.error(); ++i) {
    const std::string path = "spot_interruption_buckets[" + std::to_string(i) + "]";
    JsonReader br((*b)[i], r.where(), path);
    SpotBucket s;
    s.id = br.string("id", std::nullopt);
    s.provider = br.string("provider", std::nullopt);
    s.label = br.string("label", std::nullopt);
    s.min_fraction_per_month = br.number("min_fraction_per_month", std::nullopt, 0, 1);
    s.max_fraction_per_month = br.number("max_fraction_per_month", std::nullopt, 0, 1);
    const std::string key = br.string("source", std::nullopt);
    br.ignore("note");
    if (!br.error() && !sources.count(key))
      br.fail(path + ".source: '" + key + "' is not in sources");
    if (!br.error() && s.max_fraction_per_month < s.min_fraction_per_month) {
      br.fail(path + ": max_fraction_per_month is below min_fraction_per_month");
    }
    if (auto err = br.finish())
      r.fail_with(*err);
    else {
      s.source = sources.at(key);
      rules.spot_buckets.push_back(s);
    }
  }
}

// "nvlink_domain_gpus": the GPUs that reach each other over NVLink across hosts (72 for an NVL72
// rack of 18 trays of 4). A whole number of hosts, joined by NVLink, at most NVLink 5's 576.
void read_nvlink_domain(JsonReader& r, const nlohmann::json* specs, const Sources& sources,
                        Instance& in) {
  auto v = number_fact(r, specs, "specs", "nvlink_domain_gpus", sources, nullptr, 1, 576);
  if (!v || r.error()) return;
  const auto gpus = static_cast<int>(*v);
  if (gpus != *v || gpus < in.gpu_count || gpus % in.gpu_count != 0) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", *v);
    r.fail("specs.nvlink_domain_gpus.value: " + std::string(value) +
           " is not a whole number of hosts of gpu_count " + std::to_string(in.gpu_count));
  } else if (gpus > in.gpu_count && in.gpu_interconnect != "nvlink" &&
             in.gpu_interconnect != "nvswitch") {
    r.fail(
        "specs.nvlink_domain_gpus: a domain larger than the host needs specs.gpu_interconnect "
        "nvlink or nvswitch");
  } else {
    in.nvlink_domain_gpus = gpus;
  }
}

}  // namespace

int Instance::domain_gpus() const {
  return nvlink_domain_gpus > gpu_count ? nvlink_domain_gpus : gpu_count;
}

int Instance::hosts_per_domain() const {
  return gpu_count > 0 ? domain_gpus() / gpu_count : 1;
}

std::string Price::date_label() const {
  if (!date.empty()) return date;
  return "date unknown" + (retrieved.empty() ? std::string() : ", retrieved " + retrieved);
}

namespace {

const std::vector<const char*> kServingRuntimes = {"trtllm", "vllm", "sglang"};
const std::vector<const char*> kServingFormats = {"bf16", "fp8", "nvfp4"};
const std::vector<const char*> kServingMoeFormats = {"mxfp4", "int4"};

// Calls read(entry, path, "runtime/format") for each object specs.<table>.<runtime>.<format>,
// every level checked for its keys; stops at the first error.
template <class Read>
void read_serving_table(JsonReader& r, const nlohmann::json* specs, const std::string& table,
                        const std::vector<const char*>& formats, Read read) {
  if (!specs || !specs->contains(table)) return;
  const nlohmann::json& by_runtime = specs->at(table);
  const std::string tpath = "specs." + table;
  if (!by_runtime.is_object()) return r.fail(tpath + ": expected an object");
  only_keys(r, &by_runtime, tpath, kServingRuntimes);
  for (const char* runtime : kServingRuntimes) {
    if (!by_runtime.contains(runtime)) continue;
    const std::string rpath = tpath + "." + runtime;
    const nlohmann::json& by_format = by_runtime.at(runtime);
    if (!by_format.is_object()) return r.fail(rpath + ": expected an object");
    only_keys(r, &by_format, rpath, formats);
    for (const char* format : formats) {
      if (!by_format.contains(format)) continue;
      const std::string path = rpath + "." + format;
      const nlohmann::json& f = by_format.at(format);
      if (!f.is_object()) return r.fail(path + ": expected an object");
      read(f, path, std::string(runtime) + "/" + format);
      if (r.error()) return;
    }
  }
}

// specs.serving_gemm.<runtime>.<format>.{weight_stream_gb_per_s, matmul_tflops}: both or neither.
void read_serving_gemm(JsonReader& r, const nlohmann::json* specs, const Sources& sources, Gpu& g) {
  read_serving_table(
      r, specs, "serving_gemm", kServingFormats,
      [&](const nlohmann::json& f, const std::string& path, const std::string& key) {
        only_keys(r, &f, path, {"weight_stream_gb_per_s", "matmul_tflops"});
        auto bw = number_fact(r, &f, path, "weight_stream_gb_per_s", sources, nullptr, 10, 50'000);
        auto rate = number_fact(r, &f, path, "matmul_tflops", sources, nullptr, 0.1, 100'000);
        if (!bw || !rate) {
          if (!r.error()) r.fail(path + ": needs both weight_stream_gb_per_s and matmul_tflops");
          return;
        }
        g.serving_gemm[key] = {*bw * 1e9, *rate * 1e12};
        g.fact_sources["serving_gemm." + key] =
            sources.at(f.at("matmul_tflops").value("source", ""));
      });
}

// specs.serving_moe.<runtime>.<format>.expert_stream_gb_per_s.
void read_serving_moe(JsonReader& r, const nlohmann::json* specs, const Sources& sources, Gpu& g) {
  read_serving_table(r, specs, "serving_moe", kServingMoeFormats,
                     [&](const nlohmann::json& f, const std::string& path, const std::string& key) {
                       only_keys(r, &f, path, {"expert_stream_gb_per_s"});
                       auto bw = number_fact(r, &f, path, "expert_stream_gb_per_s", sources,
                                             nullptr, 10, 50'000);
                       if (!bw) {
                         if (!r.error()) r.fail(path + ": needs expert_stream_gb_per_s");
                         return;
                       }
                       g.serving_moe_stream_bytes_per_s[key] = *bw * 1e9;
                       g.fact_sources["serving_moe." + key] =
                           sources.at(f.at("expert_stream_gb_per_s").value("source", ""));
                     });
}

}  // namespace

Result<Gpu> parse_gpu_json(std::string_view text, const std::string& where) {
  auto doc = open_document(text, where);
  if (!doc.ok()) return doc.error();
  JsonReader r(doc.value(), where);
  if (auto err = check_schema_version(r, kCatalogSchemaVersion)) return *err;
  Gpu g;
  Sources sources;
  g.id = r.string("id", std::nullopt);
  g.name = r.string("name", std::nullopt);
  g.vendor = r.string("vendor", std::nullopt);
  g.architecture = r.string("architecture", "");
  g.aliases = string_list(r, "aliases");
  read_sources(r, sources);
  const nlohmann::json* specs = r.object("specs", true);
  only_keys(r, specs, "specs",
            {"memory_bytes", "memory_bandwidth_gb_per_s", "peak_dense_tflops", "peak_sparse_tflops",
             "matmul_max_achievable_tflops", "sm_count", "tdp_w", "compute_capability",
             "interconnect", "nvlink_bandwidth_gb_per_s", "pcie_gen", "host_link",
             "host_link_gb_per_s", "serving_gemm", "serving_moe"});
  auto& rec = g.fact_sources;
  if (auto v = number_fact(r, specs, "specs", "memory_bytes", sources, &rec, 1e9, 2e12))
    g.memory_bytes = *v;
  else if (!r.error())
    r.fail("specs.memory_bytes: missing required fact");
  if (auto v =
          number_fact(r, specs, "specs", "memory_bandwidth_gb_per_s", sources, &rec, 50, 50'000)) {
    g.memory_bandwidth_bytes_per_s = *v * 1e9;
  } else if (!r.error()) {
    r.fail("specs.memory_bandwidth_gb_per_s: missing required fact");
  }
  for (const char* kind :
       {"peak_dense_tflops", "peak_sparse_tflops", "matmul_max_achievable_tflops"}) {
    if (!specs || !specs->contains(kind)) continue;
    const nlohmann::json& peaks = specs->at(kind);
    const std::string path = std::string("specs.") + kind;
    if (!peaks.is_object()) {
      r.fail(path + ": expected an object");
      continue;
    }
    only_keys(r, &peaks, path, kPeakPrecisions);
    auto& out = kind[0] == 'm'   ? g.matmul_max_achievable_flops_per_s
                : kind[5] == 'd' ? g.peak_dense_flops_per_s
                                 : g.peak_sparse_flops_per_s;
    for (const char* p : kPeakPrecisions) {
      if (auto v = number_fact(r, &peaks, path, p, sources, nullptr, 0.01, 100'000)) {
        out[p] = *v * 1e12;
        rec[std::string(kind) + "." + p] = sources[peaks.at(p).value("source", "")];
      }
    }
  }
  if (auto v = number_fact(r, specs, "specs", "sm_count", sources, &rec, 1, 1000))
    g.sm_count = static_cast<int>(*v);
  if (auto v = number_fact(r, specs, "specs", "tdp_w", sources, &rec, 10, 5000)) g.tdp_w = *v;
  if (auto v = string_fact(r, specs, "specs", "compute_capability", sources, &rec))
    g.compute_capability = *v;
  if (auto v = string_fact(r, specs, "specs", "interconnect", sources, &rec)) g.interconnect = *v;
  if (auto v =
          number_fact(r, specs, "specs", "nvlink_bandwidth_gb_per_s", sources, &rec, 1, 10'000)) {
    g.nvlink_bandwidth_bytes_per_s = *v * 1e9;
  }
  if (auto v = number_fact(r, specs, "specs", "pcie_gen", sources, &rec, 1, 7))
    g.pcie_gen = static_cast<int>(*v);
  if (auto v = string_fact(r, specs, "specs", "host_link", sources, &rec)) {
    if (*v != "pcie" && *v != "nvlink-c2c")
      r.fail("specs.host_link.value: '" + *v + "' is not pcie or nvlink-c2c");
    g.host_link = *v;
  }
  if (auto v = number_fact(r, specs, "specs", "host_link_gb_per_s", sources, &rec, 1, 10'000))
    g.host_link_bytes_per_s = *v * 1e9;
  read_serving_gemm(r, specs, sources, g);
  read_serving_moe(r, specs, sources, g);
  if (auto err = r.finish()) return *err;
  return g;
}

namespace {

// A GPU's own measured matmul maximum for a precision key (fp16: its bf16 one where both dense
// peaks are equal); 0 when not measured.
double own_matmul_flop_per_s(const Gpu& gpu, const std::string& key) {
  const auto& m = gpu.matmul_max_achievable_flops_per_s;
  if (auto it = m.find(key); it != m.end()) return it->second;
  const auto& p = gpu.peak_dense_flops_per_s;
  if (key == "fp16" && m.count("bf16") && p.count("fp16") && p.count("bf16") &&
      p.at("fp16") == p.at("bf16")) {
    return m.at("bf16");
  }
  return 0;
}

// "nvidia/Blackwell/10": vendor, architecture (without a remark such as "(+Grace CPU)") and
// compute-capability major; empty without a compute capability.
std::string tensor_core_generation(const Gpu& gpu) {
  if (gpu.compute_capability.empty()) return "";
  const std::string arch = gpu.architecture.substr(0, gpu.architecture.find(" ("));
  return gpu.vendor + "/" + arch + "/" +
         gpu.compute_capability.substr(0, gpu.compute_capability.find('.'));
}

}  // namespace

double known_matmul_flop_per_s(const Gpu& gpu, const std::string& key) {
  if (const double own = own_matmul_flop_per_s(gpu, key); own > 0) return own;
  auto share = gpu.matmul_generation_share.find(key);
  auto peak = gpu.peak_dense_flops_per_s.find(key);
  if (share == gpu.matmul_generation_share.end() || peak == gpu.peak_dense_flops_per_s.end())
    return 0;
  return peak->second * share->second.share;
}

const char* gpu_fabric_name(const Gpu& gpu) {
  return gpu.interconnect == "infinity-fabric" ? "Infinity Fabric" : "NVLink";
}

std::pair<std::string, std::string> split_serving_gemm_key(const std::string& key) {
  const auto slash = key.find('/');
  return {key.substr(0, slash), slash == std::string::npos ? "" : key.substr(slash + 1)};
}

std::string serving_gemm_precision(const std::string& format) {
  return format == "nvfp4" ? "fp4" : format;
}

std::optional<Gpu::ServingGemm> serving_gemm_rates(const Gpu& gpu, const std::string& runtime,
                                                   const std::string& format) {
  const std::string key = runtime + "/" + format;
  if (auto own = gpu.serving_gemm.find(key); own != gpu.serving_gemm.end()) return own->second;
  auto share = gpu.serving_gemm_generation_share.find(key);
  auto peak = gpu.peak_dense_flops_per_s.find(serving_gemm_precision(format));
  if (share == gpu.serving_gemm_generation_share.end() ||
      peak == gpu.peak_dense_flops_per_s.end() || gpu.memory_bandwidth_bytes_per_s <= 0)
    return std::nullopt;
  return Gpu::ServingGemm{gpu.memory_bandwidth_bytes_per_s * share->second.bandwidth_share,
                          peak->second * share->second.peak_share};
}

void derive_serving_gemm_shares(std::vector<Gpu>& gpus) {
  std::vector<std::string> generation(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) generation[i] = tensor_core_generation(gpus[i]);
  std::map<std::string, std::map<std::string, Gpu::ServingGemmShare>> sums;  // generation, key
  for (size_t j = 0; j < gpus.size(); ++j) {
    const Gpu& m = gpus[j];
    if (generation[j].empty() || m.memory_bandwidth_bytes_per_s <= 0) continue;
    for (const auto& [key, rates] : m.serving_gemm) {
      auto peak =
          m.peak_dense_flops_per_s.find(serving_gemm_precision(split_serving_gemm_key(key).second));
      if (peak == m.peak_dense_flops_per_s.end()) continue;
      Gpu::ServingGemmShare& s = sums[generation[j]][key];
      s.bandwidth_share += rates.weight_stream_bytes_per_s / m.memory_bandwidth_bytes_per_s;
      s.peak_share += rates.matmul_flop_per_s / peak->second;
      s.from.push_back(m.id);
    }
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    Gpu& g = gpus[i];
    g.serving_gemm_generation_share.clear();
    auto found = sums.find(generation[i]);
    if (generation[i].empty() || found == sums.end()) continue;
    for (const auto& [key, sum] : found->second) {
      if (g.serving_gemm.count(key)) continue;
      if (!g.peak_dense_flops_per_s.count(
              serving_gemm_precision(split_serving_gemm_key(key).second)))
        continue;
      const double n = static_cast<double>(sum.from.size());
      g.serving_gemm_generation_share[key] = {sum.bandwidth_share / n, sum.peak_share / n,
                                              sum.from};
    }
  }
}

void derive_matmul_shares(std::vector<Gpu>& gpus) {
  std::vector<std::string> generation(gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) generation[i] = tensor_core_generation(gpus[i]);
  for (size_t i = 0; i < gpus.size(); ++i) {
    Gpu& g = gpus[i];
    g.matmul_generation_share.clear();
    if (generation[i].empty()) continue;
    for (const auto& entry : g.peak_dense_flops_per_s) {
      const std::string& key = entry.first;
      if (own_matmul_flop_per_s(g, key) > 0) continue;
      Gpu::MatmulShare s;
      double sum = 0;
      for (size_t j = 0; j < gpus.size(); ++j) {
        if (j == i || generation[j] != generation[i]) continue;
        const double measured = own_matmul_flop_per_s(gpus[j], key);
        auto peak = gpus[j].peak_dense_flops_per_s.find(key);
        if (measured <= 0 || peak == gpus[j].peak_dense_flops_per_s.end()) continue;
        sum += measured / peak->second;
        s.from.push_back(gpus[j].id);
      }
      if (s.from.empty()) continue;
      s.share = sum / static_cast<double>(s.from.size());
      g.matmul_generation_share[key] = std::move(s);
    }
  }
}

Result<Instance> parse_instance_json(std::string_view text, const std::string& where) {
  auto doc = open_document(text, where);
  if (!doc.ok()) return doc.error();
  JsonReader r(doc.value(), where);
  if (auto err = check_schema_version(r, kCatalogSchemaVersion)) return *err;
  Instance in;
  Sources sources;
  in.id = r.string("id", std::nullopt);
  in.provider = r.string("provider", std::nullopt);
  in.instance_type = r.string("instance_type", std::nullopt);
  in.gpu = r.string("gpu", std::nullopt);
  in.gpu_count = static_cast<int>(r.integer("gpu_count", std::nullopt, 1, 64));
  read_sources(r, sources);
  const std::string gpu_source = r.string("gpu_source", std::nullopt);
  if (!r.error() && !sources.count(gpu_source))
    r.fail("gpu_source: '" + gpu_source + "' is not in sources");
  r.ignore("gpu_see_also");
  r.ignore("gpu_note");
  r.ignore("note");
  const nlohmann::json* specs = r.object("specs", true);
  only_keys(r, specs, "specs",
            {"vcpus", "ram_gib", "gpu_interconnect", "network_gbit_per_s", "nvlink_domain_gpus"});
  if (auto v = number_fact(r, specs, "specs", "vcpus", sources, nullptr, 1, 4096))
    in.vcpus = static_cast<int>(*v);
  if (auto v = number_fact(r, specs, "specs", "ram_gib", sources, nullptr, 1, 65536))
    in.ram_bytes = *v * 1073741824.0;
  if (auto v = string_fact(r, specs, "specs", "gpu_interconnect", sources, nullptr)) {
    in.gpu_interconnect = *v;
    if (*v != "nvswitch" && *v != "nvlink" && *v != "pcie") {
      r.fail("specs.gpu_interconnect.value: '" + *v + "' is not one of nvswitch, nvlink, pcie");
    }
  }
  if (auto v =
          number_fact(r, specs, "specs", "network_gbit_per_s", sources, nullptr, 0.1, 100'000)) {
    in.network_bytes_per_s = *v * 1e9 / 8;
  }
  read_nvlink_domain(r, specs, sources, in);
  const nlohmann::json* prices = r.value("prices", true);
  if (prices && !prices->is_array()) r.fail("prices: expected an array");
  if (prices && prices->is_array()) {
    for (size_t i = 0; i < prices->size() && !r.error(); ++i) {
      in.prices.push_back(
          parse_price(r, (*prices)[i], "prices[" + std::to_string(i) + "]", sources, in));
      if (in.prices.back().sold_per == "nvlink-domain") in.min_hosts = in.hosts_per_domain();
    }
  }
  if (auto err = r.finish()) return *err;
  return in;
}

Result<Provider> parse_provider_json(std::string_view text, const std::string& where) {
  auto doc = open_document(text, where);
  if (!doc.ok()) return doc.error();
  JsonReader r(doc.value(), where);
  if (auto err = check_schema_version(r, kCatalogSchemaVersion)) return *err;
  Provider p;
  Sources sources;
  p.id = r.string("id", std::nullopt);
  p.name = r.string("name", std::nullopt);
  r.ignore("note");
  read_sources(r, sources);
  read_pricing_models(r, sources, p);
  const nlohmann::json* regions = r.value("regions", true);
  if (regions && !regions->is_array()) r.fail("regions: expected an array");
  if (regions && regions->is_array()) {
    for (size_t i = 0; i < regions->size() && !r.error(); ++i) {
      const std::string path = "regions[" + std::to_string(i) + "]";
      JsonReader rr((*regions)[i], where, path);
      Region reg;
      reg.id = rr.string("id", std::nullopt);
      reg.name = rr.string("name", "");
      reg.country = rr.string("country", "");
      rr.ignore("note");
      if (rr.has("name") || rr.has("country")) {
        const std::string source = rr.string("source", std::nullopt);
        if (!rr.error() && !sources.count(source))
          rr.fail(path + ".source: '" + source + "' is not in sources");
      } else {
        rr.ignore("source");
      }
      if (const nlohmann::json* c = rr.object("compliance", false)) {
        only_keys(rr, c, path + ".compliance", {"hipaa", "gdpr_eu", "gov"});
        for (auto [key, field] : {std::pair<const char*, std::optional<bool>*>{"hipaa", &reg.hipaa},
                                  {"gdpr_eu", &reg.gdpr_eu},
                                  {"gov", &reg.gov}}) {
          if (!c->contains(key)) continue;
          const nlohmann::json* v =
              read_fact(rr, c->at(key), path + ".compliance." + key, sources, nullptr, key);
          if (v && !v->is_boolean())
            rr.fail(path + ".compliance." + key + ".value: expected true or false");
          else if (v)
            *field = v->get<bool>();
        }
      }
      if (auto err = rr.finish()) r.fail_with(*err);
      p.regions.push_back(reg);
    }
  }
  if (auto err = r.finish()) return *err;
  return p;
}

Result<PricingRules> parse_pricing_rules_json(std::string_view text, const std::string& where) {
  auto doc = open_document(text, where);
  if (!doc.ok()) return doc.error();
  JsonReader r(doc.value(), where);
  if (auto err = check_schema_version(r, kCatalogSchemaVersion)) return *err;
  PricingRules rules;
  r.choice("kind", {"assumptions"}, std::nullopt);
  r.ignore("note");
  r.ignore("facts");
  Sources sources;
  read_sources(r, sources, false);  // only the rate and the spot buckets cite sources
  std::map<std::string, FactSource> rec;
  r.ignore("usd_per_cny");
  if (const nlohmann::json* root = &doc.value(); root->contains("usd_per_cny")) {
    if (auto v = number_fact(r, root, "", "usd_per_cny", sources, &rec, 0.05, 0.5)) {
      rules.usd_per_cny = *v;
      rules.usd_per_cny_source = rec["usd_per_cny"];
    }
  }
  read_spot_buckets(r, sources, rules);
  if (const nlohmann::json* s = r.object("source", true)) {
    JsonReader sr(*s, where, "source");
    rules.source.title = sr.string("title", std::nullopt);
    rules.source.date = sr.string("date", std::nullopt);
    sr.ignore("date_kind");
    sr.ignore("url");
    if (auto err = sr.finish()) r.fail_with(*err);
  }
  if (const nlohmann::json* d = r.object("discounts", true)) {
    JsonReader dr(*d, where, "discounts");
    rules.monthly = dr.number("monthly", std::nullopt, 0, 0.95);
    rules.reserved = dr.number("reserved", std::nullopt, 0, 0.95);
    rules.bulk = dr.number("bulk", std::nullopt, 0, 0.95);
    rules.spot = dr.number("spot", std::nullopt, 0, 0.95);
    if (auto err = dr.finish()) r.fail_with(*err);
  }
  if (const nlohmann::json* v = r.value("spot_interruptions_per_hour", false); v && !v->is_null()) {
    rules.spot_interruptions_per_hour = r.number("spot_interruptions_per_hour", 0.0, 0, 10);
  }
  if (auto err = r.finish()) return *err;
  return rules;
}

namespace {

// The values of assumptions.json's "assumptions" map, each within its bounds, into the catalog.
void read_assumption_values(JsonReader& r, const nlohmann::json* a, const Sources& sources,
                            Catalog& c) {
  // A null value means "not known": the built-in default stays (and says so where it is used).
  auto set = [&](const char* key, double& out, double min, double max) {
    if (!a || !a->contains(key)) return;
    const nlohmann::json* v =
        read_fact(r, a->at(key), std::string("assumptions.") + key, sources, nullptr, key);
    if (!v || v->is_null()) return;
    if (auto x = number_fact(r, a, "assumptions", key, sources, nullptr, min, max)) out = *x;
  };
  Efficiencies& e = c.efficiencies;
  for (const auto& k : detail::kAssumptionKeys) {
    double value = 0;
    set(k.key, value, k.min, k.max);
    if (value > 0) k.field(e) = value;
  }
  // An architecture's flash attention needs both passes, or it takes Ampere's. Ampere's own is
  // required: an incomplete one stays for check_efficiencies to name the missing key.
  for (auto it = e.flash_attention.begin(); it != e.flash_attention.end();) {
    const bool complete = it->second.forward > 0 && it->second.backward > 0;
    it = complete || it->first == "Ampere" ? std::next(it) : e.flash_attention.erase(it);
  }
  if (auto it = e.flash_attention.find("Ampere"); it != e.flash_attention.end())
    e.flash_attention_default = it->second;
  // FlashAttention-3's, cuDNN's and Triton's: an architecture missing a pass runs at
  // FlashAttention-2's.
  for (auto* kernel : {&e.flash3_attention, &e.cudnn_attention, &e.triton_attention,
                       &e.flash1_attention, &e.cudnn_fp8_attention, &e.cudnn_mxfp8_attention}) {
    for (auto it = kernel->begin(); it != kernel->end();) {
      const bool complete = it->second.forward > 0 && it->second.backward > 0;
      it = complete ? std::next(it) : kernel->erase(it);
    }
  }
  set("jpeg_decode_images_per_s_per_core", c.input.image_samples_per_s_per_core, 1, 1e5);
  set("checkpoint_restart_overhead_s", c.restart_s, 0, 86400);
  double interruptions = 0;
  set("spot_interruptions_per_hour", interruptions, 0, 10);
  if (interruptions > 0) c.pricing.spot_interruptions_per_hour = interruptions;
}

}  // namespace

std::optional<Error> parse_assumptions_json(std::string_view text, const std::string& where,
                                            Catalog& c) {
  auto doc = open_document(text, where);
  if (!doc.ok()) return doc.error();
  JsonReader r(doc.value(), where);
  if (auto err = check_schema_version(r, kCatalogSchemaVersion)) return err;
  r.choice("kind", {"assumptions"}, std::nullopt);
  r.ignore("note");
  r.ignore("serving");  // serving runtime profiles: read by parse_serving_assumptions
                        // (serve_assumptions.cpp)
  Sources sources;
  read_sources(r, sources);
  const nlohmann::json* a = r.object("assumptions", true);
  std::vector<const char*> known(std::begin(detail::kOtherAssumptionKeys),
                                 std::end(detail::kOtherAssumptionKeys));
  for (const auto& k : detail::kAssumptionKeys) known.push_back(k.key);
  only_keys(r, a, "assumptions", known);
  read_assumption_values(r, a, sources, c);
  if (auto err = r.finish()) return err;
  return std::nullopt;
}

void attach_pricing_offers(Catalog& c) {
  for (Instance& in : c.instances) {
    const Provider* p = c.find_provider(in.provider);
    if (!p) continue;
    for (const auto& [kind, offer] : p->pricing_models) in.offered[kind] = offer.offered;
  }
}

const Region* Provider::find_region(const std::string& region_id) const {
  for (const auto& r : regions) {
    if (r.id == region_id) return &r;
  }
  return nullptr;
}

}  // namespace gpuplan
