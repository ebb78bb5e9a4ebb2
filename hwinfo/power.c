/* SPDX-License-Identifier: MIT */
/* CPU power management: cpufreq driver/governor/EPP/boost, cpuidle states, PCIe ASPM policy. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <string.h>

#include "core/scan.h"

#define CPU "sys/devices/system/cpu"

/* The first policyN directory (by number), or NULL with *m saying why. */
static const char *first_policy(struct hwc_env *e, struct hwc_arena *a, struct hwc_fmeta *m)
{
	struct hwc_dirlist dl;
	int rc = hwc_env_list_dir(e, CPU "/cpufreq", a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, m, a, CPU "/cpufreq", -rc);
		return NULL;
	}
	const char *best = NULL;
	int64_t best_n = 0;
	for (size_t i = 0; i < dl.n; i++) {
		int64_t n;
		if (strncmp(dl.names[i], "policy", 6) || hwc_parse_i64(dl.names[i] + 6, 10, &n) < 0)
			continue;
		if (!best || n < best_n) {
			best = dl.names[i];
			best_n = n;
		}
	}
	if (!best)
		hwc_fmeta_set(m, HWC_ST_ABSENT, 0,
			      CPU "/cpufreq has no policy: no cpufreq driver (a VM, or frequency "
				  "left to the firmware)");
	return best ? hwc_arena_printf(a, CPU "/cpufreq/%s", best) : NULL;
}

/* "[default] performance powersave": the bracketed word. */
void hwc_host_read_bracketed(struct hwc_env *e, struct hwc_arena *a, const char *path,
			      struct hwc_fstr *out)
{
	if (hwc_read_str(e, path, a, out) < 0)
		return;
	const char *w;
	size_t n;
	if (hwc_bracketed(out->v, strlen(out->v), &w, &n) < 0) {
		HWC_FAIL(*out, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "%s: no [selected] word in \"%s\"", path, out->v));
		return;
	}
	HWC_SET(*out, hwc_arena_strndup(a, w, n));
}

static int state_index(const char *name)
{
	int64_t n;
	if (strncmp(name, "state", 5) || hwc_parse_i64(name + 5, 10, &n) < 0 || n < 0 || n > 1000)
		return -1;
	return (int)n;
}

static void cstates(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_power *p)
{
	struct hwc_dirlist dl;
	int rc = hwc_env_list_dir(e, CPU "/cpu0/cpuidle", a, &dl);
	if (rc < 0) {
		hwc_env_fail(e, &p->cstates_m, a, CPU "/cpu0/cpuidle", -rc);
		if (p->cstates_m.st == HWC_ST_ABSENT)
			p->cstates_m.detail = CPU "/cpu0/cpuidle: absent (no cpuidle driver: a VM, or "
						  "idle=poll)";
		return;
	}
	hwc_fmeta_set(&p->cstates_m, HWC_ST_OK, 0, NULL);
	/* state0..stateN in numeric order ("state10" sorts before "state2") */
	int max = -1;
	for (size_t i = 0; i < dl.n; i++)
		if (state_index(dl.names[i]) > max)
			max = state_index(dl.names[i]);
	for (int s = 0; s <= max; s++) {
		const char *base = hwc_arena_printf(a, CPU "/cpu0/cpuidle/state%d", s);
		if (!base || !hwc_env_is_dir(e, base))
			continue;
		struct hwc_host_cstate *c = HWC_VEC_PUSH(a, &p->cstates);
		if (!c)
			return;
		struct hwc_fi64 dis = {0};
		hwc_read_str(e, hwc_arena_printf(a, "%s/name", base), a, &c->name);
		hwc_read_i64(e, hwc_arena_printf(a, "%s/latency", base), a, &c->latency_us);
		if (hwc_read_i64(e, hwc_arena_printf(a, "%s/disable", base), a, &dis) == 0)
			HWC_SET(c->disabled, dis.v != 0);
		else
			c->disabled.m = dis.m;
	}
}

void hwc_host_collect_power(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h)
{
	struct hwc_host_power *p = &h->power;
	struct hwc_fmeta m = {0};
	const char *pol = first_policy(e, a, &m);
	if (pol) {
		hwc_read_str(e, hwc_arena_printf(a, "%s/scaling_driver", pol), a, &p->cpufreq_driver);
		hwc_read_str(e, hwc_arena_printf(a, "%s/scaling_governor", pol), a, &p->governor);
		hwc_read_str(e, hwc_arena_printf(a, "%s/energy_performance_preference", pol), a,
			     &p->energy_perf_preference);
	} else {
		p->cpufreq_driver.m = p->governor.m = p->energy_perf_preference.m = m;
	}
	if (hwc_read_str(e, CPU "/intel_pstate/status", a, &p->pstate_status) < 0 &&
	    p->pstate_status.m.st == HWC_ST_ABSENT &&
	    hwc_read_str(e, CPU "/amd_pstate/status", a, &p->pstate_status) < 0 &&
	    p->pstate_status.m.st == HWC_ST_ABSENT)
		p->pstate_status.m.detail = "neither intel_pstate/status nor amd_pstate/status exists";
	/* boost: the generic switch (acpi-cpufreq, amd-pstate), else intel_pstate's inverse one */
	struct hwc_fi64 b = {0};
	if (hwc_read_i64(e, CPU "/cpufreq/boost", a, &b) == 0) {
		HWC_SET(p->boost, b.v != 0);
	} else if (hwc_read_i64(e, CPU "/intel_pstate/no_turbo", a, &b) == 0) {
		HWC_SET(p->boost, b.v == 0);
	} else {
		HWC_FAIL(p->boost, b.m.st, b.m.err,
			 b.m.st == HWC_ST_ABSENT ? "neither cpufreq/boost nor intel_pstate/no_turbo exists"
						 : b.m.detail);
	}
	hwc_read_str(e, CPU "/cpuidle/current_driver", a, &p->cpuidle_driver);
	if (hwc_read_str(e, CPU "/cpuidle/current_governor", a, &p->cpuidle_governor) < 0)
		hwc_read_str(e, CPU "/cpuidle/current_governor_ro", a, &p->cpuidle_governor);
	cstates(e, a, p);
	hwc_host_read_bracketed(e, a, "sys/module/pcie_aspm/parameters/policy", &p->aspm_policy);
}
