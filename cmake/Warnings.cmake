# SPDX-License-Identifier: MIT
# The warning set every hwcheck target builds with (ARCHITECTURE.md section 6).
function(hwc_apply_warnings target)
  target_compile_options(${target} INTERFACE
    -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
    -Wno-unused-parameter)
  # clang (the fuzz build) warns on a table entry that leaves fields out ({NULL}); gcc exempts
  # some of those forms. An error under clang always, so no table end slips back in.
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} INTERFACE -Werror=missing-field-initializers)
  endif()
  if(HWCHECK_WERROR)
    target_compile_options(${target} INTERFACE -Werror)
  endif()
endfunction()
