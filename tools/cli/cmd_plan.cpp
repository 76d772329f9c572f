// gpuplan plan (--model ID | --hf-config FILE) [setup] (--tokens N | --epochs N --dataset-size N)
//   [--deadline-hours H] [--budget-usd B] [--objective cost|time] [--pricing P] [--provider P]
//   [--region R] [--compliance hipaa|gdpr|gov] [--min-gpu-memory-gb G] [--max-nodes N] [--top K]
//   [--json]
// A thin face over plan(): the query parser and plan_query() decide keys, bounds and defaults.
#include <cstdio>

#include "cli.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"

namespace gpuplan::cli {

int cmd_plan(Args args) {
  const bool json = take_flag(args, "json");
  auto query = take_query(args);
  if (!query.ok()) return fail(query.error());
  const Query& q = query.value();
  auto catalog = load_embedded_catalog();
  if (!catalog.ok()) return fail(catalog.error());
  const Catalog& cat = catalog.value();
  if (!q.provider.empty() && !cat.find_provider(q.provider)) {
    return fail({Errc::not_found, "--provider: unknown provider '" + q.provider + "'"});
  }
  auto model = resolve_model(cat, q);
  if (!model.ok()) return fail(model.error());
  auto r = plan(cat, model.value(), plan_query(cat, model.value(), q));
  if (!r.ok()) return fail(r.error());
  std::printf("%s",
              json ? (plan_to_json(r.value()) + "\n").c_str() : plan_to_text(r.value()).c_str());
  return 0;
}

}  // namespace gpuplan::cli
