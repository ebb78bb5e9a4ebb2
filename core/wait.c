/* SPDX-License-Identifier: MIT */
/* The waiting mark (core/wait.h). */
#include "core/wait.h"

#include <stdatomic.h>

static atomic_int depth;

void hwc_wait_begin(void)
{
	atomic_fetch_add(&depth, 1);
}

void hwc_wait_end(void)
{
	atomic_fetch_sub(&depth, 1);
}

bool hwc_waiting(void)
{
	return atomic_load(&depth) > 0;
}
