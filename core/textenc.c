/* SPDX-License-Identifier: MIT */
/* The text encoding of a JSON input (see textenc.h). */
#include "core/textenc.h"

static bool ascii_json(unsigned char c)
{
	return c == '{' || c == '[' || c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '"';
}

/* A text encoding JSON is not in: UTF-16 or UTF-32 (a file saved by a Windows editor or
 * PowerShell's Out-File). */
const char *hwc_text_foreign_encoding(const unsigned char *b, size_t len)
{
	if (len >= 2 && ((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff)))
		return "UTF-16 text (it starts with a UTF-16 byte-order mark)";
	/* without a mark: ASCII characters (a '{', spaces) each followed or preceded by NULs */
	if (len >= 8 && ascii_json(b[0]) && !b[1] && !b[2] && !b[3] && !b[5] && !b[6] && !b[7])
		return "UTF-32 text";
	if (len >= 8 && !b[0] && !b[1] && !b[2] && ascii_json(b[3]) && !b[4] && !b[5] && !b[6])
		return "UTF-32 text";
	if (len >= 4 && ((ascii_json(b[0]) && !b[1] && ascii_json(b[2]) && !b[3]) ||
			 (!b[0] && ascii_json(b[1]) && !b[2] && ascii_json(b[3]))))
		return "UTF-16 text";
	return NULL;
}

bool hwc_text_json_like(const unsigned char *b, size_t len)
{
	size_t i = 0;
	while (i < len && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r'))
		i++;
	if (i < len && (b[i] == '{' || b[i] == '[' || b[i] == 0xef))
		return true;
	return hwc_text_foreign_encoding(b, len) != NULL;
}

size_t hwc_text_utf8_bom(const unsigned char *b, size_t len)
{
	return len >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
}
