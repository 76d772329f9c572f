// The Benchmarks tab: an uploaded gpuplan-probe file, its signature, measured figures against
// the catalog's specs, and the switch that calibrates predictions with them.
#include "ui/screens.h"
#include "ui/widgets.h"

namespace gpuplan::web {
namespace {

void signature(const ProbeFile& f, UiActions& a) {
  if (f.signature == ProbeSignature::valid) {
    ImGui::TextColored(color_ok(), tr(S::sig_valid), f.fingerprint.c_str(),
                       tr(f.trusted ? S::sig_trusted : S::sig_not_pinned));
  } else {
    ImGui::TextColored(color_assumed(), tr(S::sig_other), probe_signature_name(f.signature),
                       f.reason.c_str());
  }
  ImGui::TextWrapped("%s", tr(S::sig_meaning));
  if (f.signature == ProbeSignature::valid && !f.trusted &&
      ImGui::Button(label(S::trust_key).c_str())) {
    a.trust_key = f.public_key;
  }
  remember(a, "trust");
}

void measured_row(const std::string& name, const std::optional<double>& v, double spec, double unit,
                  const char* u) {
  if (!v) return;
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name.c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted((format_number(*v / unit, 4) + " " + u).c_str());
  ImGui::TableNextColumn();
  if (spec > 0) {
    ImGui::TextUnformatted(
        (format_number(spec / unit, 4) + " " + u + " (" + format_number(100 * *v / spec, 3) + " %)")
            .c_str());
  } else {
    ImGui::TextUnformatted("-");
  }
}

void measured_table(const ProbePayload& p, const Gpu* g) {
  if (!ImGui::BeginTable("measured", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter))
    return;
  ImGui::TableSetupColumn(tr(S::col_measured_vs_spec));
  ImGui::TableSetupColumn(tr(S::col_measured));
  ImGui::TableSetupColumn(tr(S::col_spec));
  ImGui::TableHeadersRow();
  auto spec_peak = [&](const char* key) {
    if (!g) return 0.0;
    auto it = g->peak_dense_flops_per_s.find(key);
    return it == g->peak_dense_flops_per_s.end() ? 0.0 : it->second;
  };
  const ProbeGemm& gm = p.summary.gemm_flop_per_s;
  const std::pair<const char*, const std::optional<double>*> gemms[] = {{"fp32", &gm.fp32},
                                                                        {"tf32", &gm.tf32},
                                                                        {"fp16", &gm.fp16},
                                                                        {"bf16", &gm.bf16},
                                                                        {"fp8", &gm.fp8}};
  for (const auto& [precision, value] : gemms) {
    measured_row(std::string("GEMM ") + precision, *value, spec_peak(precision), 1e12, "TFLOPS");
  }
  measured_row(tr(S::hbm_copy), p.summary.hbm_copy_bytes_per_s,
               g ? g->memory_bandwidth_bytes_per_s : 0, 1e9, "GB/s");
  measured_row(tr(S::host_to_device), p.summary.h2d_pinned_bytes_per_s, 0, 1e9, "GB/s");
  measured_row(tr(S::allreduce_bus), p.summary.allreduce_busbw_bytes_per_s,
               g ? g->nvlink_bandwidth_bytes_per_s / 2 : 0, 1e9, "GB/s");
  ImGui::EndTable();
}

}  // namespace

UiActions draw_benchmarks(const PageModel& m) {
  UiActions a(m.ratio);
  ImGui::TextWrapped("%s", tr(S::probe_intro));
  if (!m.probe) {
    ImGui::TextDisabled("%s", tr(S::no_probe));
    return a;
  }
  const ProbeFile& f = *m.probe;
  signature(f, a);
  if (!f.payload) return a;
  const ProbePayload& p = *f.payload;
  if (p.simulated) error_text(tr(S::simulated));
  ImGui::TextWrapped(
      tr(S::probe_line), p.summary.gpu_name.c_str(), std::to_string(p.summary.gpu_count).c_str(),
      p.summary.catalog_gpu_id.value_or(tr(S::not_in_catalog)).c_str(),
      std::to_string(p.summary.node_count).c_str(), p.started_utc.c_str(), p.finished_utc.c_str());
  if (p.cloud_instance_type) ImGui::Text(tr(S::instance_is), p.cloud_instance_type->c_str());
  measured_table(
      p, p.summary.catalog_gpu_id ? m.catalog->find_gpu(*p.summary.catalog_gpu_id) : nullptr);
  bool calibrate = m.calibrate;
  if (checkbox(S::calibrate, calibrate)) a.calibrate = calibrate;
  remember(a, "calibrate");
  if (m.ev) {
    for (const auto& n : m.ev->calibration_notes) note_text(core_note(n));
  }
  for (const auto& w : p.warnings) note_text(format(tr(S::probe_warning), w.c_str()));
  return a;
}

}  // namespace gpuplan::web
