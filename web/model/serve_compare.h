#pragma once
// The Serving tab's comparison, with no ImGui in it: the same load and targets served on each of
// a few GPUs or instances, one row each. A row is `gpuplan serve --gpu ID` (or `--instance ID`)
// for that one entry: the core's sliced serving search (start/step/finish_serve_search) run
// entry after entry, one replica per slice, and the ranking's first (cheapest) option kept. App
// runs one slice per frame (model/slices.h), as it does the Serving tab's own plan.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/serve_plan.h"
#include "model/page_state.h"
#include "model/slices.h"

namespace gpuplan::web {

// One GPU or instance compared.
struct CompareRow {
  std::string target;                 // the entry as the compare set names it (a catalog id)
  bool is_instance = false;           // --instance (not --gpu)
  std::optional<ServeOption> option;  // the first option of its `gpuplan serve`; none: error
  bool meets_targets = false;  // the replica at its highest rate meets the TTFT and TPOT targets
  Error error = make_error(Errc::invalid_argument, "");  // empty message: none
};

// What the comparison shows.
struct CompareResults {
  std::vector<CompareRow> rows;  // in the compare set's order
  Error error;                   // for the whole set (a model not in the zoo, a bad load curve)
  double progress = 1;           // share of the work done (1: none under way)
  SliceStats slices;             // how the run spread over frames (work: slices)
};

// A comparison under way: the entries' searches, one after the other.
struct CompareJob {
  Model model;
  std::vector<ServeQuery> queries;  // one per row (its GPU or instance filter set)
  size_t current = 0;               // the row being searched
  ServeSearch search;               // the current row's search
  bool started = false;             // `search` belongs to `current`
  bool done = false;
};

// Starts a comparison of the state's serve_compare set under its serving inputs. Errors for
// the whole set go to out.error, an entry's own (an unknown id) to its row.
std::unique_ptr<CompareJob> start_compare_job(const Catalog& catalog, const PageState& state,
                                              CompareResults& out);
// Runs one slice: one replica of the current entry's search, or its ranking (its row filled).
void step_compare_job(const Catalog& catalog, const ServingAssumptions& serving, CompareJob& job,
                      CompareResults& out);

// A suggested compare set: the distinct GPUs of a ranking, best first, at most `n`.
std::vector<std::string> top_gpus(const ServePlan& plan, size_t n);

// How the comparison table is sorted: a column and a direction.
enum class CompareColumn {
  gpu,
  instance,
  tp,
  replicas,
  rate,
  ttft,
  tpot,
  month,
  per_mtok,
  meets,
};
struct CompareSort {
  CompareColumn column = CompareColumn::month;
  bool descending = false;
};
// The rows' indices in the order the table shows them: by the column, rows without an option
// (or without a price, for the cost columns) last; ties keep the compare set's order.
std::vector<size_t> compare_order(const CompareResults& r, CompareSort sort, double percentile);

}  // namespace gpuplan::web
