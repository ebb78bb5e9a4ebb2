# SPDX-License-Identifier: MIT
# Fleet integration: diff, merge, --prom, contrib/ scripts, packaging.
hwc_py_test(fleet_diff fleet/test_diff.py)
hwc_unit_test(test_tar_read fleet/test_tar_read.c)

add_executable(prom_dump fleet/prom_dump.c tools/dump_doc.c)
target_link_libraries(prom_dump PRIVATE hwc_cli)
hwc_py_test(fleet_prom fleet/test_prom.py --prom-dump $<TARGET_FILE:prom_dump>)
hwc_py_test(fleet_merge fleet/test_merge.py)
hwc_py_test(fleet_contrib fleet/test_contrib.py)
hwc_py_test(fleet_packaging fleet/test_packaging.py --build-dir ${PROJECT_BINARY_DIR})
hwc_py_test(fleet_promtool fleet/test_promtool.py)
hwc_py_test(fleet_ansible fleet/test_ansible.py)
hwc_py_test(fleet_deb fleet/test_deb.py --build-dir ${PROJECT_BINARY_DIR})
hwc_py_test(fleet_lintian fleet/test_deb.py --build-dir ${PROJECT_BINARY_DIR} --lintian Package.test_lintian)
# both build the package in the build directory's _CPack_Packages: one at a time
set_tests_properties(fleet_deb fleet_lintian fleet_packaging PROPERTIES RESOURCE_LOCK cpack)
hwc_py_test(fleet_k8s fleet/test_k8s.py)
