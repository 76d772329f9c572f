#pragma once
// Builds a Model from a Hugging Face config.json (LLaMA, Mistral, Mixtral, Qwen2, GPT-2, BERT
// and ViT families). A missing required field, a field of the wrong type or an unsupported
// model_type gives an Error that names it.

#include <string>
#include <string_view>

#include "gpuplan/model.h"
#include "gpuplan/result.h"

namespace gpuplan {

// `where` names the upload in messages (e.g. "config.json").
Result<Model> model_from_hf_config(std::string_view text, const std::string& where);

}  // namespace gpuplan
