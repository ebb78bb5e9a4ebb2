/* SPDX-License-Identifier: MIT */
/* Host part net: the kernel's socket buffer limits (proc/sys/net), which bound the window one TCP
 * stream may open, and so its throughput at a given round trip (HOST_TCP_BUFFERS_SMALL). */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/json.h"
#include "core/parse.h"

/* "4096\t131072\t6291456": net.ipv4.tcp_rmem / tcp_wmem's min, default and max (bytes; the
 * kernel prints them tab-separated, sysctl(8) writes them with spaces). 0 or -EINVAL. */
static int parse_triple(const char *s, int64_t v[3])
{
	for (int i = 0; i < 3; i++) {
		s += strspn(s, " \t");
		size_t n = strcspn(s, " \t\n");
		char tok[24];
		if (n == 0 || n >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, s, n);
		tok[n] = 0;
		if (hwc_parse_i64(tok, 10, &v[i]) < 0 || v[i] < 0)
			return -EINVAL;
		s += n;
	}
	return s[strspn(s, " \t\n")] ? -EINVAL : 0;
}

static void read_triple(struct hwc_env *e, struct hwc_arena *a, const char *path,
			struct hwc_fi64 *min, struct hwc_fi64 *def, struct hwc_fi64 *max)
{
	struct hwc_fstr s = {0};
	int64_t v[3];
	struct hwc_fi64 *out[3] = {min, def, max};
	if (hwc_read_str(e, path, a, &s) < 0) {
		for (int i = 0; i < 3; i++)
			out[i]->m = s.m;
		return;
	}
	if (parse_triple(s.v, v) < 0) {
		const char *d = hwc_arena_printf(a, "%s: '%.40s' is not three byte counts", path, s.v);
		for (int i = 0; i < 3; i++)
			HWC_FAIL(*out[i], HWC_ST_INVALID, 0, d);
		return;
	}
	for (int i = 0; i < 3; i++)
		HWC_SET(*out[i], v[i]);
}

void hwc_host_collect_net(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_net *out)
{
	hwc_read_i64(e, "proc/sys/net/core/rmem_max", a, &out->rmem_max_bytes);
	hwc_read_i64(e, "proc/sys/net/core/wmem_max", a, &out->wmem_max_bytes);
	read_triple(e, a, "proc/sys/net/ipv4/tcp_rmem", &out->tcp_rmem_min_bytes,
		    &out->tcp_rmem_default_bytes, &out->tcp_rmem_max_bytes);
	read_triple(e, a, "proc/sys/net/ipv4/tcp_wmem", &out->tcp_wmem_min_bytes,
		    &out->tcp_wmem_default_bytes, &out->tcp_wmem_max_bytes);
}

#define F(m, doc_) HWC_JFD(struct hwc_host_net, m, HWC_JT_I64, doc_)
static const struct hwc_jfield net_f[] = {
	F(rmem_max_bytes, "net.core.rmem_max: the largest receive buffer an application may ask for "
			  "(SO_RCVBUF)"),
	F(wmem_max_bytes, "net.core.wmem_max: the largest send buffer an application may ask for "
			  "(SO_SNDBUF)"),
	F(tcp_rmem_min_bytes, "net.ipv4.tcp_rmem, first value: the receive buffer a TCP socket keeps "
			      "under memory pressure"),
	F(tcp_rmem_default_bytes, "net.ipv4.tcp_rmem, second value: a TCP socket's initial receive "
				  "buffer"),
	F(tcp_rmem_max_bytes, "net.ipv4.tcp_rmem, third value: the most receive autotuning gives one "
			      "TCP socket"),
	F(tcp_wmem_min_bytes, "net.ipv4.tcp_wmem, first value: the send buffer a TCP socket keeps "
			      "under memory pressure"),
	F(tcp_wmem_default_bytes, "net.ipv4.tcp_wmem, second value: a TCP socket's initial send "
				  "buffer"),
	F(tcp_wmem_max_bytes, "net.ipv4.tcp_wmem, third value: the most send autotuning gives one "
			      "TCP socket"),
};
const struct hwc_jtable hwc_host_net_table = HWC_JTABLE("host.net", net_f, 0);
