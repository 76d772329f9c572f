// Time of one workload estimate (issue goal: <= 5 us native), for a transformer and a CNN, and
// of the whole evaluate() chain the CLI and the page run (estimate, step time, price, cost).
// Cases are written as share-link queries, the form every face reads.
#include "bench_util.h"
#include "gpuplan/evaluate.h"

int main() {
  const gpuplan::Catalog c = bench::catalog();
  const char* const llama_setup = "precision=amp-bf16&batch=64&dp=8&zero=3&checkpointing=selective";
  const std::string cases[] = {
      std::string("model=llama-2-7b&") + llama_setup + "&instance=aws-p4d.24xlarge&tokens=1e11",
      std::string("model=gpt3-175b&") + llama_setup + "&instance=aws-p4d.24xlarge&tokens=1e11",
      "model=resnet50&batch=256&gpu=a100-sxm4-80gb&epochs=90",
      "model=yolov5x&batch=256&gpu=a100-sxm4-80gb&epochs=90",
  };
  for (const std::string& link : cases) {
    auto q = gpuplan::parse_query_string(link);
    auto m =
        q.ok() ? gpuplan::resolve_model(c, q.value()) : gpuplan::Result<gpuplan::Model>(q.error());
    if (!m.ok()) {
      std::fprintf(stderr, "%s: %s\n", link.c_str(), m.error().message.c_str());
      return 1;
    }
    const gpuplan::Setup setup = q.value().request.setup;
    double sink = 0;
    const double estimate_s = bench::median_seconds_per_call(
        [&] {
          auto e = gpuplan::estimate(m.value(), setup);
          sink += e.ok() ? e.value().memory.total() : 0;
        },
        7, 2000);
    double usd = 0;
    const double evaluate_s = bench::median_seconds_per_call(
        [&] {
          auto ev = gpuplan::evaluate(c, q.value());
          usd = ev.ok() && ev.value().cost
                    ? ev.value().cost->usd_total + ev.value().cost->expected_hours
                    : -1;
        },
        5, 200);
    std::printf("estimate %-12s %8.2f us per call%s; evaluate %8.2f us per call%s\n",
                m.value().id.c_str(), estimate_s * 1e6, sink > 0 ? "" : " (failed)",
                evaluate_s * 1e6, usd > 0 ? "" : " (failed)");
  }
  return 0;
}
