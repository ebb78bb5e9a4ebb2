/* SPDX-License-Identifier: MIT */
/* Input files a user names (--facts, diff and merge documents): bounded reads and JSON parsing
 * with messages that say what was wrong with which file and what was expected. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sections.h"
#include "core/json.h"
#include "core/query.h"
#include "core/textenc.h"

int hwc_cli_read_input(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (S_ISREG(st.st_mode) && (size_t)st.st_size > max) {
		close(fd); /* refused before a byte is read: memory stays bounded */
		return -EFBIG;
	}
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	int rc = 0;
	while (b) {
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : 0;
			break;
		}
		n += (size_t)r;
		if (n > max) {
			rc = -EFBIG;
			break;
		}
		if (n == cap) {
			char *nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!b)
		return -ENOMEM;
	if (rc < 0) {
		free(b);
		return rc;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

const char *hwc_cli_input_strerror(int rc)
{
	switch (-rc) {
	case EFBIG:
		return "larger than " HWC_MAX_DOC_MIB_S " MiB, more than any hwcheck facts or report "
		       "document holds; not read";
	case EISDIR:
		return "a directory where a file was expected";
	default:
		return strerror(-rc);
	}
}

bool hwc_cli_json_like(const char *buf, size_t len)
{
	return hwc_text_json_like((const unsigned char *)buf, len);
}

/* Checks the envelope; prints why not and returns NULL. Takes ownership of doc. */
static json_t *checked_doc(json_t *doc, const char *what)
{
	const char *schema = hwc_json_str_or(doc, "schema", NULL);
	const json_t *ver = hwc_q_get(doc, "schema_version");
	if (!schema || (strcmp(schema, "hwcheck.report") && strcmp(schema, "hwcheck.facts")) ||
	    !json_is_integer(ver) || !json_is_object(hwc_q_get(doc, "facts"))) {
		hwc_cli_err("%s: not a hwcheck facts or report document (expected \"schema\": "
			    "\"hwcheck.facts\" or \"hwcheck.report\", \"schema_version\" and \"facts\")",
			    what);
		json_decref(doc);
		return NULL;
	}
	if (json_integer_value(ver) < 1 || json_integer_value(ver) > HWC_SCHEMA_VERSION) {
		hwc_cli_err("%s: schema_version %lld is not one this hwcheck reads (1 to %d)%s", what,
			    (long long)json_integer_value(ver), HWC_SCHEMA_VERSION,
			    json_integer_value(ver) > HWC_SCHEMA_VERSION ? "; upgrade hwcheck" : "");
		json_decref(doc);
		return NULL;
	}
	return doc;
}

json_t *hwc_cli_parse_doc(const char *buf, size_t len, const char *what)
{
	const unsigned char *b = (const unsigned char *)buf;
	const char *enc = hwc_text_foreign_encoding(b, len);
	if (enc) {
		hwc_cli_err("%s: %s; hwcheck reads JSON in UTF-8 (convert it: iconv -f UTF-16 -t "
			    "UTF-8)", what, enc);
		return NULL;
	}
	size_t bom = hwc_text_utf8_bom(b, len); /* harmless, skipped */
	buf += bom;
	len -= bom;
	if (len == 0) {
		hwc_cli_err("%s: empty file; expected a hwcheck facts or report JSON document", what);
		return NULL;
	}
	json_error_t je;
	json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		hwc_cli_err("%s:%d:%d: not valid JSON: %s", what, je.line, je.column, je.text);
		return NULL;
	}
	return checked_doc(doc, what);
}
