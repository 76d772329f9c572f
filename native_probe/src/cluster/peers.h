#pragma once
// The other processes of a multi-node run. mpirun/srun start one gpuplan-probe-mpi per node;
// each measures its own GPUs, they meet for the NCCL all-reduce across nodes, and rank 0
// writes one file for all of them. Peers is the one primitive they need (all-gather of bytes):
// MpiPeers implements it over MPI, SinglePeers for one process, and ThreadPeers for tests
// that run several "nodes" as threads of one process.

#include <memory>
#include <string>
#include <vector>

namespace gpuplan::probe {

class Peers {
 public:
  virtual ~Peers() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank's `mine`, in rank order, on every rank. Collective: every rank must call it
  // the same number of times, in the same order.
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;
};

// One process: rank 0 of 1.
std::unique_ptr<Peers> make_single_peers();

// The peers this process was started with: the MPI ranks in gpuplan-probe-mpi
// (process_peers_mpi.cpp), one process in gpuplan-probe (process_peers_single.cpp).
std::unique_ptr<Peers> make_process_peers(int* argc, char*** argv);

// `ranks` Peers sharing memory, one per thread (tests: a multi-node run in one process).
std::vector<std::unique_ptr<Peers>> make_thread_peers(int ranks);

// Rank 0's value, everywhere.
std::string broadcast_from_root(Peers& peers, const std::string& root_value);

// Element-wise maximum over ranks; `values` must have the same length on every rank.
std::vector<double> max_over_ranks(Peers& peers, const std::vector<double>& values);

// The first non-empty problem over all ranks, as "node R: problem"; empty when none has one.
std::string first_problem(Peers& peers, const std::string& mine);

}  // namespace gpuplan::probe
