# SPDX-License-Identifier: MIT
# thermal: hwmon and thermal-zone sensors, the card-temperature hook, sampling; goldens on fixtures.
hwc_unit_test(test_thermal thermal/test_thermal.c)
hwc_py_test(thermal thermal/test_thermal.py)
