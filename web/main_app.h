#pragma once
// The running app and catalog, for the platform's entry points (JavaScript exports).

#include "app.h"

namespace gpuplan::web {

App* app_instance();                // null before main() has created it
const Catalog* catalog_instance();  // null before main() has loaded it

}  // namespace gpuplan::web
