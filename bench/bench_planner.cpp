// Planner throughput over the whole catalog (issue goal: >= 100,000 candidates in <= 50 ms).
#include "bench_util.h"
#include "gpuplan/plan.h"

int main() {
  const gpuplan::Catalog c = bench::catalog();
  struct Case {
    const char* model;
    gpuplan::Precision precision;
    int64_t batch;
    int64_t seq;
    double tokens;
    int max_nodes;
  };
  for (const Case& k : {Case{"llama-2-70b", gpuplan::Precision::bf16, 1024, 4096, 2e12, 64},
                        Case{"llama-2-7b", gpuplan::Precision::amp_bf16, 512, 4096, 1e11, 64},
                        Case{"gpt2-medium", gpuplan::Precision::amp_bf16, 256, 1024, 1e10, 16}}) {
    gpuplan::PlanQuery q;
    q.request.model = k.model;
    q.request.setup.precision = k.precision;
    q.request.setup.global_batch = k.batch;
    q.request.setup.seq_len = k.seq;
    q.run.tokens = k.tokens;
    q.max_nodes = k.max_nodes;
    q.efficiencies = c.efficiencies;
    const gpuplan::Model* m = c.find_model(k.model);
    int64_t candidates = 0;
    const double s = bench::median_seconds_per_call(
        [&] {
          auto r = gpuplan::plan(c, *m, q);
          candidates = r.ok() ? r.value().candidates : -1;
        },
        5, 1);
    std::printf("plan %-12s %8lld candidates in %7.2f ms = %6.2f M candidates/s\n", k.model,
                static_cast<long long>(candidates), s * 1e3, static_cast<double>(candidates) / s / 1e6);
  }
  return 0;
}
