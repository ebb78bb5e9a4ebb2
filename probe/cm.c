/* SPDX-License-Identifier: MIT */
/* Two hosts: a server and a client connected with librdmacm, for the cable and switch between. */
#include <errno.h>

#include "probe/probe_int.h"

int pr_cm_client(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		 struct hwc_probe_facts *pf)
{
	(void)e; (void)o; (void)f; (void)pf;
	return -ENOSYS;
}

int pr_cm_server(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		 struct hwc_probe_facts *pf)
{
	(void)e; (void)o; (void)f; (void)pf;
	return -ENOSYS;
}
