/* SPDX-License-Identifier: MIT */
/* Host facts (a first cut: kernel and CPU model; issue 5 grows it). */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"

static void cpu_model(struct hwc_env *e, struct hwc_arena *a, struct hwc_fstr *out)
{
	const unsigned char *d;
	size_t len;
	if (hwc_read_bytes(e, "proc/cpuinfo", 4u << 20, a, &d, &len, &out->m) < 0 &&
	    out->m.st != HWC_ST_TRUNCATED)
		return;
	const char *p = strstr((const char *)d, "model name");
	if (!p) {
		HWC_FAIL(*out, HWC_ST_ABSENT, 0, "/proc/cpuinfo: no \"model name\" line");
		return;
	}
	p = strchr(p, ':');
	const char *end = p ? strchr(p, '\n') : NULL;
	if (!p || !end) {
		HWC_FAIL(*out, HWC_ST_INVALID, 0, "/proc/cpuinfo: malformed \"model name\" line");
		return;
	}
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	HWC_SET(*out, hwc_arena_strndup(a, p, (size_t)(end - p)));
}

int hwc_host_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	struct hwc_host_facts *h = hwc_arena_zalloc(f->arena, sizeof(*h));
	if (!h)
		return -ENOMEM;
	hwc_read_str(e, "proc/sys/kernel/osrelease", f->arena, &h->kernel.release);
	hwc_read_str(e, "proc/cmdline", f->arena, &h->kernel.cmdline);
	cpu_model(e, f->arena, &h->cpu_model);
	f->host = h;
	return 0;
}

json_t *hwc_host_to_json(const struct hwc_facts *f)
{
	const struct hwc_host_facts *h = f->host;
	if (!h)
		return NULL;
	json_t *j = json_object(), *k = json_object(), *c = json_object();
	hwc_json_put_str(k, "release", &h->kernel.release);
	hwc_json_put_str(k, "cmdline", &h->kernel.cmdline);
	hwc_json_put_str(c, "model", &h->cpu_model);
	json_object_set_new(j, "cpu", c);
	json_object_set_new(j, "kernel", k);
	return j;
}

int hwc_host_from_json(const json_t *j, struct hwc_facts *f)
{
	struct hwc_host_facts *h = hwc_arena_zalloc(f->arena, sizeof(*h));
	if (!h)
		return -ENOMEM;
	const json_t *k = json_object_get(j, "kernel"), *c = json_object_get(j, "cpu");
	int rc = 0;
	rc |= hwc_json_get_str(k, "release", f->arena, &h->kernel.release);
	rc |= hwc_json_get_str(k, "cmdline", f->arena, &h->kernel.cmdline);
	rc |= hwc_json_get_str(c, "model", f->arena, &h->cpu_model);
	f->host = h;
	return rc ? -EINVAL : 0;
}
