# SPDX-License-Identifier: MIT
# facts.roce and the ROCE_* rules on the roce-* fixtures (tests/roce/mkfixtures.py).
hwc_py_test(roce roce/test_roce.py)
