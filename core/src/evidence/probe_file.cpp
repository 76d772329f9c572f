// Probe files: DSSE envelope and payload parsing (see gpuplan/probe_file.h); the cryptography
// is injected (ProbeCrypto).
#include "gpuplan/probe_file.h"

#include <algorithm>

#include "catalog/json_reader.h"

namespace gpuplan {
namespace {

using nlohmann::json;

constexpr int kMaxSignatures = 16;
constexpr double kMaxRate = 1e20;  // FLOP/s or bytes/s: far beyond any device, still finite

// --- payload fields -------------------------------------------------------------------------

// A number that may be null; nullopt for null (or after an error, which `r` keeps).
std::optional<double> nullable_number(JsonReader& r, const char* key, double max) {
  const json* v = r.value(key, true);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_number()) {
    r.fail(r.name(key) + ": expected a number or null, got " + JsonReader::type_of(*v));
    return std::nullopt;
  }
  const double x = v->get<double>();
  if (!(x >= 0 && x <= max)) {
    r.fail(r.name(key) + ": " + v->dump() + " is out of range [0, " + json(max).dump() + "]");
    return std::nullopt;
  }
  return x;
}

std::optional<std::string> nullable_string(JsonReader& r, const char* key) {
  const json* v = r.value(key, true);
  if (!v || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    r.fail(r.name(key) + ": expected a string or null, got " + JsonReader::type_of(*v));
    return std::nullopt;
  }
  return v->get<std::string>();
}

// Requires `key` to be present with one of the JSON types in `types` ("object", "array", ...).
void require_type(JsonReader& r, const char* key, std::initializer_list<const char*> types) {
  const json* v = r.value(key, true);
  if (!v) return;
  for (const char* t : types) {
    if ((!std::strcmp(t, "object") && v->is_object()) ||
        (!std::strcmp(t, "array") && v->is_array()) || (!std::strcmp(t, "null") && v->is_null()) ||
        (!std::strcmp(t, "string") && v->is_string()) ||
        (!std::strcmp(t, "integer") && v->is_number_integer()) ||
        (!std::strcmp(t, "number") && v->is_number())) {
      return;
    }
  }
  std::string list;
  for (const char* t : types) list += (list.empty() ? "" : " or ") + std::string(t);
  r.fail(r.name(key) + ": expected " + list + ", got " + JsonReader::type_of(*v));
}

// "gemm_flop_per_s": the six precisions every probe file has (null when not measured), and the
// block-scaled recipes that files of newer probes add.
void read_gemm(const json& g, const std::string& where, ProbeSummary& s, JsonReader& parent) {
  JsonReader gr(g, where, "summary.gemm_flop_per_s");
  ProbeGemm& m = s.gemm_flop_per_s;
  const std::pair<const char*, std::optional<double>*> required[] = {
      {"fp64", &m.fp64}, {"fp32", &m.fp32}, {"tf32", &m.tf32},
      {"fp16", &m.fp16}, {"bf16", &m.bf16}, {"fp8", &m.fp8}};
  for (const auto& [k, out] : required) {
    if (!gr.error() && !g.contains(k)) {
      gr.fail("summary.gemm_flop_per_s." + std::string(k) +
              ": missing required field (use null when not measured)");
    }
    *out = nullable_number(gr, k, kMaxRate);
  }
  if (g.contains("mxfp8")) m.mxfp8 = nullable_number(gr, "mxfp8", kMaxRate);
  if (g.contains("nvfp4")) m.nvfp4 = nullable_number(gr, "nvfp4", kMaxRate);
  if (auto e = gr.finish()) parent.fail_with(*e);
}

// "gemm_recipes_measured" (optional): low-precision recipes, each with its measured rate.
void read_recipes(JsonReader& r, ProbeSummary& s) {
  const json* list = r.value("gemm_recipes_measured", false);
  if (!list || r.error()) return;
  if (!list->is_array()) {
    r.fail("summary.gemm_recipes_measured: expected an array of recipe names");
    return;
  }
  for (const auto& v : *list) {
    const std::string name = v.is_string() ? v.get<std::string>() : v.dump();
    if (name != "fp8" && name != "mxfp8" && name != "nvfp4") {
      r.fail("summary.gemm_recipes_measured: '" + name + "' is not fp8, mxfp8 or nvfp4");
      return;
    }
    if (!s.gemm_flop_per_s.rate(name)) {
      r.fail("summary.gemm_recipes_measured: '" + name +
             "' is listed but summary.gemm_flop_per_s." + name + " is null");
      return;
    }
    s.gemm_recipes_measured.push_back(name);
  }
}

ProbeSummary read_summary(const json& j, const std::string& where, JsonReader& parent) {
  ProbeSummary s;
  JsonReader r(j, where, "summary");
  s.gpu_name = r.string("gpu_name", std::nullopt);
  s.catalog_gpu_id = nullable_string(r, "catalog_gpu_id");
  s.gpu_count = r.integer("gpu_count", std::nullopt, 0, 1'000'000);
  s.node_count = r.integer("node_count", std::nullopt, 1, 100'000);
  s.slowest_gpu = r.integer("slowest_gpu", std::nullopt, 0, 1'000'000);
  if (!r.error() && s.gpu_count > 0 && s.slowest_gpu >= s.gpu_count) {
    r.fail("summary.slowest_gpu: " + std::to_string(s.slowest_gpu) + " is not below gpu_count " +
           std::to_string(s.gpu_count));
  }
  if (const json* g = r.object("gemm_flop_per_s", true)) read_gemm(*g, where, s, r);
  read_recipes(r, s);
  const std::pair<const char*, std::optional<double>*> rates[] = {
      {"hbm_copy_bytes_per_s", &s.hbm_copy_bytes_per_s},
      {"hbm_triad_bytes_per_s", &s.hbm_triad_bytes_per_s},
      {"h2d_pinned_bytes_per_s", &s.h2d_pinned_bytes_per_s},
      {"d2h_pinned_bytes_per_s", &s.d2h_pinned_bytes_per_s},
      {"p2p_bytes_per_s", &s.p2p_bytes_per_s},
      {"allreduce_busbw_bytes_per_s", &s.allreduce_busbw_bytes_per_s},
  };
  for (const auto& [key, out] : rates) {
    if (!r.error() && !j.contains(key)) {
      r.fail("summary." + std::string(key) +
             ": missing required field (use null when not measured)");
    }
    *out = nullable_number(r, key, kMaxRate);
  }
  s.memory_bytes = r.integer("memory_bytes", std::nullopt, 0, int64_t(1) << 56);
  if (auto e = r.finish()) parent.fail_with(*e);
  return s;
}

void read_results(const json& results, const std::string& where, ProbePayload& p,
                  JsonReader& parent) {
  for (size_t i = 0; i < results.size() && !parent.error(); ++i) {
    const std::string path = "results[" + std::to_string(i) + "]";
    JsonReader r(results[i], where, path);
    r.string("case", std::nullopt);
    const size_t status = r.choice("status", {"passed", "waived", "failed"}, std::nullopt);
    require_type(r, "gpu", {"integer", "null"});
    require_type(r, "node", {"integer", "null"});
    require_type(r, "reason", {"string", "null"});
    require_type(r, "params", {"object"});
    require_type(r, "unit", {"string", "null"});
    for (const char* k : {"median", "min", "max"}) nullable_number(r, k, kMaxRate);
    r.integer("n", 0, 0, 1'000'000'000);
    require_type(r, "clocks", {"object", "null"});
    require_type(r, "error", {"object", "null"});
    if (auto e = r.finish()) {
      parent.fail_with(*e);
      return;
    }
    (status == 0 ? p.results_passed : status == 1 ? p.results_waived : p.results_failed) += 1;
  }
}

}  // namespace

std::optional<double> ProbeGemm::rate(const std::string& recipe) const {
  const std::pair<const char*, const std::optional<double>*> all[] = {
      {"fp64", &fp64}, {"fp32", &fp32}, {"tf32", &tf32},   {"fp16", &fp16},
      {"bf16", &bf16}, {"fp8", &fp8},   {"mxfp8", &mxfp8}, {"nvfp4", &nvfp4}};
  for (const auto& [name, value] : all) {
    if (recipe == name) return *value;
  }
  return std::nullopt;
}

const char* probe_signature_name(ProbeSignature s) {
  switch (s) {
    case ProbeSignature::valid:
      return "valid";
    case ProbeSignature::invalid:
      return "invalid";
    case ProbeSignature::unsigned_file:
      return "unsigned";
  }
  return "?";
}

std::string hex_encode(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    out += digits[uint8_t(c) >> 4];
    out += digits[uint8_t(c) & 15];
  }
  return out;
}

std::string probe_key_id(const std::string& public_key, const ProbeCrypto& crypto) {
  return hex_encode(crypto.sha256(public_key).substr(0, 16));
}

std::string probe_key_fingerprint(const std::string& public_key, const ProbeCrypto& crypto) {
  std::string b64 = crypto.base64_encode(crypto.sha256(public_key));
  b64.erase(b64.find_last_not_of('=') + 1);
  return "SHA256:" + b64;
}

std::string dsse_pae(std::string_view type, std::string_view body) {
  std::string out = "DSSEv1 " + std::to_string(type.size()) + " ";
  out += type;
  out += " " + std::to_string(body.size()) + " ";
  out += body;
  return out;
}

std::string make_probe_envelope(std::string_view payload, const std::string& public_key,
                                const std::string& signature, const ProbeCrypto& crypto) {
  nlohmann::ordered_json sig;
  sig["alg"] = "Ed25519";
  sig["keyid"] = probe_key_id(public_key, crypto);
  sig["public_key"] = crypto.base64_encode(public_key);
  sig["sig"] = crypto.base64_encode(signature);
  nlohmann::ordered_json env;
  env["payloadType"] = kProbePayloadType;
  env["payload"] = crypto.base64_encode(payload);
  env["signatures"] = nlohmann::ordered_json::array({sig});
  return env.dump(2) + "\n";
}

Result<ProbePayload> parse_probe_payload(std::string_view payload, const std::string& where) {
  auto parsed = parse_json_text(payload, where, kMaxProbeFileBytes);
  if (!parsed.ok()) return parsed.error();
  const json& j = parsed.value();
  JsonReader r(j, where);
  if (r.error()) return *r.error();
  if (auto e = check_schema_version(r, kProbeSchemaVersion)) return *e;
  ProbePayload p;
  int64_t nodes_listed = 0;
  const std::string kind = r.string("kind", std::nullopt);
  if (!r.error() && kind != "gpuplan-probe") {
    r.fail("kind: '" + kind + "' is not 'gpuplan-probe' (this is not a probe payload)");
  }
  if (const json* tool = r.object("tool", true)) {
    JsonReader t(*tool, where, "tool");
    p.tool_name = t.string("name", std::nullopt);
    p.tool_version = t.string("version", std::nullopt);
    p.git_revision = t.string("git_revision", std::nullopt);
    if (auto e = t.finish()) r.fail_with(*e);
  }
  p.simulated = r.boolean("simulated", std::nullopt);
  p.started_utc = r.string("started_utc", std::nullopt);
  p.finished_utc = r.string("finished_utc", std::nullopt);
  require_type(r, "arguments", {"array"});
  require_type(r, "environment", {"object"});
  require_type(r, "software", {"object"});
  require_type(r, "gpus", {"array"});
  if (const json* nodes = r.value("nodes", true)) {
    if (!nodes->is_array() || nodes->empty()) {
      r.fail("nodes: expected a non-empty array (one entry per node), got " +
             JsonReader::type_of(*nodes));
    } else {
      nodes_listed = static_cast<int64_t>(nodes->size());
    }
  }
  require_type(r, "topology", {"object", "null"});
  if (const json* host = r.object("host", true)) {
    JsonReader h(*host, where, "host");
    for (const char* k : {"hostname", "os", "cpu_model", "cpus", "memory_bytes"}) h.value(k, true);
    const json* cloud = h.value("cloud", true);
    if (cloud && cloud->is_object()) {
      JsonReader c(*cloud, where, "host.cloud");
      p.cloud_provider = c.string("provider", std::nullopt);
      p.cloud_instance_type = nullable_string(c, "instance_type");
      p.cloud_region = nullable_string(c, "region");
      if (auto e = c.finish()) h.fail_with(*e);
    } else if (cloud && !cloud->is_null()) {
      h.fail("host.cloud: expected an object or null, got " + JsonReader::type_of(*cloud));
    }
    if (auto e = h.finish()) r.fail_with(*e);
  }
  if (const json* results = r.value("results", true)) {
    if (!results->is_array()) {
      r.fail("results: expected an array, got " + JsonReader::type_of(*results));
    } else {
      read_results(*results, where, p, r);
    }
  }
  if (const json* warnings = r.value("warnings", true)) {
    if (!warnings->is_array())
      r.fail("warnings: expected an array, got " + JsonReader::type_of(*warnings));
    for (size_t i = 0; warnings->is_array() && i < warnings->size(); ++i) {
      if (!(*warnings)[i].is_string()) {
        r.fail("warnings[" + std::to_string(i) + "]: expected a string");
        break;
      }
      p.warnings.push_back((*warnings)[i].get<std::string>());
    }
  }
  if (const json* summary = r.object("summary", true)) p.summary = read_summary(*summary, where, r);
  if (!r.error() && nodes_listed != p.summary.node_count) {
    r.fail("summary.node_count: " + std::to_string(p.summary.node_count) + " but nodes lists " +
           std::to_string(nodes_listed));
  }
  if (auto e = r.finish()) return *e;
  return p;
}

namespace {

// One entry of the envelope's signatures, decoded.
struct Signature {
  std::string public_key, signature, keyid;
};

// The envelope's fields: payloadType, the decoded payload and signatures.
struct Envelope {
  std::string type;
  std::string payload;
  std::vector<Signature> signatures;
};

Result<Signature> read_signature(const json& entry, size_t i, const std::string& where,
                                 const ProbeCrypto& crypto) {
  const std::string path = "signatures[" + std::to_string(i) + "]";
  JsonReader s(entry, where, path);
  const std::string alg = s.string("alg", std::nullopt);
  const std::string keyid = s.string("keyid", std::string());
  const std::string pk_b64 = s.string("public_key", std::nullopt);
  const std::string sig_b64 = s.string("sig", std::nullopt);
  if (auto e = s.finish()) return *e;
  if (alg != "Ed25519") {
    return make_error(Errc::schema_error, Msg::probe_signature_alg, {where, path, alg});
  }
  auto pk = crypto.base64_decode(pk_b64);
  auto sig = crypto.base64_decode(sig_b64);
  if (!pk || pk->size() != 32) {
    return make_error(Errc::schema_error, Msg::probe_public_key, {where, path});
  }
  if (!sig || sig->size() != 64)
    return make_error(Errc::schema_error, Msg::probe_signature_bytes, {where, path});
  return Signature{*pk, *sig, keyid};
}

Result<Envelope> read_envelope(const json& j, const std::string& where, const ProbeCrypto& crypto) {
  JsonReader r(j, where);
  Envelope env;
  env.type = r.string("payloadType", std::nullopt);
  const std::string payload_b64 = r.string("payload", std::nullopt);
  const json* sigs = r.value("signatures", false);
  if (sigs && !sigs->is_array())
    r.fail("signatures: expected an array, got " + JsonReader::type_of(*sigs));
  static const json kNoSignatures = json::array();
  if (!sigs) sigs = &kNoSignatures;  // absent: read as an empty list, i.e. an unsigned file
  if (auto e = r.finish()) return *e;
  auto payload = crypto.base64_decode(payload_b64);
  if (!payload) return make_error(Errc::schema_error, Msg::probe_payload_base64, {where});
  env.payload = std::move(*payload);
  if (sigs->size() > size_t(kMaxSignatures)) {
    return make_error(Errc::schema_error, Msg::probe_too_many_signatures,
                      {where, std::to_string(sigs->size()), std::to_string(kMaxSignatures)});
  }
  for (size_t i = 0; i < sigs->size(); ++i) {
    auto s = read_signature((*sigs)[i], i, where, crypto);
    if (!s.ok()) return s.error();
    env.signatures.push_back(std::move(s).value());
  }
  return env;
}

// A payload of either kind in the family: a probe's, or a measured model run's.
std::optional<Error> attach_payload(ProbeFile& f, std::string bytes) {
  if (payload_kind(bytes) == kMeasuredKind) {
    auto m = parse_measured_payload(bytes, "payload");
    if (!m.ok()) return m.error();
    f.payload_bytes = std::move(bytes);
    f.measured = std::move(m).value();
    return std::nullopt;
  }
  auto p = parse_probe_payload(bytes, "payload");
  if (!p.ok()) return p.error();
  f.payload_bytes = std::move(bytes);
  f.payload = std::move(p).value();
  return std::nullopt;
}

// Why the file is invalid or unsigned (Msg::none: it is neither).
void set_reason(ProbeFile& f, Msg id, std::vector<std::string> args) {
  f.reason = id == Msg::none ? std::string() : render_message(message_english(id), args);
  f.reason_id = id;
  f.reason_args = std::move(args);
}

void name_key(ProbeFile& f, const std::string& public_key, const ProbeCrypto& crypto) {
  f.public_key = crypto.base64_encode(public_key);
  f.key_id = probe_key_id(public_key, crypto);
  f.fingerprint = probe_key_fingerprint(public_key, crypto);
}

// The verdict on a signed envelope: valid with the first signature that verifies, else invalid
// with the last reason.
Result<ProbeFile> verify_envelope(const Envelope& env, const ProbeCrypto& crypto,
                                  const std::vector<std::string>& trusted_keys) {
  ProbeFile f;
  f.signature = ProbeSignature::invalid;
  name_key(f, env.signatures[0].public_key, crypto);
  if (env.type != kProbePayloadType) {
    set_reason(f, Msg::probe_sig_payload_type, {env.type, kProbePayloadType});
    return f;
  }
  const std::string pae = dsse_pae(env.type, env.payload);
  for (const Signature& s : env.signatures) {
    const std::string expected = probe_key_id(s.public_key, crypto);
    if (!s.keyid.empty() && s.keyid != expected) {
      set_reason(f, Msg::probe_sig_keyid, {s.keyid, expected});
      continue;
    }
    if (!crypto.verify(pae, s.signature, s.public_key)) {
      set_reason(f, Msg::probe_sig_not_verified, {});
      continue;
    }
    f.signature = ProbeSignature::valid;
    set_reason(f, Msg::none, {});
    name_key(f, s.public_key, crypto);
    f.trusted =
        std::find(trusted_keys.begin(), trusted_keys.end(), f.public_key) != trusted_keys.end();
    if (auto e = attach_payload(f, env.payload)) return *e;
    return f;
  }
  return f;
}

}  // namespace

Result<ProbeFile> read_probe_file(std::string_view text, const ProbeCrypto& crypto,
                                  const std::vector<std::string>& trusted_keys) {
  const std::string where = "probe file";
  if (!crypto.verify || !crypto.sha256 || !crypto.base64_encode || !crypto.base64_decode) {
    return make_error(Errc::invalid_argument,
                      where + ": no cryptography given (pass signing::probe_crypto())");
  }
  auto parsed = parse_json_text(text, where, kMaxProbeFileBytes);
  if (!parsed.ok()) return parsed.error();
  const json& j = parsed.value();
  ProbeFile f;
  if (j.is_object() && j.contains("kind") && j.contains("schema_version")) {
    // A bare payload: readable, but nothing vouches for it.
    f.signature = ProbeSignature::unsigned_file;
    set_reason(f, Msg::probe_unsigned_bare, {});
    if (auto e = attach_payload(f, std::string(text))) return *e;
    return f;
  }
  auto env = read_envelope(j, where, crypto);
  if (!env.ok()) return env.error();
  if (!env.value().signatures.empty()) return verify_envelope(env.value(), crypto, trusted_keys);
  f.signature = ProbeSignature::unsigned_file;
  set_reason(f, Msg::probe_unsigned_envelope, {});
  if (env.value().type != kProbePayloadType) {
    return make_error(Errc::schema_error, Msg::probe_payload_type,
                      {where, env.value().type, kProbePayloadType});
  }
  if (auto e = attach_payload(f, std::move(env.value().payload))) return *e;
  return f;
}

}  // namespace gpuplan
