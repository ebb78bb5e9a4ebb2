/* SPDX-License-Identifier: MIT */
/* The one way cli/ tells the user what went wrong: "hwcheck: <what>: <why>" on stderr. In a file
 * of its own so that a test linking the renderers may bring a silent one instead. */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"

void hwc_cli_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hwcheck: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
