/* SPDX-License-Identifier: MIT */
/* Fuzz facts.host.net's reader (hwinfo/host_net.c): any bytes as proc/sys/net/ipv4/tcp_rmem and
 * tcp_wmem of a scratch root (the first half of the input the one, the rest the other). The
 * three values of a file are known together or not at all, never negative, known only as the
 * text's three integers and always when it is three plain counts on one line; an unknown one
 * names the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env.h"
#include "core/parse.h"
#include "fuzz_util.h"
#include "hwinfo/hwinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hwc_env *env;
static char dir_ipv4[640];

static void setup(void)
{
	const char *dir = fuzz_tmp_make("hwc-fuzz-net");
	static const char *const parts[] = {"proc", "proc/sys", "proc/sys/net", "proc/sys/net/ipv4"};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(dir_ipv4, sizeof(dir_ipv4), "%s/%s", dir, parts[i]);
		if (mkdir(dir_ipv4, 0755) != 0)
			abort();
	}
	struct hwc_env_opts o = {.root = dir};
	if (hwc_env_open(&o, &env) != 0)
		abort();
}

static void put(const char *leaf, const uint8_t *data, size_t size)
{
	char p[700];
	snprintf(p, sizeof(p), "%s/%s", dir_ipv4, leaf);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
}

/* The text's tokens (at most 4) as integers, the text cut after its last non-space (the reader
 * drops trailing whitespace) and split at blanks and newlines; how many, or -1 when one is not an
 * integer or the text has a NUL. *plain: every token is 1-18 decimal digits. */
static int tokens(const uint8_t *data, size_t size, int64_t v[4], bool *plain)
{
	char *s = malloc(size + 1), *save = NULL;
	int n = 0;
	*plain = true;
	if (!s || memchr(data, 0, size)) {
		free(s);
		return -1;
	}
	memcpy(s, data, size);
	while (size > 0 && strchr(" \t\n\v\f\r", s[size - 1]))
		size--;
	s[size] = 0;
	for (char *t = strtok_r(s, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save), n++) {
		size_t l = strlen(t);
		*plain = *plain && l <= 18 && strspn(t, "0123456789") == l;
		if (n == 4 || hwc_parse_i64(t, 10, &v[n]) != 0) {
			n = -1;
			break;
		}
	}
	free(s);
	return n;
}

/* Known: the text was three integers, these. Three plain counts on one line are always known. */
static void oracle(const uint8_t *data, size_t size, const struct hwc_fi64 *f[3])
{
	int64_t v[4];
	bool plain;
	int n = tokens(data, size, v, &plain);
	if (f[0]->m.st == HWC_ST_OK) {
		MUST(n == 3);
		for (int i = 0; i < 3; i++)
			MUST(f[i]->v == v[i]);
	}
	const uint8_t *nl = memchr(data, '\n', size);
	if (n == 3 && plain && (!nl || nl == data + size - 1))
		MUST(f[0]->m.st == HWC_ST_OK);
}

static void check(const struct hwc_fi64 *f[3], const char *file)
{
	for (int i = 0; i < 3; i++) {
		MUST((f[i]->m.st == HWC_ST_OK) == (f[0]->m.st == HWC_ST_OK));
		if (f[i]->m.st == HWC_ST_OK) {
			MUST(f[i]->v >= 0);
		} else {
			MUST(f[i]->m.detail && strstr(f[i]->m.detail, file));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!env)
		setup();
	size_t half = size / 2;
	put("tcp_rmem", data, half);
	put("tcp_wmem", data + half, size - half);
	struct hwc_arena *a = hwc_arena_new();
	struct hwc_host_net n;
	memset(&n, 0, sizeof(n));
	hwc_host_collect_net(env, a, &n);
	const struct hwc_fi64 *r[3] = {&n.tcp_rmem_min_bytes, &n.tcp_rmem_default_bytes,
				       &n.tcp_rmem_max_bytes};
	const struct hwc_fi64 *w[3] = {&n.tcp_wmem_min_bytes, &n.tcp_wmem_default_bytes,
				       &n.tcp_wmem_max_bytes};
	check(r, "tcp_rmem");
	check(w, "tcp_wmem");
	oracle(data, half, r);
	oracle(data + half, size - half, w);
	hwc_arena_free(a);
	return 0;
}
