# SPDX-License-Identifier: MIT
# The warning set every hwcheck target builds with (ARCHITECTURE.md section 6).
function(hwc_apply_warnings target)
  target_compile_options(${target} INTERFACE
    -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
    -Wno-unused-parameter)
  if(HWCHECK_WERROR)
    target_compile_options(${target} INTERFACE -Werror)
  endif()
endfunction()
