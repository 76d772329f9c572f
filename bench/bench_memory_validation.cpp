// Predicted vs measured peak GPU memory (tests/validation/memory_dev.csv, from Hugging Face's
// BERT-large measurements on a V100-SXM2-16GB, or the file given, in the format that
// tools/convert_hf_memory.py writes); prints each row and the MAPE.
#include <cmath>
#include <sstream>

#include "bench_util.h"
#include "gpuplan/estimate.h"
#include "gpuplan/report.h"

int main(int argc, char** argv) {
  const gpuplan::Catalog c = bench::catalog();
  std::istringstream in(bench::read(argc > 1 ? argv[1] : "tests/validation/memory_dev.csv"));
  std::string line;
  double sum = 0;
  int n = 0;
  std::printf("%-5s %-9s %-9s %-10s %5s %-10s %10s %10s %8s\n", "id", "mode", "precision", "optimizer", "batch",
              "ckpt", "measured", "predicted", "error");
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("id,", 0) == 0) continue;
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) f.push_back(cell);
    const gpuplan::Model* m = f.size() == 11 ? c.find_model(f[1]) : nullptr;
    if (!m) {
      std::printf("%s skipped: %s\n", f.empty() ? "?" : f[0].c_str(),
                  f.size() == 11 ? ("unknown model '" + f[1] + "'").c_str() : "expected 11 columns");
      continue;
    }
    gpuplan::Setup s;
    const auto precision = gpuplan::parse_precision(f[4]);
    const auto optimizer = gpuplan::parse_optimizer(f[5]);
    const auto checkpointing = gpuplan::parse_checkpointing(f[9]);
    char* end = nullptr;
    const double measured = std::strtod(f[10].c_str(), &end);
    if (!precision || !optimizer || !checkpointing || end == f[10].c_str() || !(measured > 0)) {
      std::printf("%s skipped: a precision, optimizer, checkpointing or measured_bytes value it cannot read\n",
                  f[0].c_str());
      continue;
    }
    s.precision = *precision;
    s.optimizer = *optimizer;
    s.checkpointing = *checkpointing;
    s.micro_batch = std::atoll(f[6].c_str());
    s.global_batch = std::atoll(f[7].c_str());
    s.seq_len = std::atoll(f[8].c_str());
    // The measurements used transformers 4.2x, whose BERT computes attention eagerly.
    s.attention = gpuplan::Attention::eager;
    double predicted = 0;
    if (f[3] == "context") {
      predicted = s.assumptions.cuda_context_bytes;
    } else {
      if (f[3] == "weights") s.mode = gpuplan::Mode::infer;
      auto e = gpuplan::estimate(*m, s);
      if (!e.ok()) {
        std::printf("%s skipped: %s\n", f[0].c_str(), e.error().message.c_str());
        continue;
      }
      const auto& mem = e.value().memory;
      predicted = f[3] == "weights" ? mem.weights + mem.context : mem.total();
    }
    const double err = (predicted - measured) / measured;
    sum += std::fabs(err);
    ++n;
    std::printf("%-5s %-9s %-9s %-10s %2s/%-2s %-10s %10s %10s %+7.1f%%\n", f[0].c_str(), f[3].c_str(), f[4].c_str(),
                f[5].c_str(), f[6].c_str(), f[7].c_str(), f[9].c_str(), gpuplan::format_bytes(measured).c_str(),
                gpuplan::format_bytes(predicted).c_str(), 100 * err);
  }
  std::printf("memory MAPE %.1f%% over %d rows\n", n ? 100 * sum / n : 0.0, n);
  return 0;
}
