# SPDX-License-Identifier: MIT
# ethtool as the oracle of the module EEPROM decoder for bytes of our choosing (CMIS included):
# an LD_PRELOAD shim makes the system's ethtool take its ioctl path and answers it from a file.
# Built without the sanitizers (it is loaded into an uninstrumented ethtool) and only for tests.
add_library(hwc_ethtool_shim MODULE oracle/ethtool_shim.c)
target_link_libraries(hwc_ethtool_shim PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(hwc_ethtool_shim PROPERTIES PREFIX "lib")
add_test(NAME ethtool_oracle COMMAND ${HWC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/oracle/test_ethtool_oracle.py
  --shim $<TARGET_FILE:hwc_ethtool_shim>)
set_tests_properties(ethtool_oracle PROPERTIES ENVIRONMENT "LC_ALL=C;PYTHONDONTWRITEBYTECODE=1"
  SKIP_RETURN_CODE 77 LABELS unit)
