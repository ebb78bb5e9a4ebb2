/* SPDX-License-Identifier: MIT */
/* Last-resort bounds on a run: the --timeout watchdog, and signals that must not leave tools
 * running or temporary files behind. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/output.h"
#include "core/runner.h"
#include "core/wait.h"

static volatile sig_atomic_t watchdog_code;
/* [0] the run waited on something, [1] it was computing all along */
static char watchdog_msg[2][320];
static size_t watchdog_msg_len[2];
static unsigned watchdog_after_s;

static void cleanup(void)
{
	hwc_run_kill_all();
	hwc_outfile_abort_all();
}

static void on_alarm(int sig)
{
	(void)sig;
	cleanup();
	/* Waiting or computing: the mark set around every read of the root, every wait on a tool
	 * and every paced replay says so whatever the load of the machine. Outside them (a wait
	 * nobody marked: a verbs call, a probe's peer), CPU time: a blocked run uses next to none,
	 * and a tenth of the time allows for a machine busy with other work. Both reads are
	 * async-signal-safe. */
	struct timespec cpu;
	int busy = !hwc_waiting() && clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0 &&
		   ((unsigned long long)cpu.tv_sec * 1000 + (unsigned long long)cpu.tv_nsec / 1000000) * 10 >=
			   (unsigned long long)watchdog_after_s * 1000;
	if (write(STDERR_FILENO, watchdog_msg[busy], watchdog_msg_len[busy]) < 0) {
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
	static const char *const why[2] = {
		"it was waiting on a read, tool or probe that did not answer",
		"it was still computing (an input too large for this limit; give a larger "
		"--timeout)"};
	for (int k = 0; k < 2; k++) {
		int n = timeout_s ? snprintf(watchdog_msg[k], sizeof(watchdog_msg[k]),
					     "hwcheck: the run did not finish within --timeout %u s "
					     "(+%u s): %s; stopped without a report\n",
					     timeout_s, grace, why[k])
				  : snprintf(watchdog_msg[k], sizeof(watchdog_msg[k]),
					     "hwcheck: the run did not finish within %u s (no --timeout "
					     "given): %s; stopped without a report\n",
					     HWC_WATCHDOG_DEFAULT_S, why[k]);
		watchdog_msg_len[k] = n > 0 && (size_t)n < sizeof(watchdog_msg[k]) ? (size_t)n : 0;
	}
	if (!timeout_s)
		timeout_s = HWC_WATCHDOG_DEFAULT_S;
	watchdog_after_s = timeout_s + grace;
	watchdog_code = exit_code;
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(timeout_s + grace);
}

void hwc_cli_guard_extend(unsigned s)
{
	unsigned left = alarm(0);
	watchdog_after_s += s;
	alarm(left + s);
}

/* ------------------------------------------------------------------ terminal-safe streams */

/* Text from a hostile capture must not drive the terminal: an escape sequence in a CPU model
 * name could move the cursor and hide a finding, set the title, or write the clipboard (OSC 52).
 * Every byte hwcheck prints goes through this filter: colour sequences (ESC [ digits ; m) pass,
 * newline and tab pass, any other control byte becomes '?' (UTF-8 text is left alone). */
struct term_filter {
	int fd;
	int state; /* 0 text, 1 after ESC, 2 inside ESC [ */
	char seq[40];
	size_t seqlen;
	int err; /* errno of the first failed write */
};

static int write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static bool plain_control(unsigned char c)
{
	return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
}

/* Appends the filtered form of c to out (room for sizeof(seq) + 2 bytes assumed). */
static size_t filter_byte(struct term_filter *t, unsigned char c, char *out)
{
	size_t n = 0;
	for (;;) {
		if (t->state == 0) {
			if (c == 0x1b) {
				t->state = 1;
				t->seq[0] = (char)c;
				t->seqlen = 1;
			} else {
				out[n++] = plain_control(c) ? '?' : (char)c;
			}
			return n;
		}
		if (t->state == 1 && c == '[') {
			t->state = 2;
			t->seq[t->seqlen++] = (char)c;
			return n;
		}
		if (t->state == 2 && ((c >= '0' && c <= '9') || c == ';') &&
		    t->seqlen < sizeof(t->seq) - 1) {
			t->seq[t->seqlen++] = (char)c;
			return n;
		}
		if (t->state == 2 && c == 'm') {
			memcpy(out + n, t->seq, t->seqlen);
			n += t->seqlen;
			out[n++] = 'm';
			t->state = 0;
			return n;
		}
		/* not a colour: the ESC becomes '?', what followed it is shown as text */
		out[n++] = '?';
		for (size_t i = 1; i < t->seqlen; i++)
			out[n++] = t->seq[i];
		t->state = 0;
	}
}

static ssize_t filter_write(void *cookie, const char *buf, size_t size)
{
	struct term_filter *t = cookie;
	char out[4096 + 64];
	size_t n = 0;
	for (size_t i = 0; i < size; i++) {
		n += filter_byte(t, (unsigned char)buf[i], out + n);
		if (n >= 4096) {
			if (write_all(t->fd, out, n) < 0) {
				t->err = t->err ? t->err : errno;
				return -1;
			}
			n = 0;
		}
	}
	if (n && write_all(t->fd, out, n) < 0) {
		t->err = t->err ? t->err : errno;
		return -1;
	}
	return (ssize_t)size;
}

static int filter_close(void *cookie)
{
	struct term_filter *t = cookie;
	if (t->state != 0) {
		char out[sizeof(t->seq) + 2];
		size_t n = 0;
		out[n++] = '?';
		for (size_t i = 1; i < t->seqlen; i++)
			out[n++] = t->seq[i];
		t->state = 0;
		write_all(t->fd, out, n);
	}
	return 0;
}

/* static: the streams live until exit, which flushes them */
static struct term_filter filters[2];

static FILE *filtered(FILE *orig, struct term_filter *t, int fd, int mode)
{
	t->fd = fd;
	cookie_io_functions_t io = {.write = filter_write, .close = filter_close};
	FILE *f = fopencookie(t, "w", io);
	if (!f)
		return orig;
	setvbuf(f, NULL, mode, 0);
	return f;
}

void hwc_cli_safe_streams(void)
{
	fflush(stdout);
	fflush(stderr);
	stdout = filtered(stdout, &filters[0], STDOUT_FILENO,
			  isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
	stderr = filtered(stderr, &filters[1], STDERR_FILENO, _IOLBF);
}

int hwc_cli_stdout_errno(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	return filters[0].err ? filters[0].err : errno ? errno : EIO;
}
