/* SPDX-License-Identifier: MIT */
/* --prom FILE: the facts and findings of a check as node_exporter textfile metrics, written
 * atomically (a scrape never reads half a file). Text exposition format 0.0.4: one HELP and one
 * TYPE per family, the family's samples together, no duplicate series, unknown values left out. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/diff.h"
#include "core/output.h"
#include "core/query.h"

struct sample {
	char *labels; /* `{k="v",...}` or "" */
	double value;
};

struct family {
	struct sample *s;
	size_t n;
};

enum {
	F_LAST_RUN, F_UP, F_VERDICT, F_FINDINGS, F_REQUIRED_UNKNOWN, F_FINDING, F_ADAPTER,
	F_LINK_SPEED, F_LINK_WIDTH, F_LINK_CAP_SPEED, F_LINK_CAP_WIDTH, F_BOTTLENECK, F_PORT_UP,
	F_PORT_RATE, F_CARD_TEMP, F_CARD_TEMP_LIMIT, F_TEMP, F_PROBE, F_COUNT
};

static const struct {
	const char *name, *help;
} fam_def[F_COUNT] = {
	[F_LAST_RUN] = {"hwcheck_last_run_timestamp_seconds", "Unix time of the hwcheck run that wrote this file."},
	[F_UP] = {"hwcheck_up", "1 when the last run collected facts and judged them; 0 when nothing could be collected (no verdict, no finding counts)."},
	[F_VERDICT] = {"hwcheck_verdict", "Overall verdict of the last run: 1 for the one that holds (ok, incomplete, warn, error), 0 for the others."},
	[F_FINDINGS] = {"hwcheck_findings", "Findings of the last run that no waiver covers, by severity."},
	[F_REQUIRED_UNKNOWN] = {"hwcheck_required_unknown", "Undecided findings of rules or facts the profile requires (they fail the gate)."},
	[F_FINDING] = {"hwcheck_finding", "One series per finding of the last run (rule, severity, subject); value 1."},
	[F_ADAPTER] = {"hwcheck_adapter_info", "ConnectX card identity (firmware, PSID, product); value 1."},
	[F_LINK_SPEED] = {"hwcheck_pcie_link_speed_gts", "Negotiated PCIe link speed of the card, GT/s."},
	[F_LINK_WIDTH] = {"hwcheck_pcie_link_width", "Negotiated PCIe link width of the card, lanes."},
	[F_LINK_CAP_SPEED] = {"hwcheck_pcie_link_capable_speed_gts", "PCIe link speed the card can do, GT/s."},
	[F_LINK_CAP_WIDTH] = {"hwcheck_pcie_link_capable_width", "PCIe link width the card can do, lanes."},
	[F_BOTTLENECK] = {"hwcheck_pcie_path_bottleneck_gbps", "Usable Gb/s of the slowest hop between the card and its root port."},
	[F_PORT_UP] = {"hwcheck_port_active", "1 when the port state is active, else 0."},
	[F_PORT_RATE] = {"hwcheck_port_rate_gbps", "Port rate, Gb/s."},
	[F_CARD_TEMP] = {"hwcheck_card_temperature_celsius", "ASIC temperature of the card: its hottest reading (hwmon, mstreg or MTMP), the one the thermal rules judge."},
	[F_CARD_TEMP_LIMIT] = {"hwcheck_card_temperature_limit_celsius", "The profile's card temperature limit (card_temp_limit_c) that THERMAL_CARD_OVER_LIMIT applies."},
	[F_TEMP] = {"hwcheck_temperature_celsius", "Temperature of another sensor: host chips, devices, a card's transceiver modules."},
	[F_PROBE] = {"hwcheck_probe_gbps", "Bandwidth measured by the RDMA probe, Gb/s."},
};

struct prom {
	struct family f[F_COUNT];
	double temp_limit_c; /* the profile's card limit, 0 = none */
	bool oom;
};

/* Label values: backslash, double quote and newline escaped, as the format requires. */
static void put_label(FILE *m, bool first, const char *k, const char *v)
{
	fprintf(m, "%s%s=\"", first ? "" : ",", k);
	for (const char *p = v; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", m);
		else if (*p == '"')
			fputs("\\\"", m);
		else if (*p == '\n')
			fputs("\\n", m);
		else
			fputc(*p, m);
	}
	fputc('"', m);
}

/* kv: NULL-terminated key, value pairs; a NULL value drops the pair. */
static void add(struct prom *p, int fam, double value, const char *const *kv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		p->oom = true;
		return;
	}
	bool first = true;
	for (size_t i = 0; kv && kv[i]; i += 2) {
		if (!kv[i + 1])
			continue;
		fputs(first ? "{" : "", m);
		put_label(m, first, kv[i], kv[i + 1]);
		first = false;
	}
	if (!first)
		fputc('}', m);
	if (fclose(m) != 0 || !buf) {
		free(buf);
		p->oom = true;
		return;
	}
	struct family *f = &p->f[fam];
	for (size_t i = 0; i < f->n; i++) {
		if (strcmp(f->s[i].labels, buf) == 0) { /* same series twice: keep the first */
			free(buf);
			return;
		}
	}
	struct sample *ns = realloc(f->s, (f->n + 1) * sizeof(*ns));
	if (!ns) {
		free(buf);
		p->oom = true;
		return;
	}
	f->s = ns;
	f->s[f->n].labels = buf;
	f->s[f->n].value = value;
	f->n++;
}


/* Adds the sample only when the value is known. */
static void add_num(struct prom *p, int fam, const json_t *v, double scale, const char *const *kv)
{
	if (json_is_number(v))
		add(p, fam, json_number_value(v) * scale, kv);
}

/* The card a function belongs to (the adapter's function 0), or NULL. */
static const char *card_of(const json_t *facts, const char *bdf)
{
	return hwc_q_string(hwc_q_function_adapter(facts, bdf), "bdf");
}

/* A card sensor that is not the ASIC: a transceiver module has its own limits. */
static bool module_sensor(const json_t *s)
{
	const char *label = hwc_q_string(s, "label");
	return label && strncasecmp(label, "module", 6) == 0;
}

/* One series per card: the hottest ASIC reading of its functions' sensors and of MTMP (each
 * function of a card reports the same ASIC; several sources may read it), as the thermal rules
 * take it, with the limit they apply beside it. */
static void card_temperature(struct prom *p, const json_t *facts, const json_t *ad,
			     const char *const *cl)
{
	size_t i;
	const json_t *s;
	const json_t *best = hwc_q_get(hwc_q_registers(ad), "temp_mdegc");
	json_array_foreach(hwc_q_thermal_sensors(facts), i, s) {
		const char *card = card_of(facts, hwc_q_string(s, "bdf"));
		const json_t *t = hwc_q_get(s, "temp_mdegc");
		if (!card || strcmp(card, cl[1]) != 0 || module_sensor(s) || !json_is_number(t))
			continue;
		if (!json_is_number(best) || json_number_value(t) > json_number_value(best))
			best = t;
	}
	add_num(p, F_CARD_TEMP, best, 0.001, cl);
	if (json_is_number(best) && p->temp_limit_c > 0)
		add(p, F_CARD_TEMP_LIMIT, p->temp_limit_c, cl);
}

static void adapters(struct prom *p, const json_t *facts)
{
	size_t i, k;
	const json_t *ad, *port;
	json_array_foreach(hwc_q_adapters(facts), i, ad) {
		const char *card = hwc_q_string(ad, "bdf");
		if (!card)
			continue;
		const char *info[] = {"card", card, "product", hwc_q_string(ad, "product"), "fw_version",
				      hwc_q_string(ad, "fw_version"), "psid", hwc_q_string(ad, "psid"), "serial_number",
				      hwc_q_string(ad, "serial_number"), NULL};
		add(p, F_ADAPTER, 1, info);
		const char *cl[] = {"card", card, NULL};
		const json_t *d = hwc_q_pci_dev(facts, card), *l = hwc_q_pci_link(d);
		add_num(p, F_LINK_SPEED, hwc_q_get(l, "speed_gts"), 1, cl);
		add_num(p, F_LINK_WIDTH, hwc_q_get(l, "width"), 1, cl);
		add_num(p, F_LINK_CAP_SPEED, hwc_q_get(l, "cap_speed_gts"), 1, cl);
		add_num(p, F_LINK_CAP_WIDTH, hwc_q_get(l, "cap_width"), 1, cl);
		add_num(p, F_BOTTLENECK, hwc_q_get(hwc_q_path_bottleneck(d), "gbps"), 1, cl);
		json_array_foreach(hwc_q_ports(ad), k, port) {
			char pn[32];
			const json_t *num = hwc_q_get(port, "port");
			if (!json_is_integer(num))
				continue;
			snprintf(pn, sizeof(pn), "%lld", (long long)json_integer_value(num));
			const char *pl[] = {"card", card, "rdma_device", hwc_q_string(port, "rdma_device"), "port",
					    pn, NULL};
			const char *st = hwc_q_string(port, "state");
			if (st)
				add(p, F_PORT_UP, strcasestr(st, "active") && !strcasestr(st, "inactive") ? 1 : 0, pl);
			add_num(p, F_PORT_RATE, hwc_q_get(port, "rate_gbps"), 1, pl);
		}
		card_temperature(p, facts, ad, cl);
	}
}

static void sensors_and_probe(struct prom *p, const json_t *facts)
{
	size_t i;
	const json_t *s;
	json_array_foreach(hwc_q_thermal_sensors(facts), i, s) {
		const char *card = card_of(facts, hwc_q_string(s, "bdf"));
		if (card && !module_sensor(s))
			continue; /* the card's ASIC: hwcheck_card_temperature_celsius */
		/* a device that is not a card (an NVMe drive...) is told apart by its address */
		const char *dev = card ? NULL : hwc_q_string(s, "bdf");
		const char *tl[] = {"card", card, "device", dev, "chip",
				    hwc_q_string(s, "chip") ? hwc_q_string(s, "chip") : "", "label",
				    hwc_q_string(s, "label") ? hwc_q_string(s, "label") : "", "source", hwc_q_string(s, "source"),
				    NULL};
		add_num(p, F_TEMP, hwc_q_get(s, "temp_mdegc"), 0.001, tl);
	}
	const json_t *r;
	json_array_foreach(hwc_q_probe_results(facts), i, r) {
		char port[32] = "", msg[32] = "", qps[32] = "";
		if (json_is_integer(hwc_q_get(r, "port")))
			snprintf(port, sizeof(port), "%lld", (long long)json_integer_value(hwc_q_get(r, "port")));
		if (json_is_integer(hwc_q_get(r, "msg_bytes")))
			snprintf(msg, sizeof(msg), "%lld", (long long)json_integer_value(hwc_q_get(r, "msg_bytes")));
		if (json_is_integer(hwc_q_get(r, "qps")))
			snprintf(qps, sizeof(qps), "%lld", (long long)json_integer_value(hwc_q_get(r, "qps")));
		/* a port measured together with others (--all-ports) is a series of its own */
		char conc[32] = "";
		const json_t *cj = hwc_q_get(r, "concurrent");
		if (json_is_integer(cj) && json_integer_value(cj) > 1)
			snprintf(conc, sizeof(conc), "%lld", (long long)json_integer_value(cj));
		const char *pl[] = {"card", card_of(facts, hwc_q_string(r, "bdf")), "rdma_device",
				    hwc_q_string(r, "rdma_device"), "port", port, "op", hwc_q_string(r, "op"), "mode",
				    hwc_q_string(r, "mode"), "msg_bytes", msg, "qps", qps,
				    conc[0] ? "concurrent" : NULL, conc, NULL};
		add_num(p, F_PROBE, hwc_q_get(r, "gbps"), 1, pl);
	}
}

static void findings(struct prom *p, const struct hwc_findings *fd)
{
	for (size_t i = 0; i < fd->n; i++) {
		const struct hwc_finding *x = &fd->items[i];
		const char *kv[] = {"rule", x->rule_id, "severity", hwc_severity_name(x->severity),
				    "subject", x->subject ? x->subject : "host", "waived",
				    x->waived_reason ? "true" : "false", NULL};
		add(p, F_FINDING, 1, kv);
	}
	/* The report's summary: counts and verdict as `hwcheck --json` gives them in "summary". */
	struct hwc_summary sum;
	hwc_summary_compute(fd, false, &sum);
	/* Every severity, zeros included: an alert on "error > 0" needs the series to exist. */
	for (int s = HWC_SEV_INFO; s <= HWC_SEV_UNKNOWN; s++) {
		const char *kv[] = {"severity", hwc_severity_name(s), NULL};
		add(p, F_FINDINGS, (double)sum.counts[s], kv);
	}
	add(p, F_REQUIRED_UNKNOWN, (double)sum.required_unknown, NULL);
	for (int v = HWC_VERDICT_OK; v <= HWC_VERDICT_ERROR; v++) {
		const char *kv[] = {"verdict", hwc_verdict_name(v), NULL};
		add(p, F_VERDICT, v == (int)sum.verdict, kv);
	}
}

static void render(FILE *m, const struct prom *p)
{
	for (int i = 0; i < F_COUNT; i++) {
		const struct family *f = &p->f[i];
		if (f->n == 0 && (i != F_FINDING || p->f[F_UP].s[0].value == 0))
			continue;
		fprintf(m, "# HELP %s %s\n# TYPE %s gauge\n", fam_def[i].name, fam_def[i].help,
			fam_def[i].name);
		for (size_t k = 0; k < f->n; k++)
			fprintf(m, "%s%s %.15g\n", fam_def[i].name, f->s[k].labels, f->s[k].value);
	}
}

int hwc_prom_write(const struct hwc_cli *c, const json_t *facts, const struct hwc_findings *fd,
		   const struct hwc_profile *prof)
{
	struct prom p;
	memset(&p, 0, sizeof(p));
	p.temp_limit_c = hwc_profile_card_temp_limit_c(prof);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	add(&p, F_LAST_RUN, (double)ts.tv_sec, NULL);
	/* Nothing collected: say so, and write no counts a dashboard would read as a clean host. */
	add(&p, F_UP, fd ? 1 : 0, NULL);
	if (fd) {
		findings(&p, fd);
		adapters(&p, facts);
		sensors_and_probe(&p, facts);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *m = p.oom ? NULL : open_memstream(&buf, &len);
	int rc = 0;
	if (m) {
		render(m, &p);
		if (fclose(m) != 0)
			rc = -ENOMEM;
	} else {
		rc = -ENOMEM;
	}
	for (int i = 0; i < F_COUNT; i++) {
		for (size_t k = 0; k < p.f[i].n; k++)
			free(p.f[i].s[k].labels);
		free(p.f[i].s);
	}
	if (rc == 0)
		rc = hwc_write_file_atomic(c->prom, buf, len);
	free(buf);
	if (rc == -ENOMEM) {
		hwc_cli_err("--prom %s: out of memory", c->prom);
		return HWC_EXIT_INTERNAL;
	}
	if (rc < 0) {
		hwc_cli_err("--prom %s: cannot write: %s", c->prom, hwc_output_strerror(rc));
		return rc == -ENOSPC || rc == -EIO || rc == -EDQUOT ? HWC_EXIT_INTERNAL : HWC_EXIT_USAGE;
	}
	return 0;
}
