#pragma once
// Step time of a zoo model on a catalog GPU, for the training and planner tests.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/timing.h"
#include "test_util.h"

namespace gpuplan::test {

struct Timed {
  Estimate e;
  StepTime t;
};

inline Timed time_on(const std::string& model_id, const std::string& gpu_id, int gpus,
                     gpuplan::Setup s) {
  const Model& m = test::model(model_id);
  const Gpu* gpu = test::catalog().find_gpu(gpu_id);
  EXPECT_NE(gpu, nullptr) << gpu_id;
  if (!gpu) return {};
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  auto w = build_work_profile(m, s, e.value());
  auto c = single_node_cluster(*gpu, gpus);
  auto t = estimate_step_time(m, s, e.value(), w.value(), c.value(), test::catalog().efficiencies);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return {e.value(), t.ok() ? t.value() : StepTime{}};
}

// All-reduce bus bandwidth inside a node: half the NVLink figure (one direction) x efficiency.
inline double nvlink_busbw(const std::string& gpu_id) {
  return test::catalog().find_gpu(gpu_id)->nvlink_bandwidth_bytes_per_s / 2 *
         test::catalog().efficiencies.nvlink;
}

// The forward pass of `model_id` on one `gpu_id` with efficiencies `eff`.
inline double forward_on(const std::string& model_id, const std::string& gpu_id, gpuplan::Setup s,
                         const Efficiencies& eff, WorkProfile* work_out = nullptr) {
  const Model& m = test::model(model_id);
  auto e = estimate(m, s);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  if (!e.ok()) return 0;
  auto w = build_work_profile(m, s, e.value());
  if (work_out) *work_out = w.value();
  auto t = forward_time_s(m, s, w.value(), *test::catalog().find_gpu(gpu_id), eff,
                          static_cast<double>(e.value().micro_batch));
  EXPECT_TRUE(t.ok());
  return t.ok() ? t.value() : 0;
}

inline const OpClass& op_named(const WorkProfile& w, const std::string& name) {
  for (const auto& op : w.ops) {
    if (op.name == name) return op;
  }
  static const OpClass none;
  ADD_FAILURE() << "no op " << name;
  return none;
}

}  // namespace gpuplan::test
