/* SPDX-License-Identifier: MIT */
/* Tests only (LD_PRELOAD): lets the system's ethtool decode module EEPROM bytes of our choosing,
 * without root and without a module, so that ethtool is the oracle of hwinfo/module_eeprom.c for
 * CMIS too. ethtool >= 5.13 asks netlink for -m first; when netlink cannot be initialised it runs
 * the ioctl handler (netlink/netlink.c, netlink_run_handler: "netlink interface initialization
 * failed" -> ioctl fallback; ethtool.c do_getmodule: ETHTOOL_GMODULEINFO, then
 * ETHTOOL_GMODULEEEPROM, then sff8079/sff8472/sff8636 decoders, the last handing QSFP-DD, OSFP
 * and DSFP identifiers to cmis_show_all_ioctl). So this library
 *   - refuses AF_NETLINK sockets (EAFNOSUPPORT), and
 *   - answers SIOCETHTOOL's ETHTOOL_GMODULEINFO / ETHTOOL_GMODULEEEPROM from the file named by
 *     HWC_ORACLE_EEPROM (the linear dump: 256 or 512 bytes for SFP, 256 or 640 for QSFP, and for
 *     CMIS lower page, page 00h, page 01h... as ethtool's ioctl decoder reads them). Every other
 *     ethtool ioctl fails with EOPNOTSUPP; every other call goes to libc.
 * Built without sanitizers (it is loaded into an uninstrumented ethtool). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define EEPROM_MAX 640

static uint8_t eeprom[EEPROM_MAX];
static size_t eeprom_len;
static int loaded; /* 0 not yet, 1 ok, -1 failed */

static int load(void)
{
	if (loaded)
		return loaded;
	loaded = -1;
	const char *p = getenv("HWC_ORACLE_EEPROM");
	FILE *f = p ? fopen(p, "rb") : NULL;
	if (!f)
		return loaded;
	eeprom_len = fread(eeprom, 1, sizeof(eeprom), f);
	fclose(f);
	if (eeprom_len >= 128)
		loaded = 1;
	return loaded;
}

/* The type a driver reports for these bytes, by SFF-8024 identifier (byte 0). */
static uint32_t module_type(void)
{
	switch (eeprom[0]) {
	case 0x03: /* SFP */
		return eeprom_len >= ETH_MODULE_SFF_8472_LEN ? ETH_MODULE_SFF_8472 : ETH_MODULE_SFF_8079;
	case 0x0c: /* QSFP */
	case 0x0d: /* QSFP+ */
		return ETH_MODULE_SFF_8436;
	default:   /* QSFP28 (0x11); CMIS 0x18 QSFP-DD, 0x19 OSFP, 0x1b DSFP go the same way */
		return ETH_MODULE_SFF_8636;
	}
}

static int answer(void *data)
{
	uint32_t cmd;
	memcpy(&cmd, data, sizeof(cmd));
	if (load() < 0) {
		errno = ENODEV;
		return -1;
	}
	if (cmd == ETHTOOL_GMODULEINFO) {
		struct ethtool_modinfo *mi = data;
		mi->type = module_type();
		mi->eeprom_len = (uint32_t)eeprom_len;
		return 0;
	}
	if (cmd == ETHTOOL_GMODULEEEPROM) {
		struct ethtool_eeprom *ee = data;
		if (ee->offset > eeprom_len || ee->len > eeprom_len - ee->offset) {
			errno = EINVAL;
			return -1;
		}
		memcpy(ee->data, eeprom + ee->offset, ee->len);
		return 0;
	}
	errno = EOPNOTSUPP;
	return -1;
}

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);
	if (domain == AF_NETLINK) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	return real ? real(domain, type, protocol) : (errno = ENOSYS, -1);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (req == SIOCETHTOOL)
		return answer(((struct ifreq *)arg)->ifr_data);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real ? real(fd, req, arg) : (errno = ENOSYS, -1);
}
