// Share-link state (the page's URL fragment, the CLI's flags): query_to_args, parse_request, the
// parse -> serialize -> parse round trip, then the estimate, step time and cost of what the link
// asks for, on the GPU its gpu=ID and gpus=N keys name.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"

using namespace gpuplan;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto args = query_to_args(text);
  if (!args.ok()) {
    fuzz::check_error(args.error());
    return 0;
  }
  // Encoding the decoded pairs and decoding again gives the same pairs (unless the first key
  // starts with the '#' or '?' that a link may begin with, or the encoded form is over the limit).
  if (!args.value().empty()) {
    const std::string& k0 = args.value()[0].first;
    const std::string encoded = args_to_query(args.value());
    if ((k0.empty() || (k0[0] != '#' && k0[0] != '?')) && encoded.size() <= 8192) {
      auto again = query_to_args(encoded);
      FUZZ_CHECK(again.ok());
      FUZZ_CHECK(again.value() == args.value());
    }
  }

  // The page reads the request keys and ignores the rest here (web/page_state.cpp); of those,
  // gpu=ID and gpus=N pick the hardware for the step time.
  auto request = parse_request(args.value(), /*allow_other_keys=*/true);
  if (!request.ok()) {
    fuzz::check_error(request.error());
    return 0;
  }
  std::string gpu_id;
  int gpus = 1;
  for (const auto& [k, v] : args.value()) {
    if (k == "gpu") gpu_id = v;
    auto n = k == "gpus" ? parse_int(v, k) : Result<int64_t>(int64_t{0});
    if (n.ok() && n.value() >= 1 && n.value() <= 4096) gpus = static_cast<int>(n.value());
  }
  // Round trip: the link written for a request reads back as the same request.
  const Args canonical = request_to_args(request.value());
  const std::string link = args_to_query(canonical);
  if (link.size() > 8192) return 0;  // percent-encoding a long raw model id can pass the limit
  auto reread = query_to_args(link);
  FUZZ_CHECK(reread.ok());
  auto back = parse_request(reread.value());
  FUZZ_CHECK(back.ok());
  FUZZ_CHECK(request_to_args(back.value()) == canonical);
  FUZZ_CHECK(args_to_query(request_to_args(back.value())) == link);

  const Catalog& cat = fuzz::catalog();
  const std::string id = request.value().model.empty() ? "gpt2-small" : request.value().model;
  const Model* model = cat.find_model(id);
  if (!model) return 0;
  const Gpu* gpu = gpu_id.empty() ? nullptr : cat.find_gpu(gpu_id);
  fuzz::exercise(*model, request.value().setup, gpu, gpus);
  return 0;
}
