/* SPDX-License-Identifier: MIT */
/* Config-space bytes -> facts, with libpci walking the capabilities; lspci dumps through libpci. */
#include "pci/pci.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include HWC_LIBPCI_HEADER

#include "core/util.h"

/* Constants Debian's libpci 3.9 headers lack (pciutils 3.14, commit 9611db3 "Flit Mode"). */
#ifndef PCI_EXP_FLAGS_FLIT_MODE
#define PCI_EXP_FLAGS_FLIT_MODE 0x8000
#endif
#ifndef PCI_EXP_LINKSTA2_FLIT_MODE
#define PCI_EXP_LINKSTA2_FLIT_MODE 0x0400
#endif
#ifndef PCI_EXT_CAP_ID_32GT
#define PCI_EXT_CAP_ID_32GT 0x2a
#endif
#ifndef PCI_EXT_CAP_ID_64GT
#define PCI_EXT_CAP_ID_64GT 0x31
#endif
/* Link speed codes (LnkSta/LnkCap/LnkCtl2): Gen1 .. Gen6. */
#define HWC_PCI_SPEED_GEN1 1
#define HWC_PCI_SPEED_GEN6 6

/* libpci reports fatal problems through a->error, whose default prints and calls exit(1): a
 * malformed dump would end the whole run. Ours records the message and jumps back to the call
 * that entered libpci. Collection is single-threaded, so one jump target is enough. */
static jmp_buf *g_jmp;
static char g_msg[256];

static void lib_error(char *msg, ...) __attribute__((format(printf, 1, 2), noreturn));
static void lib_error(char *msg, ...)
{
	va_list ap;
	va_start(ap, msg);
	vsnprintf(g_msg, sizeof(g_msg), msg, ap);
	va_end(ap);
	if (g_jmp)
		longjmp(*g_jmp, 1);
	abort(); /* every entry into libpci sets g_jmp; reaching here is a bug */
}

static void lib_quiet(char *msg, ...) __attribute__((format(printf, 1, 2)));
static void lib_quiet(char *msg, ...)
{
	(void)msg; /* warnings and debug output: collectors never print */
}

static void lib_handlers(struct pci_access *acc)
{
	acc->error = lib_error;
	acc->warning = lib_quiet;
	acc->debug = lib_quiet;
}

/* The decoder's libpci instance. Its devices are made with pci_get_dev() and given the bytes
 * with pci_setup_cache(), so every read is served from memory: no device, sysfs file or
 * /dev/mem is ever opened, and the bytes went through the root-confined env first (snapshots
 * record them). The dump method is chosen because it is the one backend that touches nothing
 * but its file; an empty one (/dev/null) gives it no devices. A read past the cache asks the
 * backend, which finds no such device and answers 0xff, as a short sysfs read does. */
static struct pci_access *g_dec;

static struct pci_access *decoder(void)
{
	if (g_dec)
		return g_dec;
	struct pci_access *acc = pci_alloc();
	if (!acc)
		return NULL;
	lib_handlers(acc);
	acc->method = PCI_ACCESS_DUMP;
	pci_set_param(acc, "dump.name", "/dev/null");
	jmp_buf jb;
	g_jmp = &jb;
	if (setjmp(jb)) {
		g_jmp = NULL;
		return NULL; /* acc is leaked on purpose: libpci's state after an error is unknown */
	}
	pci_init(acc);
	g_jmp = NULL;
	g_dec = acc;
	return acc;
}

static unsigned le16(const unsigned char *b, size_t off) { return b[off] | (unsigned)b[off + 1] << 8; }

static const char *hex4(struct hwc_arena *a, unsigned v) { return hwc_arena_printf(a, "%04x", v); }

double hwc_pci_speed_code_gts(int code)
{
	static const double gts[] = {0, 2.5, 5, 8, 16, 32, 64};
	return code >= HWC_PCI_SPEED_GEN1 && code <= HWC_PCI_SPEED_GEN6 ? gts[code] : 0;
}

static void set_speed(struct hwc_ff64 *f, int code, const char *what)
{
	double g = hwc_pci_speed_code_gts(code);
	if (g > 0)
		HWC_SET(*f, g);
	else if (code == 0)
		HWC_FAIL(*f, HWC_ST_ABSENT, 0, what);
	else
		HWC_FAIL(*f, HWC_ST_INVALID, 0, "reserved link speed code");
}

static const char *port_type_name(int t)
{
	static const char *const n[] = {"endpoint", "legacy_endpoint", NULL, NULL, "root_port",
		"upstream_port", "downstream_port", "pci_bridge", "pcie_bridge", "rc_endpoint",
		"rc_event_collector"};
	return t >= 0 && t <= 10 && n[t] ? n[t] : NULL;
}

const char *hwc_pci_aspm_name(unsigned v, bool cap)
{
	static const char *const n[] = {"disabled", "l0s", "l1", "l0s_l1"};
	return v == 0 && cap ? "none" : n[v & 3];
}

/* DevCap captured slot power limit as lspci's show_power_limit() computes it. */
static void power_limit(struct hwc_ff64 *f, unsigned value, unsigned scale)
{
	static const double scales[4] = {1.0, 0.1, 0.01, 0.001};
	if (scale == 0 && value == 0xff) {
		HWC_FAIL(*f, HWC_ST_INVALID, 0, "power limit code 0xff: more than 600 W");
		return;
	}
	if (scale == 0 && value >= 0xf0)
		value = 250 + 25 * (value - 0xf0);
	HWC_SET(*f, value * scales[scale & 3]);
}

/* Mark every fact that comes from a capability with one status. */
void hwc_pci_caps_fail(struct hwc_pci_device *d, enum hwc_status st, const char *why)
{
	struct hwc_fmeta *m[] = {
		&d->port_type.m, &d->link.m, &d->max_payload_bytes.m,
		&d->max_payload_supported_bytes.m, &d->max_read_request_bytes.m,
		&d->relaxed_ordering.m, &d->no_snoop.m, &d->extended_tag.m,
		&d->slot_power_limit_w.m, &d->dev_status.m, &d->aer_capable.m, &d->acs_capable.m,
		&d->p2p.m,
	};
	hwc_fmeta_set_all(m, HWC_ARRAY_SIZE(m), st, why);
	hwc_pci_parts_fail(d, &(struct hwc_fmeta){.st = st, .detail = why});
}

void hwc_pci_parts_fail(struct hwc_pci_device *d, const struct hwc_fmeta *why)
{
	(void)d, (void)why; /* when no part is registered */
#define PART_FAIL(m_, T, doc_) *(struct hwc_fmeta *)&d->m_ = *why;
	HWC_PCI_DEVICE_PARTS(PART_FAIL)
#undef PART_FAIL
}

static void decode_link(struct pci_dev *pd, int base, unsigned flags, struct hwc_arena *a,
			struct hwc_pci_link *l)
{
	uint32_t cap = pci_read_long(pd, base + PCI_EXP_LNKCAP);
	unsigned ctl = pci_read_word(pd, base + PCI_EXP_LNKCTL);
	unsigned sta = pci_read_word(pd, base + PCI_EXP_LNKSTA);
	hwc_fmeta_set(&l->m, HWC_ST_OK, 0, NULL);
	set_speed(&l->speed_gts, sta & PCI_EXP_LNKSTA_SPEED, "no link trained (LnkSta speed code 0)");
	HWC_SET(l->width, (sta & PCI_EXP_LNKSTA_WIDTH) >> 4);
	set_speed(&l->cap_speed_gts, cap & PCI_EXP_LNKCAP_SPEED, "LnkCap speed code 0");
	HWC_SET(l->cap_width, (cap & PCI_EXP_LNKCAP_WIDTH) >> 4);
	HWC_SET(l->aspm, hwc_pci_aspm_name(ctl & PCI_EXP_LNKCTL_ASPM, false));
	HWC_SET(l->aspm_supported, hwc_pci_aspm_name((cap & PCI_EXP_LNKCAP_ASPM) >> 10, true));
	/* Only ports must report it (LnkCap "LLActRep"); where it is not reported the key is left
	 * out rather than filling every endpoint's "unavailable". */
	if (cap & PCI_EXP_LNKCAP_DLLA)
		HWC_SET(l->dll_active, (sta & PCI_EXP_LNKSTA_DL_ACT) != 0);

	unsigned vec = 0;
	if ((flags & PCI_EXP_FLAGS_VERS) >= 2) {
		vec = PCI_EXP_LNKCAP2_SPEED(pci_read_long(pd, base + PCI_EXP_LNKCAP2));
		unsigned tgt = pci_read_word(pd, base + PCI_EXP_LNKCTL2) & 0xf;
		/* a function that supports 2.5 GT/s only may hardwire the field to 0 (lspci reads
		 * 2.5GT/s there too) */
		if (tgt == 0 && (cap & PCI_EXP_LNKCAP_SPEED) == 1)
			tgt = 1;
		set_speed(&l->target_speed_gts, (int)tgt, "LnkCtl2 target speed code 0");
		unsigned sta2 = pci_read_word(pd, base + PCI_EXP_LNKSTA2);
		HWC_SET(l->flit_mode, (flags & PCI_EXP_FLAGS_FLIT_MODE) &&
					      (sta2 & PCI_EXP_LINKSTA2_FLIT_MODE));
	} else {
		HWC_FAIL(l->target_speed_gts, HWC_ST_UNSUPPORTED, 0, "PCIe capability version 1");
		HWC_SET(l->flit_mode, false);
	}
	/* LnkCap2 = 0: a pre-3.0 device; its speeds are every code up to LnkCap's. */
	if (!vec)
		vec = (1u << (cap & PCI_EXP_LNKCAP_SPEED)) - 1;
	static const double all[] = {2.5, 5, 8, 16, 32, 64, 128};
	hwc_fmeta_set(&l->supported_speeds_gts.m, HWC_ST_OK, 0, NULL);
	for (unsigned i = 0; i < 7; i++) {
		if (!(vec & (1u << i)))
			continue;
		double *p = HWC_VEC_PUSH(a, &l->supported_speeds_gts);
		if (p)
			*p = all[i];
	}
}

/* A bit of a register read as a boolean fact: the member at off is (words[word] & mask) != 0. */
struct bitfact {
	size_t off;
	unsigned word;
	uint32_t mask;
};

static void set_bits(void *base, const struct bitfact *t, size_t n, const uint32_t *words)
{
	for (size_t i = 0; i < n; i++)
		HWC_SET(*(struct hwc_fbool *)((char *)base + t[i].off),
			(words[t[i].word] & t[i].mask) != 0);
}

#define ACS(m, mask) {offsetof(struct hwc_pci_acs, m), 0, mask}
static const struct bitfact acs_t[] = {
	ACS(source_validation, PCI_ACS_CTRL_VALID),
	ACS(translation_blocking, PCI_ACS_CTRL_BLOCK),
	ACS(request_redirect, PCI_ACS_CTRL_REQ_RED),
	ACS(completion_redirect, PCI_ACS_CTRL_CMPLT_RED),
	ACS(upstream_forwarding, PCI_ACS_CTRL_FORWARD),
	ACS(egress_control, PCI_ACS_CTRL_EGRESS),
	ACS(direct_translated, PCI_ACS_CTRL_TRANS),
};
#undef ACS

static void acs_bits(struct hwc_pci_acs *o, unsigned w)
{
	hwc_fmeta_set(&o->m, HWC_ST_OK, 0, NULL);
	set_bits(o, acs_t, HWC_ARRAY_SIZE(acs_t), &(uint32_t){w});
}

/* DevCap2 (word 0) and DevCtl2 (word 1) bits. */
#define P2P(m, word, mask) {offsetof(struct hwc_pci_p2p, m), word, mask}
static const struct bitfact devcap2_t[] = {
	P2P(tag10_requester_capable, 0, PCI_EXP_DEVCAP2_10BIT_TAG_REQ),
	P2P(tag10_completer_capable, 0, PCI_EXP_DEVCAP2_10BIT_TAG_COMP),
	P2P(tag10_requester_enabled, 1, PCI_EXP_DEVCTL2_10BIT_TAG_REQ),
	P2P(atomic_routing, 0, PCI_EXP_DEVCAP2_ATOMICOP_ROUTING),
	P2P(atomic_completer_32, 0, PCI_EXP_DEVCAP2_32BIT_ATOMICOP_COMP),
	P2P(atomic_completer_64, 0, PCI_EXP_DEVCAP2_64BIT_ATOMICOP_COMP),
	P2P(atomic_completer_128, 0, PCI_EXP_DEVCAP2_128BIT_CAS_COMP),
	P2P(atomic_requester_enabled, 1, PCI_EXP_DEVCTL2_ATOMICOP_REQUESTER_EN),
	P2P(atomic_egress_blocking, 1, PCI_EXP_DEVCTL2_ATOMICOP_EGRESS_BLOCK),
};
#undef P2P

/* DevCap2/DevCtl2 (capability version 2): 10-bit tags and AtomicOps, as lspci's DevCap2 lines. */
static void decode_devcap2(struct pci_dev *pd, int base, unsigned flags, struct hwc_pci_p2p *p)
{
	struct hwc_fbool *all[] = {&p->tag10_requester_capable, &p->tag10_requester_enabled,
				   &p->tag10_completer_capable, &p->atomic_requester_enabled,
				   &p->atomic_egress_blocking, &p->atomic_routing,
				   &p->atomic_completer_32, &p->atomic_completer_64,
				   &p->atomic_completer_128};
	if ((flags & PCI_EXP_FLAGS_VERS) < 2) {
		for (size_t i = 0; i < HWC_ARRAY_SIZE(all); i++)
			HWC_FAIL(*all[i], HWC_ST_UNSUPPORTED, 0, "PCIe capability version 1: no DevCap2");
		return;
	}
	uint32_t words[] = {pci_read_long(pd, base + PCI_EXP_DEVCAP2),
			    pci_read_word(pd, base + PCI_EXP_DEVCTL2)};
	set_bits(p, devcap2_t, HWC_ARRAY_SIZE(devcap2_t), words);
}

/* The extended capabilities peer-to-peer depends on: ACS (bridges), ATS, PRI, PASID. */
static void decode_p2p_ext(struct pci_dev *pd, struct hwc_pci_device *d)
{
	struct pci_cap *c = pci_find_cap(pd, PCI_EXT_CAP_ID_ACS, PCI_CAP_EXTENDED);
	HWC_SET(d->acs_capable, c != NULL);
	if (c) {
		acs_bits(&d->acs_cap, pci_read_word(pd, c->addr + PCI_ACS_CAP));
		acs_bits(&d->acs, pci_read_word(pd, c->addr + PCI_ACS_CTRL));
	}
	struct hwc_pci_p2p *p = &d->p2p;
	c = pci_find_cap(pd, PCI_EXT_CAP_ID_ATS, PCI_CAP_EXTENDED);
	HWC_SET(p->ats_capable, c != NULL);
	HWC_SET(p->ats_enabled, c && (pci_read_word(pd, c->addr + PCI_ATS_CTRL) & PCI_ATS_CTRL_ENABLE));
	c = pci_find_cap(pd, PCI_EXT_CAP_ID_PRI, PCI_CAP_EXTENDED);
	HWC_SET(p->pri_capable, c != NULL);
	HWC_SET(p->pri_enabled, c && (pci_read_word(pd, c->addr + PCI_PRI_CTRL) & PCI_PRI_CTRL_ENABLE));
	c = pci_find_cap(pd, PCI_EXT_CAP_ID_PASID, PCI_CAP_EXTENDED);
	HWC_SET(p->pasid_capable, c != NULL);
	HWC_SET(p->pasid_enabled,
		c && (pci_read_word(pd, c->addr + PCI_PASID_CTRL) & PCI_PASID_CTRL_ENABLE));
}

static void p2p_ext_fail(struct hwc_pci_device *d, enum hwc_status st, const char *why)
{
	HWC_FAIL(d->acs_capable, st, 0, why);
	struct hwc_pci_p2p *p = &d->p2p;
	struct hwc_fbool *ext[] = {&p->ats_capable, &p->ats_enabled, &p->pri_capable,
				   &p->pri_enabled, &p->pasid_capable, &p->pasid_enabled};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(ext); i++)
		HWC_FAIL(*ext[i], st, 0, why);
}

/* Why a config space of len bytes (<= 256) has no extended capabilities. */
static void no_ext_space(size_t len, struct hwc_fmeta *m)
{
	if (len <= 64)
		hwc_fmeta_set(m, HWC_ST_NEEDS_ROOT, 0, "config space beyond 64 bytes needs root");
	else
		hwc_fmeta_set(m, HWC_ST_ABSENT, 0,
			      "config space captured to 256 bytes: no extended capabilities");
}

static void decode_pcie(struct pci_dev *pd, int base, size_t len, struct hwc_arena *a,
			struct hwc_pci_device *d)
{
	unsigned flags = pci_read_word(pd, base + PCI_EXP_FLAGS);
	int type = (flags & PCI_EXP_FLAGS_TYPE) >> 4;
	d->pcie_type = type;
	const char *tn = port_type_name(type);
	HWC_SET(d->port_type, tn ? tn : hwc_arena_printf(a, "type_%d", type));

	uint32_t devcap = pci_read_long(pd, base + PCI_EXP_DEVCAP);
	unsigned devctl = pci_read_word(pd, base + PCI_EXP_DEVCTL);
	unsigned devsta = pci_read_word(pd, base + PCI_EXP_DEVSTA);
	HWC_SET(d->max_payload_supported_bytes, 128 << (devcap & PCI_EXP_DEVCAP_PAYLOAD));
	HWC_SET(d->max_payload_bytes, 128 << ((devctl & PCI_EXP_DEVCTL_PAYLOAD) >> 5));
	HWC_SET(d->max_read_request_bytes, 128 << ((devctl & PCI_EXP_DEVCTL_READRQ) >> 12));
	HWC_SET(d->relaxed_ordering, (devctl & PCI_EXP_DEVCTL_RELAXED) != 0);
	HWC_SET(d->no_snoop, (devctl & PCI_EXP_DEVCTL_NOSNOOP) != 0);
	HWC_SET(d->extended_tag, (devctl & PCI_EXP_DEVCTL_EXT_TAG) != 0);
	if (type == PCI_EXP_TYPE_ENDPOINT || type == PCI_EXP_TYPE_LEG_END ||
	    type == PCI_EXP_TYPE_UPSTREAM || type == PCI_EXP_TYPE_PCI_BRIDGE)
		power_limit(&d->slot_power_limit_w, (devcap & PCI_EXP_DEVCAP_PWR_VAL) >> 18,
			    (devcap & PCI_EXP_DEVCAP_PWR_SCL) >> 26);
	else
		HWC_FAIL(d->slot_power_limit_w, HWC_ST_UNSUPPORTED, 0,
			 "DevCap slot power limit applies to endpoints and upstream ports");
	hwc_fmeta_set(&d->dev_status.m, HWC_ST_OK, 0, NULL);
	HWC_SET(d->dev_status.correctable, (devsta & PCI_EXP_DEVSTA_CED) != 0);
	HWC_SET(d->dev_status.nonfatal, (devsta & PCI_EXP_DEVSTA_NFED) != 0);
	HWC_SET(d->dev_status.fatal, (devsta & PCI_EXP_DEVSTA_FED) != 0);
	HWC_SET(d->dev_status.unsupported_request, (devsta & PCI_EXP_DEVSTA_URD) != 0);

	hwc_fmeta_set(&d->p2p.m, HWC_ST_OK, 0, NULL);
	decode_devcap2(pd, base, flags, &d->p2p);

	if (type == PCI_EXP_TYPE_ROOT_INT_EP || type == PCI_EXP_TYPE_ROOT_EC)
		hwc_fmeta_set(&d->link.m, HWC_ST_UNSUPPORTED, 0, "root-complex integrated: no link");
	else
		decode_link(pd, base, flags, a, &d->link);

	if ((flags & PCI_EXP_FLAGS_SLOT) &&
	    (type == PCI_EXP_TYPE_ROOT_PORT || type == PCI_EXP_TYPE_DOWNSTREAM)) {
		uint32_t slt = pci_read_long(pd, base + PCI_EXP_SLTCAP);
		hwc_fmeta_set(&d->slot.m, HWC_ST_OK, 0, NULL);
		power_limit(&d->slot.power_limit_w, (slt & PCI_EXP_SLTCAP_PWR_VAL) >> 7,
			    (slt & PCI_EXP_SLTCAP_PWR_SCL) >> 15);
		HWC_SET(d->slot.physical_slot, (slt & PCI_EXP_SLTCAP_PSN) >> 19);
	}

	if (len <= 256) {
		struct hwc_fmeta m = {0};
		no_ext_space(len, &m);
		HWC_FAIL(d->aer_capable, m.st, 0, m.detail);
		p2p_ext_fail(d, m.st, m.detail);
		return;
	}
	HWC_SET(d->aer_capable, pci_find_cap(pd, PCI_EXT_CAP_ID_AER, PCI_CAP_EXTENDED) != NULL);
	decode_p2p_ext(pd, d);
	struct pci_cap *iov = pci_find_cap(pd, PCI_EXT_CAP_ID_SRIOV, PCI_CAP_EXTENDED);
	if (iov) {
		hwc_fmeta_set(&d->sriov.m, HWC_ST_OK, 0, NULL);
		HWC_SET(d->sriov.total_vfs, pci_read_word(pd, iov->addr + PCI_IOV_TOTALVF));
		HWC_SET(d->sriov.num_vfs, pci_read_word(pd, iov->addr + PCI_IOV_NUMVF));
		HWC_SET(d->sriov.vf_device_id, hex4(a, pci_read_word(pd, iov->addr + PCI_IOV_DID)));
	}
}

/* The capability walk, inside libpci: an error there jumps back here. */
static int walk(struct pci_access *acc, unsigned char *cache, size_t len, struct hwc_arena *a,
		struct hwc_pci_device *d, unsigned *exp_off)
{
	jmp_buf jb;
	g_jmp = &jb;
	if (setjmp(jb)) {
		g_jmp = NULL;
		return -EIO;
	}
	struct pci_dev *pd = pci_get_dev(acc, 0, 0, 0, 0);
	pci_setup_cache(pd, cache, (int)len);
	struct pci_cap *exp = pci_find_cap(pd, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
	if (exp) {
		*exp_off = (unsigned)exp->addr;
		decode_pcie(pd, exp->addr, len, a, d);
	} else {
		hwc_pci_caps_fail(d, HWC_ST_UNSUPPORTED, "no PCI Express capability");
		HWC_SET(d->port_type, "pci");
	}
	pci_free_dev(pd);
	g_jmp = NULL;
	return 0;
}

/* Walks the standard capability list; returns a detail when it loops before reaching the PCI
 * Express capability, else NULL. */
static const char *cap_chain_loop(const unsigned char *buf, size_t len, struct hwc_arena *a)
{
	bool seen[256] = {false};
	unsigned ptr = buf[PCI_CAPABILITY_LIST] & 0xfc;
	while (ptr >= 0x40 && ptr + 1 < len && ptr < 256) {
		if (seen[ptr])
			return hwc_arena_printf(a, "capability chain loops at 0x%02x before any PCI "
						   "Express capability", ptr);
		seen[ptr] = true;
		if (buf[ptr] == PCI_CAP_ID_EXP)
			return NULL;
		ptr = buf[ptr + 1] & 0xfc;
	}
	return NULL;
}

/* The offset of a standard capability (the chain walked at most 48 steps: a loop ends it), or 0. */
static size_t std_cap(const unsigned char *buf, size_t len, unsigned id)
{
	if (!(le16(buf, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0;
	unsigned ptr = buf[PCI_CAPABILITY_LIST] & 0xfc;
	for (int n = 0; n < 48 && ptr >= 0x40 && ptr + 1 < len && ptr < 256; n++) {
		if (buf[ptr] == id)
			return ptr;
		ptr = buf[ptr + 1] & 0xfc;
	}
	return 0;
}

/* A bridge has no subsystem ids in its header: a PCI-to-PCI bridge may carry them in its
 * Subsystem ID capability (0x0d), a CardBus bridge at 0x40 (lspci's "Subsystem:" line, both). */
static void bridge_subsystem(const unsigned char *buf, size_t len, struct hwc_arena *a,
			     struct hwc_pci_device *d)
{
	unsigned ht = buf[PCI_HEADER_TYPE] & 0x7f;
	size_t at = 0;
	if (ht == PCI_HEADER_TYPE_BRIDGE) {
		size_t cap = std_cap(buf, len, PCI_CAP_ID_SSVID);
		at = cap && cap + 8 <= len ? cap + PCI_SSVID_VENDOR : 0;
	} else if (ht == PCI_HEADER_TYPE_CARDBUS && len >= PCI_CB_SUBSYSTEM_ID + 2) {
		at = PCI_CB_SUBSYSTEM_VENDOR_ID;
	}
	if (at) {
		HWC_SET(d->subsystem_vendor_id, hex4(a, le16(buf, at)));
		HWC_SET(d->subsystem_device_id, hex4(a, le16(buf, at + 2)));
		return;
	}
	/* as caps_fail says of every capability when only the header could be read */
	bool unread = ht == PCI_HEADER_TYPE_BRIDGE && len <= 64 &&
		      (le16(buf, PCI_STATUS) & PCI_STATUS_CAP_LIST);
	enum hwc_status st = unread ? HWC_ST_NEEDS_ROOT : HWC_ST_UNSUPPORTED;
	const char *why = unread ? "config space beyond 64 bytes needs root"
				 : "not in a bridge's header";
	HWC_FAIL(d->subsystem_vendor_id, st, 0, why);
	HWC_FAIL(d->subsystem_device_id, st, 0, why);
}

int hwc_pci_decode_config(const unsigned char *buf, size_t len, struct hwc_arena *a,
			  struct hwc_pci_device *d, const char **err)
{
	const char *dummy;
	if (!err)
		err = &dummy;
	*err = NULL;
	d->pcie_type = -1;
	d->sec_bus = d->sub_bus = -1;
	if (len < 64) {
		*err = "config space shorter than the 64-byte header";
		return -EINVAL;
	}
	if (len > 4096)
		len = 4096;
	unsigned vendor = le16(buf, PCI_VENDOR_ID);
	size_t ones = 0;
	while (ones < 64 && buf[ones] == 0xff)
		ones++;
	if (ones == 64 || vendor == 0) {
		*err = vendor ? "config space reads all ones: the device does not answer (gone from "
				"the bus?)"
			      : "vendor id 0000";
		/* nothing may be derived from those bytes: every capability fact says why */
		hwc_pci_caps_fail(d, HWC_ST_UNREADABLE, *err);
		return -EINVAL;
	}
	HWC_SET(d->config_bytes, (int64_t)len);
	if (vendor == 0xffff) {
		/* An SR-IOV VF: its vendor and device id registers read ffff, the rest is there. */
		const char *why = "config space reads ffff here (an SR-IOV VF's ids are not in it)";
		HWC_FAIL(d->vendor_id, HWC_ST_UNSUPPORTED, 0, why);
		HWC_FAIL(d->device_id, HWC_ST_UNSUPPORTED, 0, why);
	} else {
		HWC_SET(d->vendor_id, hex4(a, vendor));
		HWC_SET(d->device_id, hex4(a, le16(buf, PCI_DEVICE_ID)));
	}
	HWC_SET(d->revision, buf[PCI_REVISION_ID]);
	HWC_SET(d->class_code, hwc_arena_printf(a, "%02x%02x%02x", buf[PCI_CLASS_DEVICE + 1],
						 buf[PCI_CLASS_DEVICE], buf[PCI_CLASS_PROG]));
	unsigned ht = buf[PCI_HEADER_TYPE] & 0x7f;
	HWC_SET(d->header_type, ht);
	if (ht == PCI_HEADER_TYPE_NORMAL) {
		HWC_SET(d->subsystem_vendor_id, hex4(a, le16(buf, PCI_SUBSYSTEM_VENDOR_ID)));
		HWC_SET(d->subsystem_device_id, hex4(a, le16(buf, PCI_SUBSYSTEM_ID)));
	} else {
		bridge_subsystem(buf, len, a, d);
		/* CardBus bridges keep their bus numbers at the same offsets (lspci's tree too). */
		if (ht == PCI_HEADER_TYPE_BRIDGE || ht == PCI_HEADER_TYPE_CARDBUS) {
			d->sec_bus = buf[PCI_SECONDARY_BUS];
			d->sub_bus = buf[PCI_SUBORDINATE_BUS];
		}
	}
	if (!(le16(buf, PCI_STATUS) & PCI_STATUS_CAP_LIST)) {
		HWC_SET(d->port_type, "pci");
		hwc_pci_caps_fail(d, HWC_ST_UNSUPPORTED, "no capability list: conventional PCI");
		HWC_SET(d->port_type, "pci");
		return 0;
	}
	if (len <= 64) {
		hwc_pci_caps_fail(d, HWC_ST_NEEDS_ROOT, "config space beyond 64 bytes needs root");
		return 0;
	}

	/* libpci stops quietly on a looping capability chain; say so when the loop hid the PCI
	 * Express capability, instead of calling the device conventional PCI. */
	const char *loop = cap_chain_loop(buf, len, a);
	if (loop) {
		hwc_pci_caps_fail(d, HWC_ST_INVALID, loop);
		return 0;
	}

	struct pci_access *acc = decoder();
	if (!acc) {
		*err = hwc_arena_printf(a, "libpci: %s", g_msg);
		hwc_pci_caps_fail(d, HWC_ST_UNREADABLE, *err);
		return -EIO;
	}
	/* libpci keeps the pointer (non-const) for the walk: a copy that lives through it. */
	unsigned char cache[4096];
	memcpy(cache, buf, len);
	unsigned exp = 0;
	if (walk(acc, cache, len, a, d, &exp) < 0) {
		*err = hwc_arena_printf(a, "libpci: %s", g_msg);
		hwc_pci_caps_fail(d, HWC_ST_INVALID, *err);
		return -EIO;
	}
	/* the parts (HWC_PCI_DEVICE_PARTS), from the caller's bytes; not for a VF (ids ffff) */
	struct hwc_pci_cfg cfg = {.buf = buf, .len = len, .exp = exp, .pcie_type = d->pcie_type};
	(void)cfg;
	if (exp && vendor != 0xffff) {
#define PART_DECODE(m, T, doc_) hwc_pci_decode_##m(&cfg, a, &d->m);
		HWC_PCI_DEVICE_PARTS(PART_DECODE)
#undef PART_DECODE
	}
	return 0;
}

/* ---- what the parts read ------------------------------------------------------------- */

unsigned hwc_pci_cfg_u16(const struct hwc_pci_cfg *c, size_t off)
{
	return off + 2 <= c->len ? le16(c->buf, off) : 0xffff;
}

uint32_t hwc_pci_cfg_u32(const struct hwc_pci_cfg *c, size_t off)
{
	return off + 4 <= c->len ? le16(c->buf, off) | (uint32_t)le16(c->buf, off + 2) << 16
				 : 0xffffffffu;
}

size_t hwc_pci_cfg_ext_cap(const struct hwc_pci_cfg *c, unsigned id, const char *what,
			   struct hwc_fmeta *m)
{
	if (c->len <= 256) {
		no_ext_space(c->len, m);
		return 0;
	}
	/* a header: id (15:0), version (19:16), next (31:20, dword aligned); at most one per dword */
	size_t off = 0x100;
	for (size_t n = 0; off >= 0x100 && n < 1024; n++) {
		uint32_t h = hwc_pci_cfg_u32(c, off);
		if (h == 0 || h == 0xffffffffu)
			break;
		if ((h & 0xffff) == id)
			return off;
		off = (h >> 20) & 0xffc;
	}
	hwc_fmeta_set(m, HWC_ST_UNSUPPORTED, 0, what); /* the device has none */
	return 0;
}

/* ---- lspci dumps ---------------------------------------------------------------------- */

static int cmp_dev(const void *x, const void *y)
{
	const struct hwc_pci_device *p = x, *q = y;
	unsigned long long a = (unsigned long long)p->domain << 24 | p->bus << 16 | p->dev << 8 | p->fn;
	unsigned long long b = (unsigned long long)q->domain << 24 | q->bus << 16 | q->dev << 8 | q->fn;
	return a < b ? -1 : a > b;
}

/* How many bytes the dump held for this function: libpci's dump backend refuses a read past
 * what the file gave, so search the largest readable offset. */
static int dump_len(struct pci_dev *pd)
{
	int lo = 0, hi = 4096;
	unsigned char b;
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (pci_read_block(pd, mid - 1, &b, 1))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* A function's bytes, taken out of libpci: the decode runs after libpci is left (it re-enters
 * libpci through the decoder's own instance). */
struct raw {
	unsigned char *bytes;
	size_t len;
};

static size_t dump_extract(struct pci_access *acc, struct hwc_arena *a, struct hwc_arena *scratch,
			   struct hwc_pci_facts *out, struct raw **raws)
{
	size_t n = 0, k = 0;
	for (struct pci_dev *pd = acc->devices; pd; pd = pd->next)
		n++;
	*raws = hwc_arena_calloc(scratch, n ? n : 1, sizeof(**raws));
	if (!*raws || hwc_arena_grow(a, (void **)&out->devices.items, sizeof(*out->devices.items),
				     &out->devices.cap, out->devices.n + n) < 0)
		return 0;
	for (struct pci_dev *pd = acc->devices; pd && k < n; pd = pd->next, k++) {
		struct raw *r = &(*raws)[k];
		r->len = (size_t)dump_len(pd);
		r->bytes = r->len ? hwc_arena_zalloc(scratch, r->len) : NULL;
		if (r->len && (!r->bytes || !pci_read_block(pd, 0, r->bytes, (int)r->len)))
			r->len = 0;
		struct hwc_pci_device *d = HWC_VEC_PUSH(a, &out->devices);
		d->domain = (unsigned)pd->domain;
		d->bus = pd->bus;
		d->dev = pd->dev;
		d->fn = pd->func;
		d->parent = -1;
	}
	return k;
}

int hwc_pci_read_dump(const char *file, struct hwc_arena *a, struct hwc_pci_facts *out,
		      const char **err)
{
	*err = NULL;
	struct pci_access *volatile acc = pci_alloc();
	if (!acc) {
		*err = "libpci: out of memory";
		return -ENOMEM;
	}
	lib_handlers(acc);
	acc->method = PCI_ACCESS_DUMP;
	size_t first = out->devices.n;
	/* the bytes live here until decoded */
	struct hwc_arena *volatile scratch = hwc_arena_new();
	if (!scratch) {
		pci_cleanup(acc);
		*err = "out of memory";
		return -ENOMEM;
	}
	jmp_buf jb;
	g_jmp = &jb;
	if (setjmp(jb)) {
		g_jmp = NULL;
		*err = hwc_arena_printf(a, "libpci: %s", g_msg);
		out->devices.n = first;
		/* The dump backend fails between whole records (a malformed line, a bad header), so
		 * its list is consistent and can be freed; should freeing fail too, leak it. */
		jmp_buf again;
		g_jmp = &again;
		if (!setjmp(again))
			pci_cleanup(acc);
		g_jmp = NULL;
		hwc_arena_free(scratch);
		return -EINVAL;
	}
	pci_set_param(acc, "dump.name", (char *)file);
	pci_init(acc);
	pci_scan_bus(acc);
	struct raw *raws = NULL;
	size_t n = dump_extract(acc, a, scratch, out, &raws);
	pci_cleanup(acc);
	g_jmp = NULL;

	for (size_t i = 0; i < n; i++) {
		struct hwc_pci_device *d = &out->devices.items[first + i];
		HWC_SET(d->bdf, hwc_arena_printf(a, "%04x:%02x:%02x.%x", d->domain, d->bus, d->dev,
						 d->fn));
		HWC_SET(d->function, d->fn);
		const char *derr = NULL;
		if (hwc_pci_decode_config(raws[i].bytes ? raws[i].bytes : (const unsigned char *)"",
					  raws[i].len, a, d, &derr) < 0)
			HWC_FAIL(d->vendor_id, HWC_ST_INVALID, 0,
				 hwc_arena_printf(a, "%s: %s", file, derr));
		HWC_SET(d->config_bytes, (int64_t)raws[i].len);
	}
	hwc_arena_free(scratch);
	if (out->devices.n > first)
		qsort(out->devices.items + first, out->devices.n - first,
		      sizeof(*out->devices.items), cmp_dev);
	return 0;
}
