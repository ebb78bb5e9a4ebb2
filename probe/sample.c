/* SPDX-License-Identifier: MIT */
/* What the probe watches around a run: the card's temperature, every PCIe hop's link state under
 * load, counter deltas; and the NUMA binding of the polling thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runner.h"
#include "core/scan.h"
#include "probe/probe_int.h"
#include "core/util.h"

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The last path component of p that is a BDF (the PCI function a device hangs off), or NULL. */
static const char *pci_ancestor(struct hwc_arena *a, const char *p)
{
	char *c = hwc_arena_strdup(a, p);
	while (c && *c) {
		if (hwc_bdf_parse(base(c), 0, NULL))
			return base(c);
		char *sl = strrchr(c, '/');
		if (!sl)
			break;
		*sl = 0;
	}
	return NULL;
}

/* The PCI function behind t->netdev when t has none yet, and the NUMA node of either. A
 * software device (rxe, siw) has no PCI function of its own, and a virtio-net netdev's device is
 * .../BDF/virtio0: the nearest BDF above it is the function whose PCIe path bounds the traffic. */
static void netdev_pci(struct hwc_env *e, struct hwc_arena *a, struct pr_target *t)
{
	const char *rp;
	if (!t->bdf && t->netdev &&
	    hwc_env_realpath(e, hwc_arena_printf(a, "sys/class/net/%s/device", t->netdev), a,
			     &rp) == 0)
		t->bdf = pci_ancestor(a, rp);
	struct hwc_fi64 numa = {0};
	if (t->bdf)
		hwc_read_i64(e, hwc_arena_printf(a, "sys/bus/pci/devices/%s/numa_node", t->bdf), a,
			     &numa);
	else if (t->netdev)
		hwc_read_i64(e, hwc_arena_printf(a, "sys/class/net/%s/device/numa_node", t->netdev),
			     a, &numa);
	if (hwc_ok(numa) && numa.v >= 0 && numa.v < 4096)
		t->numa_node = (int)numa.v;
}

static void target_init(struct hwc_env *e, struct hwc_arena *a, const char *dev, unsigned port,
		    struct pr_target *t)
{
	memset(t, 0, sizeof(*t));
	t->dev = hwc_arena_strdup(a, dev);
	t->port = port;
	t->numa_node = -1;
	const char *rp;
	if (hwc_env_realpath(e, hwc_arena_printf(a, "sys/class/infiniband/%s/device", dev), a,
			     &rp) == 0 &&
	    hwc_bdf_parse(base(rp), 0, NULL))
		t->bdf = hwc_arena_strdup(a, base(rp));
	struct hwc_fstr nd = {0};
	if (hwc_read_str(e, hwc_arena_printf(a, "sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
					     dev, port), a, &nd) == 0 && nd.v[0])
		t->netdev = nd.v;
	netdev_pci(e, a, t);
}

static void target_netdev(struct hwc_env *e, struct hwc_arena *a, const char *netdev,
			  struct pr_target *t)
{
	memset(t, 0, sizeof(*t));
	t->dev = hwc_arena_strdup(a, netdev);
	t->netdev = t->dev;
	t->port = 1;
	t->numa_node = -1;
	netdev_pci(e, a, t);
}

struct cpus {
	cpu_set_t *set;
	int n;
};

static int set_cpus(void *ctx, unsigned lo, unsigned hi)
{
	struct cpus *c = ctx;
	for (unsigned cpu = lo; cpu <= hi && cpu < CPU_SETSIZE; cpu++, c->n++)
		CPU_SET((int)cpu, c->set);
	return 0;
}

/* "0-3,8-11" -> set; -EINVAL on anything else, or on no CPU the set can hold. */
static int parse_cpulist(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	struct cpus c = {set, 0};
	int rc = hwc_cpulist_walk(s, set_cpus, &c);
	return rc < 0 ? rc : c.n ? 0 : -EINVAL;
}

static void bind_node(struct hwc_env *e, struct hwc_arena *a, int node, struct pr_binding *b,
	     struct hwc_probe_result *r)
{
	b->bound = false;
	if (node < 0) {
		HWC_FAIL(r->numa_node, HWC_ST_ABSENT, 0,
			 "the device reports no NUMA node (soft-RoCE, or firmware gave none)");
		HWC_FAIL(r->cpus, HWC_ST_ABSENT, 0, "not bound: no NUMA node");
		return;
	}
	HWC_SET(r->numa_node, node);
	const char *path = hwc_arena_printf(a, "sys/devices/system/node/node%d/cpulist", node);
	struct hwc_fstr cl = {0};
	cpu_set_t set;
	if (hwc_read_str(e, path, a, &cl) < 0 || parse_cpulist(cl.v, &set) < 0) {
		HWC_FAIL(r->cpus, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "%s: no CPU list; the thread was not bound", path));
		return;
	}
	if (sched_getaffinity(0, sizeof(b->old), &b->old) < 0 ||
	    sched_setaffinity(0, sizeof(set), &set) < 0) {
		HWC_FAIL(r->cpus, HWC_ST_UNREADABLE, errno,
			 hwc_arena_printf(a, "sched_setaffinity to %s failed", cl.v));
		return;
	}
	b->bound = true;
	HWC_SET(r->cpus, cl.v);
}

void pr_unbind(struct pr_binding *b)
{
	if (b->bound)
		sched_setaffinity(0, sizeof(b->old), &b->old);
	b->bound = false;
}

/* ---- sampler ------------------------------------------------------------------------------- */

struct counter_src {
	const char *name;
	const char *path; /* sysfs file; NULL for an ethtool -S counter */
	const char *key;  /* line key in an aer_dev_* file or ethtool -S output */
	bool have0;
	int64_t v0;
};

struct hop_state {
	const char *bdf;
	double smin, smax, maxs, sidle;
	int64_t wmin, wmax, maxw, widle;
	bool seen, have_max, down, have_idle;
};

struct pr_sampler {
	struct hwc_env *e;
	struct hwc_arena *a;
	const struct pr_target *t;
	const char *temp_path;
	bool temp_seen;
	int64_t temp0, tmax;
	struct hop_state *hops;
	size_t nhops;
	HWC_VEC(struct counter_src) c;
	const char *ethtool0; /* ethtool -S output at the start */
};

static void add_counter(struct pr_sampler *s, const char *name, const char *path, const char *key)
{
	struct counter_src *c = HWC_VEC_PUSH(s->a, &s->c);
	if (!c)
		return;
	c->name = name;
	c->path = path;
	c->key = key;
}

/* The value after "key" (ws or ':' separated) on a line of a keyed text. */
static int keyed_value(const char *text, const char *key, int64_t *out)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		while (*l == ' ' || *l == '\t')
			l++;
		if (strncmp(l, key, kl) == 0 && (l[kl] == ' ' || l[kl] == ':' || l[kl] == '\t')) {
			const char *v = l + kl;
			while (*v == ' ' || *v == ':' || *v == '\t')
				v++;
			char buf[32];
			size_t n = strcspn(v, " \t\n");
			if (n == 0 || n >= sizeof(buf))
				return -EINVAL;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return hwc_parse_i64(buf, 10, out);
		}
	}
	return -ENOENT;
}

static const char *ethtool_stats(struct pr_sampler *s)
{
	if (!s->t->netdev || hwc_env_no_tools(s->e))
		return NULL;
	const char *argv[] = {"ethtool", "-S", s->t->netdev, NULL};
	struct hwc_cmd_result res;
	if (hwc_run(s->e, s->a, argv, 3000, &res) < 0)
		return NULL;
	return res.out;
}

static int read_counter(struct pr_sampler *s, const struct counter_src *c, const char *eth,
			int64_t *v)
{
	if (!c->path)
		return eth ? keyed_value(eth, c->key, v) : -ENOENT;
	struct hwc_fstr str = {0};
	if (hwc_read_str(s->e, c->path, s->a, &str) < 0)
		return -ENOENT;
	if (c->key)
		return keyed_value(str.v, c->key, v);
	return hwc_parse_i64(str.v, 10, v);
}

static double speed_of(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	return end == s ? 0 : v;
}

/* A link trains at most to what both its ends can do: a Gen5 root port above a Gen4 card runs
 * Gen4 by design, not trained down. From the card up, the path of a PCIe tree pairs into links
 * (card, port above), (switch upstream port, port above)...: the functions in between are
 * joined by a switch's internal bus. A path that does not pair (odd length) keeps each end's
 * own maximum. */
static void link_maxima(struct hop_state *h, size_t n)
{
	if (n % 2)
		return;
	for (size_t k = 0; k + 1 < n; k += 2) {
		if (!h[k].have_max || !h[k + 1].have_max)
			continue;
		double ms = h[k].maxs < h[k + 1].maxs ? h[k].maxs : h[k + 1].maxs;
		int64_t mw = h[k].maxw < h[k + 1].maxw ? h[k].maxw : h[k + 1].maxw;
		h[k].maxs = h[k + 1].maxs = ms;
		h[k].maxw = h[k + 1].maxw = mw;
	}
}

static void sample_hops(struct pr_sampler *s, bool under_load)
{
	for (size_t i = 0; i < s->nhops; i++) {
		struct hop_state *h = &s->hops[i];
		struct hwc_fstr sp = {0};
		struct hwc_fi64 w = {0};
		hwc_read_str(s->e, hwc_arena_printf(s->a, "sys/bus/pci/devices/%s/current_link_speed",
						    h->bdf), s->a, &sp);
		hwc_read_i64(s->e, hwc_arena_printf(s->a, "sys/bus/pci/devices/%s/current_link_width",
						    h->bdf), s->a, &w);
		double v = hwc_ok(sp) ? speed_of(sp.v) : 0;
		if (v <= 0 || !hwc_ok(w))
			continue;
		if (!under_load) {
			h->sidle = v;
			h->widle = w.v;
			h->have_idle = true;
			continue;
		}
		if (!h->seen) {
			h->smin = h->smax = v;
			h->wmin = h->wmax = w.v;
			h->seen = true;
		}
		h->smin = v < h->smin ? v : h->smin;
		h->smax = v > h->smax ? v : h->smax;
		h->wmin = w.v < h->wmin ? w.v : h->wmin;
		h->wmax = w.v > h->wmax ? w.v : h->wmax;
		if (h->have_max && (v < h->maxs || w.v < h->maxw))
			h->down = true;
	}
}

static void sample_temp(struct pr_sampler *s)
{
	if (!s->temp_path)
		return;
	struct hwc_fi64 t = {0};
	if (hwc_read_i64(s->e, s->temp_path, s->a, &t) < 0)
		return;
	if (!s->temp_seen) {
		s->temp0 = s->tmax = t.v;
		s->temp_seen = true;
	}
	s->tmax = t.v > s->tmax ? t.v : s->tmax;
}

static struct pr_sampler *sampler_start(struct hwc_env *e, struct hwc_arena *a,
				       const struct pr_target *t)
{
	struct pr_sampler *s = hwc_arena_zalloc(a, sizeof(*s));
	if (!s)
		return NULL;
	s->e = e;
	s->a = a;
	s->t = t;
	if (t->bdf) {
		/* every PCI function between the card and the root complex */
		const char *rp;
		if (hwc_env_realpath(e, hwc_arena_printf(a, "sys/bus/pci/devices/%s", t->bdf), a,
				     &rp) == 0) {
			char *p = hwc_arena_strdup(a, rp);
			const char *parts[64];
			size_t n = 0;
			for (char *tok = strtok(p, "/"); tok && n < 64; tok = strtok(NULL, "/"))
				if (hwc_bdf_parse(tok, 0, NULL))
					parts[n++] = tok;
			s->hops = hwc_arena_calloc(a, n ? n : 1, sizeof(*s->hops));
			for (size_t i = 0; s->hops && i < n; i++) {
				struct hop_state *h = &s->hops[s->nhops++];
				h->bdf = parts[n - 1 - i];
				struct hwc_fstr ms = {0};
				struct hwc_fi64 mw = {0};
				hwc_read_str(e, hwc_arena_printf(a, "sys/bus/pci/devices/%s/max_link_speed",
								 h->bdf), a, &ms);
				hwc_read_i64(e, hwc_arena_printf(a, "sys/bus/pci/devices/%s/max_link_width",
								 h->bdf), a, &mw);
				if (hwc_ok(ms) && hwc_ok(mw) && speed_of(ms.v) > 0) {
					h->maxs = speed_of(ms.v);
					h->maxw = mw.v;
					h->have_max = true;
				}
			}
			link_maxima(s->hops, s->nhops);
		}
		struct hwc_dirlist dl = {0};
		const char *hw = hwc_arena_printf(a, "sys/bus/pci/devices/%s/hwmon", t->bdf);
		if (hwc_env_list_dir(e, hw, a, &dl) == 0 && dl.n > 0)
			s->temp_path = hwc_arena_printf(a, "%s/%s/temp1_input", hw, dl.names[0]);
		for (size_t i = 0; i < s->nhops; i++) {
			static const char *const aer[][2] = {{"aer_dev_correctable", "TOTAL_ERR_COR"},
							     {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL"},
							     {"aer_dev_fatal", "TOTAL_ERR_FATAL"}};
			for (size_t k = 0; k < 3; k++)
				add_counter(s, hwc_arena_printf(a, "%s@%s", aer[k][0], s->hops[i].bdf),
					    hwc_arena_printf(a, "sys/bus/pci/devices/%s/%s",
							     s->hops[i].bdf, aer[k][0]),
					    aer[k][1]);
		}
	}
	if (t->netdev) {
		static const char *const st[] = {"rx_dropped", "tx_dropped", "rx_missed_errors",
						 "rx_fifo_errors"};
		for (size_t k = 0; k < HWC_ARRAY_SIZE(st); k++)
			add_counter(s, hwc_arena_printf(a, "%s@%s", st[k], t->netdev),
				    hwc_arena_printf(a, "sys/class/net/%s/statistics/%s", t->netdev,
						     st[k]), NULL);
		/* mlx5's discard and PCIe back-pressure counters exist only in ethtool -S */
		static const char *const et[] = {"rx_discards_phy", "tx_discards_phy",
						 "rx_out_of_buffer", "outbound_pci_stalled_rd",
						 "outbound_pci_stalled_wr", "outbound_pci_stalled_rd_events",
						 "outbound_pci_stalled_wr_events"};
		s->ethtool0 = ethtool_stats(s);
		for (size_t k = 0; s->ethtool0 && k < HWC_ARRAY_SIZE(et); k++)
			add_counter(s, hwc_arena_printf(a, "%s@%s", et[k], t->netdev), NULL, et[k]);
	}
	const char *pc = hwc_arena_printf(a, "sys/class/infiniband/%s/ports/%u", t->dev, t->port);
	static const char *const ib[] = {"port_xmit_discards", "port_rcv_errors", "port_xmit_wait"};
	for (size_t k = 0; k < HWC_ARRAY_SIZE(ib); k++)
		add_counter(s, ib[k], hwc_arena_printf(a, "%s/counters/%s", pc, ib[k]), NULL);
	struct hwc_dirlist hc = {0};
	const char *hcp = hwc_arena_printf(a, "%s/hw_counters", pc);
	if (hwc_env_list_dir(e, hcp, a, &hc) == 0)
		for (size_t k = 0; k < hc.n; k++)
			if (strcmp(hc.names[k], "lifespan") != 0)
				add_counter(s, hwc_arena_printf(a, "hw:%s", hc.names[k]),
					    hwc_arena_printf(a, "%s/%s", hcp, hc.names[k]), NULL);
	for (size_t i = 0; i < s->c.n; i++)
		s->c.items[i].have0 = read_counter(s, &s->c.items[i], s->ethtool0, &s->c.items[i].v0) == 0;
	sample_temp(s);
	sample_hops(s, false);
	return s;
}

static void sampler_tick(struct pr_sampler *s)
{
	if (!s)
		return;
	sample_temp(s);
	sample_hops(s, true);
}

/* A link speed and width read together (have), or both absent for why. */
static void put_link(struct hwc_ff64 *speed, struct hwc_fi64 *width, bool have, double sv,
		     int64_t wv, const char *why)
{
	if (have) {
		HWC_SET(*speed, sv);
		HWC_SET(*width, wv);
	} else {
		HWC_FAIL(*speed, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(*width, HWC_ST_ABSENT, 0, why);
	}
}

static void sampler_finish(struct pr_sampler *s, struct hwc_probe_result *r)
{
	if (!s)
		return;
	struct hwc_arena *a = s->a;
	if (s->temp_seen) {
		HWC_SET(r->temp_start_mdegc, s->temp0);
		HWC_SET(r->temp_max_mdegc, s->tmax);
	} else {
		const char *why = !s->t->bdf ? "not a PCI device: no card sensor"
				  : !s->temp_path
					? hwc_arena_printf(a, "no hwmon under sys/bus/pci/devices/%s",
							   s->t->bdf)
					: hwc_arena_printf(a, "%s unreadable", s->temp_path);
		HWC_FAIL(r->temp_start_mdegc, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(r->temp_max_mdegc, HWC_ST_ABSENT, 0, why);
	}
	for (size_t i = 0; i < s->nhops; i++) {
		const struct hop_state *h = &s->hops[i];
		struct hwc_probe_hop *o = HWC_VEC_PUSH(a, &r->hops);
		if (!o)
			break;
		o->bdf = h->bdf;
		const char *nd = "no link state read under load (sysfs link files absent or the run "
				 "was shorter than one sample)";
		put_link(&o->speed_gts_min, &o->width_min, h->seen, h->smin, h->wmin, nd);
		put_link(&o->speed_gts_max, &o->width_max, h->seen, h->smax, h->wmax, nd);
		put_link(&o->speed_gts_idle, &o->width_idle, h->have_idle, h->sidle, h->widle,
			 "no link state read before the run");
		put_link(&o->max_speed_gts, &o->max_width, h->have_max, h->maxs, h->maxw,
			 "max_link_speed/width absent");
		if (h->seen && h->have_max)
			HWC_SET(o->trained_down, h->down);
		else
			HWC_FAIL(o->trained_down, HWC_ST_ABSENT, 0, "needs link samples and maxima");
	}
	const char *eth1 = s->ethtool0 ? ethtool_stats(s) : NULL;
	for (size_t i = 0; i < s->c.n; i++) {
		int64_t v1;
		if (!s->c.items[i].have0 || read_counter(s, &s->c.items[i], eth1, &v1) < 0)
			continue;
		struct hwc_probe_counter *c = HWC_VEC_PUSH(a, &r->counters);
		if (!c)
			break;
		c->name = s->c.items[i].name;
		HWC_SET(c->delta, v1 - s->c.items[i].v0);
	}
}

/* ---- the same, under the environment's lock (threads of a two-host --all-ports run) -------- */

void pr_target_init(struct hwc_env *e, struct hwc_arena *a, const char *dev, unsigned port,
		    struct pr_target *t)
{
	pr_env_lock();
	target_init(e, a, dev, port, t);
	pr_env_unlock();
}

void pr_target_netdev(struct hwc_env *e, struct hwc_arena *a, const char *netdev,
		      struct pr_target *t)
{
	pr_env_lock();
	target_netdev(e, a, netdev, t);
	pr_env_unlock();
}

void pr_bind(struct hwc_env *e, struct hwc_arena *a, int node, struct pr_binding *b,
	     struct hwc_probe_result *r)
{
	pr_env_lock();
	bind_node(e, a, node, b, r);
	pr_env_unlock();
}

struct pr_sampler *pr_sampler_start(struct hwc_env *e, struct hwc_arena *a,
				    const struct pr_target *t)
{
	pr_env_lock();
	struct pr_sampler *s = sampler_start(e, a, t);
	pr_env_unlock();
	return s;
}

void pr_sampler_tick(struct pr_sampler *s)
{
	pr_env_lock();
	sampler_tick(s);
	pr_env_unlock();
}

void pr_sampler_finish(struct pr_sampler *s, struct hwc_probe_result *r)
{
	pr_env_lock();
	sampler_finish(s, r);
	pr_env_unlock();
}
