#pragma once
// The font atlas: Dear ImGui's default font merged with a few symbols it lacks (always, from a
// subset embedded at build time) and, once loaded, the Chinese subset (web/subset_font.py).

#include <string>

#include "gpuplan/catalog.h"

namespace gpuplan::web {

// Rebuilds the atlas at `size_px`. With `cjk_font` (the bytes of the CJK subset; kept alive by
// the caller), glyphs for every character of the Chinese string table and of the catalog are
// added. Call outside NewFrame/Render; the renderer's font texture must be recreated after.
void build_font_atlas(float size_px, const std::string* cjk_font, const Catalog& catalog);

}  // namespace gpuplan::web
