# SPDX-License-Identifier: MIT
# mlx/: parsers on real captures (tests/mlx/data), collection in parallel with fake tools, and
# golden facts of the tests/fixtures/mlx-* roots.
hwc_unit_test(test_mlx_parse mlx/test_mlx_parse.c)
target_compile_definitions(test_mlx_parse PRIVATE MLX_DATA="${CMAKE_CURRENT_SOURCE_DIR}/mlx/data")
hwc_unit_test(test_mlx_collect mlx/test_mlx_collect.c)
target_compile_definitions(test_mlx_collect PRIVATE MLX_DATA="${CMAKE_CURRENT_SOURCE_DIR}/mlx/data")
hwc_py_test(mlx_facts mlx/test_mlx.py)
hwc_unit_test(test_mlx_tools_at_once mlx/test_mlx_tools_at_once.c)
target_compile_definitions(test_mlx_tools_at_once PRIVATE FIXTURES="${CMAKE_CURRENT_SOURCE_DIR}/fixtures")
hwc_py_test(mlx_tools_at_once mlx/test_tools_at_once.py)
