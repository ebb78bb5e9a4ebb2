/* SPDX-License-Identifier: MIT */
/* Same-shape redaction of serial numbers, MAC addresses and GUIDs in captured files. */
#include "snapshot/redact.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "core/util.h"

/* value -> placeholder number, in the order met */
struct table {
	uint64_t *vals;
	char **strs;
	size_t n, cap;
};

struct hwc_redactor {
	struct table mac, guid, serial;
	struct table name; /* host, switch and port names, management addresses (hwc_redact_learn) */
};

struct hwc_redactor *hwc_redactor_new(void)
{
	return calloc(1, sizeof(struct hwc_redactor));
}

static void table_free(struct table *t)
{
	for (size_t i = 0; t->strs && i < t->n; i++)
		free(t->strs[i]);
	free(t->vals);
	free(t->strs);
}

void hwc_redactor_free(struct hwc_redactor *r)
{
	if (!r)
		return;
	table_free(&r->mac);
	table_free(&r->guid);
	table_free(&r->serial);
	table_free(&r->name);
	free(r);
}

static bool table_room(struct table *t)
{
	if (t->n < t->cap)
		return true;
	size_t nc = t->cap ? t->cap * 2 : 16;
	uint64_t *v = realloc(t->vals, nc * sizeof(*v));
	if (!v)
		return false;
	t->vals = v;
	char **s = realloc(t->strs, nc * sizeof(*s));
	if (!s)
		return false;
	t->strs = s;
	t->cap = nc;
	return true;
}

/* 1-based number of a value; 0 only when out of memory (the caller then uses 0) */
static uint64_t number_of(struct table *t, uint64_t v)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->vals[i] == v)
			return i + 1;
	if (!table_room(t))
		return 0;
	t->vals[t->n] = v;
	t->strs[t->n] = NULL;
	return ++t->n;
}

static uint64_t number_of_str(struct table *t, const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < t->n; i++)
		if (strlen(t->strs[i]) == len && memcmp(t->strs[i], s, len) == 0)
			return i + 1;
	if (!table_room(t))
		return 0;
	char *c = strndup((const char *)s, len);
	if (!c)
		return 0;
	t->vals[t->n] = 0;
	t->strs[t->n] = c;
	return ++t->n;
}

/* A MAC keeps its vendor (OUI) when globally administered; a random local one keeps nothing. */
static uint64_t mac_placeholder(struct hwc_redactor *r, uint64_t v)
{
	uint64_t n = number_of(&r->mac, v) & 0xffffff;
	if ((v >> 40) & 0x02)
		return 0x020000000000ULL | n;
	return (v & 0xffffff000000ULL) | n;
}

static uint64_t guid_placeholder(struct hwc_redactor *r, uint64_t v)
{
	uint64_t n = number_of(&r->guid, v) & 0xffffffffffULL;
	return (v & 0xffffff0000000000ULL) | n;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (unsigned char)tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool upper_hex(const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] >= 'A' && s[i] <= 'F')
			return true;
	return false;
}

/* Rewrites the hex digits of s[0..len) (other characters kept) with v, most significant first. */
static void put_hex_digits(unsigned char *s, size_t len, uint64_t v)
{
	const char *digits = upper_hex(s, len) ? "0123456789ABCDEF" : "0123456789abcdef";
	for (size_t i = len; i-- > 0;) {
		if (hexval(s[i]) < 0)
			continue;
		s[i] = (unsigned char)digits[v & 15];
		v >>= 4;
	}
}

/* Value of the hex digits of s[0..len), skipping separators; false beyond 64 bits. */
static bool hex_value(const unsigned char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	unsigned nd = 0;
	for (size_t i = 0; i < len; i++) {
		int h = hexval(s[i]);
		if (h < 0)
			continue;
		if (++nd > 16)
			return false;
		v = v << 4 | (uint64_t)h;
	}
	*out = v;
	return true;
}

/* Not identifying: all zeros, all ones, or no vendor part (broadcast and multicast forms). */
static bool trivial(uint64_t v, unsigned bits)
{
	uint64_t ones = bits >= 64 ? UINT64_MAX : ((1ULL << bits) - 1);
	return v == 0 || v == ones || (bits >= 48 && (v >> (bits - 24)) == 0);
}

/* ------------------------------------------------------------------ structured text */

static bool is_hex(const unsigned char *b, size_t len, size_t i)
{
	return i < len && hexval(b[i]) >= 0;
}

/* Runs of n groups of `w` hex digits joined by `sep`; returns n (0 if none at i). */
static size_t groups_at(const unsigned char *b, size_t len, size_t i, size_t w, char sep,
			size_t *end)
{
	size_t n = 0, j = i;
	for (;;) {
		for (size_t k = 0; k < w; k++)
			if (!is_hex(b, len, j + k))
				return n ? (*end = j - 1, n) : 0;
		if (is_hex(b, len, j + w)) /* a longer group: not this shape */
			return 0;
		n++;
		j += w;
		if (j < len && b[j] == sep && is_hex(b, len, j + 1)) {
			j++;
			continue;
		}
		*end = j;
		return n;
	}
}

/* Inside a word or a run already looked at? After a separator, the group before it decides:
 * "aa:|bb" and "f41d:|6b03" are the middle of a run, "ifname=mgmt0:|0c:42:..." is a start. */
static bool mid_token(const unsigned char *b, size_t i)
{
	if (i == 0)
		return false;
	unsigned char p = b[i - 1];
	if (p != ':' && p != '-')
		return isalnum(p) || p == '.' || p == '_';
	size_t k = 0;
	while (k + 2 <= i && hexval(b[i - 2 - k]) >= 0)
		k++;
	size_t s = i - 1 - k; /* where the group before the separator starts */
	return (k == 2 || k == 4) && (s == 0 || !isalnum(b[s - 1]));
}

static size_t redact_structured(struct hwc_redactor *r, unsigned char *b, size_t len)
{
	size_t count = 0;
	for (size_t i = 0; i < len; i++) {
		if (hexval(b[i]) < 0)
			continue;
		if (mid_token(b, i))
			continue;
		size_t end = 0, n;
		uint64_t v;
		/* xxxx:xxxx:xxxx:xxxx (node_guid) and 8-group GIDs (their last four groups) */
		if ((n = groups_at(b, len, i, 4, ':', &end)) == 4 || n == 8) {
			size_t from = n == 8 ? i + 20 : i;
			if (hex_value(b + from, end - from, &v) && !trivial(v, 64)) {
				put_hex_digits(b + from, end - from, guid_placeholder(r, v));
				count++;
			}
			i = end - 1;
			continue;
		}
		for (int s = 0; s < 2; s++) {
			char sep = s ? '-' : ':';
			n = groups_at(b, len, i, 2, sep, &end);
			if (n == 6 || n == 7) { /* MAC; 7: PXE's BOOTIF=01-aa-bb-cc-dd-ee-ff */
				size_t from = end - 17;
				if (hex_value(b + from, 17, &v) && !trivial(v, 48)) {
					put_hex_digits(b + from, 17, mac_placeholder(r, v));
					count++;
				}
			} else if (n >= 8 && n <= 32) { /* EUI-64, DSN, IPoIB: the last 8 bytes */
				size_t from = end - 23;
				if (hex_value(b + from, 23, &v) && !trivial(v, 64)) {
					put_hex_digits(b + from, 23, guid_placeholder(r, v));
					count++;
				}
			}
			if (n >= 6) {
				i = end - 1;
				break;
			}
		}
	}
	return count;
}

/* ------------------------------------------------------------------ labelled values */

enum label_kind { L_SERIAL, L_GUID, L_MAC };

static const struct {
	const char *word;
	enum label_kind kind;
} labels[] = {
	{"serial number", L_SERIAL}, {"serial_number", L_SERIAL}, {"serialnumber", L_SERIAL},
	{"serial-number", L_SERIAL}, {"serial_no", L_SERIAL},     {"product_serial", L_SERIAL},
	{"board_serial", L_SERIAL},  {"chassis_serial", L_SERIAL}, {"[sn]", L_SERIAL},
	{"guid", L_GUID},            {"mac", L_MAC},
	/* smpquery nodeinfo: "SystemGuid:....0x...", "PortGuid:" */
	{"systemguid", L_GUID},      {"portguid", L_GUID},        {"nodeguid", L_GUID},
};

/* Values that say there is none: not secrets, and tools compare against them. */
static bool non_value(const unsigned char *s, size_t len)
{
	static const char *const none[] = {"not", "none", "n", "na", "unknown", "default", "to",
					   "system", "null", "true", "false", "unspecified"};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(none); i++)
		if (strlen(none[i]) == len && strncasecmp((const char *)s, none[i], len) == 0)
			return true;
	bool same = true;
	for (size_t i = 1; i < len; i++)
		same = same && s[i] == s[0];
	return same;
}

/* Same shape: letters become X, digits 0, and the placeholder number is written into the last
 * digits, so distinct values stay distinct. A name (t is the names' table) keeps its case:
 * lower-case letters and every byte of a non-ASCII character become x. */
static void mask_in(struct hwc_redactor *r, struct table *t, unsigned char *s, size_t len)
{
	uint64_t n = number_of_str(t, s, len);
	bool name = t == &r->name;
	for (size_t i = 0; i < len; i++) {
		if (isdigit(s[i]))
			s[i] = '0';
		else if (name && (islower(s[i]) || s[i] >= 0x80))
			s[i] = 'x';
		else if (isalpha(s[i]))
			s[i] = 'X';
	}
	for (size_t i = len; i-- > 0 && n;) {
		if (!isalnum(s[i]))
			continue;
		s[i] = (unsigned char)('0' + n % 10);
		n /= 10;
	}
}

static void mask_serial(struct hwc_redactor *r, unsigned char *s, size_t len)
{
	mask_in(r, &r->serial, s, len);
}

static bool token_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-' || c == '/';
}

/* One bare hex GUID (16 digits, maybe 0x) or MAC (12 digits) at *t: replaced, *t moved past it.
 * Returns 1 if it was one (trivial values are left but count as seen), 0 otherwise. */
static size_t redact_hex_token(struct hwc_redactor *r, unsigned char *b, size_t len, size_t *t)
{
	size_t j = *t, e = j;
	while (e < len && token_char(b[e]))
		e++;
	if (e == j || (e < len && b[e] == ':'))
		return 0;
	size_t hexoff = e - j > 2 && b[j] == '0' && (b[j + 1] == 'x' || b[j + 1] == 'X') ? 2 : 0;
	size_t nd = e - j - hexoff;
	for (size_t q = j + hexoff; q < e; q++)
		if (hexval(b[q]) < 0)
			return 0;
	uint64_t v;
	if ((nd != 16 && nd != 12) || !hex_value(b + j + hexoff, nd, &v))
		return 0;
	if (!trivial(v, (unsigned)nd * 4))
		put_hex_digits(b + j + hexoff, nd,
			       nd == 16 ? guid_placeholder(r, v) : mac_placeholder(r, v));
	*t = e;
	return 1;
}

/* The value after a label: "Label ...: value", "label=value", "\"label\": \"value\"". */
static size_t redact_labelled(struct hwc_redactor *r, unsigned char *b, size_t len)
{
	size_t count = 0;
	for (size_t i = 0; i < len; i++) {
		if (i > 0 && isalpha(b[i - 1]))
			continue;
		for (size_t k = 0; k < HWC_ARRAY_SIZE(labels); k++) {
			size_t wl = strlen(labels[k].word);
			if (i + wl > len || strncasecmp((const char *)b + i, labels[k].word, wl) != 0)
				continue;
			/* the rest of the label ("Node GUID:", "Base MAC:"), then ':' or '=' */
			size_t j = i + wl, lim = j + 40;
			while (j < len && j < lim && (isalpha(b[j]) || b[j] == ' ' || b[j] == '_' ||
						      b[j] == '"' || b[j] == '\t'))
				j++;
			if (j >= len || (b[j] != ':' && b[j] != '='))
				continue;
			j++;
			/* infiniband-diags pad with dots: "Guid:..........0x0002c903..." */
			while (j < len && (b[j] == ' ' || b[j] == '\t' || b[j] == '"' || b[j] == '.'))
				j++;
			if (labels[k].kind == L_SERIAL) {
				size_t t = j;
				while (t < len && token_char(b[t]))
					t++;
				if (t == j || (t < len && b[t] == ':') || non_value(b + j, t - j))
					continue;
				mask_serial(r, b + j, t - j);
				count++;
				i = t - 1;
				break;
			}
			/* GUIDs and MACs: every hex value on the line ("GUIDs: a b c d") */
			size_t t = j;
			for (;;) {
				size_t n = redact_hex_token(r, b, len, &t);
				if (!n)
					break;
				count += n;
				while (t < len && (b[t] == ' ' || b[t] == '\t'))
					t++;
			}
			i = t > i ? t - 1 : i;
			break;
		}
	}
	return count;
}

/* ------------------------------------------------------------------ binary files */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* PCI config space: the Device Serial Number extended capability (ID 3) holds 8 bytes. */
static size_t redact_config(struct hwc_redactor *r, unsigned char *b, size_t len)
{
	size_t off = 0x100, count = 0;
	for (int hops = 0; hops < 1024 && off >= 0x100 && off + 4 <= len; hops++) {
		uint32_t h = (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 |
			     (uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24;
		if (h == 0 || h == 0xffffffffu)
			break;
		if ((h & 0xffff) == 3 && off + 12 <= len) {
			uint64_t v = 0;
			for (int i = 7; i >= 0; i--)
				v = v << 8 | b[off + 4 + (size_t)i];
			if (!trivial(v, 64)) {
				v = guid_placeholder(r, v);
				for (int i = 0; i < 8; i++)
					b[off + 4 + (size_t)i] = (unsigned char)(v >> (8 * i));
				count++;
			}
		}
		size_t next = (h >> 20) & 0xffc;
		if (next <= off) /* forward only: a looping chain ends here */
			break;
		off = next;
	}
	return count;
}

/* Whether a VPD keyword may identify the card or the machine. PCI's own keywords are SN (serial)
 * and the system-specific Yx (YA: asset tag); the vendor-specific Vx hold what each vendor
 * wants: NVIDIA/Mellanox put the card UUID in V3 and the serial again in VU ("MT2421600CDE"
 * "MLNXS0D0F0"), other vendors serials or service tags. So every Vx and Yx is masked except
 * the Mellanox ones that describe the model (V0 "PCIeGen5 x16", V2 the part number, VA the
 * "MLX:MN=MLNX:CSKU=V2:UUID=V3:..." layout). PN, EC, MN, FG, LC, PG, CP, RV, RW stay. */
static bool vpd_identifying(unsigned char k0, unsigned char k1)
{
	if (k0 == 'S' && k1 == 'N')
		return true;
	if (k0 == 'Y')
		return k1 != 0;
	if (k0 == 'V')
		return !(k1 == '0' || k1 == '2' || k1 == 'A');
	return false;
}

/* VPD: large resources 0x82 (name), 0x90 (read-only keywords), 0x91; small end tag 0x78.
 * Identifying keywords (vpd_identifying) are masked and the RV checksum (all bytes up to it sum
 * to 0) recomputed. */
static size_t redact_vpd(struct hwc_redactor *r, unsigned char *b, size_t len)
{
	size_t off = 0, count = 0;
	while (off < len) {
		unsigned char tag = b[off];
		size_t hdr, rlen;
		if (tag & 0x80) {
			if (off + 3 > len)
				break;
			hdr = 3;
			rlen = (size_t)b[off + 1] | (size_t)b[off + 2] << 8;
		} else {
			if ((tag >> 3) == 0x0f) /* end */
				break;
			hdr = 1;
			rlen = tag & 7;
		}
		size_t body = off + hdr, stop = body + rlen;
		if (stop > len)
			stop = len;
		if (tag == 0x90 || tag == 0x91) {
			size_t k = body;
			while (k + 3 <= stop) {
				size_t kl = b[k + 2], d = k + 3;
				if (d + kl > stop)
					kl = stop - d;
				if (vpd_identifying(b[k], b[k + 1]) && kl) {
					size_t tl = kl;
					while (tl && (b[d + tl - 1] == ' ' || b[d + tl - 1] == 0))
						tl--;
					if (tl && !non_value(b + d, tl)) {
						mask_serial(r, b + d, tl);
						count++;
					}
				} else if (b[k] == 'R' && b[k + 1] == 'V' && kl && tag == 0x90) {
					unsigned sum = 0;
					for (size_t q = 0; q < d; q++)
						sum += b[q];
					b[d] = (unsigned char)(0x100 - (sum & 0xff));
				}
				k = d + kl;
			}
		}
		off = body + rlen;
	}
	return count;
}

/* lspci -vvv prints VPD as "[XY] Label: value" lines: the value of an identifying keyword
 * (vpd_identifying) is masked to the end of its line. */
static size_t redact_vpd_text(struct hwc_redactor *r, unsigned char *b, size_t len)
{
	size_t count = 0;
	for (size_t i = 0; i + 5 < len; i++) {
		if (b[i] != '[' || b[i + 3] != ']' || b[i + 4] != ' ' || !isupper(b[i + 1]) ||
		    !isalnum(b[i + 2]) || !vpd_identifying(b[i + 1], b[i + 2]) ||
		    (b[i + 1] == 'S' && b[i + 2] == 'N')) /* SN: the "Serial number:" label's */
			continue;
		size_t j = i + 5;
		while (j < len && j < i + 60 && b[j] != ':' && b[j] != '\n')
			j++;
		if (j >= len || b[j] != ':')
			continue;
		j++;
		while (j < len && b[j] == ' ')
			j++;
		size_t e = j;
		while (e < len && b[e] != '\n' && b[e] != '\r')
			e++;
		size_t t = e;
		while (t > j && (b[t - 1] == ' ' || b[t - 1] == '\t'))
			t--;
		if (t > j && !non_value(b + j, t - j)) {
			mask_serial(r, b + j, t - j);
			count++;
		}
		i = e;
	}
	return count;
}

/* The serial number inside a module EEPROM hex dump (`ethtool -m IF hex on`, or the netlink
 * upper page 00h `ethtool -m IF page 0 offset 128 hex on`): masked in its bytes, written back as
 * the same hex digits, so the dump still decodes. The serial's place depends on the memory map
 * the identifier byte names: SFF-8472 bytes 68-83, SFF-8636 196-211, CMIS 166-181. */
#define EEPROM_SPAN 1024
static size_t redact_module_hex(struct hwc_redactor *r, unsigned char *b, size_t len)
{
	static size_t pos[EEPROM_SPAN]; /* text position of each byte's first hex digit, +1 */
	memset(pos, 0, sizeof(pos));
	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && b[e] != '\n')
			e++;
		size_t k = i;
		while (k < e && (b[k] == ' ' || b[k] == '\t'))
			k++;
		uint64_t off;
		size_t c = k + 2;
		while (c < e && b[c] != ':')
			c++;
		if (e - k > 3 && b[k] == '0' && b[k + 1] == 'x' && c < e && hex_value(b + k + 2, c - k - 2, &off)) {
			for (size_t j = c + 1, n = 0; j + 1 < e && n < 16; j++) {
				if (hexval(b[j]) < 0 || hexval(b[j + 1]) < 0)
					continue;
				if (off + n < EEPROM_SPAN)
					pos[off + n] = j + 1;
				n++, j += 2;
			}
		}
		i = e + 1;
	}
	size_t id_at = pos[0] ? 0 : 128; /* the upper page alone starts with its identifier copy */
	if (!pos[id_at])
		return 0;
	int id = hexval(b[pos[id_at] - 1]) * 16 + hexval(b[pos[id_at]]);
	size_t sn = id == 0x03 ? 68 : (id == 0x0c || id == 0x0d || id == 0x11) ? 196
		  : (id >= 0x18 && id <= 0x20) ? 166 : 0;
	unsigned char v[16];
	for (size_t k = 0; sn && k < 16; k++) {
		if (!pos[sn + k])
			return 0;
		v[k] = (unsigned char)(hexval(b[pos[sn + k] - 1]) * 16 + hexval(b[pos[sn + k]]));
	}
	size_t l = 16;
	while (sn && l && (v[l - 1] == ' ' || v[l - 1] == 0))
		l--;
	if (!sn || !l || non_value(v, l))
		return 0;
	mask_serial(r, v, l);
	static const char digits[] = "0123456789abcdef";
	for (size_t k = 0; k < l; k++) {
		b[pos[sn + k] - 1] = (unsigned char)digits[v[k] >> 4];
		b[pos[sn + k]] = (unsigned char)digits[v[k] & 15];
	}
	return 1;
}

/* ------------------------------------------------------------------ names */

/* A name's placeholder keeps its shape, case included ("LEAF03" and "LEAF04" become "XXXX01"
 * and "XXXX02" wherever they appear). */
static void mask_name(struct hwc_redactor *r, unsigned char *s, size_t len)
{
	mask_in(r, &r->name, s, len);
}

/* RDMA device words of a node description ("mlx5_0", "HCA-1"): the kernel's, not the site's. */
static bool device_word(const char *s)
{
	size_t n = strlen(s);
	if (n > 4 && strncmp(s, "HCA-", 4) == 0)
		return strspn(s + 4, "0123456789") == n - 4;
	return strncmp(s, "mlx", 3) == 0 && isdigit((unsigned char)s[3]) && strchr(s, '_');
}

/* A value worth hiding: three bytes or more, with a letter or an address's dots or colons (a
 * bare number such as a port number would mask every such number of the capture). */
static void learn(struct hwc_redactor *r, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n < 3 || non_value((const unsigned char *)s, n) || device_word(s) ||
	    strpbrk(s, "\"\\") || strcspn(s, "\n\r\t") != n)
		return;
	bool sign = false;
	for (size_t i = 0; i < n; i++)
		sign = sign || isalpha((unsigned char)s[i]) || s[i] == '.' || s[i] == ':' || (unsigned char)s[i] >= 0x80;
	if (sign)
		number_of_str(&r->name, (const unsigned char *)s, n);
}

/* Every string of an lldpcli value: "x", {"value": "x"}, or a list of those (lldpcli's "json"
 * format folds one-element lists and lone "value" objects, "json0" keeps them). */
static void each_value(struct hwc_redactor *r, const json_t *v, int depth)
{
	size_t i;
	const json_t *e;
	if (depth > 8)
		return;
	if (json_is_string(v))
		learn(r, json_string_value(v));
	else if (json_is_array(v))
		json_array_foreach(v, i, e) each_value(r, e, depth + 1);
	else if (json_is_object(v) && json_object_get(v, "value"))
		each_value(r, json_object_get(v, "value"), depth + 1);
}

/* The first string value of x ("Ethernet184" from [{"type": "local", "value": "Ethernet184"}]). */
static const char *first_value(const json_t *x)
{
	while (json_is_array(x))
		x = json_array_get(x, 0);
	if (json_is_object(x))
		x = json_object_get(x, "value");
	while (json_is_array(x))
		x = json_array_get(x, 0);
	if (json_is_object(x))
		x = json_object_get(x, "value");
	return json_string_value(x);
}

/* A chassis: its system name, management addresses and an id that is not a MAC (a MAC is
 * redacted as a MAC everywhere). */
static void learn_chassis_body(struct hwc_redactor *r, const json_t *b)
{
	size_t i;
	const json_t *id, *ids = json_object_get(b, "id");
	each_value(r, json_object_get(b, "name"), 0);
	each_value(r, json_object_get(b, "mgmt-ip"), 0);
	if (json_is_object(ids))
		ids = json_pack("[O]", ids);
	else
		json_incref((json_t *)ids);
	json_array_foreach(ids, i, id) {
		const char *t = json_string_value(json_object_get(id, "type"));
		if (!t || strcmp(t, "mac"))
			each_value(r, json_object_get(id, "value"), 0);
	}
	json_decref((json_t *)ids);
}

static void learn_chassis(struct hwc_redactor *r, const json_t *ch, int depth)
{
	static const char *const body_keys[] = {"id", "name", "descr", "mgmt-ip", "capability"};
	size_t i;
	const char *k;
	const json_t *e;
	if (depth > 4)
		return;
	if (json_is_array(ch)) {
		json_array_foreach(ch, i, e) learn_chassis(r, e, depth + 1);
		return;
	}
	for (i = 0; i < HWC_ARRAY_SIZE(body_keys); i++)
		if (json_object_get(ch, body_keys[i])) {
			learn_chassis_body(r, ch);
			return;
		}
	json_object_foreach((json_t *)ch, k, e) { /* "json": keyed by the system name */
		learn(r, k);
		learn_chassis(r, e, depth + 1);
	}
}

/* A port's description when it is more than its id: switches put the host and port it faces
 * there ("to gpu-node-07 eth2"). */
static void learn_port(struct hwc_redactor *r, const json_t *p)
{
	size_t i;
	const json_t *e;
	if (json_is_array(p)) {
		json_array_foreach(p, i, e) learn_port(r, e);
		return;
	}
	const char *id = first_value(json_object_get(p, "id")), *d = first_value(json_object_get(p, "descr"));
	if (d && (!id || strcmp(id, d)))
		learn(r, d);
}

static void learn_lldp(struct hwc_redactor *r, const json_t *v, int depth)
{
	size_t i;
	const char *k;
	const json_t *e;
	if (depth > 16)
		return;
	if (json_is_object(v) && json_object_get(v, "chassis")) {
		learn_chassis(r, json_object_get(v, "chassis"), 0);
		learn_port(r, json_object_get(v, "port"));
		return;
	}
	if (json_is_array(v))
		json_array_foreach(v, i, e) learn_lldp(r, e, depth + 1);
	else if (json_is_object(v))
		json_object_foreach((json_t *)v, k, e) learn_lldp(r, e, depth + 1);
}

/* smpquery's "Node Description:.......host-07 HCA-1": rdma-ndd writes the host name there, an
 * administrator any site name; each word but the device's. */
static void learn_nodedesc(struct hwc_redactor *r, const unsigned char *b, size_t len)
{
	static const char label[] = "Node Description:";
	const unsigned char *at = memmem(b, len, label, sizeof(label) - 1);
	if (!at)
		return;
	size_t i = (size_t)(at - b) + sizeof(label) - 1;
	while (i < len && b[i] == '.')
		i++;
	while (i < len && b[i] != '\n') {
		size_t e = i;
		while (e < len && b[e] != ' ' && b[e] != '\t' && b[e] != '\n')
			e++;
		char w[256];
		if (e > i && e - i < sizeof(w)) {
			memcpy(w, b + i, e - i);
			w[e - i] = 0;
			learn(r, w);
		}
		i = e < len && b[e] != '\n' ? e + 1 : e;
	}
}

void hwc_redact_learn(struct hwc_redactor *r, const char *path, const unsigned char *buf, size_t len)
{
	if (!r || !path || !buf || !len || strcmp(base_name(path), "stdout"))
		return;
	if (strncmp(path, "hwcheck/commands/lldpcli ", 25) == 0) {
		json_t *j = json_loadb((const char *)buf, len, 0, NULL);
		learn_lldp(r, j, 0);
		json_decref(j);
	} else if (strncmp(path, "hwcheck/commands/smpquery ", 26) == 0 && strstr(path, " nodedesc ")) {
		learn_nodedesc(r, buf, len);
	}
}

static bool name_char(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '_' || c == '-' || c >= 0x80;
}

/* Whether b[i] continues the name next to it (step -1: the byte before, +1: after): a letter,
 * digit, '_' or '-'; a '.' only when a letter or digit follows it on (a domain, an address),
 * not smpquery's leader dots nor a sentence's end. */
static bool continues(const unsigned char *b, size_t len, size_t i, int step)
{
	if (b[i] != '.')
		return name_char(b[i]);
	size_t j = i + (size_t)step;
	return (step < 0 ? i > 0 : j < len) && isalnum(b[j]);
}

/* Every whole occurrence of a learned name (not inside a longer word or address). */
static size_t redact_names(struct hwc_redactor *r, unsigned char *b, size_t len)
{
	size_t count = 0, n = r->name.n;
	for (size_t k = 0; k < n; k++) {
		const char *nm = r->name.strs[k];
		size_t nl = strlen(nm);
		for (size_t i = 0; i + nl <= len;) {
			unsigned char *at = memmem(b + i, len - i, nm, nl);
			if (!at)
				break;
			size_t o = (size_t)(at - b);
			if ((o == 0 || !continues(b, len, o - 1, -1)) && (o + nl == len || !continues(b, len, o + nl, 1))) {
				mask_name(r, at, nl);
				count++;
			}
			i = o + nl;
		}
	}
	return count;
}

size_t hwc_redact(struct hwc_redactor *r, const char *path, unsigned char *buf, size_t len)
{
	if (!r || !buf || !len)
		return 0;
	const char *name = base_name(path ? path : "");
	if (strcmp(name, "config") == 0 && strncmp(path, "sys/", 4) == 0)
		return redact_config(r, buf, len);
	if (strcmp(name, "vpd") == 0 && strncmp(path, "sys/", 4) == 0)
		return redact_vpd(r, buf, len);
	if (strstr(path, "dmi/id/") &&
	    (strstr(name, "serial") || strcmp(name, "product_uuid") == 0)) {
		size_t l = len;
		while (l && isspace(buf[l - 1]))
			l--;
		if (!l || non_value(buf, l))
			return 0;
		mask_serial(r, buf, l);
		return 1;
	}
	if (strstr(path, "commands/ethtool -m ") && strcmp(name, "stdout") == 0 &&
	    (!strstr(path, " page ") || strstr(path, " page 0 offset 128 ")))
		return redact_module_hex(r, buf, len);
	size_t n = redact_names(r, buf, len);
	n += redact_structured(r, buf, len);
	n += redact_vpd_text(r, buf, len);
	return n + redact_labelled(r, buf, len);
}
