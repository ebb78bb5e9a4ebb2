/* SPDX-License-Identifier: MIT */
/* The text encoding of a JSON input (facts, reports, profiles): JSON is read as UTF-8; a UTF-8
 * byte-order mark is skipped; UTF-16 and UTF-32 (a file saved by a Windows editor or PowerShell's
 * Out-File) are named, so the error says what the file is and how to convert it. */
#ifndef HWC_CORE_TEXTENC_H
#define HWC_CORE_TEXTENC_H

#include <stdbool.h>
#include <stddef.h>

/* "UTF-16 text", "UTF-32 text", ... when buf is JSON in an encoding other than UTF-8; else NULL. */
const char *hwc_text_foreign_encoding(const unsigned char *buf, size_t len);
/* 3 when buf starts with a UTF-8 byte-order mark, else 0. */
size_t hwc_text_utf8_bom(const unsigned char *buf, size_t len);
/* Whether buf looks like a JSON document (after blanks: '{', '[', a UTF-8 BOM, or UTF-16/32). */
bool hwc_text_json_like(const unsigned char *buf, size_t len);

#endif
