/* SPDX-License-Identifier: MIT */
/* Driver for fuzz harnesses without libFuzzer: runs LLVMFuzzerTestOneInput on every file named on
 * the command line (or every file in a named directory). Used by the normal test build so each
 * harness replays its seed corpus under ASan/UBSan even where clang is absent. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *p)
{
	FILE *f = fopen(p, "rb");
	if (!f) {
		perror(p);
		return -1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap) {
			uint8_t *n = realloc(buf, cap *= 2);
			if (!n) {
				free(buf);
				buf = NULL;
			}
			buf = n;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	/* exact-size copy so ASan sees reads past the end */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	int n = 0, bad = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *de;
			while (d && (de = readdir(d))) {
				if (de->d_name[0] == '.')
					continue;
				char p[4096];
				snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
				if (run_file(p) == 0)
					n++;
				else
					bad++;
			}
			if (d)
				closedir(d);
		} else if (run_file(argv[i]) == 0) {
			n++;
		} else {
			bad++;
		}
	}
	printf("%d passed, %d failed\n", n, bad);
	return bad || n == 0 ? 1 : 0;
}
