# Third-party code: system packages first (Debian), then the source cache filled by
# scripts/fetch-sources.sh, then (only if GPUPLAN_ALLOW_DOWNLOAD) a pinned, hashed download.
include(FetchContent)

option(GPUPLAN_ALLOW_DOWNLOAD "Download missing third-party sources (pinned URL + SHA-256)" OFF)
set(GPUPLAN_CACHE "$ENV{HOME}/.cache/gpuplan" CACHE PATH "Where scripts/fetch-sources.sh unpacks sources")

# --- nlohmann/json (header-only): core's only dependency. --------------------------------------
# Under Emscripten, find_* only look inside the sysroot, so search the host's include dir directly.
find_path(GPUPLAN_NLOHMANN_INCLUDE nlohmann/json.hpp
          PATHS /usr/include /usr/local/include NO_CMAKE_FIND_ROOT_PATH)
if(NOT GPUPLAN_NLOHMANN_INCLUDE AND GPUPLAN_ALLOW_DOWNLOAD)
  FetchContent_Declare(nlohmann_json
    URL https://github.com/nlohmann/json/releases/download/v3.11.2/include.zip
    URL_HASH SHA256=e5c7a9f49a16814be27e4ed0ee900ecd0092bfb7dbfca65b5a421b774dccaaed)
  FetchContent_MakeAvailable(nlohmann_json)
  set(GPUPLAN_NLOHMANN_INCLUDE ${nlohmann_json_SOURCE_DIR}/include CACHE PATH "" FORCE)
endif()
if(NOT GPUPLAN_NLOHMANN_INCLUDE)
  message(FATAL_ERROR "nlohmann/json not found: run scripts/install-deps.sh (Debian: nlohmann-json3-dev), "
                      "or configure with -DGPUPLAN_ALLOW_DOWNLOAD=ON")
endif()
# Expose only the nlohmann folder (not all of /usr/include) to the WebAssembly compiler.
set(_nl_dir ${CMAKE_BINARY_DIR}/third_party/include)
file(MAKE_DIRECTORY ${_nl_dir})
if(NOT EXISTS ${_nl_dir}/nlohmann)
  file(CREATE_LINK ${GPUPLAN_NLOHMANN_INCLUDE}/nlohmann ${_nl_dir}/nlohmann SYMBOLIC)
endif()
add_library(gpuplan_json INTERFACE)
target_include_directories(gpuplan_json SYSTEM INTERFACE ${_nl_dir})

# --- GoogleTest: Debian's sources, compiled with our compiler (also em++). ---------------------
if(GPUPLAN_BUILD_TESTS)
  if(EXISTS /usr/src/googletest/CMakeLists.txt)
    set(gtest_disable_pthreads ${EMSCRIPTEN} CACHE BOOL "" FORCE)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    add_subdirectory(/usr/src/googletest ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  elseif(GPUPLAN_ALLOW_DOWNLOAD)
    FetchContent_Declare(googletest
      URL https://github.com/google/googletest/archive/refs/tags/release-1.12.1.tar.gz
      URL_HASH SHA256=81964fe578e9bd7c94dfdb09c8e4d6e6759e19967e397dbea48d1c10e45d0df2)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    FetchContent_MakeAvailable(googletest)
  else()
    message(FATAL_ERROR "GoogleTest sources not found: run scripts/install-deps.sh (Debian: googletest)")
  endif()
  if(EMSCRIPTEN)
    foreach(t gtest gtest_main)
      target_compile_options(${t} PRIVATE -fexceptions)
    endforeach()
  endif()
  include(GoogleTest)
endif()

# --- Dear ImGui 1.86: Debian's source package, unpacked by scripts/fetch-sources.sh. -----------
if(GPUPLAN_BUILD_UI)
  set(GPUPLAN_IMGUI_DIR "${GPUPLAN_CACHE}/imgui-1.86" CACHE PATH "Dear ImGui 1.86 sources")
  if(NOT EXISTS ${GPUPLAN_IMGUI_DIR}/imgui.cpp AND GPUPLAN_ALLOW_DOWNLOAD)
    FetchContent_Declare(imgui
      URL https://github.com/ocornut/imgui/archive/refs/tags/v1.86.zip
      URL_HASH MD5=bccb1c173296979e6a61b4f9da572429)
    FetchContent_MakeAvailable(imgui)
    set(GPUPLAN_IMGUI_DIR ${imgui_SOURCE_DIR} CACHE PATH "" FORCE)
  endif()
  if(NOT EXISTS ${GPUPLAN_IMGUI_DIR}/imgui.cpp)
    message(FATAL_ERROR "Dear ImGui sources not found in ${GPUPLAN_IMGUI_DIR}: run scripts/fetch-sources.sh, "
                        "or configure with -DGPUPLAN_ALLOW_DOWNLOAD=ON")
  endif()
  set(_im ${GPUPLAN_IMGUI_DIR})
  add_library(imgui STATIC ${_im}/imgui.cpp ${_im}/imgui_draw.cpp ${_im}/imgui_widgets.cpp
                           ${_im}/imgui_tables.cpp ${_im}/backends/imgui_impl_glfw.cpp
                           ${_im}/backends/imgui_impl_opengl3.cpp)
  target_include_directories(imgui SYSTEM PUBLIC ${_im} ${_im}/backends)
  if(EMSCRIPTEN)
    # ImGui 1.86 picks WebGL1 on Emscripten unless told to use ES3 (wasm-build.md, pitfall 6).
    target_compile_definitions(imgui PUBLIC IMGUI_IMPL_OPENGL_ES3 IMGUI_DISABLE_FILE_FUNCTIONS)
    # Compiled for size: the browser compiles each function when it is first called, on the
    # page's thread, and that is most of the wait for the first frame (web/CMakeLists.txt).
    target_compile_options(imgui PRIVATE -Os)
  else()
    find_package(glfw3 3.3 REQUIRED)
    find_package(OpenGL REQUIRED)
    target_link_libraries(imgui PUBLIC glfw OpenGL::GL ${CMAKE_DL_LIBS})
  endif()
endif()
