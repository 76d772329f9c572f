#pragma once
// Which cloud instance this is, from the provider's metadata service: AWS (IMDSv2: PUT a token,
// then GET with it), GCP (Metadata-Flavor: Google) and Azure (Metadata: true), all at the
// link-local address. Each request has its own short timeout; the base URL is injectable so
// tests talk to a fake server on 127.0.0.1 only.

#include <optional>
#include <string>
#include <vector>

namespace gpuplan::probe {

inline constexpr const char* kMetadataBaseUrl = "http://169.254.169.254";

struct CloudInfo {
  std::string provider;  // "aws", "gcp", "azure"
  std::optional<std::string> instance_type, region;
};

// Asks AWS, then GCP, then Azure at `base_url`. nullopt when none answers (off-cloud, or the
// service is blocked). `log` receives one line per attempt, for --verbose style diagnostics.
std::optional<CloudInfo> query_cloud_metadata(const std::string& base_url, double timeout_s,
                                              std::vector<std::string>* log = nullptr);

}  // namespace gpuplan::probe
