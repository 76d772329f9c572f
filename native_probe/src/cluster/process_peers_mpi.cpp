// gpuplan-probe-mpi's peers: the MPI ranks (MPI_Allgather of lengths, then MPI_Allgatherv of
// the bytes). Linked only into gpuplan-probe-mpi, so the plain probe needs no MPI library.
#include "peers.h"

#include <mpi.h>

#include <cstdio>
#include <numeric>

namespace gpuplan::probe {
namespace {

// MPI_Init_thread on construction, MPI_Finalize on destruction. Serialized: the harness's
// worker thread makes the calls of a collective case while the main thread waits.
class MpiPeers : public Peers {
 public:
  MpiPeers(int* argc, char*** argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED) {
      std::fprintf(stderr,
                   "gpuplan-probe: MPI gives thread level %d, below MPI_THREAD_SERIALIZED; "
                   "collectives still run from one thread at a time\n",
                   provided);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiPeers() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> all_gather(const std::string& mine) override {
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<size_t>(size_));
    MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> offsets(lens.size(), 0);
    for (size_t i = 1; i < lens.size(); ++i) offsets[i] = offsets[i - 1] + lens[i - 1];
    std::string all(static_cast<size_t>(std::accumulate(lens.begin(), lens.end(), 0)), '\0');
    MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR,
                   MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (size_t i = 0; i < lens.size(); ++i) {
      out.push_back(all.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lens[i])));
    }
    return out;
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<Peers> make_process_peers(int* argc, char*** argv) {
  return std::make_unique<MpiPeers>(argc, argv);
}

}  // namespace gpuplan::probe
