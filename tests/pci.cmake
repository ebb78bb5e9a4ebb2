# SPDX-License-Identifier: MIT
# pci/: the path model (unit), lspci as the oracle on real dumps, whole-host sysfs fixtures.
hwc_unit_test(test_pci pci/test_pci.c)
hwc_py_test(pci_dumps pci/test_pci_dumps.py)
hwc_py_test(pci_hosts pci/test_pci_hosts.py)
hwc_py_test(pci_rebuilt pci/test_pci_rebuilt.py)
hwc_py_test(pci_gpudirect pci/test_gpudirect.py)
