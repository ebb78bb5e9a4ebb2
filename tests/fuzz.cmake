# SPDX-License-Identifier: MIT
# Fuzz harnesses: tests/fuzz/fuzz_<parser>.c, each defining LLVMFuzzerTestOneInput, seeded from
# tests/fuzz/corpus/<parser>/ (copied from fixtures); optional tests/fuzz/<parser>.dict (a
# libFuzzer dictionary) and tests/fuzz/<parser>.options (extra libFuzzer flags, one line).
#  - Every build: fuzz_<parser>_seeds, the harness over its seeds with a standalone driver
#    (labels unit;seeds), so each harness replays its corpus under ASan/UBSan even without clang.
#  - -DHWCHECK_FUZZ=ON (clang): the libFuzzer executable fuzz_<parser> and the test
#    fuzz_<parser>_short (label fuzz) that fuzzes it for HWCHECK_FUZZ_SECONDS (environment, read at
#    test time; default 20) on a scratch copy of its seeds. Target hwc_fuzzers builds them all.
#    bench/fuzz-long.sh runs them for longer.
file(GLOB HWC_FUZZ_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.c)
if(HWCHECK_FUZZ)
  add_custom_target(hwc_fuzzers)
endif()
foreach(src ${HWC_FUZZ_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" parser ${name})
  set(corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${parser})
  add_executable(${name}_seeds ${src} fuzz/standalone.c)
  target_link_libraries(${name}_seeds PRIVATE hwc_cli)
  if(EXISTS ${corpus})
    add_test(NAME ${name}_seeds COMMAND ${name}_seeds ${corpus})
    set_tests_properties(${name}_seeds PROPERTIES LABELS "unit;seeds" ENVIRONMENT "LC_ALL=C")
  endif()
  if(HWCHECK_FUZZ)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE hwc_cli)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    add_dependencies(hwc_fuzzers ${name})
    if(EXISTS ${corpus})
      add_test(NAME ${name}_short COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run-short.sh
        $<TARGET_FILE:${name}> ${corpus} 20 ${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts/${parser})
      # generous: the run itself is bounded by -max_total_time; this only catches a stuck fuzzer
      set_tests_properties(${name}_short PROPERTIES LABELS fuzz ENVIRONMENT "LC_ALL=C" TIMEOUT 600)
    endif()
  endif()
endforeach()
