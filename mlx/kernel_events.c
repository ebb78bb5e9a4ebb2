/* SPDX-License-Identifier: MIT */
/* The kernel's own words about a ConnectX (issue 14): mlx5_core lines of the kernel log that tell
 * of insufficient slot power, port module events (unplugged, errors, high temperature), health
 * and fatal syndromes and failed firmware commands, each with its time since boot, so that an
 * event since boot is a fact even when the state has recovered. The log is the host's (dmesg). */
#include "mlx/mlx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/scan.h"
#include "hwinfo/hwinfo.h"
#include "core/util.h"

static const struct {
	const char *needle, *kind;
} kinds[] = {
	{"insufficient power", "insufficient_power"},   /* mlx5_pcie_event: Detected insufficient power */
	{"Port module event[error]", "module_error"},   /* events.c: port_module_event, error types */
	{"Cable unplugged", "module_unplugged"},
	{"High temperature", "high_temperature"},       /* temp_warn, synd 0x10 */
	{"health compromised", "health"},               /* poll_health: reached miss count */
	{"synd 0x", "health"},                          /* print_health_info: the syndrome line */
	{"recovery flow aborted", "fatal"},
	{"entering error state", "fatal"},
	{"mlx5_cmd_out_err", "command_error"},
};

static double line_time(const char *l, size_t n)
{
	const char *w;
	size_t k;
	char tmp[32];
	if (hwc_bracketed(l, n, &w, &k) < 0 || w - l > 41 || k >= sizeof(tmp))
		return -1;
	memcpy(tmp, w, k);
	tmp[k] = 0;
	char *end;
	double t = strtod(tmp, &end);
	return end != tmp && *end == 0 && t >= 0 ? t : -1;
}

static size_t count_of(const struct hwc_mlx_kevents *out, const char *bdf)
{
	size_t c = 0;
	for (size_t i = 0; i < out->n; i++)
		c += strcmp(out->items[i].bdf, bdf) == 0;
	return c;
}

static void take(const char *l, size_t n, size_t max, struct hwc_arena *a, struct hwc_mlx_kevents *out)
{
	const char *m = memmem(l, n, "mlx5_core ", 10);
	if (!m)
		return;
	const char *b = m + 10;
	size_t rest = n - (size_t)(b - l);
	size_t bn = hwc_bdf_scan(b, rest, 0, NULL);
	if (!bn)
		return;
	const char *msg = b + bn;
	size_t mn = rest - bn;
	while (mn && (*msg == ':' || *msg == ' '))
		msg++, mn--;
	if (memmem(msg, mn, "ext_synd", 8))
		return; /* the extended syndrome line repeats the syndrome's event */
	for (size_t i = 0; i < HWC_ARRAY_SIZE(kinds); i++) {
		if (!memmem(msg, mn, kinds[i].needle, strlen(kinds[i].needle)))
			continue;
		const char *bdf = hwc_arena_strndup(a, b, 12);
		if (!bdf || count_of(out, bdf) >= max)
			return;
		struct hwc_mlx_kevent *ev = HWC_VEC_PUSH(a, out);
		if (!ev)
			return;
		ev->time_s = line_time(l, (size_t)(m - l));
		ev->bdf = bdf;
		ev->kind = kinds[i].kind;
		ev->message = hwc_arena_strndup(a, msg, mn > 240 ? 240 : mn);
		return;
	}
}

int hwc_mlx_parse_kernel_events(const char *buf, size_t len, size_t max, struct hwc_arena *a,
				struct hwc_mlx_kevents *out)
{
	size_t pos = 0;
	while (buf && pos < len) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + 1;
		take(l, n, max, a, out);
	}
	return (int)(out->n > 1000000 ? 1000000 : out->n);
}

void hwc_mlx_collect_kernel_events(struct hwc_facts *f, struct hwc_mlx_adapter *ad)
{
	const struct hwc_host_facts *h = f->host;
	if (!h || !h->dmesg_text) {
		if (h && h->dmesg_m.st != HWC_ST_OK)
			ad->kernel_events_m = h->dmesg_m;
		else
			hwc_fmeta_set(&ad->kernel_events_m, HWC_ST_UNSET, 0, "the kernel log was not read");
		return;
	}
	struct hwc_mlx_kevents all = {0};
	hwc_mlx_parse_kernel_events(h->dmesg_text, h->dmesg_len, 64, f->arena, &all);
	for (size_t i = 0; i < all.n; i++)
		for (size_t j = 0; j < ad->functions.n; j++)
			if (strcmp(all.items[i].bdf, ad->functions.items[j]) == 0) {
				struct hwc_mlx_kevent *ev = HWC_VEC_PUSH(f->arena, &ad->kernel_events);
				if (ev)
					*ev = all.items[i];
			}
	/* a log cut at the output cap may have lost the latest events: its status says so */
	ad->kernel_events_m = h->dmesg_m;
}
