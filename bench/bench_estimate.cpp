// Time of one workload estimate (issue goal: <= 5 us native), for a transformer and a CNN.
#include "bench_util.h"
#include "gpuplan/estimate.h"

int main() {
  const gpuplan::Catalog c = bench::catalog();
  struct Case {
    const char* model;
    gpuplan::Setup setup;
  };
  gpuplan::Setup llama;
  llama.precision = gpuplan::Precision::amp_bf16;
  llama.global_batch = 64;
  llama.dp = 8;
  llama.zero_stage = 3;
  llama.checkpointing = gpuplan::Checkpointing::selective;
  gpuplan::Setup resnet;
  resnet.global_batch = 256;
  for (const Case& k : {Case{"llama-2-7b", llama}, Case{"gpt3-175b", llama}, Case{"resnet50", resnet},
                        Case{"yolov5x", resnet}}) {
    const gpuplan::Model* m = c.find_model(k.model);
    double sink = 0;
    const double s = bench::median_seconds_per_call(
        [&] {
          auto e = gpuplan::estimate(*m, k.setup);
          sink += e.ok() ? e.value().memory.total() : 0;
        },
        7, 2000);
    std::printf("estimate %-12s %8.2f us per call%s\n", k.model, s * 1e6, sink > 0 ? "" : " (failed)");
  }
  return 0;
}
