# SPDX-License-Identifier: MIT
# Reliability (issue 9): broken-world tests of core/ and the CLI, and the valgrind label.
hwc_unit_test(test_reliability reliability/test_reliability.c)
target_compile_definitions(test_reliability PRIVATE HWC_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
set_tests_properties(test_reliability PROPERTIES LABELS "unit;reliability" TIMEOUT 120)
