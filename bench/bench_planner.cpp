// Planner throughput over the whole catalog (issue 26's goal: >= 1,000,000 candidates in <= 200 ms,
// i.e. >= 5 M candidates/s; deepseek-v3, the largest search, is the case to watch).
// Cases are written as CLI/link queries and go through plan_query(), as `gpuplan plan` does.
#include "bench_util.h"
#include "gpuplan/evaluate.h"
#include "gpuplan/plan.h"

int main() {
  const gpuplan::Catalog c = bench::catalog();
  for (const char* link :
       {"model=llama-2-70b&precision=bf16&batch=1024&seq=4096&tokens=2e12&max-nodes=64",
        "model=llama-2-7b&precision=amp-bf16&batch=512&seq=4096&tokens=1e11&max-nodes=64",
        "model=gpt2-medium&precision=amp-bf16&batch=256&seq=1024&tokens=1e10&max-nodes=16",
        // A mixture of experts: the expert-parallel degree is searched too.
        "model=deepseek-v3&precision=mixed-bf16&batch=1024&seq=4096&tokens=1e11&max-nodes=32",
        // The goal's size: over 1,000,000 candidates (bench_web.mjs times it in Chromium too).
        "model=deepseek-v3&precision=mixed-bf16&batch=1024&seq=4096&tokens=1e11&max-nodes=64"}) {
    auto q = gpuplan::parse_query_string(link);
    auto m =
        q.ok() ? gpuplan::resolve_model(c, q.value()) : gpuplan::Result<gpuplan::Model>(q.error());
    if (!m.ok()) {
      std::fprintf(stderr, "%s: %s\n", link, m.error().message.c_str());
      return 1;
    }
    const gpuplan::PlanQuery pq = gpuplan::plan_query(c, m.value(), q.value());
    int64_t candidates = 0;
    const double s = bench::median_seconds_per_call(
        [&] {
          auto r = gpuplan::plan(c, m.value(), pq);
          candidates = r.ok() ? r.value().candidates : -1;
        },
        5, 1);
    std::printf("plan %-12s %8lld candidates in %7.2f ms = %6.2f M candidates/s\n",
                m.value().id.c_str(), static_cast<long long>(candidates), s * 1e3,
                static_cast<double>(candidates) / s / 1e6);
  }
  return 0;
}
