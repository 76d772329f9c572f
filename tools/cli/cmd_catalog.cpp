// gpuplan gpus [--json] and gpuplan instances [--provider P] [--json]: the hardware catalogs.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "gpuplan/report.h"

namespace gpuplan::cli {
namespace {

nlohmann::ordered_json sourced(double value, const Gpu& g, const std::string& fact) {
  auto it = g.fact_sources.find(fact);
  nlohmann::ordered_json j = {{"value", value}};
  if (it != g.fact_sources.end()) {
    j["source"] = it->second.title;
    j["date"] = it->second.date;
  }
  return j;
}

// The best matmul rate known per precision: measured on this GPU (with its source), or its dense
// peak x the share its tensor-core generation measured (with the GPUs it comes from).
nlohmann::ordered_json achievable_matmuls(const Gpu& g) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [p, v] : g.matmul_max_achievable_flops_per_s)
    out[p] = sourced(v, g, "matmul_max_achievable_tflops." + p);
  for (const auto& [p, share] : g.matmul_generation_share) {
    out[p] = {{"value", known_matmul_flop_per_s(g, p)},
              {"share_of_peak", share.share},
              {"derived_from", share.from}};
  }
  return out;
}

// The GEMM rates each serving runtime's kernels reach per weight format: measured on this GPU
// (with the table they come from), or its bandwidth and peak x its generation's shares.
nlohmann::ordered_json serving_gemms(const Gpu& g) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  auto add = [&](const std::string& key) -> nlohmann::ordered_json* {
    const auto [runtime, format] = split_serving_gemm_key(key);
    const auto r = serving_gemm_rates(g, runtime, format);
    if (!r) return nullptr;
    out[key] = {{"weight_stream_bytes_per_s", r->weight_stream_bytes_per_s},
                {"matmul_flop_per_s", r->matmul_flop_per_s}};
    return &out[key];
  };
  for (const auto& entry : g.serving_gemm) {
    auto* j = add(entry.first);
    auto it = g.fact_sources.find("serving_gemm." + entry.first);
    if (j && it != g.fact_sources.end()) {
      (*j)["source"] = it->second.title;
      (*j)["date"] = it->second.date;
    }
  }
  for (const auto& [key, share] : g.serving_gemm_generation_share) {
    if (auto* j = add(key)) {
      (*j)["share_of_bandwidth"] = share.bandwidth_share;
      (*j)["share_of_peak"] = share.peak_share;
      (*j)["derived_from"] = share.from;
    }
  }
  return out;
}

// Each runtime's measured fused-MoE expert rate (Gpu::serving_moe_stream_bytes_per_s), sourced.
nlohmann::ordered_json serving_moes(const Gpu& g) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, bytes_per_s] : g.serving_moe_stream_bytes_per_s) {
    out[key] = {{"expert_stream_bytes_per_s", bytes_per_s}};
    auto it = g.fact_sources.find("serving_moe." + key);
    if (it != g.fact_sources.end()) {
      out[key]["source"] = it->second.title;
      out[key]["date"] = it->second.date;
    }
  }
  return out;
}

}  // namespace

int cmd_gpus(Args args) {
  const bool json = take_flag(args, "json");
  if (!args.empty()) return usage_error("gpus: unknown option --" + args.front().first);
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& g : catalog.value().gpus) {
      nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
      for (const auto& [p, v] : g.peak_dense_flops_per_s)
        peaks[p] = sourced(v, g, "peak_dense_tflops." + p);
      out.push_back(
          {{"id", g.id},
           {"name", g.name},
           {"vendor", g.vendor},
           {"aliases", g.aliases},
           {"memory_bytes", sourced(g.memory_bytes, g, "memory_bytes")},
           {"memory_bandwidth_bytes_per_s",
            sourced(g.memory_bandwidth_bytes_per_s, g, "memory_bandwidth_gb_per_s")},
           {"peak_dense_flop_per_s", peaks},
           {"matmul_achievable_flop_per_s", achievable_matmuls(g)},
           {"serving_gemm", serving_gemms(g)},
           {"serving_moe", serving_moes(g)},
           {"tdp_w", g.tdp_w > 0 ? nlohmann::ordered_json(g.tdp_w) : nlohmann::ordered_json()},
           {"compute_capability", g.compute_capability},
           {"interconnect", g.interconnect}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%-16s %-30s %10s %12s %12s %12s %12s %12s %12s\n", "id", "name", "memory",
              "bandwidth", "bf16 TFLOPS", "fp32 TFLOPS", "fp8 TFLOPS", "fp4 TFLOPS", "bf16 best");
  for (const auto& g : catalog.value().gpus) {
    auto tflops = [](double flop_per_s) {
      return flop_per_s > 0 ? std::to_string(flop_per_s / 1e12).substr(0, 6) : std::string("-");
    };
    auto tf = [&](const char* p) {
      auto it = g.peak_dense_flops_per_s.find(p);
      return tflops(it == g.peak_dense_flops_per_s.end() ? 0.0 : it->second);
    };
    // The best bf16 matmul rate known: measured, or derived from the GPU's generation.
    const std::string best16 = tflops(known_matmul_flop_per_s(g, "bf16"));
    std::printf("%-16s %-30s %10s %10.0f GB/s %12s %12s %12s %12s %12s\n", g.id.c_str(),
                g.name.c_str(), format_bytes(g.memory_bytes).c_str(),
                g.memory_bandwidth_bytes_per_s / 1e9, tf("bf16").c_str(), tf("fp32").c_str(),
                tf("fp8").c_str(), tf("fp4").c_str(), best16.c_str());
  }
  return 0;
}

int cmd_instances(Args args) {
  const bool json = take_flag(args, "json");
  const std::string provider = take(args, "provider");
  const std::string currency_arg = take(args, "currency");
  if (!args.empty()) return usage_error("instances: unknown option --" + args.front().first);
  if (!currency_arg.empty() && currency_arg != "usd" && currency_arg != "cny") {
    return fail(
        make_error(Errc::invalid_argument, "--currency: '" + currency_arg + "' is not usd or cny"));
  }
  const std::string currency = currency_arg == "cny" ? "CNY" : "USD";
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  const Catalog& cat = catalog.value();
  if (!provider.empty() && !cat.find_provider(provider)) {
    return fail(make_error(Errc::not_found, "--provider: unknown provider '" + provider + "'"));
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  std::vector<PriceQuote> shown;
  for (const auto& in : cat.instances) {
    if (!provider.empty() && in.provider != provider) continue;
    if (auto q = quote_price(in, Pricing::on_demand, cat.pricing, ""); q.ok())
      shown.push_back(q.value());
  }
  if (!json) {
    std::printf("prices as of %s\n%-44s %-16s %4s %6s  %-44s %-44s %s\n",
                price_date_range(shown).label().c_str(), "id", "gpu", "gpus", "vcpus", "on-demand",
                "date", "region");
  }
  for (const auto& in : cat.instances) {
    if (!provider.empty() && in.provider != provider) continue;
    if (json) {
      nlohmann::ordered_json prices = nlohmann::ordered_json::array();
      for (const auto& p : in.prices) {
        auto opt = [](const std::optional<double>& v) {
          return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
        };
        prices.push_back({{"region", p.region},
                          {"date", p.date},
                          {"source", p.source.title},
                          {"on_demand_usd_per_hour", opt(p.on_demand_usd_per_hour)},
                          {"reserved_1y_usd_per_hour", opt(p.reserved_1y_usd_per_hour)},
                          {"reserved_3y_usd_per_hour", opt(p.reserved_3y_usd_per_hour)},
                          {"spot_usd_per_hour", opt(p.spot_usd_per_hour)},
                          {"currency", p.currency},
                          {"native_per_hour", p.native_per_hour},
                          {"usd_per_cny", p.usd_per_cny > 0 ? nlohmann::ordered_json(p.usd_per_cny)
                                                            : nlohmann::ordered_json()},
                          {"sold_per", p.sold_per},
                          {"date_label", p.date_label()},
                          {"stale", p.stale}});
      }
      out.push_back(
          {{"id", in.id},
           {"provider", in.provider},
           {"instance_type", in.instance_type},
           {"gpu", in.gpu},
           {"gpu_count", in.gpu_count},
           {"nvlink_domain_gpus", in.domain_gpus()},
           {"min_hosts", in.min_hosts},
           {"vcpus", in.vcpus > 0 ? nlohmann::ordered_json(in.vcpus) : nlohmann::ordered_json()},
           {"gpu_interconnect", in.gpu_interconnect},
           {"pricing_models", in.offered},
           {"prices", prices}});
      continue;
    }
    auto q = quote_price(in, Pricing::on_demand, cat.pricing, "");
    const std::string price = q.ok() ? price_text(q.value(), currency, cat.pricing) : "no price";
    const std::string date = q.ok() ? q.value().date + (q.value().stale ? " (stale)" : "") : "-";
    std::printf("%-44s %-16s %4d %6s  %-44s %-44s %s\n", in.id.c_str(), in.gpu.c_str(),
                in.gpu_count, in.vcpus > 0 ? std::to_string(in.vcpus).c_str() : "-",
                price.substr(0, price.find(" published")).c_str(), date.c_str(),
                q.ok() ? q.value().region.c_str() : "-");
  }
  if (json) std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

}  // namespace gpuplan::cli
