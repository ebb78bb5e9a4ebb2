/* SPDX-License-Identifier: MIT */
/* Whether the run is waiting (a read under the root, a tool, a paced replay) or computing, for
 * the watchdog's last words: a mark set around each wait, read from the SIGALRM handler, so that
 * what it says does not depend on how busy the machine was (a CPU-time share does). */
#ifndef HWC_CORE_WAIT_H
#define HWC_CORE_WAIT_H

#include <stdbool.h>

/* Nest freely; lock-free atomics, so the handler may read it and probe threads may set it. */
void hwc_wait_begin(void);
void hwc_wait_end(void);
/* Async-signal-safe. */
bool hwc_waiting(void);

#endif
