#pragma once
// One payload for a multi-node run: rank 0 merges every node's payload (report.h) into the
// file it signs. GPUs are numbered across nodes ("index"; "node" and "node_index" say where
// each one is), result rows and clock windows follow that numbering, "nodes" lists each
// node's host and software, and the summary is recomputed over all of them. The all-reduce
// rows are rank 0's: every node already holds the same agreed, slowest-rank timings.

#include <string>
#include <vector>

namespace gpuplan::probe {

// `payloads[r]` is rank r's payload text. Returns the merged payload text, or sets `error`
// (a payload that does not parse or lacks a part) and returns empty.
std::string merge_node_payloads(const std::vector<std::string>& payloads, std::string& error);

}  // namespace gpuplan::probe
