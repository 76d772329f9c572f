// data/pricing_rules.json: parse_pricing_rules_json. Discounts that parse are fractions in
// [0, 0.95], so every catalog instance keeps a positive, finite price under every pricing model.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rules = parse_pricing_rules_json(text, "pricing_rules.json");
  if (!rules.ok()) {
    fuzz::check_error(rules.error());
    return 0;
  }
  const PricingRules& r = rules.value();
  for (double d : {r.monthly, r.reserved, r.bulk, r.spot}) FUZZ_CHECK(d >= 0 && d <= 0.95);
  if (r.spot_interruptions_per_hour)
    FUZZ_CHECK(fuzz::finite_nonneg(*r.spot_interruptions_per_hour));
  for (const Instance& in : fuzz::catalog().instances) {
    for (Pricing p : {Pricing::on_demand, Pricing::monthly, Pricing::reserved_1y,
                      Pricing::reserved_3y, Pricing::bulk, Pricing::spot}) {
      auto q = quote_price(in, p, r, "");
      if (q.ok()) FUZZ_CHECK(q.value().usd_per_hour > 0 && std::isfinite(q.value().usd_per_hour));
    }
  }
  return 0;
}
