#pragma once
// A minimal HTTP/1.1 client over POSIX sockets for the cloud metadata services (no libcurl):
// IP-literal hosts only (no DNS), one request per connection, one deadline for the whole
// exchange, responses up to 64 KiB, Content-Length or chunked bodies.

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan::probe {

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // "http://169.254.169.254/latest/meta-data/instance-type"
  std::vector<std::pair<std::string, std::string>> headers;
  double timeout_s = 0.3;  // connect + send + receive
};

struct HttpResponse {
  bool ok = false;  // a complete response arrived (any status)
  bool timed_out = false;
  std::string error;  // why not ok
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

HttpResponse http_request(const HttpRequest& request);

}  // namespace gpuplan::probe
