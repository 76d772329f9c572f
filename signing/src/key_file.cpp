// The probe's key file: created atomically with mode 0600, refused when others can read it.
#include "gpuplan/key_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuplan/probe_file.h"

namespace gpuplan::signing {
namespace {

constexpr int kKeySchemaVersion = 1;
constexpr size_t kMaxKeyFileBytes = 4096;

Error io_error(const std::string& path, const std::string& what) {
  return make_error(Errc::invalid_argument, path + ": " + what + ": " + std::strerror(errno));
}

std::string mode_string(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(m & 07777));
  return buf;
}

// mkdir -p with mode 0700 for the folders this creates.
bool make_parents(const std::string& path) {
  for (size_t i = 1; i < path.size(); ++i) {
    if (path[i] != '/') continue;
    const std::string dir = path.substr(0, i);
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

Result<KeyFile> read_key(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path, "cannot open the signing key");
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return make_error(Errc::invalid_argument, path + ": the signing key is not a regular file");
  }
  if (st.st_mode & 077) {
    close(fd);
    return make_error(Errc::invalid_argument,
                      path + ": mode " + mode_string(st.st_mode) +
                          " lets other users see the signing key; run 'chmod 600 " + path +
                          "' (or pass --key with a new path to make a fresh key)");
  }
  if (st.st_uid != geteuid()) {
    close(fd);
    return make_error(
        Errc::invalid_argument,
        path + ": the signing key belongs to another user (uid " + std::to_string(st.st_uid) + ")");
  }
  std::string text(kMaxKeyFileBytes + 1, '\0');
  ssize_t n = read(fd, text.data(), text.size());
  close(fd);
  if (n < 0) return io_error(path, "cannot read the signing key");
  text.resize(size_t(n));
  if (text.size() > kMaxKeyFileBytes) {
    return make_error(Errc::too_large, path + ": larger than " + std::to_string(kMaxKeyFileBytes) +
                                           " bytes; this is not a gpuplan probe key");
  }
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto str = [&](const char* k) {
    return j.is_object() && j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : "";
  };
  if (j.is_discarded() || !j.is_object() || str("kind") != "gpuplan-probe-key") {
    return make_error(
        Errc::parse_error,
        path + ": not a gpuplan probe key (expected JSON with kind 'gpuplan-probe-key')");
  }
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer() ||
      j["schema_version"].get<int64_t>() != kKeySchemaVersion) {
    return make_error(Errc::unsupported_version,
                      path + ": schema_version " +
                          (j.contains("schema_version") ? j["schema_version"].dump() : "missing") +
                          " is not supported (this build reads 1); update gpuplan");
  }
  if (str("alg") != "Ed25519")
    return make_error(Errc::schema_error, path + ": alg: expected 'Ed25519'");
  const auto seed = base64_decode(str("seed"));
  if (!seed || seed->size() != kSeedBytes) {
    return make_error(Errc::schema_error, path + ": seed: expected base64 of 32 bytes");
  }
  KeyFile k;
  k.key = keypair_from_seed(*seed);
  k.path = path;
  if (base64_encode(k.key.public_key) != str("public_key")) {
    return make_error(Errc::schema_error,
                      path + ": public_key: does not match the seed (the file was edited)");
  }
  return k;
}

}  // namespace

std::string default_key_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  const std::string base =
      xdg && *xdg ? std::string(xdg) : std::string(home && *home ? home : ".") + "/.config";
  return base + "/gpuplan/probe-key";
}

Result<KeyFile> load_or_create_key(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) return read_key(path);
  if (errno != ENOENT) return io_error(path, "cannot look at the signing key");

  auto key = generate_keypair();
  if (!key)
    return make_error(Errc::invalid_argument,
                      "no randomness source for a new signing key (libsodium init failed)");
  nlohmann::ordered_json j;
  j["schema_version"] = kKeySchemaVersion;
  j["kind"] = "gpuplan-probe-key";
  j["alg"] = "Ed25519";
  j["seed"] = base64_encode(key->secret_key.substr(0, kSeedBytes));
  j["public_key"] = base64_encode(key->public_key);
  const std::string text = j.dump(2) + "\n";

  if (!make_parents(path)) return io_error(path, "cannot create the key's folder");
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(tmp.data());  // mode 0600 whatever the umask
  if (fd < 0) return io_error(path, "cannot create the signing key");
  const bool written = fchmod(fd, 0600) == 0 && write_all(fd, text) && fsync(fd) == 0;
  close(fd);
  // link() never replaces: if another probe made the key meanwhile, use that one.
  const bool linked = written && link(tmp.c_str(), path.c_str()) == 0;
  const int link_errno = errno;
  unlink(tmp.c_str());
  if (!written) return io_error(path, "cannot write the signing key");
  if (!linked) {
    if (link_errno == EEXIST) return read_key(path);
    errno = link_errno;
    return io_error(path, "cannot create the signing key");
  }
  const std::string dir =
      path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/') + 1);
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  KeyFile k{*key, true, path};
  return k;
}

}  // namespace gpuplan::signing
