# SPDX-License-Identifier: MIT
# Fleet integration: diff, merge, --prom, contrib/ scripts, packaging.
hwc_py_test(fleet_diff fleet/test_diff.py)
