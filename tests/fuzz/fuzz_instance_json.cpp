// Cloud instance files (data/instances/*.json): parse_instance_json. An instance that parses has
// sane figures; each pricing model quotes a finite, non-negative price (or a not_found error);
// on a catalog GPU it forms a cluster of 1 and 4 nodes with a finite step time and cost.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = parse_instance_json(text, "instances/fuzz.json");
  if (!parsed.ok()) {
    fuzz::check_error(parsed.error());
    return 0;
  }
  const Instance& in = parsed.value();
  FUZZ_CHECK(in.gpu_count >= 1);
  FUZZ_CHECK(fuzz::finite_nonneg(in.ram_bytes) && fuzz::finite_nonneg(in.network_bytes_per_s));
  const Catalog& cat = fuzz::catalog();
  for (Pricing p : {Pricing::on_demand, Pricing::monthly, Pricing::reserved_1y,
                    Pricing::reserved_3y, Pricing::bulk, Pricing::spot}) {
    auto q = quote_price(in, p, cat.pricing, "");
    if (!q.ok()) {
      FUZZ_CHECK(q.error().code == Errc::not_found);
      continue;
    }
    FUZZ_CHECK(q.value().usd_per_hour > 0 && std::isfinite(q.value().usd_per_hour));
  }
  const Gpu* gpu = cat.find_gpu(in.gpu);
  if (!gpu) gpu = cat.find_gpu("a100-sxm4-80gb");
  const Model* model = cat.find_model("gpt2-small");
  for (int nodes : {1, 4}) {
    auto cluster = instance_cluster(in, *gpu, nodes);
    if (!cluster.ok()) {
      fuzz::check_error(cluster.error());
      continue;
    }
    Setup s;
    s.precision = Precision::amp_bf16;
    s.dp = in.gpu_count * nodes;
    s.global_batch = s.dp;
    auto e = estimate(*model, s);
    FUZZ_CHECK(e.ok());
    auto work = build_work_profile(*model, s, e.value());
    FUZZ_CHECK(work.ok());
    auto t = estimate_step_time(*model, s, e.value(), work.value(), cluster.value(),
                                cat.efficiencies, cat.input);
    if (!t.ok()) {
      fuzz::check_error(t.error());
      continue;
    }
    fuzz::check_step_time(t.value());
  }
  return 0;
}
