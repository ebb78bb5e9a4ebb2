/* SPDX-License-Identifier: MIT */
/* Last-resort bounds on a run: the --timeout watchdog, and signals that must not leave tools
 * running or temporary files behind. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/output.h"
#include "core/runner.h"

static volatile sig_atomic_t watchdog_code;
static char watchdog_msg[256];
static size_t watchdog_msg_len;

static void cleanup(void)
{
	hwc_run_kill_all();
	hwc_outfile_abort_all();
}

static void on_alarm(int sig)
{
	(void)sig;
	cleanup();
	if (write(STDERR_FILENO, watchdog_msg, watchdog_msg_len) < 0) {
		/* nothing more can be done from here */
	}
	_exit(watchdog_code);
}

static void on_stop(int sig)
{
	cleanup();
	/* die of the same signal, so the caller sees what happened */
	signal(sig, SIG_DFL);
	raise(sig);
}

void hwc_cli_guard(unsigned timeout_s, int exit_code)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Tools are already bounded by what is left of --timeout; the alarm is for what no
	 * deadline can interrupt (a read of a device that stopped answering), a few seconds later.
	 * Without --timeout a run still never waits for ever. */
	unsigned grace = timeout_s ? HWC_WATCHDOG_GRACE_S : 0;
	int n = timeout_s ? snprintf(watchdog_msg, sizeof(watchdog_msg),
				     "hwcheck: the run did not finish within --timeout %u s (+%u s): a "
				     "read or probe blocked; stopped without a report\n",
				     timeout_s, grace)
			  : snprintf(watchdog_msg, sizeof(watchdog_msg),
				     "hwcheck: the run did not finish within %u s (no --timeout given): "
				     "a read or probe blocked; stopped without a report\n",
				     HWC_WATCHDOG_DEFAULT_S);
	if (!timeout_s)
		timeout_s = HWC_WATCHDOG_DEFAULT_S;
	watchdog_msg_len = n > 0 && (size_t)n < sizeof(watchdog_msg) ? (size_t)n : 0;
	watchdog_code = exit_code;
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(timeout_s + grace);
}
