#pragma once
// Loading the data catalogs (data/*.json) and uploaded model descriptions.
//
// The core does no I/O: callers pass file names and contents (the CLI reads them from disk, the
// web build embeds them). Every loader checks schema_version, required fields and unknown
// fields, and names the file and field in its errors.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/accuracy.h"
#include "gpuplan/hardware.h"
#include "gpuplan/model.h"
#include "gpuplan/published_table.h"
#include "gpuplan/timing.h"
#include "gpuplan/result.h"

namespace gpuplan {

// The schema version of every catalog file this build reads.
inline constexpr int kCatalogSchemaVersion = 1;
// Files larger than this are rejected before parsing.
inline constexpr size_t kMaxJsonBytes = 4 * 1024 * 1024;

// One catalog file: its path relative to data/ (e.g. "models/gpt2-small.json") and its text.
struct DataFile {
  std::string path;
  std::string text;
};

// Everything the catalogs hold.
struct Catalog {
  std::vector<Model> models;
  std::vector<Gpu> gpus;
  std::vector<Instance> instances;
  std::vector<Provider> providers;
  PricingRules pricing;
  // Model parameters from data/assumptions.json (efficiencies, input decode rate, restarts).
  Efficiencies efficiencies;
  InputAssumptions input;
  double restart_s = 0;
  // Error bands per workload family from the development data (data/accuracy.json).
  AccuracyTable accuracy;
  std::string prices_as_of;  // newest price date in the catalog (YYYY-MM-DD)
  // Published measurements (data/published), shown beside a matching prediction (evaluate()).
  std::vector<PublishedTable> published;

  // Lookups by id or alias, then by the one id or alias equal ignoring case, spaces and
  // punctuation (GPUs also without a trailing "(...)" remark); nullptr when absent or ambiguous.
  const Model* find_model(std::string_view id_or_alias) const;
  const Gpu* find_gpu(std::string_view id_or_alias) const;
  const Instance* find_instance(std::string_view id) const;
  // For "unknown" messages: ids of the entries whose words include all of `name`'s, e.g.
  // "A100" -> a100-pcie-40gb, a100-pcie-80gb, ...; a model with none gets the nearest spellings.
  std::vector<std::string> similar_gpus(std::string_view name) const;
  std::vector<std::string> similar_models(std::string_view name) const;
  const Provider* find_provider(std::string_view id) const;
};

// How a checkpoint's weights are stored, as its name says ("-FP8", "-AWQ", "-GPTQ-Int4",
// "-NVFP4", "-bnb-4bit", ...); unstated when the name carries no such suffix (the checkpoint's
// own dtype). Serving maps what it supports onto its WeightFormat.
enum class CheckpointFormat {
  unstated,
  bf16,
  fp16,
  fp8,        // -FP8, -FP8-Dynamic
  int8,       // -Int8, -W8A8 (quantized.w8a8)
  int8_gptq,  // -GPTQ-Int8
  int4,       // -Int4, -W4A16
  int4_awq,   // -AWQ
  int4_gptq,  // -GPTQ, -GPTQ-Int4
  fp4,        // -FP4
  nvfp4,      // -NVFP4
  mxfp4,      // -MXFP4
  bnb_4bit,   // -bnb-4bit, -4bit (bitsandbytes NF4)
};
const char* checkpoint_format_name(CheckpointFormat f);

// A model name as people write it, resolved to a zoo entry, with what its checkpoint suffix said.
struct ModelMatch {
  const Model* model = nullptr;
  CheckpointFormat format = CheckpointFormat::unstated;
  std::string name;  // as written
};

// The one resolver of model names (the CLI's --model, validation rows, the page): the id or an
// alias as written; else the name with its vendor prefix ("meta-llama/"), checkpoint suffixes
// (which set `format`), variant words (-Instruct, -Chat, -hf, -Base, -it, -Thinking) and release
// dates (-2507) removed, compared without case or punctuation with the ids and aliases treated
// alike ("meta-llama/Meta-Llama-3.1-8B-Instruct" is llama-3.1-8b); else the one entry whose
// words match (Catalog::find_model's rules). nullopt when none, or when several entries match.
std::optional<ModelMatch> resolve_model(const Catalog& catalog, std::string_view name);
// The canonical form resolve_model compares: "meta-llama/Meta-Llama-3.1-70B-Instruct-FP8" ->
// "llama-3.1-70b", with the checkpoint format in `format` when given.
std::string canonical_model_name(std::string_view name, CheckpointFormat* format = nullptr);
// Up to `n` ids nearest to `name` by edit distance between canonical forms, nearest first; only
// those within a third of the name's length (so an unrelated name gets none).
std::vector<std::string> nearest_models(const Catalog& catalog, std::string_view name,
                                        size_t n = 3);

// Ids as an "unknown" message lists them: "a, b, c", at most 8 and then ", ..."; "" when none.
std::string id_list(const std::vector<std::string>& ids);

// The not_found errors for a name the catalog does not hold, each with its message id (the page
// translates them): a model or GPU also lists the similar entries when there are any.
Error unknown_model_error(const Catalog& catalog, const std::string& name);
Error unknown_gpu_error(const Catalog& catalog, const std::string& name);
Error unknown_instance_error(const std::string& name);

// Parses one data/models/*.json file.
Result<Model> parse_model_json(std::string_view text, const std::string& where);

// Parse one file of each kind (paths name the file in messages).
Result<Gpu> parse_gpu_json(std::string_view text, const std::string& where);
Result<Instance> parse_instance_json(std::string_view text, const std::string& where);
Result<Provider> parse_provider_json(std::string_view text, const std::string& where);
Result<PricingRules> parse_pricing_rules_json(std::string_view text, const std::string& where);
// data/assumptions.json into `catalog` (efficiencies, input pipeline, restart time).
std::optional<Error> parse_assumptions_json(std::string_view text, const std::string& where,
                                            Catalog& catalog);

// Copies each provider's pricing models (what it really sells) onto its instances, so a price
// quote never applies a rule where the product does not exist. load_catalog calls it.
void attach_pricing_offers(Catalog& catalog);
// An Error naming the first efficiency that is unset (0): data/assumptions.json is their only
// source, so a catalog with GPUs must give them all.
std::optional<Error> check_efficiencies(const Efficiencies& e, const std::string& where);

// Loads and cross-checks a whole catalog: unique ids, file name == id, every instance's GPU,
// provider and price regions exist, every fact has a dated source, values are plausible.
Result<Catalog> load_catalog(const std::vector<DataFile>& files);

}  // namespace gpuplan
