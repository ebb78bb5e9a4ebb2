# SPDX-License-Identifier: MIT
# hwinfo (host half, issue 5): parsers on real captures, host-hw-* fixture goldens, the live run.
hwc_unit_test(test_hwinfo_host_parsers hwinfo/test_host_parsers.c)
target_compile_definitions(test_hwinfo_host_parsers PRIVATE HWC_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
hwc_py_test(hwinfo_host hwinfo/test_host.py)
