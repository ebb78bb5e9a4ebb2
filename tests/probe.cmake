# SPDX-License-Identifier: MIT
# The probe (issue 7): unit tests, the CLI without RDMA hardware, and the soft-RoCE VM tests.
hwc_unit_test(test_probe probe/test_probe.c)
hwc_unit_test(test_probe_sampler probe/test_sampler.c)
target_link_libraries(test_probe PRIVATE m)
hwc_py_test(probe_cli probe/test_probe_cli.py)

# Real verbs in a qemu VM running Debian's kernel with rdma_rxe (tests/vm). The VM image is
# cached under the build directory; the tests skip (77) when qemu or the kernel cannot be had.
if(HWCHECK_VM_TESTS)
  foreach(scenario loopback twohost tcp rails pairs)
    add_test(NAME vm_probe_${scenario}
      COMMAND ${HWC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/probe/vm_probe.py
        --hwcheck $<TARGET_FILE:hwcheck> --source ${PROJECT_SOURCE_DIR}
        --vmdir ${CMAKE_BINARY_DIR}/vm --scenario ${scenario})
    set_tests_properties(vm_probe_${scenario} PROPERTIES LABELS vm TIMEOUT 400
      SKIP_RETURN_CODE 77 ENVIRONMENT "LC_ALL=C;PYTHONDONTWRITEBYTECODE=1")
  endforeach()
endif()
