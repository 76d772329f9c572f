// Single-process and thread-backed Peers, and the helpers built on all_gather.
#include "peers.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace gpuplan::probe {
namespace {

class SinglePeers : public Peers {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> all_gather(const std::string& mine) override { return {mine}; }
};

// A reusable rendezvous: each round collects one value per rank, then every rank reads them.
struct Rendezvous {
  explicit Rendezvous(int n) : ranks(n), slots(size_t(n)) {}
  std::mutex m;
  std::condition_variable cv;
  int ranks;
  std::vector<std::string> slots;
  int arrived = 0;
  int leaving = 0;
  long generation = 0;
};

class ThreadPeers : public Peers {
 public:
  ThreadPeers(std::shared_ptr<Rendezvous> r, int rank) : r_(std::move(r)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return r_->ranks; }
  std::vector<std::string> all_gather(const std::string& mine) override {
    std::unique_lock<std::mutex> lock(r_->m);
    // Wait until the previous round has been read by everyone.
    r_->cv.wait(lock, [&] { return r_->leaving == 0; });
    r_->slots[size_t(rank_)] = mine;
    const long gen = r_->generation;
    if (++r_->arrived == r_->ranks) {
      r_->arrived = 0;
      r_->leaving = r_->ranks;
      ++r_->generation;
      r_->cv.notify_all();
    } else {
      r_->cv.wait(lock, [&] { return r_->generation != gen; });
    }
    std::vector<std::string> out = r_->slots;
    if (--r_->leaving == 0) r_->cv.notify_all();
    return out;
  }

 private:
  std::shared_ptr<Rendezvous> r_;
  int rank_;
};

}  // namespace

std::unique_ptr<Peers> make_single_peers() {
  return std::make_unique<SinglePeers>();
}

std::vector<std::unique_ptr<Peers>> make_thread_peers(int ranks) {
  auto r = std::make_shared<Rendezvous>(std::max(ranks, 1));
  std::vector<std::unique_ptr<Peers>> out;
  for (int i = 0; i < std::max(ranks, 1); ++i) out.push_back(std::make_unique<ThreadPeers>(r, i));
  return out;
}

std::string broadcast_from_root(Peers& peers, const std::string& root_value) {
  return peers.all_gather(peers.rank() == 0 ? root_value : std::string()).front();
}

std::vector<double> max_over_ranks(Peers& peers, const std::vector<double>& values) {
  // Text with 17 significant digits round-trips a double exactly.
  std::string mine;
  for (double v : values) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g ", v);
    mine += b;
  }
  std::vector<double> out = values;
  for (const std::string& theirs : peers.all_gather(mine)) {
    const char* p = theirs.c_str();
    for (size_t i = 0; i < out.size() && *p; ++i) {
      char* end = nullptr;
      const double v = std::strtod(p, &end);
      if (end == p) break;
      out[i] = std::max(out[i], v);
      p = end;
    }
  }
  return out;
}

std::string first_problem(Peers& peers, const std::string& mine) {
  const auto all = peers.all_gather(mine);
  for (size_t r = 0; r < all.size(); ++r) {
    if (!all[r].empty()) return "node " + std::to_string(r) + ": " + all[r];
  }
  return {};
}

}  // namespace gpuplan::probe
