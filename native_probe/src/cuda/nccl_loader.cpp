// dlopen of libnccl.so.2 and its entry points.
#include "nccl_loader.h"

#include <dlfcn.h>

namespace gpuplan::probe::nccl {
namespace {

template <class F>
bool bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

Api load() {
  Api a;
  void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    a.error = std::string("libnccl.so.2 not found (") + (e ? e : "dlopen failed") +
              "); install NCCL or add its folder to LD_LIBRARY_PATH";
    return a;
  }
  const bool ok =
      bind(lib, a.GetVersion, "ncclGetVersion") && bind(lib, a.GetUniqueId, "ncclGetUniqueId") &&
      bind(lib, a.CommInitAll, "ncclCommInitAll") &&
      bind(lib, a.CommInitRank, "ncclCommInitRank") &&
      bind(lib, a.CommDestroy, "ncclCommDestroy") && bind(lib, a.AllReduce, "ncclAllReduce") &&
      bind(lib, a.GroupStart, "ncclGroupStart") && bind(lib, a.GroupEnd, "ncclGroupEnd") &&
      bind(lib, a.GetErrorString, "ncclGetErrorString");
  if (!ok) {
    a.error = "libnccl.so.2 lacks an expected entry point (NCCL older than 2.x?)";
    return a;
  }
  a.loaded = true;
  return a;
}

}  // namespace

const Api& api() {
  static const Api a = load();
  return a;
}

}  // namespace gpuplan::probe::nccl
