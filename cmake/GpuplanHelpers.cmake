# One helper per kind of target, so flags live in one place.

# Warnings for code written here (not for third-party sources).
function(gpuplan_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
endfunction()

# Flags every WebAssembly executable needs (see shared/notes/wasm-build.md).
function(gpuplan_wasm_link_flags target)
  target_link_options(${target} PRIVATE -fexceptions -sALLOW_MEMORY_GROWTH=1)
endfunction()

# gpuplan_add_test(NAME SOURCES...): one GoogleTest executable per area, registered with CTest.
# Natively each test case is a CTest test of its own (they run in parallel, a failure names its
# case). Under Emscripten the executable runs once in node (CMAKE_CROSSCOMPILING_EMULATOR) as one
# CTest test, wasm.NAME: starting node and compiling the module took about 0.35 s per case, more
# than the cases themselves, over 250 times; gtest still names each failing case in the output.
# Under the sanitizers, likewise, starting an instrumented process cost about 0.37 s per case
# (269 s for 583 cases against 51 s for core_test in one run), so the executable runs as
# GPUPLAN_SANITIZE_SHARDS gtest shards, NAME.shardI, each naming its failing cases.
# Every test file starts with GoogleTest and most with nlohmann/json: parsing the two took about
# half of a test file's compile (2.5 of 4.9 s), so they are a precompiled header, once per target.
set(GPUPLAN_SANITIZE_SHARDS 4)
function(gpuplan_add_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE gpuplan_core gpuplan_data GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE GPUPLAN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_precompile_headers(${name} PRIVATE <gtest/gtest.h> <nlohmann/json.hpp> <string> <vector>)
  # The code under test is the optimised library; the test files themselves compiled at -O3 took
  # twice as long as at -O1 (10.5 against 5.6 s for serve_test.cpp) and run no faster that matters.
  if(NOT GPUPLAN_SANITIZE)
    target_compile_options(${name} PRIVATE -O1)
  endif()
  # Tests may reach the core's internal headers (parsers, builders) to test them directly.
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
  gpuplan_warnings(${name})
  if(EMSCRIPTEN)
    # NODERAWFS lets the test read the repository's files (golden values, fixtures) from node.
    target_compile_options(${name} PRIVATE -fexceptions)
    target_link_options(${name} PRIVATE -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0
                        -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sTOTAL_STACK=5242880 -fexceptions)
    add_test(NAME wasm.${name} COMMAND ${name} --gtest_brief=1)
    set_tests_properties(wasm.${name} PROPERTIES LABELS wasm TIMEOUT 600)
  elseif(GPUPLAN_SANITIZE)
    math(EXPR last "${GPUPLAN_SANITIZE_SHARDS} - 1")
    foreach(shard RANGE ${last})
      add_test(NAME ${name}.shard${shard} COMMAND ${name} --gtest_brief=1)
      set_tests_properties(${name}.shard${shard} PROPERTIES LABELS native TIMEOUT 900
        ENVIRONMENT "GTEST_TOTAL_SHARDS=${GPUPLAN_SANITIZE_SHARDS};GTEST_SHARD_INDEX=${shard}")
    endforeach()
  else()
    gtest_discover_tests(${name} PROPERTIES LABELS native DISCOVERY_TIMEOUT 60)
  endif()
endfunction()

# gpuplan_add_fuzzer(NAME SOURCES...): a libFuzzer executable over the core (GPUPLAN_FUZZ builds,
# clang only), registered with CTest as fuzz.NAME without its fuzz_ prefix (label fuzz): a short
# run from its seed corpus.
# FUZZ_TEST_SECONDS bounds that run; `make fuzz` runs each for longer (scripts/fuzz-run.sh).
function(gpuplan_add_fuzzer name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE gpuplan_core gpuplan_data)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  gpuplan_warnings(${name})
  add_dependencies(fuzzers ${name})
  string(REGEX REPLACE "^fuzz_" "" short ${name})
  add_test(NAME fuzz.${short}
           COMMAND ${BASH} ${PROJECT_SOURCE_DIR}/scripts/fuzz-run.sh $<TARGET_FILE:${name}> ${CMAKE_BINARY_DIR}/fuzz
                   ${FUZZ_TEST_SECONDS} --fresh)
  set_tests_properties(fuzz.${short} PROPERTIES LABELS fuzz FIXTURES_REQUIRED fuzz_corpus TIMEOUT 180)
endfunction()
