# SPDX-License-Identifier: MIT
# The wire side (issue 14): FEC text and restricted functions (unit), the link-* fixture roots
# built from public captures (facts, rules, schema, round trip).
hwc_unit_test(test_link link/test_link.c)
target_compile_definitions(test_link PRIVATE HWC_SEEDS="${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus")
hwc_py_test(link link/test_link.py)
# Our module EEPROM decoder against ethtool -m's own decoding of the same bytes (the oracle).
hwc_unit_test(test_module link/test_module.c)
target_compile_definitions(test_module PRIVATE HWC_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/fixtures")
# The far end (lldpcli JSON both shapes; smpquery, perfquery dumps) on real captures and broken text.
hwc_unit_test(test_farend link/test_farend.c)
target_compile_definitions(test_farend PRIVATE HWC_SEEDS="${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus")
hwc_py_test(link_farend link/test_farend.py)
