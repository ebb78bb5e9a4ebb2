# SPDX-License-Identifier: MIT
# Reliability (issue 9): broken-world tests of core/ and the CLI, and the valgrind label.
hwc_unit_test(test_reliability reliability/test_reliability.c)
target_compile_definitions(test_reliability PRIVATE HWC_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
set_tests_properties(test_reliability PROPERTIES LABELS "unit;reliability" TIMEOUT 120)
hwc_unit_test(test_redact reliability/test_redact.c)
set_tests_properties(test_redact PROPERTIES LABELS "unit;reliability")
hwc_py_test(broken_world reliability/test_broken_world.py)
set_tests_properties(broken_world PROPERTIES LABELS "cli;reliability" TIMEOUT 600)

# valgrind (label valgrind): the memory checker over the core tests, the fuzz seed drivers and a
# few CLI runs. Only in a build without sanitizers (ASan and valgrind do not mix); the README's
# test command runs it from a plain build, build-valgrind.
find_program(HWC_VALGRIND valgrind)
if(HWC_VALGRIND AND NOT HWCHECK_SANITIZE AND NOT HWCHECK_FUZZ)
  set(HWC_VG ${HWC_VALGRIND} --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect -q)
  foreach(t test_core test_capture test_reliability test_redact)
    add_test(NAME valgrind_${t} COMMAND ${HWC_VG} $<TARGET_FILE:${t}>)
    set_tests_properties(valgrind_${t} PROPERTIES LABELS valgrind TIMEOUT 300
      ENVIRONMENT "LC_ALL=C" SKIP_RETURN_CODE 77)
  endforeach()
  foreach(src ${HWC_FUZZ_SOURCES})
    get_filename_component(name ${src} NAME_WE)
    string(REGEX REPLACE "^fuzz_" "" parser ${name})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${parser})
      add_test(NAME valgrind_${name}_seeds COMMAND ${HWC_VG} $<TARGET_FILE:${name}_seeds>
        ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${parser})
      set_tests_properties(valgrind_${name}_seeds PROPERTIES LABELS valgrind TIMEOUT 300)
    endif()
  endforeach()
  add_test(NAME valgrind_cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/reliability/valgrind-cli.sh
    ${HWC_VALGRIND} $<TARGET_FILE:hwcheck> ${PROJECT_SOURCE_DIR})
  set_tests_properties(valgrind_cli PROPERTIES LABELS valgrind TIMEOUT 300 ENVIRONMENT "LC_ALL=C")
endif()
hwc_py_test(capture_marks reliability/test_capture_marks.py)
set_tests_properties(capture_marks PROPERTIES LABELS "cli;reliability" TIMEOUT 300)
hwc_py_test(issue20 reliability/test_issue20.py)
set_tests_properties(issue20 PROPERTIES LABELS "cli;reliability" TIMEOUT 600)
