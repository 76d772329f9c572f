// gpuplan-probe (no MPI): always one process. Started as several ranks, main refuses.
#include "peers.h"

namespace gpuplan::probe {

std::unique_ptr<Peers> make_process_peers(int*, char***) {
  return make_single_peers();
}

}  // namespace gpuplan::probe
