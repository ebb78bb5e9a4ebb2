/* SPDX-License-Identifier: MIT */
/* The tar reader against hwcheck's own tar writer (what snapshot writes) and broken archives. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/output.h"
#include "snapshot/tar.h"
#include "test.h"

static char *build(size_t *len, const char *long_dir)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	char longpath[400];
	snprintf(longpath, sizeof(longpath), "%s/hwcheck/facts.json", long_dir);
	hwc_tar_add_dir(m, "sys");
	hwc_tar_add_link(m, "sys/x", "../y");
	hwc_tar_add_file(m, "sys/a", "A", 1, 0644);
	hwc_tar_add_file(m, longpath, "LONG", 4, 0644);
	hwc_tar_add_file(m, "hwcheck/facts.json", "{\"schema\":1}", 12, 0644);
	hwc_tar_add_file(m, "empty", "", 0, 0644);
	hwc_tar_finish(m);
	fclose(m);
	return buf;
}

int main(void)
{
	size_t len;
	char dir[201];
	memset(dir, 'd', 200);
	dir[200] = 0;
	char *t = build(&len, dir);
	const void *d;
	size_t n;
	CHECK_INT(hwc_tar_find(t, len, "hwcheck/facts.json", &d, &n), 0);
	CHECK_INT(n, 12);
	CHECK(n == 12 && memcmp(d, "{\"schema\":1}", 12) == 0);
	CHECK_INT(hwc_tar_find(t, len, "./hwcheck/facts.json", &d, &n), 0);
	char longpath[400];
	snprintf(longpath, sizeof(longpath), "%s/hwcheck/facts.json", dir);
	CHECK_INT(hwc_tar_find(t, len, longpath, &d, &n), 0); /* pax path record */
	CHECK(n == 4 && memcmp(d, "LONG", 4) == 0);
	CHECK_INT(hwc_tar_find(t, len, "empty", &d, &n), 0);
	CHECK_INT(n, 0);
	CHECK_INT(hwc_tar_find(t, len, "sys/x", &d, &n), -ENOENT); /* a link is not a file */
	CHECK_INT(hwc_tar_find(t, len, "sys", &d, &n), -ENOENT);
	CHECK_INT(hwc_tar_find(t, len, "nothere", &d, &n), -ENOENT);

	/* every truncation either finds nothing or says the archive is broken, never reads past */
	int bad = 0;
	for (size_t cut = 0; cut < len; cut += 7) {
		char *c = malloc(cut ? cut : 1);
		memcpy(c, t, cut);
		int rc = hwc_tar_find(c, cut, "hwcheck/facts.json", &d, &n);
		if (rc == 0 && (const char *)d + n > c + cut)
			bad++;
		if (rc != 0 && rc != -ENOENT && rc != -EINVAL)
			bad++;
		free(c);
	}
	CHECK_INT(bad, 0);
	/* a flipped byte in the first header: checksum mismatch */
	t[10] ^= 1;
	CHECK_INT(hwc_tar_find(t, len, "hwcheck/facts.json", &d, &n), -EINVAL);
	t[10] ^= 1;
	/* a size larger than the archive */
	char *c = malloc(len);
	memcpy(c, t, len);
	CHECK_INT(hwc_tar_find(c, 100, "x", &d, &n), -EINVAL);
	CHECK_INT(hwc_tar_find("{\"json\": true}", 14, "x", &d, &n), -EINVAL);
	CHECK_INT(hwc_tar_find(t, 0, "x", &d, &n), -ENOENT);
	free(c);
	free(t);
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
