#pragma once
// What the page model's tests share: the embedded catalog and serving assumptions, loaded once,
// a page computed from a link as the App computes it, and a CSV export read back into cells.
#include <sstream>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/embedded_data.h"
#include "gpuplan/plan.h"
#include "gpuplan/serve_assumptions.h"
#include "model/page_model.h"

namespace gpuplan::web::page_test {

inline const Catalog& catalog() {
  static const Catalog c = load_catalog(embedded_data_files()).value();
  return c;
}

inline const ServingAssumptions& serving() {
  static const ServingAssumptions s = serving_assumptions(embedded_data_files()).value();
  return s;
}

// A page on `link` computed as the App computes it: the link read leniently with its problems,
// the estimate, and with `run_jobs` the planner on the Plans tab and the serving job to its end
// on the Serving tab (without, the tabs are as before their work ran).
inline PageModel computed_page(const std::string& link, bool run_jobs = true) {
  PageModel m;
  m.catalog = &catalog();
  ParsedLink parsed = page_state_from_link(link);
  check_link_ids(catalog(), parsed);
  m.state = parsed.state;
  m.link_problems = parsed.problems;
  // As the page does: the serving profiles for a generation (App::recompute).
  auto ev = compute(catalog(), m.state, nullptr, nullptr,
                    times_generation(m.state) ? &serving() : nullptr);
  if (ev.ok())
    m.ev = std::move(ev).value();
  else
    m.error = ev.error();
  if (run_jobs && m.state.tab == Tab::plans && m.ev) {
    auto plans = plan(catalog(), m.ev->model, plan_query(catalog(), m.state, m.ev->model));
    if (plans.ok())
      m.plans = std::move(plans).value();
    else
      m.plan_error = plans.error();
  }
  if (run_jobs && m.state.tab == Tab::serving) {
    auto job = start_serve_job(catalog(), m.state, m.serve);
    while (job && !job->done) step_serve_job(catalog(), serving(), *job, m.serve);
  }
  return m;
}

// The cells of each line of a CSV without quoted fields; a trailing comma is an empty last cell.
inline std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace gpuplan::web::page_test
