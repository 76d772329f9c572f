#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/hf_config.h"
#include "gpuplan/probe_file.h"
#include "gpuplan/signing.h"

namespace gpuplan::cli {

int fail(const Error& e) {
  std::fprintf(stderr, "gpuplan: error: %s\n", e.message.c_str());
  return kExitInvalid;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "gpuplan: %s\n(run 'gpuplan --help' for usage)\n", message.c_str());
  return kExitUsage;
}

std::string take(Args& args, const std::string& key) {
  std::string value;
  for (auto it = args.begin(); it != args.end();) {
    if (it->first == key) {
      value = it->second;
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  return value;
}

bool take_flag(Args& args, const std::string& key) {
  return take(args, key) == "1";
}

Result<Catalog> load_embedded_catalog() {
  return load_catalog(embedded_data_files());
}

Result<Query> take_query(Args& args) {
  const std::string hf_path = take(args, "hf-config");
  auto q = parse_query(args);
  if (!q.ok()) return q.error();
  if (!hf_path.empty()) {
    auto text = read_bounded_file(hf_path, kMaxJsonBytes);
    if (!text.ok()) return text.error();
    q.value().hf_config_text = std::move(text).value();
    q.value().hf_config_name = hf_path;
  }
  return q;
}

Result<ProbeInput> read_probe_input(const std::string& path) {
  auto text = read_bounded_file(path, kMaxProbeFileBytes);
  if (!text.ok()) return text.error();
  auto f = signing::read_probe_file(text.value(), {});
  if (!f.ok()) return make_error(f.error().code, path + ": " + f.error().message);
  if (f.value().signature == ProbeSignature::invalid) {
    return make_error(Errc::signature_invalid, path + ": signature invalid: " + f.value().reason);
  }
  ProbeInput in;
  in.unsigned_file = f.value().signature == ProbeSignature::unsigned_file;
  if (f.value().measured) in.measured = MeasuredInput{path, *f.value().measured, in.unsigned_file};
  if (f.value().payload) {
    ProbeCalibration p;
    p.name = path;
    p.summary = f.value().payload->summary;
    p.simulated = f.value().payload->simulated;
    p.unsigned_file = in.unsigned_file;
    in.calibration = std::move(p);
  }
  return in;
}

bool read_file(const std::string& path, std::string& out, std::string& error, size_t max_bytes) {
  auto text = read_bounded_file(path, max_bytes);
  if (!text.ok()) {
    error = text.error().message;
    return false;
  }
  out = std::move(text).value();
  return true;
}

Result<double> parse_number(const std::string& text, const std::string& key) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double x = std::strtod(begin, &end);
  if (text.empty() || end != begin + text.size() || !std::isfinite(x)) {
    return make_error(Errc::invalid_argument, "--" + key + ": '" + text + "' is not a number");
  }
  if (x <= 0) return make_error(Errc::invalid_argument, "--" + key + ": must be > 0, got " + text);
  return x;
}

std::string price_text(const PriceQuote& q, const std::string& currency,
                       const PricingRules& rules) {
  char b[200];
  auto rate = usd_per_currency_unit("CNY", q, rules);
  const bool cny_first = currency == "CNY" || q.currency == "CNY";
  if (cny_first && rate.ok()) {
    std::snprintf(b, sizeof b, "%.2f CNY/h (%.2f USD/h at %.3f USD/CNY)",
                  q.usd_per_hour / rate.value(), q.usd_per_hour, rate.value());
  } else {
    std::snprintf(b, sizeof b, "%.3f USD/h", q.usd_per_hour);
  }
  std::string out = b;
  out += q.assumption ? " ~ assumed: " + q.basis : " published";
  return out;
}

void print_price_lines(const PriceQuote& q, const RunCost* cost, const std::string& currency,
                       const PricingRules& rules) {
  std::printf("Price\n  %-22s %s\n", "per instance", price_text(q, currency, rules).c_str());
  std::printf("  %-22s %s%s (%s)\n", "price date", q.date.c_str(), q.stale ? ", stale" : "",
              q.source.c_str());
  if (q.commitment_h > 0) {
    if (q.break_even_utilisation) {
      std::printf("  %-22s reserved pays off above %.0f %% use of the %.0f-hour term\n",
                  "break-even", 100 * *q.break_even_utilisation, q.commitment_h);
    }
    if (cost && cost->utilisation > 0) {
      std::printf("  %-22s this run's share at %.0f %% utilisation of the term\n", "commitment",
                  100 * cost->utilisation);
    } else if (cost) {
      std::printf(
          "  %-22s charged %.0f committed hours (give --reservation-utilisation for a share)\n",
          "commitment", cost->commitment_h);
    }
  }
  auto rate = usd_per_currency_unit(currency, q, rules);
  if (cost && rate.ok() && currency != "USD") {
    std::printf("  %-22s %.2f %s (%.2f USD)\n", "run total", cost->usd_total / rate.value(),
                currency.c_str(), cost->usd_total);
  }
}

}  // namespace gpuplan::cli
