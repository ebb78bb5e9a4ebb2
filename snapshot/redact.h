/* SPDX-License-Identifier: MIT */
/* Redaction of a capture (`hwcheck snapshot --redact`): serial numbers, MAC addresses and GUIDs
 * are replaced in place by placeholders of the same length and shape, so every parser still parses
 * the redacted capture. One value gets one placeholder throughout a capture (a MAC in
 * sys/class/net/X/address and in a tool's output stay equal), numbered in the order met. */
#ifndef HWC_SNAPSHOT_REDACT_H
#define HWC_SNAPSHOT_REDACT_H

#include <stddef.h>

struct hwc_redactor;

/* NULL on ENOMEM. */
struct hwc_redactor *hwc_redactor_new(void);
void hwc_redactor_free(struct hwc_redactor *r);

/* Redacts one captured file or command output in place; `path` is root-relative and picks the
 * binary handling (a PCI "config": the Device Serial Number capability; a "vpd": the SN keyword,
 * the RV checksum kept valid; DMI serial and UUID files: the whole value). Text anywhere:
 * aa:bb:cc:dd:ee:ff (and 20-byte IPoIB addresses: their GUID part; BOOTIF=01-aa-...), xxxx:xxxx:xxxx:xxxx GUIDs
 * (and the interface half of xxxx:...:xxxx GIDs), 8-byte aa-bb-...-hh serials, and the value after
 * "GUID", "MAC" and "Serial Number"-like labels, and the names hwc_redact_learn learned. The vendor part (OUI) of a globally administered
 * MAC or GUID is kept; all-zero, all-ones and vendor-less (OUI 0) values are kept. Returns the number of values
 * replaced. */
size_t hwc_redact(struct hwc_redactor *r, const char *path, unsigned char *buf, size_t len);

/* Learns the names a capture must not carry from the outputs that hold them, before any file is
 * redacted: lldpcli's neighbours (system names, management addresses, chassis ids other than
 * MACs, port descriptions other than the port id) and smpquery's node descriptions (host names).
 * hwc_redact then masks every whole occurrence of each in every text file (tool outputs, the
 * facts), with the same placeholder throughout (mask shape: letters X/x, digits 0, numbered). */
void hwc_redact_learn(struct hwc_redactor *r, const char *path, const unsigned char *buf, size_t len);

#endif
