// The registry: every case, in the order a run measures them.
#include "common.h"

namespace gpuplan::probe {

std::vector<std::unique_ptr<Case>> all_cases() {
  std::vector<std::unique_ptr<Case>> cases;
  add_device_properties_case(cases);
  add_gemm_cases(cases);
  add_hbm_cases(cases);
  add_host_device_cases(cases);
  add_p2p_case(cases);
  add_allreduce_case(cases);
  return cases;
}

}  // namespace gpuplan::probe
