// Renumbering and concatenation at the JSON level, so the per-node payload stays the one format.
#include "merge.h"

#include <nlohmann/json.hpp>

#include "../report.h"

namespace gpuplan::probe {
namespace {

using ojson = nlohmann::ordered_json;

bool has_parts(const ojson& p) {
  for (const char* k : {"gpus", "results", "warnings", "nodes", "topology", "host", "software"}) {
    if (!p.contains(k)) return false;
  }
  return p["gpus"].is_array() && p["results"].is_array() && p["warnings"].is_array() &&
         p["nodes"].is_array() && p["topology"].is_object() &&
         p["topology"]["peer_access"].is_array();
}

void shift_gpu(ojson& v, int64_t offset) {
  if (v.is_number_integer()) v = v.get<int64_t>() + offset;
}

}  // namespace

std::string merge_node_payloads(const std::vector<std::string>& payloads, std::string& error) {
  error.clear();
  if (payloads.empty()) {
    error = "no node payloads to merge";
    return {};
  }
  std::vector<ojson> parts;
  for (size_t r = 0; r < payloads.size(); ++r) {
    ojson p = ojson::parse(payloads[r], nullptr, false);
    if (p.is_discarded() || !p.is_object() || !has_parts(p)) {
      error = "node " + std::to_string(r) + " sent a payload that is not a probe payload";
      return {};
    }
    parts.push_back(std::move(p));
  }
  ojson merged = parts.front();
  ojson gpus = ojson::array(), results = ojson::array(), warnings = ojson::array(),
        nodes = ojson::array();
  std::vector<std::vector<bool>> peer;  // block diagonal: no peer access across nodes
  int64_t offset = 0;
  bool simulated = false;
  for (size_t r = 0; r < parts.size(); ++r) {
    ojson& p = parts[r];
    const int64_t node = int64_t(r);
    const int64_t count = int64_t(p["gpus"].size());
    simulated = simulated || p.value("simulated", false);
    for (ojson g : p["gpus"]) {
      g["node"] = node;
      g["node_index"] = g["index"];
      shift_gpu(g["index"], offset);
      gpus.push_back(std::move(g));
    }
    for (ojson row : p["results"]) {
      // Every node holds the same agreed all-reduce timings; keep one copy, rank 0's.
      if (row.value("case", "") == "nccl_allreduce" && r > 0) continue;
      shift_gpu(row["gpu"], offset);
      if (row["clocks"].is_object() && row["clocks"]["gpus"].is_array()) {
        for (auto& g : row["clocks"]["gpus"]) shift_gpu(g, offset);
      }
      // A multi-node all-reduce row belongs to no single node.
      const bool spans = row.value("case", "") == "nccl_allreduce" && parts.size() > 1;
      row["node"] = spans ? ojson(nullptr) : ojson(node);
      results.push_back(std::move(row));
    }
    const std::string host = p["host"].value("hostname", std::string());
    for (const auto& w : p["warnings"]) {
      warnings.push_back(parts.size() > 1 ? "node " + std::to_string(r) + " (" + host +
                                                "): " + w.get<std::string>()
                                          : w.get<std::string>());
    }
    nodes.push_back({{"node", node},
                     {"first_gpu", offset},
                     {"gpu_count", count},
                     {"host", p["host"]},
                     {"software", p["software"]}});
    for (const auto& row : p["topology"]["peer_access"]) {
      std::vector<bool> line(size_t(offset), false);
      for (const auto& v : row) line.push_back(v.is_boolean() && v.get<bool>());
      peer.push_back(std::move(line));
    }
    offset += count;
    for (auto& line : peer) line.resize(size_t(offset), false);
    if (p.value("started_utc", "") < merged.value("started_utc", ""))
      merged["started_utc"] = p["started_utc"];
    if (p.value("finished_utc", "") > merged.value("finished_utc", ""))
      merged["finished_utc"] = p["finished_utc"];
  }
  merged["simulated"] = simulated;
  merged["nodes"] = nodes;
  merged["gpus"] = gpus;
  merged["topology"]["peer_access"] = peer;
  merged["results"] = results;
  merged["warnings"] = warnings;
  merged["summary"] = summary_of(gpus, results, int64_t(parts.size()));
  return merged.dump(2) + "\n";
}

}  // namespace gpuplan::probe
