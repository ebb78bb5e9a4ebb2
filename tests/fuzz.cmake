# SPDX-License-Identifier: MIT
# Fuzz harnesses: tests/fuzz/fuzz_<parser>.c, each defining LLVMFuzzerTestOneInput, seeded from
# tests/fuzz/corpus/<parser>/ (copied from fixtures). Always built against a standalone driver that
# replays the seeds (label fuzz); with -DHWCHECK_FUZZ=ON and clang also as libFuzzer executables
# fuzz_<parser>, run for a short bounded time by the test suite (label fuzz).
file(GLOB HWC_FUZZ_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.c)
foreach(src ${HWC_FUZZ_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" parser ${name})
  set(corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${parser})
  add_executable(${name}_seeds ${src} fuzz/standalone.c)
  target_link_libraries(${name}_seeds PRIVATE hwc_cli)
  if(EXISTS ${corpus})
    add_test(NAME ${name}_seeds COMMAND ${name}_seeds ${corpus})
    set_tests_properties(${name}_seeds PROPERTIES LABELS "fuzz;unit" ENVIRONMENT "LC_ALL=C")
  endif()
  if(HWCHECK_FUZZ)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE hwc_cli)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    if(EXISTS ${corpus})
      # A short bounded run on a copy of the seeds (libFuzzer writes new inputs into its corpus dir).
      add_test(NAME ${name}_short COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C
        ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run-short.sh $<TARGET_FILE:${name}> ${corpus} 20)
      set_tests_properties(${name}_short PROPERTIES LABELS fuzz)
    endif()
  endif()
endforeach()
