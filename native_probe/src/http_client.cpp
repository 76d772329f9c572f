// HTTP/1.1 over a non-blocking socket with poll() deadlines.
#include "http_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace gpuplan::probe {
namespace {

constexpr size_t kMaxResponseBytes = 64 * 1024;
using Clock = std::chrono::steady_clock;

struct Url {
  std::string host, port = "80", path = "/";
};

bool parse_url(const std::string& url, Url& out) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) return false;
  const std::string rest = url.substr(scheme.size());
  const size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) out.path = rest.substr(slash);
  if (!authority.empty() && authority.front() == '[') {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string::npos) return false;
    out.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':')
      out.port = authority.substr(close + 2);
  } else {
    const size_t colon = authority.rfind(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos) out.port = authority.substr(colon + 1);
  }
  return !out.host.empty() && !out.port.empty();
}

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Milliseconds left until `deadline`, at least 0.
int ms_left(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? int(left) : 0;
}

// Waits for `events` on fd; false on timeout (sets r.timed_out) or error.
bool wait_for(int fd, short events, Clock::time_point deadline, HttpResponse& r, const char* what) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = poll(&p, 1, ms_left(deadline));
    if (n > 0) return true;
    if (n == 0) {
      r.timed_out = true;
      r.error = std::string("timed out while ") + what;
      return false;
    }
    if (errno != EINTR) {
      r.error = std::string("poll: ") + std::strerror(errno);
      return false;
    }
  }
}

bool decode_chunked(const std::string& in, std::string& out) {
  size_t p = 0;
  for (;;) {
    const size_t eol = in.find("\r\n", p);
    if (eol == std::string::npos) return false;
    const size_t len = std::strtoul(in.substr(p, eol - p).c_str(), nullptr, 16);
    p = eol + 2;
    if (len == 0) return true;
    if (p + len > in.size()) return false;
    out.append(in, p, len);
    p += len + 2;
  }
}

// Parses `raw`; true when the response is complete.
bool parse_response(const std::string& raw, bool eof, HttpResponse& r) {
  const size_t head_end = raw.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  r.headers.clear();
  size_t line_start = raw.find("\r\n") + 2;
  if (std::sscanf(raw.c_str(), "HTTP/%*d.%*d %d", &r.status) != 1) {
    r.error = "not an HTTP response";
    return eof;
  }
  while (line_start < head_end) {
    const size_t eol = raw.find("\r\n", line_start);
    const std::string line = raw.substr(line_start, eol - line_start);
    const size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      value.erase(value.find_last_not_of(" \t\r") + 1);
      r.headers[name] = value;
    }
    line_start = eol + 2;
  }
  const std::string body = raw.substr(head_end + 4);
  auto te = r.headers.find("transfer-encoding");
  if (te != r.headers.end() && te->second.find("chunked") != std::string::npos) {
    r.body.clear();
    return decode_chunked(body, r.body) || eof;
  }
  auto cl = r.headers.find("content-length");
  if (cl != r.headers.end()) {
    const size_t len = std::strtoul(cl->second.c_str(), nullptr, 10);
    if (body.size() < len) return false;
    r.body = body.substr(0, len);
    return true;
  }
  r.body = body;
  return eof;
}

}  // namespace

HttpResponse http_request(const HttpRequest& req) {
  HttpResponse r;
  const auto deadline = Clock::now() + std::chrono::microseconds(int64_t(req.timeout_s * 1e6));
  Url url;
  if (!parse_url(req.url, url)) {
    r.error = "not an http:// URL: " + req.url;
    return r;
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;  // never block on DNS
  addrinfo* ai = nullptr;
  if (getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &ai) != 0 || !ai) {
    r.error = "host must be an IP address and port a number: " + req.url;
    return r;
  }
  Socket s(socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (s.fd() < 0) {
    freeaddrinfo(ai);
    r.error = std::string("socket: ") + std::strerror(errno);
    return r;
  }
  const int rc = connect(s.fd(), ai->ai_addr, ai->ai_addrlen);
  freeaddrinfo(ai);
  if (rc != 0 && errno != EINPROGRESS) {
    r.error = std::string("connect: ") + std::strerror(errno);
    return r;
  }
  if (rc != 0) {
    if (!wait_for(s.fd(), POLLOUT, deadline, r, "connecting")) return r;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      r.error = std::string("connect: ") + std::strerror(err);
      return r;
    }
  }

  std::string out = req.method + " " + url.path + " HTTP/1.1\r\nHost: " + url.host +
                    "\r\nUser-Agent: gpuplan-probe\r\nAccept: */*\r\nConnection: close\r\n";
  for (const auto& [k, v] : req.headers) out += k + ": " + v + "\r\n";
  if (req.method == "PUT" || req.method == "POST") out += "Content-Length: 0\r\n";
  out += "\r\n";
  for (size_t sent = 0; sent < out.size();) {
    if (!wait_for(s.fd(), POLLOUT, deadline, r, "sending")) return r;
    const ssize_t n = send(s.fd(), out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      r.error = std::string("send: ") + std::strerror(errno);
      return r;
    }
    sent += size_t(n);
  }

  std::string raw;
  char buf[4096];
  for (;;) {
    if (!wait_for(s.fd(), POLLIN, deadline, r, "waiting for the response")) return r;
    const ssize_t n = recv(s.fd(), buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) {
      r.error = std::string("recv: ") + std::strerror(errno);
      return r;
    }
    raw.append(buf, size_t(n));
    if (raw.size() > kMaxResponseBytes) {
      r.error = "response larger than 64 KiB";
      return r;
    }
    if (parse_response(raw, n == 0, r)) {
      r.ok = r.error.empty();
      return r;
    }
    if (n == 0) {
      r.error = "connection closed before a complete response";
      return r;
    }
  }
}

}  // namespace gpuplan::probe
