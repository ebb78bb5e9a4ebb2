/* SPDX-License-Identifier: MIT */
/* mlx/ parsers on the real captures of tests/mlx/data (copied from the shared corpus), on the
 * documented error outputs, and the identity table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "mlx/mlx.h"
#include "pci/pci.h"
#include "test.h"

static struct hwc_arena *A;

static char *slurp(const char *name, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", MLX_DATA, name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(2);
	}
	static char buf[1 << 20];
	*len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[*len] = 0;
	fclose(f);
	char *c = hwc_arena_strndup(A, buf, *len);
	return c;
}

static const struct hwc_mlx_cfgparam *P(const struct hwc_mlx_cfg *c, const char *name)
{
	const struct hwc_mlx_cfgparam *p = hwc_mlx_cfg_find(c, name);
	if (!p) {
		fprintf(stderr, "parameter %s not found\n", name);
		static struct hwc_mlx_cfgparam none;
		return &none;
	}
	return p;
}

static void cfg_file(const char *name, struct hwc_mlx_cfg *c, int want_rc)
{
	size_t len;
	char *b = slurp(name, &len);
	CHECK_INT(hwc_mlx_parse_mstconfig(b, len, A, c), want_rc);
}

#define CHECK_ENUM(v, txt, code)                                                                   \
	do {                                                                                       \
		CHECK_INT((v).m.st, HWC_ST_OK);                                                    \
		CHECK_STR((v).text, txt);                                                          \
		CHECK((v).has_code);                                                               \
		CHECK_INT((v).num, code);                                                          \
	} while (0)

#define CHECK_NUM(v, n)                                                                            \
	do {                                                                                       \
		CHECK_INT((v).m.st, HWC_ST_OK);                                                    \
		CHECK((v).text == NULL);                                                           \
		CHECK_INT((v).num, n);                                                             \
	} while (0)

static void test_cx4lx_nextboot_only(void)
{
	struct hwc_mlx_cfg c;
	cfg_file("cx4lx_mstconfig-q_nextboot-only_linux-rdma-2019.txt", &c, 0);
	CHECK(!c.has_default_current);
	CHECK(c.complete);
	CHECK_INT(c.bad_lines, 0);
	CHECK_STR(c.device_type.v, "ConnectX4LX");
	CHECK_INT(c.board_name.m.st, HWC_ST_UNSUPPORTED); /* Name: N/A */
	CHECK_ENUM(P(&c, "PCI_WR_ORDERING")->next_boot, "per_mkey", 0);
	CHECK_ENUM(P(&c, "ADVANCED_PCI_SETTINGS")->next_boot, "False", 0);
	CHECK_ENUM(P(&c, "SRIOV_EN")->next_boot, "True", 1);
	CHECK_NUM(P(&c, "NUM_OF_VFS")->next_boot, 8);
	CHECK_NUM(P(&c, "NUM_PF_MSIX")->next_boot, 63);
	CHECK_ENUM(P(&c, "INT_LOG_MAX_PAYLOAD_SIZE")->next_boot, "AUTOMATIC", 0);
	CHECK_ENUM(P(&c, "MEMIC_SIZE_LIMIT")->next_boot, "_256KB", 1);
	CHECK_ENUM(P(&c, "EXP_ROM_UEFI_x86_ENABLE")->next_boot, "False", 0);
	CHECK_INT(P(&c, "PCI_WR_ORDERING")->current.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(P(&c, "PCI_WR_ORDERING")->pending.m.st, HWC_ST_UNSUPPORTED);
	/* named but hidden behind ADVANCED_PCI_SETTINGS=False */
	const struct hwc_mlx_cfgparam *m = P(&c, "MAX_ACC_OUT_READ");
	CHECK_INT(m->next_boot.m.st, HWC_ST_UNSUPPORTED);
	CHECK(m->next_boot.m.detail && strstr(m->next_boot.m.detail, "ADVANCED_PCI_SETTINGS"));
	/* no LINK_TYPE on an Ethernet-only card */
	CHECK_INT(P(&c, "LINK_TYPE_P1")->next_boot.m.st, HWC_ST_UNSUPPORTED);
}

static void test_cx4lx_newer_layout(void)
{
	struct hwc_mlx_cfg c;
	cfg_file("cx4lx-mcx4121a-acu_mlxconfig-q_nextboot_pve_skyao.txt", &c, 0);
	CHECK(c.complete);
	CHECK_STR(c.board_name.v, "MCX4121A-ACU_Ax");
	CHECK_ENUM(P(&c, "PCI_WR_ORDERING")->next_boot, "per_mkey", 0);
	CHECK_ENUM(P(&c, "ADVANCED_PCI_SETTINGS")->next_boot, "False", 0);
	CHECK_ENUM(P(&c, "PCI_ATOMIC_MODE")->next_boot, "PCI_ATOMIC_DISABLED_EXT_ATOMIC_ENABLED", 0);
	CHECK_ENUM(P(&c, "PCI_BUS0_RESTRICT_SPEED")->next_boot, "PCI_GEN_1", 0);
	CHECK_ENUM(P(&c, "PCI_BUS0_RESTRICT")->next_boot, "False", 0);
	CHECK_ENUM(P(&c, "CQE_COMPRESSION")->next_boot, "BALANCED", 0);
	const struct hwc_mlx_cfgparam *arr = P(&c, "PCI_DOWNSTREAM_PORT_OWNER");
	CHECK_STR(arr->next_boot.text, "Array[0..15]");
	CHECK(!arr->next_boot.has_code);
	CHECK_NUM(P(&c, "NUM_OF_VFS")->next_boot, 8);
}

static void test_cx5ex_mail_mangled(void)
{
	struct hwc_mlx_cfg c;
	cfg_file("cx5ex-mcx516a-cda_mlxconfig-q_nextboot_xdp-newbies-2020.txt", &c, 0);
	CHECK(c.complete);
	CHECK_STR(c.device_type.v, "ConnectX5");
	CHECK_ENUM(P(&c, "PCI_WR_ORDERING")->next_boot, "per_mkey", 0);
	CHECK_ENUM(P(&c, "ADVANCED_POWER_SETTINGS")->next_boot, "False", 0);
	/* the value the mailer wrapped onto its own line */
	CHECK_ENUM(P(&c, "PCI_ATOMIC_MODE")->next_boot, "PCI_ATOMIC_DISABLED_EXT_ATOMIC_ENABLED", 0);
	CHECK_ENUM(P(&c, "ATS_ENABLED")->next_boot, "False", 0);
	CHECK_NUM(P(&c, "NUM_OF_VFS")->next_boot, 6);
	const struct hwc_mlx_cfgparam *d = P(&c, "DISABLE_SLOT_POWER_LIMITER");
	CHECK_INT(d->next_boot.m.st, HWC_ST_UNSUPPORTED);
	CHECK(d->next_boot.m.detail && strstr(d->next_boot.m.detail, "ADVANCED_POWER_SETTINGS"));
}

static void test_cx6lx_3col_fragment(void)
{
	struct hwc_mlx_cfg c;
	cfg_file("cx6lx_mlxconfig-e-q_3col-default-current-nextboot_sriov-op-pr358_FRAGMENT.txt", &c, 0);
	CHECK(c.has_default_current);
	CHECK(!c.complete);
	CHECK_INT(c.bad_lines, 1); /* the corpus gap marker */
	const struct hwc_mlx_cfgparam *p = P(&c, "MEMIC_SIZE_LIMIT");
	CHECK_ENUM(p->dflt, "_256KB", 1);
	CHECK_ENUM(p->current, "_256KB", 1);
	CHECK_ENUM(p->next_boot, "_256KB", 1);
	CHECK_INT(p->pending.m.st, HWC_ST_OK);
	CHECK(!p->pending.v);
	CHECK_ENUM(P(&c, "NUM_OF_VL_P2")->current, "_4_VLs", 3);
	p = P(&c, "PF_BAR2_SIZE"); /* cut before its Next Boot */
	CHECK_NUM(p->current, 0);
	CHECK_INT(p->next_boot.m.st, HWC_ST_TRUNCATED);
	CHECK_INT(p->pending.m.st, HWC_ST_TRUNCATED);
	p = P(&c, "IB_ROUTING_MODE_P2"); /* last row, cut inside "LID(1" */
	CHECK_ENUM(p->dflt, "LID", 1);
	CHECK_INT(p->current.m.st, HWC_ST_TRUNCATED);
	CHECK_INT(p->next_boot.m.st, HWC_ST_TRUNCATED);
	/* not in the excerpt: truncated, not unsupported */
	CHECK_INT(P(&c, "PCI_WR_ORDERING")->next_boot.m.st, HWC_ST_TRUNCATED);
}

static void test_cx7_fragment(void)
{
	struct hwc_mlx_cfg c;
	cfg_file("cx7_mlxconfig-q_nextboot_p2p-ordering-mode_ats_sriov-dp-issue601_FRAGMENT.txt", &c, 0);
	CHECK(!c.complete);
	CHECK_ENUM(P(&c, "P2P_ORDERING_MODE")->next_boot, "DEVICE_DEFAULT", 0);
	CHECK_ENUM(P(&c, "ATS_ENABLED")->next_boot, "False", 0);
	CHECK_ENUM(P(&c, "MEMIC_ATOMIC")->next_boot, "MEMIC_ATOMIC_ENABLE", 2);
	CHECK_INT(P(&c, "PF_NUM_")->next_boot.m.st, HWC_ST_TRUNCATED);
	CHECK_INT(P(&c, "EXP")->next_boot.m.st, HWC_ST_TRUNCATED);
	CHECK_INT(P(&c, "PCI_WR_ORDERING")->next_boot.m.st, HWC_ST_TRUNCATED);
}

static void test_cx3pro(void)
{
	struct hwc_mlx_cfg c;
	cfg_file("cx3pro-hp544plus_mlxconfig-q_link-type-vpi_pve_skyao.txt", &c, 0);
	CHECK(c.complete);
	CHECK_STR(c.device_type.v, "ConnectX3Pro");
	CHECK_ENUM(P(&c, "LINK_TYPE_P1")->next_boot, "VPI", 3);
	CHECK_ENUM(P(&c, "LINK_TYPE_P2")->next_boot, "VPI", 3);
	CHECK_ENUM(P(&c, "SRIOV_EN")->next_boot, "True", 1);
	CHECK_NUM(P(&c, "NUM_OF_VFS")->next_boot, 16);
	CHECK_ENUM(P(&c, "XFI_MODE_P2")->next_boot, "_10G", 0);
	/* ConnectX-3 has no PCI_WR_ORDERING: the listing is complete, so it is unsupported */
	CHECK_INT(P(&c, "PCI_WR_ORDERING")->next_boot.m.st, HWC_ST_UNSUPPORTED);
}

static void test_errors(void)
{
	struct hwc_mlx_cfg c;
	const char *s = "-E- Unsupported device\n";
	CHECK_INT(hwc_mlx_parse_mstconfig(s, strlen(s), A, &c), -EINVAL);
	CHECK_INT(c.m.st, HWC_ST_UNSUPPORTED);
	CHECK(c.m.detail && strstr(c.m.detail, "Unsupported device"));
	s = "-E- Failed to open the device\n";
	CHECK_INT(hwc_mlx_parse_mstconfig(s, strlen(s), A, &c), -EINVAL);
	CHECK_INT(c.m.st, HWC_ST_UNREADABLE);
	CHECK(c.m.detail && strstr(c.m.detail, "Failed to open the device"));
	/* the issue comment itself: a prose line, no table */
	cfg_file("ERR_connectx2_mstconfig-e-q_unsupported-device_mstflint-issue4_FRAGMENT.txt", &c,
		 -EINVAL);
	CHECK_INT(c.m.st, HWC_ST_INVALID);
	/* the lockdown issue: errors, then a partial successful query with a <snip> inside */
	cfg_file("ERR_cx5-oci_mstconfig-4.33-lockdown_failed-to-open_vs-4.32-ok_ibdev2netdev-bnxt_"
		 "mstflint-issue1371_FRAGMENT.txt",
		 &c, 0);
	CHECK(!c.complete);
	CHECK_STR(c.board_name.v, "7359059_OCI_SD_Ax_Bx");
	CHECK_NUM(P(&c, "FLEX_PARSER_PROFILE_ENABLE")->next_boot, 0);
	CHECK_ENUM(P(&c, "SAFE_MODE_ENABLE")->next_boot, "True", 1);
	s = "";
	CHECK_INT(hwc_mlx_parse_mstconfig(s, 0, A, &c), -EINVAL);
	CHECK_INT(c.m.st, HWC_ST_INVALID);
}

static void test_dialogs(void)
{
	struct hwc_mlx_cfg c;
	/* the set dialog: "Next Boot  New" columns; New is not a configuration */
	cfg_file("cx5-vpi-mcx555a-eca_mstconfig-set-LINK_TYPE_P1-eth-to-ib_dialog_notes-cn.txt", &c, 0);
	CHECK_ENUM(P(&c, "LINK_TYPE_P1")->next_boot, "ETH", 2);
	CHECK_STR(c.device_type.v, "ConnectX5");
	/* a grep of one row, shell prompts, mst status and a set dialog in one file */
	cfg_file("cx6dx_mst-status_mstconfig-q-grep-CQE_mlxconfig-set-dialog_notes-cn.txt", &c, 0);
	CHECK_ENUM(P(&c, "CQE_COMPRESSION")->next_boot, "AGGRESSIVE", 1);
}

/* Layouts of other mstflint versions, written with the format strings DATA-SOURCES.md 4.2 lists
 * (no capture of them exists in the corpus). */
static void test_version_layouts(void)
{
	struct hwc_mlx_cfg c;
	const char *v425 =
		"\nDevice #1:\n----------\n\nDevice type:        ConnectX6           \n"
		"Name:               MCX653105A-HDA_Ax   \nDescription:        N/A\n"
		"Device:             0000:3b:00.0        \n\n"
		"Configurations:                                          Default         Current"
		"         Next Boot\n"
		"*        PCI_WR_ORDERING                             per_mkey(0)     per_mkey(0)"
		"     force_relax(1)  \n"
		" RO      NUM_OF_PF                                   2               2               2"
		"               \n"
		"         ADVANCED_POWER_SETTINGS                     True(1)         True(1)"
		"         True(1)         \n"
		"The '*' shows parameters with next value different from default/current value.\n";
	CHECK_INT(hwc_mlx_parse_mstconfig(v425, strlen(v425), A, &c), 0);
	CHECK(c.has_default_current);
	CHECK(c.complete);
	const struct hwc_mlx_cfgparam *p = P(&c, "PCI_WR_ORDERING");
	CHECK_ENUM(p->current, "per_mkey", 0);
	CHECK_ENUM(p->next_boot, "force_relax", 1);
	CHECK_INT(p->pending.m.st, HWC_ST_OK);
	CHECK(p->pending.v);
	CHECK(P(&c, "NUM_OF_PF")->read_only);
	CHECK(!P(&c, "NUM_OF_PF")->pending.v);
	/* ADVANCED_POWER_SETTINGS True but the limiter switch missing: not the hidden reason */
	p = P(&c, "DISABLE_SLOT_POWER_LIMITER");
	CHECK(p->next_boot.m.detail && !strstr(p->next_boot.m.detail, "shown only"));
	const char *nodc = "Device Firmware does not support reading default and current "
			   "configurations\n"
			   "Configurations:                              Next Boot\n"
			   "         PCI_WR_ORDERING                     N/A             \n";
	CHECK_INT(hwc_mlx_parse_mstconfig(nodc, strlen(nodc), A, &c), 0);
	p = P(&c, "PCI_WR_ORDERING");
	CHECK_INT(p->next_boot.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(p->current.m.st, HWC_ST_UNSUPPORTED);
	CHECK(p->current.m.detail && strstr(p->current.m.detail, "firmware does not support"));
}

static void test_flint(void)
{
	struct hwc_mlx_flint fl;
	size_t len;
	char *b = slurp("cx3pro-hp_mstflint-query_v4.29-ok_v4.30-segfault_mstflint-issue1157.txt", &len);
	CHECK_INT(hwc_mlx_parse_flint_query(b, len, A, &fl), 0);
	CHECK_STR(fl.fw_version.v, "2.42.5044");
	CHECK_STR(fl.psid.v, "HP_1370110017");
	CHECK_STR(fl.image_type.v, "FS2");
	CHECK_INT(fl.fw_version_running.m.st, HWC_ST_UNSET);
	b = slurp("cx6dx-22.27.1016_and_cx5-16.26.4012_flint-q_notes-cn.txt", &len);
	char *first = strstr(b, "Image type:");
	char *second = first ? strstr(first, "\nImage type:") : NULL;
	CHECK(second != NULL);
	CHECK_INT(hwc_mlx_parse_flint_query(b, second ? (size_t)(second - b) : len, A, &fl), 0);
	CHECK_STR(fl.fw_version.v, "22.27.1016");
	CHECK_STR(fl.psid.v, "MT_0000000359");
	CHECK_STR(fl.release_date.v, "27.2.2020");
	CHECK_INT(hwc_mlx_parse_flint_query(second, strlen(second), A, &fl), 0);
	CHECK_STR(fl.fw_version.v, "16.26.4012");
	CHECK_STR(fl.psid.v, "MT_0000000012");
	/* labels from flint/subcommands.cpp: the running line appears only when they differ */
	const char *pend = "Image type:            FS4\nFW Version:            22.41.1000\n"
			   "FW Version(Running):   22.36.1010\nPSID:                  MT_0000000359\n";
	CHECK_INT(hwc_mlx_parse_flint_query(pend, strlen(pend), A, &fl), 0);
	CHECK_STR(fl.fw_version_running.v, "22.36.1010");
	const char *err = "-E- Cannot open Device: 3b:00.0. No such file or directory. MFE_CR_ERROR\n";
	CHECK_INT(hwc_mlx_parse_flint_query(err, strlen(err), A, &fl), -EINVAL);
	CHECK_INT(fl.m.st, HWC_ST_UNREADABLE);
	CHECK(fl.m.detail && strstr(fl.m.detail, "Cannot open Device"));
	const char *seg = "Segmentation fault (core dumped)\n";
	CHECK_INT(hwc_mlx_parse_flint_query(seg, strlen(seg), A, &fl), -EINVAL);
	CHECK_INT(fl.m.st, HWC_ST_INVALID);
}

/* The image and the card of one real upgrade: same PSID, the image newer. */
static void test_flint_image(void)
{
	struct hwc_mlx_flint dev, img;
	size_t len;
	char *b = slurp("cx4lx-mcx4111a_mstflint-d-q_14.32.1900_pve-blog.txt", &len);
	CHECK_INT(hwc_mlx_parse_flint_query(b, len, A, &dev), 0);
	CHECK_STR(dev.fw_version.v, "14.32.1900");
	CHECK_STR(dev.psid.v, "MT_0000000267");
	b = slurp("cx4lx-mcx4111a_mstflint-i-image-q_14.32.1912_pve-blog.txt", &len);
	CHECK_INT(hwc_mlx_parse_flint_query(b, len, A, &img), 0);
	CHECK_STR(img.fw_version.v, "14.32.1912");
	CHECK_STR(img.psid.v, "MT_0000000267");
	CHECK_STR(img.image_type.v, "FS3");
	CHECK_STR(img.release_date.v, "21.1.2026");
	/* an image file mstflint cannot read: its -E- line is the reason */
	const char *bad = "-E- Cannot open fw.bin: No such file or directory\n";
	CHECK_INT(hwc_mlx_parse_flint_query(bad, strlen(bad), A, &img), -EINVAL);
	CHECK(img.m.st != HWC_ST_OK && img.m.detail && strstr(img.m.detail, "fw.bin"));
}

static const struct hwc_mlx_fwreset_opt *opt_of(const struct hwc_mlx_fwreset_list *l, int64_t n)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].num == n)
			return &l->items[i];
	static const struct hwc_mlx_fwreset_opt none = {-1, NULL, false, false};
	return &none;
}

static void test_fwreset(void)
{
	struct hwc_mlx_fwreset r;
	size_t len;
	char *b = slurp("bf3_mlxfwreset-q_levels-0-3-4_sync-driver-only_lsalab-notes.txt", &len);
	CHECK_INT(hwc_mlx_parse_fwreset_query(b, len, A, &r), 0);
	CHECK_INT(r.levels.n, 4);
	CHECK_INT(r.types.n, 5);
	CHECK_INT(r.sync.n, 2);
	CHECK(opt_of(&r.levels, 0)->supported && opt_of(&r.levels, 0)->is_default);
	CHECK(!opt_of(&r.levels, 1)->supported);
	CHECK(opt_of(&r.levels, 3)->supported && !opt_of(&r.levels, 3)->is_default);
	CHECK_STR(opt_of(&r.levels, 3)->description, "Driver restart and PCI reset");
	CHECK(opt_of(&r.levels, 4)->supported);
	CHECK_STR(opt_of(&r.types, 1)->description, "Phy-less reset (keep network port active during reset)");
	CHECK(!opt_of(&r.types, 1)->supported);
	CHECK(!opt_of(&r.sync, 0)->supported);
	CHECK(opt_of(&r.sync, 1)->supported && opt_of(&r.sync, 1)->is_default);
	/* the MROQ layout (mstflint >= 4.28): a preamble, "Reset sync" without a dash, a method
	 * table that is not a sync, "(Reason: ...)" after the marker; format strings of
	 * cmd_reg_mroq.py print_query_text and cmd_reg_mfrl.py query_text */
	const char *mroq =
		"The following query is relevant only for reset-type 0:\n\n"
		"Reset-levels:\n"
		"0: Driver, PCI link, network link will remain up (\"live-Patch\")  -Not Supported (Reason: x)\n"
		"3: Driver restart and PCI reset                                  -Supported     (default)\n"
		"4: Warm Reboot                                                   -Not Supported\n\n"
		"Reset sync (relevant only for reset-level 3):\n"
		"0: Tool is the owner                                             -Supported     (default)\n"
		"1: Driver is the owner                                           -Not Supported \n\n"
		"Reset request method (relevant only for reset-level 3):\n"
		"0: Link Disable                                                  -Supported     (default)\n"
		"1: Hot reset (SBR)                                               -Supported     \n";
	CHECK_INT(hwc_mlx_parse_fwreset_query(mroq, strlen(mroq), A, &r), 0);
	CHECK_INT(r.levels.n, 3);
	CHECK(!opt_of(&r.levels, 0)->supported);
	CHECK(opt_of(&r.levels, 3)->is_default);
	CHECK(!opt_of(&r.levels, 4)->supported);
	CHECK_INT(r.sync.n, 2);
	CHECK(opt_of(&r.sync, 0)->supported && !opt_of(&r.sync, 1)->supported);
	/* broken input: errors, no table, rows without a marker, a number out of range */
	const char *err = "-E- Failed to open device: \"0000:3b:00.0\", No such file or directory\n";
	CHECK_INT(hwc_mlx_parse_fwreset_query(err, strlen(err), A, &r), -EINVAL);
	CHECK(r.m.st != HWC_ST_OK && strstr(r.m.detail, "Failed to open device"));
	const char *junk = "Reset-levels:\n3 Driver restart\n999: x -Supported\n: -Supported\n"
			   "4: Warm Reboot -Maybe\n";
	CHECK_INT(hwc_mlx_parse_fwreset_query(junk, strlen(junk), A, &r), -EINVAL);
	CHECK_INT(r.m.st, HWC_ST_INVALID);
	CHECK_INT(hwc_mlx_parse_fwreset_query("", 0, A, &r), -EINVAL);
	/* a row before any header belongs to no table */
	const char *orphan = "3: Driver restart and PCI reset -Supported\n";
	CHECK_INT(hwc_mlx_parse_fwreset_query(orphan, strlen(orphan), A, &r), -EINVAL);
}

/* What a reset to defaults would undo: current or next boot not the default. */
static void test_at_risk(void)
{
	struct hwc_mlx_cfg c;
	cfg_file("cx5-mcx515a-cca_mlxconfig-e-q_advanced-pci-settings-true_hpe-slingshot-doc_ABRIDGED.txt", &c, 0);
	CHECK(c.has_default_current);
	CHECK(!c.complete); /* the publisher's "..." lines */
	size_t n = 0;
	const char *name = NULL;
	for (size_t i = 0; i < c.params.n; i++)
		if (hwc_mlx_cfg_at_risk(&c.params.items[i])) {
			n++;
			name = c.params.items[i].name;
		}
	CHECK_INT(n, 1);
	CHECK_STR(name, "ADVANCED_PCI_SETTINGS");
	CHECK(hwc_mlx_cfg_depends("ADVANCED_PCI_SETTINGS") != NULL);
	CHECK(hwc_mlx_cfg_depends("PCI_WR_ORDERING") && strstr(hwc_mlx_cfg_depends("PCI_WR_ORDERING"), "MLX_WR_ORDERING"));
	CHECK(hwc_mlx_cfg_depends("LINK_TYPE_P2") != NULL);
	CHECK(hwc_mlx_cfg_depends("ROCE_CC_PRIO_MASK_P1") != NULL);
	CHECK(hwc_mlx_cfg_depends("SAFE_MODE_ENABLE") == NULL);
	/* configured, not yet active: next boot differs from the default, current does not */
	cfg_file("cx7_mstconfig-q-grep-NUM_OF_VFS_16-16-8_cold-boot-needed_dgx-notes_FRAGMENT.txt", &c, 0);
	const struct hwc_mlx_cfgparam *p = P(&c, "NUM_OF_VFS");
	CHECK_NUM(p->current, 16);
	CHECK_NUM(p->next_boot, 8);
	CHECK(p->pending.v);
	CHECK(hwc_mlx_cfg_at_risk(p));
	/* without a Default column nothing can be at risk */
	cfg_file("cx4lx_mstconfig-q_nextboot-only_linux-rdma-2019.txt", &c, 0);
	for (size_t i = 0; i < c.params.n; i++)
		CHECK(!hwc_mlx_cfg_at_risk(&c.params.items[i]));
}

static void test_mstreg(void)
{
	struct hwc_mlx_reg r;
	size_t len;
	char *b = slurp("switchib-sb7790_mlxreg-MTMP-get_bad-parameter-and-table_ibswinfo-issue6_"
			"FRAGMENT.txt",
			&len);
	CHECK_INT(hwc_mlx_parse_mstreg(b, len, A, &r), 0);
	uint64_t v = 99;
	CHECK_INT(hwc_mlx_reg_get(&r, "sensor_index", &v), 0);
	CHECK_INT(v, 0x40);
	CHECK_INT(hwc_mlx_reg_get(&r, "temperature", &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(hwc_mlx_reg_get(&r, "sensor_name_lo", &v), 0);
	CHECK_INT(hwc_mlx_reg_get(&r, "nonexistent", &v), -ENOENT);
	const char *bad = "Sending access register...\n\n-E- Failed to send access register: Bad "
			  "parameter\n";
	CHECK_INT(hwc_mlx_parse_mstreg(bad, strlen(bad), A, &r), -EINVAL);
	CHECK_INT(r.m.st, HWC_ST_UNSUPPORTED);
	/* --detailed layout of mstflint HEAD: the first 0x token */
	const char *det = "Field Name | Hex Value | Decimal | Enum/Type\n"
			  "temperature | 0x00000170 | 368 | \n";
	CHECK_INT(hwc_mlx_parse_mstreg(det, strlen(det), A, &r), 0);
	CHECK_INT(hwc_mlx_reg_get(&r, "temperature", &v), 0);
	CHECK_INT(hwc_mlx_mtmp_to_mdegc(v), 46000);
	CHECK_INT(hwc_mlx_mtmp_to_mdegc(0xfff8), -1000);
}

static void test_small(void)
{
	struct hwc_fi64 t;
	size_t len;
	char *b = slurp("cx6dx_mget_temp_88C_notes-cn.txt", &len);
	char *nl = strchr(b, '\n');
	CHECK_INT(hwc_mlx_parse_mget_temp(nl + 1, strlen(nl + 1), A, &t), 0);
	CHECK_INT(t.v, 88000);
	CHECK_INT(hwc_mlx_parse_mget_temp(b, len, A, &t), -EINVAL); /* the prompt line first */
	const char *none = "-I- No valid temperature were measured. please check device "
			   "configuration.\n";
	CHECK_INT(hwc_mlx_parse_mget_temp(none, strlen(none), A, &t), -EINVAL);
	CHECK_INT(t.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(hwc_mlx_parse_mget_temp("-10000\n", 7, A, &t), -EINVAL);
	CHECK_INT(t.m.st, HWC_ST_INVALID);

	struct hwc_fstr s;
	const char *ver = "mstconfig, mstflint 4.21.0, Git SHA Hash: N/A\n";
	CHECK_INT(hwc_mlx_parse_tool_version(ver, strlen(ver), A, &s), 0);
	CHECK_STR(s.v, "4.21.0");
	CHECK_INT(hwc_mlx_parse_tool_version("hello", 5, A, &s), -EINVAL);

	double g = 0;
	const char *w, *sp;
	CHECK_INT(hwc_mlx_parse_rate("200 Gb/sec (4X HDR)", &g, &w, &sp, A), 0);
	CHECK(g == 200.0);
	CHECK_STR(w, "4X");
	CHECK_STR(sp, "HDR");
	CHECK_INT(hwc_mlx_parse_rate("2.5 Gb/sec (1X SDR)", &g, &w, &sp, A), 0);
	CHECK(g == 2.5);
	CHECK_INT(hwc_mlx_parse_rate("400 Gb/sec (4X NDR)", &g, &w, &sp, A), 0);
	CHECK_STR(sp, "NDR");
	CHECK_INT(hwc_mlx_parse_rate("10 Gb/sec (4X)", &g, &w, &sp, A), 0);
	CHECK(sp == NULL);
	CHECK_INT(hwc_mlx_parse_rate("fast", &g, &w, &sp, A), -EINVAL);
	CHECK_STR(hwc_mlx_state_name("4: ACTIVE", A), "ACTIVE");
	CHECK_STR(hwc_mlx_state_name("5: LinkUp", A), "LinkUp");

	const char *mode = NULL;
	CHECK_INT(hwc_mlx_parse_lockdown("none [integrity] confidentiality", A, &mode), 0);
	CHECK_STR(mode, "integrity");
	CHECK_INT(hwc_mlx_parse_lockdown("[none] integrity confidentiality", A, &mode), 0);
	CHECK_STR(mode, "none");
	CHECK_INT(hwc_mlx_parse_lockdown("garbage", A, &mode), -EINVAL);

	struct hwc_fstr fw, psid;
	b = slurp("cx5ex-vf_ethtool-i_fw16.27.2008_xdp-newbies-2020.txt", &len);
	CHECK_INT(hwc_mlx_parse_ethtool_fw(b, len, A, &fw, &psid), 0);
	CHECK_STR(fw.v, "16.27.2008");
	CHECK_STR(psid.v, "MT_0000000013");
}

static void test_ident(void)
{
	const struct hwc_mlx_ident *id = hwc_mlx_ident_find(0x1015);
	CHECK(id && strcmp(id->product, "ConnectX-4 Lx") == 0 && id->pcie_gts == 8 &&
	      id->pcie_width == 8 && !id->vf);
	id = hwc_mlx_ident_find(0x101b);
	CHECK(id && strcmp(id->generation, "ConnectX-6") == 0 && id->port_gbps == 200);
	id = hwc_mlx_ident_find(0x1021);
	CHECK(id && id->pcie_gts == 32 && id->port_gbps == 400);
	id = hwc_mlx_ident_find(0x1023);
	CHECK(id && strcmp(id->product, "ConnectX-8") == 0 && id->pcie_gts == 64);
	id = hwc_mlx_ident_find(0xa2dc);
	CHECK(id && strcmp(id->generation, "BlueField-3") == 0);
	id = hwc_mlx_ident_find(0x101c);
	CHECK(id && id->vf);
	/* ConnectX and ConnectX-2 share the mlx4 "Hermon" ids: the PCI revision names the card
	 * (0xb0 ConnectX-2, 0xa0 ConnectX), else both names; the figures are the id's */
	id = hwc_mlx_ident_find(0x673c);
	CHECK(id && (id->flags & HWC_MLX_ID_BY_REVISION) && id->pcie_gts == 5 && id->pcie_width == 8 && id->port_gbps == 40);
	const char *prod = NULL, *gen = NULL;
	if (id) {
		hwc_mlx_ident_name(id, 0xb0, A, &prod, &gen);
		CHECK_STR(prod, "ConnectX-2");
		CHECK_STR(gen, "ConnectX-2");
		hwc_mlx_ident_name(id, 0xa0, A, &prod, &gen);
		CHECK_STR(prod, "ConnectX");
		CHECK_STR(gen, "ConnectX");
		hwc_mlx_ident_name(id, -1, A, &prod, &gen);
		CHECK_STR(prod, "ConnectX or ConnectX-2");
		CHECK_STR(gen, "ConnectX or ConnectX-2");
	}
	id = hwc_mlx_ident_find(0x6750);
	CHECK(id && id->pcie_gts == 5 && id->port_gbps == 10);
	if (id) {
		hwc_mlx_ident_name(id, 0xb0, A, &prod, &gen);
		CHECK_STR(prod, "ConnectX-2 EN");
		CHECK_STR(gen, "ConnectX-2");
	}
	id = hwc_mlx_ident_find(0x1002);
	CHECK(id && id->vf && !(id->flags & HWC_MLX_ID_BY_REVISION) && strcmp(id->product, "ConnectX-2 VF") == 0);
	id = hwc_mlx_ident_find(0x1017); /* every other id: the table's name, whatever the revision */
	CHECK(id != NULL);
	if (id) {
		hwc_mlx_ident_name(id, 0xb0, A, &prod, &gen);
		CHECK_STR(prod, "ConnectX-5");
	}
	/* mstlink refuses ConnectX-3 and older, the ConnectX-2 VF included */
	CHECK(hwc_pci_mlx_before_connectib("1002"));
	CHECK(hwc_pci_mlx_before_connectib("6750") && hwc_pci_mlx_before_connectib("1007"));
	CHECK(!hwc_pci_mlx_before_connectib("1011") && !hwc_pci_mlx_before_connectib("a2d6"));
	/* the driver column: the kernel's mlx4 and mlx5 PCI id tables; its RDMA driver */
	static const struct {
		uint16_t id;
		const char *drv;
	} drivers[] = {{0x6750, "mlx4_core"}, {0x673c, "mlx4_core"}, {0x1002, "mlx4_core"},
		       {0x1003, "mlx4_core"}, {0x1007, "mlx4_core"}, {0x1011, "mlx5_core"},
		       {0x1013, "mlx5_core"}, {0x101e, "mlx5_core"}, {0x1023, "mlx5_core"},
		       {0xa2d6, "mlx5_core"}, {0xa2dc, "mlx5_core"}, {0xa2d5, NULL}, {0xc2d3, NULL}};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(drivers); i++) {
		id = hwc_mlx_ident_find(drivers[i].id);
		CHECK(id && ((!id->driver && !drivers[i].drv) ||
			     (id->driver && drivers[i].drv && !strcmp(id->driver, drivers[i].drv))));
	}
	CHECK_STR(hwc_pci_mlx_rdma_driver("mlx4_core"), "mlx4_ib");
	CHECK_STR(hwc_pci_mlx_rdma_driver("mlx5_core"), "mlx5_ib");
	CHECK(hwc_pci_mlx_rdma_driver("vfio-pci") == NULL);
	CHECK(hwc_pci_mlx_rdma_driver(NULL) == NULL);
	size_t n;
	const struct hwc_mlx_ident *t = hwc_mlx_ident_table(&n);
	int dups = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			dups += t[i].device_id == t[j].device_id;
	CHECK_INT(dups, 0);
}

/* issue 20: two rows of one parameter. Identical rows are one; rows that disagree leave the
 * value unknown with both values named, never the first one silently. Layout of the ConnectX-6
 * Lx 3-column capture in data/ (RECONSTRUCTED: the second PCI_WR_ORDERING row is added). */
static void test_contradicting_rows(void)
{
	const char *s = "Configurations:                              Default         Current         Next Boot\n"
			"         PCI_WR_ORDERING                     per_mkey(0)     per_mkey(0)     per_mkey(0)\n"
			"         SRIOV_EN                            False(0)        True(1)         True(1)\n"
			"         PCI_WR_ORDERING                     per_mkey(0)     per_mkey(0)     force_relax(1)\n"
			"         SRIOV_EN                            False(0)        True(1)         True(1)\n";
	struct hwc_mlx_cfg c;
	CHECK_INT(hwc_mlx_parse_mstconfig(s, strlen(s), A, &c), 0);
	const struct hwc_mlx_cfgparam *p = P(&c, "PCI_WR_ORDERING");
	CHECK_ENUM(p->current, "per_mkey", 0); /* both rows agree there */
	CHECK_INT(p->next_boot.m.st, HWC_ST_INVALID);
	CHECK_STR(p->next_boot.m.detail, "mstconfig printed PCI_WR_ORDERING twice with different "
					 "Next Boot values, per_mkey(0) and force_relax(1): which one "
					 "holds is unknown");
	CHECK(p->pending.m.st != HWC_ST_OK); /* nor is whether a change is pending */
	CHECK_ENUM(P(&c, "SRIOV_EN")->next_boot, "True", 1); /* identical rows: one */
	size_t count = 0;
	for (size_t i = 0; i < c.params.n; i++)
		count += strcmp(c.params.items[i].name, "SRIOV_EN") == 0;
	CHECK_INT(count, 1);
}

/* Bytes that are not ASCII in a value (a corrupt capture; found by fuzz_mstconfig): invalid, not
 * a name that the JSON would change and fw_at_risk then judge differently after a round trip. */
static void test_non_ascii_value(void)
{
	const char *s = "Configurations:                              Default         Current         Next Boot\n"
			"         LINK_TYPE_P1                        \xd8              \xad              VPI(3)\n";
	struct hwc_mlx_cfg c;
	CHECK_INT(hwc_mlx_parse_mstconfig(s, strlen(s), A, &c), 0);
	const struct hwc_mlx_cfgparam *p = P(&c, "LINK_TYPE_P1");
	CHECK_INT(p->dflt.m.st, HWC_ST_INVALID);
	CHECK_STR(p->dflt.m.detail, "not ASCII text");
	CHECK_INT(p->current.m.st, HWC_ST_INVALID);
	CHECK_ENUM(p->next_boot, "VPI", 3);
	CHECK(!hwc_mlx_cfg_at_risk(p)); /* what differs from the default is unknown */
}

int main(void)
{
	A = hwc_arena_new();
	test_cx4lx_nextboot_only();
	test_cx4lx_newer_layout();
	test_cx5ex_mail_mangled();
	test_cx6lx_3col_fragment();
	test_cx7_fragment();
	test_cx3pro();
	test_errors();
	test_dialogs();
	test_version_layouts();
	test_flint();
	test_flint_image();
	test_fwreset();
	test_at_risk();
	test_mstreg();
	test_small();
	test_ident();
	test_contradicting_rows();
	test_non_ascii_value();
	hwc_arena_free(A);
	TEST_MAIN_END();
}
