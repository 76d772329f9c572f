#pragma once
// Builds a Model from a Hugging Face config.json: the decoders of 2024-26 (llama incl. 3.1/3.3's
// rope scaling, mistral, mixtral, qwen2, qwen3, qwen3_moe, deepseek_v2/v3 and kimi_k2 with
// latent attention and multi-token prediction, gpt_oss with its sliding windows and sinks,
// llama4's text model, glm4_moe, hy_v3, nemotron, qwen3_next and qwen3_5_moe's text model with
// their Gated DeltaNet blocks) and GPT-2, BERT, ViT and MPT. A missing required field, a field
// of the wrong type or an unsupported model_type gives an Error that names it; for the decoders
// a field gpuplan does not know (and that is not on its list of ones that change no cost) is
// refused by name too, as it may change the architecture.

#include <string>
#include <string_view>

#include "gpuplan/model.h"
#include "gpuplan/result.h"

namespace gpuplan {

// `where` names the upload in messages (e.g. "config.json").
Result<Model> model_from_hf_config(std::string_view text, const std::string& where);

}  // namespace gpuplan
