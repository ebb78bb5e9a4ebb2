# SPDX-License-Identifier: MIT
# netdevs: ethtool parsers, the ioctl door (live, record, replay), IRQ locality; goldens on fixtures.
hwc_unit_test(test_netdev netdev/test_netdev.c)
target_compile_definitions(test_netdev PRIVATE
  HWC_SEEDS="${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus"
  HWC_FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/fixtures")
hwc_py_test(netdev netdev/test_netdev.py)
