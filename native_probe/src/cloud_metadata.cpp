// Cloud metadata: three providers, same link-local host, plain HTTP.
#include "cloud_metadata.h"

#include <nlohmann/json.hpp>

#include "http_client.h"

namespace gpuplan::probe {
namespace {

// Metadata values end up in a signed file: keep short printable ASCII only.
std::optional<std::string> clean(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  if (s.empty() || s.size() > 128) return std::nullopt;
  for (char c : s) {
    if (c < 0x21 || c > 0x7e) return std::nullopt;
  }
  return s;
}

std::string last_segment(const std::string& s) {
  return s.substr(s.rfind('/') + 1);
}

struct Asker {
  std::string base;
  double timeout_s;
  std::vector<std::string>* log;
  bool host_unreachable = false;

  HttpResponse ask(const std::string& method, const std::string& path,
                   std::vector<std::pair<std::string, std::string>> headers) {
    HttpRequest req;
    req.method = method;
    req.url = base + path;
    req.headers = std::move(headers);
    req.timeout_s = timeout_s;
    HttpResponse r = http_request(req);
    if (log)
      log->push_back(method + " " + req.url + ": " +
                     (r.ok ? "HTTP " + std::to_string(r.status) : r.error));
    // Nothing listens (or it never answered): the other providers use the same host.
    if (!r.ok && (r.timed_out || r.error.rfind("connect", 0) == 0)) host_unreachable = true;
    return r;
  }
};

std::optional<CloudInfo> aws(Asker& a) {
  HttpResponse token =
      a.ask("PUT", "/latest/api/token", {{"X-aws-ec2-metadata-token-ttl-seconds", "60"}});
  if (!token.ok || token.status != 200 || token.body.empty()) return std::nullopt;
  const std::vector<std::pair<std::string, std::string>> h = {
      {"X-aws-ec2-metadata-token", token.body}};
  HttpResponse type = a.ask("GET", "/latest/meta-data/instance-type", h);
  if (!type.ok || type.status != 200) return std::nullopt;
  CloudInfo c{"aws", clean(type.body), std::nullopt};
  HttpResponse region = a.ask("GET", "/latest/meta-data/placement/region", h);
  if (region.ok && region.status == 200) c.region = clean(region.body);
  return c;
}

std::optional<CloudInfo> gcp(Asker& a) {
  const std::vector<std::pair<std::string, std::string>> h = {{"Metadata-Flavor", "Google"}};
  HttpResponse type = a.ask("GET", "/computeMetadata/v1/instance/machine-type", h);
  // The real server echoes the flavour header; anything else is not GCP's.
  auto flavor = type.headers.find("metadata-flavor");
  if (!type.ok || type.status != 200 || flavor == type.headers.end() || flavor->second != "Google")
    return std::nullopt;
  CloudInfo c{"gcp", clean(last_segment(type.body)),
              std::nullopt};  // "projects/1/machineTypes/a3-highgpu-8g"
  HttpResponse zone = a.ask("GET", "/computeMetadata/v1/instance/zone", h);
  if (zone.ok && zone.status == 200) {
    const std::string z = last_segment(zone.body);  // "us-central1-a" -> region "us-central1"
    c.region = clean(z.substr(0, z.rfind('-')));
  }
  return c;
}

std::optional<CloudInfo> azure(Asker& a) {
  HttpResponse r =
      a.ask("GET", "/metadata/instance/compute?api-version=2021-02-01", {{"Metadata", "true"}});
  if (!r.ok || r.status != 200) return std::nullopt;
  const auto j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("vmSize") || !j["vmSize"].is_string())
    return std::nullopt;
  CloudInfo c{"azure", clean(j["vmSize"].get<std::string>()), std::nullopt};
  if (j.contains("location") && j["location"].is_string())
    c.region = clean(j["location"].get<std::string>());
  return c;
}

}  // namespace

std::optional<CloudInfo> query_cloud_metadata(const std::string& base_url, double timeout_s,
                                              std::vector<std::string>* log) {
  std::string base = base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  Asker a{base, timeout_s, log};
  for (auto provider : {aws, gcp, azure}) {
    if (auto c = provider(a); c && c->instance_type) return c;
    if (a.host_unreachable) return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace gpuplan::probe
