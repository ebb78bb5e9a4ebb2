# SPDX-License-Identifier: MIT
# Rules: unit tests of the rule helpers and profiles, one facts file per rule case, the seed
# scenarios, the rule-id stability list and the generated rule reference.
add_executable(rules_eval rules/rules_eval.c)
target_link_libraries(rules_eval PRIVATE hwc_cli)
hwc_unit_test(test_rules unit/test_rules.c)
hwc_py_test(rules_cases rules/test_rules.py --rules-eval $<TARGET_FILE:rules_eval>)
hwc_py_test(rules_scenarios rules/test_scenarios.py --rules-eval $<TARGET_FILE:rules_eval>)
hwc_py_test(rules_fix_texts rules/test_fix_texts.py --rules-eval $<TARGET_FILE:rules_eval>)
hwc_py_test(rules_field rules/test_field.py)
hwc_py_test(facts_contract rules/test_facts_contract.py)
# the house conventions on every finding of every fixture root (fix texts, evidence, unknowns)
hwc_py_test(rules_conventions rules/test_conventions.py)
