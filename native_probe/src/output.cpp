// Atomic file writes and the signal handlers that keep them atomic.
#include "output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

namespace gpuplan::probe {
namespace {

// The temporary file being written, for the handler (async-signal-safe: fixed buffer, flag).
char g_temp[4096];
volatile sig_atomic_t g_have_temp = 0;

void on_signal(int sig) {
  if (g_have_temp) unlink(g_temp);
  const char* msg = sig == SIGINT ? "\ngpuplan-probe: interrupted (SIGINT); no file written\n"
                                  : "\ngpuplan-probe: terminated (SIGTERM); no file written\n";
  ssize_t ignored = write(STDERR_FILENO, msg, std::strlen(msg));
  (void)ignored;
  _exit(128 + sig);
}

std::string errno_text(const std::string& what, const std::string& path) {
  return path + ": " + what + ": " + std::strerror(errno);
}

}  // namespace

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::string write_file_atomically(const std::string& path, const std::string& text,
                                  double stall_before_rename_s) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string tmp = (dir == "/" ? "" : dir) + "/." + base + ".tmp.XXXXXX";
  if (tmp.size() >= sizeof g_temp) return path + ": path too long";

  // Block the signals while the handler's copy of the name is updated.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  const int fd = mkstemp(tmp.data());
  if (fd >= 0) {
    std::memcpy(g_temp, tmp.c_str(), tmp.size() + 1);
    g_have_temp = 1;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (fd < 0) return errno_text("cannot create a temporary file in " + dir, path);

  auto give_up = [&](const std::string& what) {
    const std::string msg = errno_text(what, path);
    close(fd);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    unlink(tmp.c_str());
    g_have_temp = 0;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return msg;
  };
  const mode_t mask = umask(0);  // mkstemp made it 0600; the file is meant to be shared
  umask(mask);
  fchmod(fd, 0644 & ~mask);
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return give_up("cannot write");
    done += size_t(n);
  }
  if (fsync(fd) != 0) return give_up("cannot fsync");
  if (stall_before_rename_s > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(stall_before_rename_s));
  }
  pthread_sigmask(SIG_BLOCK, &block, &old);
  const bool renamed = rename(tmp.c_str(), path.c_str()) == 0;
  const int rename_errno = errno;
  if (!renamed) unlink(tmp.c_str());
  g_have_temp = 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(fd);
  if (!renamed) {
    errno = rename_errno;
    return errno_text("cannot rename the temporary file into place", path);
  }
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return {};
}

}  // namespace gpuplan::probe
