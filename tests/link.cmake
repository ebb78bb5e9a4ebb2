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
# The far end's time bound: -t per MAD, one --cmd-timeout for all rounds, old captures replayed.
hwc_py_test(link_farend_time link/test_farend_time.py)
# Dark lanes of a module mstlink reads (no ethtool -m: InfiniBand), judged as ethtool -m's.
hwc_py_test(link_mstlink_dark link/test_mstlink_dark.py)
# mstlink's exit status (sections printed on exit 1 read, the rest unknown in its own words; a
# failure without a report not read) and the cards it refuses (ConnectX-3 and older: not asked).
hwc_py_test(link_mstlink_exit link/test_mstlink_exit.py)
# ethtool IF (negotiated vs possible) on real captures and broken text; module rates.
hwc_unit_test(test_ethtool_link link/test_ethtool_link.c)
target_compile_definitions(test_ethtool_link PRIVATE HWC_SEEDS="${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus"
  HWC_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/fixtures")
hwc_py_test(link_rate link/test_rate.py)
# The kernel's reason a link is down (ethtool's link_ext_state) on a real ConnectX-4 capture.
hwc_py_test(link_ext link/test_link_ext.py)
# tests/link/REAL-DATA.md: the fixture (real or RECONSTRUCTED) that fires each issue-14 rule.
hwc_py_test(link_real_data link/test_real_data.py)
# ethtool -m as the oracle of the module rate table (the shim of tests/oracle.cmake).
add_test(NAME link_rate_oracle COMMAND ${HWC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/oracle/test_rate_oracle.py
  --shim $<TARGET_FILE:hwc_ethtool_shim>)
set_tests_properties(link_rate_oracle PROPERTIES ENVIRONMENT "LC_ALL=C;PYTHONDONTWRITEBYTECODE=1"
  SKIP_RETURN_CODE 77 LABELS unit)
# A real SFP's published `ethtool -m` decoding re-encoded as bytes: ethtool prints it back (the oracle).
add_test(NAME link_sfp_rebuilt_oracle COMMAND ${HWC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/link/mk_sfp_rebuilt.py
  --check --shim $<TARGET_FILE:hwc_ethtool_shim>)
set_tests_properties(link_sfp_rebuilt_oracle PROPERTIES ENVIRONMENT "LC_ALL=C;PYTHONDONTWRITEBYTECODE=1"
  SKIP_RETURN_CODE 77 LABELS unit)
# ethtool -m as the oracle of the SFF-8472 alarm/warning flags (implemented or not, each On/Off) that
# LINK_MODULE_THRESHOLDS sets beside a reading past the module's thresholds.
add_test(NAME link_module_flags_oracle COMMAND ${HWC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/oracle/test_module_flags_oracle.py
  --shim $<TARGET_FILE:hwc_ethtool_shim> --hwcheck $<TARGET_FILE:hwcheck>)
set_tests_properties(link_module_flags_oracle PROPERTIES ENVIRONMENT "LC_ALL=C;PYTHONDONTWRITEBYTECODE=1"
  SKIP_RETURN_CODE 77 LABELS unit)
# Issue 14's "Done when": the per-port lines of the report on real fixtures, and their rates since
# boot and over a --watch window (cards_dump judges a facts file untouched).
add_executable(cards_dump cli/cards_dump.c tools/dump_doc.c)
target_link_libraries(cards_dump PRIVATE hwc_cli)
hwc_py_test(link_port_report link/test_port_report.py --cards-dump $<TARGET_FILE:cards_dump>)
# --watch SEC: the counters sampled twice (tests/link/make_watch_fixtures.py captures, broken
# window files, bad values, live runs on this machine: the window measured and replayed).
hwc_py_test(link_watch link/test_watch.py)
# The link rules' window verdicts on the watch-* captures.
hwc_py_test(link_watch_rules link/test_watch_rules.py)
