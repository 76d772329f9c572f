#include "ui/fonts.h"

#include <imgui.h>

#include "model/i18n.h"

namespace gpuplan::web {

extern const unsigned char kSymbolFont[];
extern const size_t kSymbolFontSize;

namespace {

// Every character the page may show in Chinese: the table's Chinese column and the catalog's
// names (regions of Chinese clouds are named in Chinese, models have a Chinese name).
std::string chinese_text(const Catalog& catalog) {
  std::string text;
  for (int i = 0; i < static_cast<int>(S::count_); ++i) text += tr(static_cast<S>(i), Lang::zh);
  for (const auto& p : catalog.providers) {
    text += p.name;
    for (const auto& r : p.regions) text += r.name;
  }
  for (const auto& m : catalog.models) text += m.name + m.name_zh;
  return text;
}

void merge_font(const void* data, size_t size, float size_px, const ImWchar* ranges) {
  // Noto's CJK ideographs drawn at the 13 px of ImGui's default (ProggyClean) font look a size
  // smaller than its Latin letters: draw them 15 % larger, nudged up to share the baseline.
  size_px *= 1.15f;
  ImFontConfig merge;
  merge.GlyphOffset.y = -size_px * 0.08f;
  merge.MergeMode = true;
  merge.FontDataOwnedByAtlas = false;  // the caller owns the bytes
  merge.PixelSnapH = true;
  ImGui::GetIO().Fonts->AddFontFromMemoryTTF(const_cast<void*>(data), static_cast<int>(size),
                                             size_px, &merge, ranges);
}

}  // namespace

void build_font_atlas(float size_px, const std::string* cjk_font, const Catalog& catalog) {
  ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  atlas->Clear();
  ImFontConfig base;
  base.SizePixels = size_px;
  atlas->AddFontDefault(&base);
  // Glyph ranges must outlive the atlas build: static.
  static ImVector<ImWchar> symbols, chinese;
  symbols.clear();
  ImFontGlyphRangesBuilder sb;
  sb.AddText(tr(S::assumed_mark, Lang::en));  // "≈"
  sb.AddText(tr(S::key_lang, Lang::en));      // the language button's "中文"
  sb.AddText("…×→←–—·≤≥‰");
  sb.BuildRanges(&symbols);
  merge_font(kSymbolFont, kSymbolFontSize, size_px, symbols.Data);
  if (cjk_font && !cjk_font->empty()) {
    chinese.clear();
    ImFontGlyphRangesBuilder cb;
    cb.AddText(chinese_text(catalog).c_str());
    cb.BuildRanges(&chinese);
    merge_font(cjk_font->data(), cjk_font->size(), size_px, chinese.Data);
  }
  atlas->Build();
}

}  // namespace gpuplan::web
