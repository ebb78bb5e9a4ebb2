/* SPDX-License-Identifier: MIT */
/* Fuzz the value readers: hwc_parse_i64/u64 on any bytes, and hwc_read_i64/hex/str/bytes over a
 * file holding those bytes, checking that a value is reported only when it is really there. The
 * first input byte picks the base and the read cap. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hwc_env *env;
static char file[640];

static const char *dir;

static void setup(void)
{
	dir = fuzz_tmp_make("hwc-fuzz-sysfs");
	char d[640];
	snprintf(d, sizeof(d), "%s/sys", dir);
	if (mkdir(d, 0755) != 0)
		abort();
	snprintf(file, sizeof(file), "%s/sys/v", dir);
	struct hwc_env_opts o = {.root = dir};
	if (hwc_env_open(&o, &env) != 0)
		abort();
}

static void check_meta(const struct hwc_fmeta *m)
{
	MUST(m->st > HWC_ST_UNSET && m->st < HWC_ST__COUNT);
	if (m->st != HWC_ST_OK) {
		MUST(m->detail != NULL);
		MUST(strncmp(m->detail, "/sys/", 5) == 0);
	}
}

static void parse_helpers(const char *s, int base)
{
	int64_t v;
	uint64_t u;
	if (hwc_parse_i64(s, base, &v) == 0 && base == 10) {
		char back[32];
		snprintf(back, sizeof(back), "%" PRId64, v);
		int64_t v2;
		MUST(hwc_parse_i64(back, 10, &v2) == 0 && v2 == v);
	}
	if (hwc_parse_u64(s, base, &u) == 0) {
		MUST(!strchr(s, '-'));
		char back[32];
		snprintf(back, sizeof(back), "%" PRIx64, u);
		uint64_t u2;
		MUST(hwc_parse_u64(back, 16, &u2) == 0 && u2 == u);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!env)
		setup();
	if (size == 0)
		return 0;
	static const int bases[4] = {0, 10, 16, 0};
	int base = bases[data[0] & 3];
	size_t cap = (size_t)(data[0] >> 2) + 1; /* 1..64: truncation paths */
	data++;
	size--;

	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	parse_helpers(s, base);

	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);

	struct hwc_arena *a = hwc_arena_new();
	struct hwc_fi64 i = {0};
	struct hwc_fu64 h = {0};
	struct hwc_fstr str = {0};
	int ri = hwc_read_i64(env, "sys/v", a, &i);
	check_meta(&i.m);
	/* a value is reported exactly when the text (trailing whitespace dropped) is one integer */
	bool text = memchr(data, 0, size) == NULL;
	int64_t want;
	bool parses = text && hwc_parse_i64(s, 0, &want) == 0;
	MUST((ri == 0) == parses);
	if (ri == 0)
		MUST(i.v == want);
	if (hwc_read_hex(env, "/sys/v", a, &h) == 0)
		MUST(text && h.m.st == HWC_ST_OK);
	check_meta(&h.m);
	if (hwc_read_str(env, "sys//v", a, &str) == 0) {
		MUST(text && str.v);
		size_t l = strlen(str.v);
		MUST(l <= size && memcmp(str.v, data, l) == 0);
	}
	check_meta(&str.m);
	const unsigned char *d;
	size_t len;
	struct hwc_fmeta m;
	int rb = hwc_read_bytes(env, "sys/./v", cap, a, &d, &len, &m);
	check_meta(&m);
	MUST(rb == 0 ? (len == size && m.st == HWC_ST_OK)
		     : (rb == -EFBIG && m.st == HWC_ST_TRUNCATED && len == cap && size > cap));
	MUST(memcmp(d, data, len) == 0 && d[len] == 0);
	hwc_arena_free(a);
	free(s);
	return 0;
}
