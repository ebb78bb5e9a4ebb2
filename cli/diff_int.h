/* SPDX-License-Identifier: MIT */
/* Private to the diff engine (cli/diff.c, cli/diff_fw.c): a card as one side sees it, the
 * change list being built, and the helpers that append to it. */
#ifndef HWC_CLI_DIFF_INT_H
#define HWC_CLI_DIFF_INT_H

#include <jansson.h>

#include "cli/diff.h"
#include "core/arena.h"

/* One card as one side of the diff sees it. */
struct card {
	const char *bdf;
	const char *serial;
	const char *product;
	const json_t *adapter; /* mlx.adapters[] element, or NULL when only PCI saw it */
	const json_t *pcidev;  /* pci.devices[] element of bdf, or NULL */
	const json_t *facts;   /* the whole facts object of this side */
	int peer;              /* index of the matched card on the other side, -1 if none */
	const char *match;     /* "serial" or "bdf" */
};

struct ctx {
	const struct hwc_diff_opts *o;
	json_t *changes; /* where hwc_diff_add() appends */
	long long n_reg, n_chg, n_imp, n_unk;
	struct hwc_arena *a; /* for texts built by the rules' helpers */
};

/* Appends a change and counts its verdict; returns it (owned by the list) or NULL. */
json_t *hwc_diff_add(struct ctx *x, const char *kind, const char *item, const json_t *before,
		     const json_t *after, const char *verdict, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* Known on both sides and different: a change; known before and unknown now: visibility lost. */
void hwc_diff_cmp_plain(struct ctx *x, const char *kind, const char *item, const json_t *b,
			const json_t *a, const char *what);

/* cli/diff_fw.c: the firmware configuration of a matched card (each parameter, at risk or not,
 * back to its default, consistent again with the card's peers), and the card's firmware state
 * after the change (firmware before/after, configured but not active, the profile's intent). */
void hwc_diff_fw_config(struct ctx *x, const struct card *b, const struct card *a);
void hwc_diff_fw_state(struct ctx *x, const struct card *b, const struct card *a, json_t *card);

#endif
