#pragma once
// The running app and catalog, for the platform's entry points (JavaScript exports).

#include "ui/app.h"

namespace gpuplan::web {

App* app_instance();                // null before main() has created it
const Catalog* catalog_instance();  // null before main() has loaded it; complete (instances)
// Loads the catalog's instances if they are not yet (main() leaves them for after the first
// frame) and tells the App.
void complete_catalog();
// Asks the loop to draw: something outside the frame changed what the page shows (the link, an
// upload, the wheel, the font, the catalog) or input arrived. The page draws nothing otherwise.
void wake_page();
// The Chinese font subset's bytes (empty when it could not be loaded); the next frame uses it.
void deliver_cjk_font(std::string bytes);

}  // namespace gpuplan::web
