#pragma once
// The zoo's names as people write them (model_names.cpp), for Catalog::find_model.

#include <string_view>
#include <vector>

#include "gpuplan/model.h"

namespace gpuplan::detail {

// The one model whose id or an alias has the same canonical form as `name`
// (canonical_model_name); nullptr when none or several do.
const Model* find_by_canonical_name(const std::vector<Model>& models, std::string_view name);

}  // namespace gpuplan::detail
