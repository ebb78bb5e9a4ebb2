/* SPDX-License-Identifier: MIT */
/* What cli/cards.c shares with the files of its per-port lines (cli/cards_link.c): the context
 * of one card, the text of one line, and the helpers that write it. */
#ifndef HWC_CLI_CARDS_INT_H
#define HWC_CLI_CARDS_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct cards_index;
struct hwc_profile;

struct card_ctx {
	const json_t *facts;
	const struct cards_index *ix;
	const json_t *ad;     /* mlx.adapters[] */
	const json_t *pci;    /* pci.devices[] of the card's BDF; NULL when absent */
	const json_t *sensor; /* the card's ASIC sensor in thermal.sensors[]; NULL when none */
	const char *bdf;
	json_t *card;         /* the card's JSON, for the structured values an item adds */
	json_t *pcie;         /* its "pcie" object */
	json_t *port_out;     /* the shown port's object in the card's "ports", likewise */
	const struct hwc_profile *prof; /* which rules run */
	/* the port being shown, when it is a RoCE LAG port (its netdev a bond): the netdevs of the
	 * bond's members (netdevs[] whose bond is that netdev), which hold what the bond does not */
	const char *members[8];
	size_t n_members;
};

/* What an item shows: its text, or why it could not be read (unknown). */
struct item_val {
	char text[640];
	size_t len;
	bool unknown;
	bool skip; /* the line does not apply here (no netdev on an InfiniBand port) */
	bool unjudged; /* unknown here is not its rules' unknown: shown, not judged, unless one is */
};

void hwc_cards_vput(struct item_val *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "status: detail" of a null key, from the object's unavailable map. */
const char *hwc_cards_why(const json_t *obj, const char *key);
/* The line is unknown, its text why obj[key] is missing. */
void hwc_cards_unknown(struct item_val *v, const json_t *obj, const char *key);

/* The per-port lines of issue 14's physical link (cli/cards_link.c), in their order. */
void hwc_cards_it_errors(struct card_ctx *x, const json_t *p, struct item_val *v);
void hwc_cards_it_flaps(struct card_ctx *x, const json_t *p, struct item_val *v);
void hwc_cards_it_fec(struct card_ctx *x, const json_t *p, struct item_val *v);
void hwc_cards_it_module(struct card_ctx *x, const json_t *p, struct item_val *v);
void hwc_cards_it_far_end(struct card_ctx *x, const json_t *p, struct item_val *v);
/* The card's mlx5 events in the kernel log since boot. */
void hwc_cards_it_kernel_log(struct card_ctx *x, const json_t *p, struct item_val *v);

#endif
