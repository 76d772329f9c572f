// The Hardware & prices tab: the instance table with the price for the chosen pricing model,
// filters by provider and compliance, and the GPU table with dense peaks and sources.
#include <algorithm>

#include "gpuplan/report.h"
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {
namespace {

constexpr int kStalePriceDays = 180;

struct Row {
  const Instance* in;
  std::optional<PriceQuote> q;
};

void filters(const PageModel& m, UiActions& a) {
  PageState s = m.state;
  Query& q = s.query;
  bool edited = false;
  key_tip("provider");
  edited |= id_combo(S::key_provider, q.provider, provider_items(*m.catalog));
  remember(a, "provider");
  // --compliance's values (compliance_kinds), "any" first.
  const auto& kinds = compliance_kinds();
  std::vector<const char*> names = {tr(S::any)};
  int ci = 0;
  for (const ComplianceKind& c : kinds) {
    if (q.compliance == c.id) ci = static_cast<int>(names.size());
    names.push_back(c.id);
  }
  key_tip("compliance");
  field_label(S::key_compliance);
  if (ImGui::Combo(("##" + label(S::key_compliance)).c_str(), &ci, names.data(),
                   static_cast<int>(names.size()))) {
    q.compliance = ci == 0 ? "" : kinds[static_cast<size_t>(ci - 1)].id;
    edited = true;
  }
  remember(a, "compliance");
  int sort = m.instance_sort;
  const char* sorts[] = {tr(S::sort_price), tr(S::sort_gpu), tr(S::sort_provider)};
  field_label(S::sort);
  if (ImGui::Combo(("##" + label(S::sort)).c_str(), &sort, sorts, 3)) a.instance_sort = sort;
  if (edited) a.state = s;
}

bool meets_compliance(const Catalog& catalog, const Instance& in, const std::string& compliance) {
  if (compliance.empty()) return true;
  const Provider* p = catalog.find_provider(in.provider);
  for (const auto& price : in.prices) {
    const Region* r = p ? p->find_region(price.region) : nullptr;
    if (r && region_meets(*r, compliance)) return true;
  }
  return false;
}

std::vector<Row> instance_rows(const PageModel& m) {
  const Query& s = m.state.query;
  std::vector<Row> rows;
  for (const auto& in : m.catalog->instances) {
    if (!s.provider.empty() && in.provider != s.provider) continue;
    if (!meets_compliance(*m.catalog, in, s.compliance)) continue;
    auto q = quote_price(in, s.pricing, m.catalog->pricing, s.region);
    rows.push_back({&in, q.ok() ? std::optional<PriceQuote>(q.value()) : std::nullopt});
  }
  const int sort = m.instance_sort;
  std::sort(rows.begin(), rows.end(), [sort](const Row& a, const Row& b) {
    if (sort == 1) return a.in->gpu < b.in->gpu;
    if (sort == 2) return a.in->provider < b.in->provider;
    const double pa = a.q ? a.q->usd_per_hour : 1e18, pb = b.q ? b.q->usd_per_hour : 1e18;
    return pa < pb;
  });
  return rows;
}

// An hourly price; an assumed one (a rule, not a published price) marked "≈" in orange.
void price_text(const std::optional<PriceQuote>& q) {
  if (!q) {
    ImGui::TextUnformatted(tr(S::no_price));
    return;
  }
  if (q->assumption) ImGui::PushStyleColor(ImGuiCol_Text, color_assumed());
  // In the page's currency; in USD, a provider's own CNY price beside it.
  std::string text = (q->assumption ? "≈ " : "") + format_number(usd_to_shown(q->usd_per_hour), 4);
  if (money().currency == "USD" && q->currency == "CNY")
    text += " (" + format_cny(format_number(q->native_per_hour, 4)) + ")";
  ImGui::TextUnformatted(text.c_str());
  if (q->assumption) ImGui::PopStyleColor();
}

// The GPUs that reach each other over NVLink and the hosts they span: "the host" for a server,
// "72 GPUs, 18 hosts" for an NVL72 rack (marked when it is sold only whole).
void domain_text(const Instance& in) {
  if (in.hosts_per_domain() == 1) {
    ImGui::TextUnformatted(tr(S::domain_host));
    return;
  }
  const S text = in.min_hosts > 1 ? S::domain_whole : S::domain_cell;
  ImGui::TextUnformatted(format(tr(text), in.domain_gpus(), in.hosts_per_domain()).c_str());
}

void instance_table(const PageModel& m, UiActions& a) {
  const std::vector<Row> rows = instance_rows(m);
  ImGui::Text(tr(S::instances_line), tr_pricing(m.state.query.pricing));
  if (!ImGui::BeginTable("instances", 8,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                             ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                             ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingFixedFit,
                         ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 14))) {
    return;
  }
  for (S h : {S::key_instance, S::col_gpu, S::col_gpus, S::col_domain, S::col_vcpus, S::col_usd_h,
              S::col_region, S::col_basis}) {
    ImGui::TableSetupColumn(tr(money_label(h)));
  }
  // Columns fit their content; on a narrow screen (a phone) the table scrolls sideways with
  // the instance column pinned, as the Plans table does.
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableHeadersRow();
  for (const auto& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (ImGui::Selectable(
            ("##i-" + r.in->id).c_str(), r.in->id == m.state.query.instance,
            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowItemOverlap)) {
      PageState s = m.state;
      s.query.instance = r.in->id;
      // An instance sold by the rack starts at one whole rack.
      s.query.nodes = r.in->min_hosts > 1 ? r.in->min_hosts : 0;
      s.query.gpu.clear();  // the instance's
      s.query.gpus = 0;
      a.state = s;
    }
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(r.in->id.c_str());  // whole: the column fits it, the table scrolls
    const bool first = &r == &rows.front();
    if (first) remember(a, "hw-instance-0");  // tests: pinned when the table scrolls sideways
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.in->gpu.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d", r.in->gpu_count);
    ImGui::TableNextColumn();
    domain_text(*r.in);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.in->vcpus > 0 ? std::to_string(r.in->vcpus).c_str() : "-");
    ImGui::TableNextColumn();
    price_text(r.q);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.q ? region_text(r.q->region).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.q ? tr(r.q->assumption ? S::basis_rule : S::basis_published) : "-");
    if (first) remember(a, "hw-basis-0");
  }
  ImGui::EndTable();
  remember(a, "instances-table");
}

// The GEMM rates of each serving runtime's kernels per weight format, one line each: measured on
// this GPU (with the table's source) or at its generation's shares (with the GPUs measured).
template <class Line>
void serving_gemm_lines(const Gpu& g, Line& line) {
  auto text = [&](S id, const std::string& key, const std::string& tail) {
    const auto [runtime, weights] = split_serving_gemm_key(key);
    auto r = serving_gemm_rates(g, runtime, weights);
    if (!r) return;
    line(format(tr(id), runtime.c_str(), weights.c_str(),
                format_number(r->weight_stream_bytes_per_s / 1e9, 4).c_str(),
                format_number(r->matmul_flop_per_s / 1e12, 4).c_str(), tail.c_str()));
  };
  for (const auto& entry : g.serving_gemm) {
    auto src = g.fact_sources.find("serving_gemm." + entry.first);
    text(S::serving_gemm_measured, entry.first,
         src == g.fact_sources.end() ? "-" : src->second.title + " (" + src->second.date + ")");
  }
  for (const auto& [key, share] : g.serving_gemm_generation_share) {
    std::string from;
    for (const auto& id : share.from) from += (from.empty() ? "" : ", ") + id;
    text(S::serving_gemm_derived, key, from);
  }
}

// The best matmul rate known per precision, one line each: measured (with its source) or derived
// from the GPU's tensor-core generation (with the GPUs measured).
std::string matmul_tooltip(const PageModel& m, const Gpu& g) {
  std::string out;
  auto line = [&](const std::string& text) { out += (out.empty() ? "" : "\n") + text; };
  for (const auto& [p, v] : g.matmul_max_achievable_flops_per_s) {
    auto src = g.fact_sources.find("matmul_max_achievable_tflops." + p);
    const bool known = src != g.fact_sources.end();
    line(format(tr(S::matmul_measured), p.c_str(), format_number(v / 1e12, 4).c_str(),
                known ? src->second.title.c_str() : "-", known ? src->second.date.c_str() : "-"));
  }
  for (const auto& [p, share] : g.matmul_generation_share) {
    // fp16 on the bf16 units: the same rate, said once.
    if (p == "fp16" && known_matmul_flop_per_s(g, p) == known_matmul_flop_per_s(g, "bf16"))
      continue;
    std::string from;
    for (const auto& id : share.from) from += (from.empty() ? "" : ", ") + id;
    const std::string rate = format_number(known_matmul_flop_per_s(g, p) / 1e12, 4);
    const std::string pct = format_number(100 * share.share, 3) + " %";
    // The Chinese sentence names the GPUs before the share.
    const bool zh = language() == Lang::zh;
    line(format(tr(S::matmul_derived), p.c_str(), rate.c_str(), zh ? from.c_str() : pct.c_str(),
                zh ? pct.c_str() : from.c_str()));
  }
  line(format(tr(S::matmul_generic), format_number(m.catalog->efficiencies.gemm, 3).c_str()));
  serving_gemm_lines(g, line);
  return out;
}

void gpu_row(const PageModel& m, const Gpu& g, UiActions& a) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  if (ImGui::Selectable((g.name + "##gpu-row-" + g.id).c_str(),
                        m.state.query.instance.empty() && g.id == m.state.query.gpu,
                        ImGuiSelectableFlags_SpanAllColumns)) {
    PageState s = m.state;
    s.query.instance.clear();
    s.query.nodes = 0;
    s.query.gpu = g.id;
    a.state = s;
  }
  if (ImGui::IsItemHovered()) {
    auto it = g.fact_sources.find("memory_bytes");
    if (it != g.fact_sources.end()) {
      ImGui::SetTooltip(tr(S::memory_source), it->second.title.c_str(), it->second.date.c_str());
    }
  }
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(format_bytes(g.memory_bytes).c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(format_rate_bytes(g.memory_bandwidth_bytes_per_s).c_str());
  auto peak = [&](const char* p) {
    auto it = g.peak_dense_flops_per_s.find(p);
    return it == g.peak_dense_flops_per_s.end() ? std::string("-")
                                                : format_number(it->second / 1e12, 4);
  };
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(peak("bf16").c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(peak("fp32").c_str());
  ImGui::TableNextColumn();
  const double matmul16 = known_matmul_flop_per_s(g, "bf16");
  ImGui::TextUnformatted(matmul16 > 0 ? format_number(matmul16 / 1e12, 4).c_str() : "-");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", matmul_tooltip(m, g).c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(g.tdp_w > 0 ? format_watts(g.tdp_w).c_str() : "-");
}

void gpu_table(const PageModel& m, UiActions& a) {
  ImGui::TextUnformatted(tr(S::gpus_line));
  if (!ImGui::BeginTable("gpus", 7,
                         ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                             ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                             ImGuiTableFlags_SizingFixedFit,
                         ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 10))) {
    return;
  }
  for (S h : {S::col_gpu, S::col_memory, S::col_bandwidth, S::col_bf16, S::col_fp32, S::col_matmul,
              S::col_tdp}) {
    ImGui::TableSetupColumn(tr(h));
  }
  ImGui::TableSetupScrollFreeze(1, 1);  // the GPU pinned when the table scrolls sideways
  ImGui::TableHeadersRow();
  for (const auto& g : m.catalog->gpus) gpu_row(m, g, a);
  ImGui::EndTable();
}

}  // namespace

UiActions draw_hardware(const PageModel& m) {
  UiActions a(m.ratio);
  const Catalog& catalog = *m.catalog;
  const long age = today_days() - days_of(catalog.prices_as_of);
  // The range of the dates the prices carry (undated prices are marked in their rows).
  std::string oldest = catalog.prices_as_of;
  for (const auto& in : catalog.instances) {
    for (const auto& p : in.prices) {
      if (!p.date.empty() && p.date < oldest) oldest = p.date;
    }
  }
  ImGui::Text(tr(S::prices_as_of), oldest.c_str(), catalog.prices_as_of.c_str());
  if (age > kStalePriceDays) {
    ImGui::SameLine();
    error_text(format(tr(S::prices_stale), static_cast<int>(age)));
  }
  filters(m, a);
  instance_table(m, a);
  auto pct = [](double x) { return format_number(100 * x, 3) + " %"; };
  ImGui::PushStyleColor(ImGuiCol_Text, color_assumed());
  ImGui::TextWrapped(tr(S::rules_line), pct(catalog.pricing.monthly).c_str(),
                     pct(catalog.pricing.reserved).c_str(), pct(catalog.pricing.bulk).c_str(),
                     pct(catalog.pricing.spot).c_str());
  ImGui::PopStyleColor();
  ImGui::Spacing();
  gpu_table(m, a);
  return a;
}

}  // namespace gpuplan::web
