/* SPDX-License-Identifier: MIT */
/* The watch window of the link rules (issue 14, `--watch SEC`): a counter's delta over the run's
 * window (facts.watch.window_s) judged beside its count since boot, so that one wire fact gives
 * one finding. The window decides the rate verdict when it can; a window that saw no error can
 * only rule out rates it would have seen: -ln(1 - link_watch_confidence) errors over its length
 * (3 at 95 %, the zero-error bound of a BER test: Maxim, J. Redd, "Calculating Statistical
 * Confidence Levels for Error-Probability Estimates", 2000). A count since boot that is high while
 * the window is clean is history (info) only when the window would have seen its rate. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rules/rules-int.h"

/* The run's window in seconds: 0 when it did not watch (no facts.watch, or null as not
 * collected), -1 with *why when it did but the length is unknown. */
static double watch_s(struct hwc_rule_ctx *c, const char **why)
{
	double s = 0;
	const char *st = hwc_q_string(hwc_q_unavailable(c->facts, "watch"), "status");
	*why = NULL;
	if (!hwc_q_has(c->facts, "watch") || (hwc_q_is_null(c->facts, "watch") && (!st || strcmp(st, "not_collected") == 0)))
		return 0;
	if (!hwc_q_find_num(c->facts, "watch.window_s", &s, why, c->a))
		return -1;
	*why = NULL; /* hwc_q_find leaves "not_collected" on success too */
	if (s > 0)
		return s;
	*why = "invalid: window_s <= 0";
	return -1;
}

void hwc_wnd_read(struct hwc_rule_ctx *c, struct hwc_wnd *w, const json_t *obj, const char *base,
		  const char *dotted, const char *what)
{
	memset(w, 0, sizeof(*w));
	w->what = what;
	w->path = hwc_arena_printf(c->a, "%s.%s", base, dotted);
	w->s = watch_s(c, &w->why);
	w->exposure = w->s / 3600.0;
	const char *why = NULL;
	if (w->s <= 0)
		return;
	if (!hwc_q_find_num(obj, dotted, &w->d, &why, c->a))
		w->why = why;
	else if (w->d < 0)
		w->why = "invalid: negative delta";
}

void hwc_wnd_read_ber(struct hwc_rule_ctx *c, struct hwc_wnd *w, const json_t *nd, const char *base,
		      const char *key, const char *what)
{
	double ber = 0;
	hwc_wnd_read(c, w, nd, base, hwc_arena_printf(c->a, "link.ber_window.%s", key), what);
	w->ber = true;
	w->exposure = 0;
	if (w->s <= 0 || w->why)
		return;
	ber = w->d;
	const char *why = NULL;
	if (!hwc_q_find_num(nd, "link.ber_window.bits", &w->exposure, &why, c->a) || w->exposure <= 0) {
		w->path = hwc_arena_printf(c->a, "%s.link.ber_window.bits", base);
		w->why = w->exposure <= 0 && json_is_number(hwc_q_at(nd, "link.ber_window.bits")) ? "invalid: bits <= 0" : why;
		w->exposure = 0;
		return;
	}
	w->d = nearbyint(ber * w->exposure); /* the bits in error */
}

/* The smallest rate (per hour, or a BER) a window that saw no error rules out. */
static double wnd_sees(const struct hwc_rule_ctx *c, const struct hwc_wnd *w)
{
	double cl = hwc_profile_threshold(c->prof, HWC_T_LINK_WATCH_CONFIDENCE);
	return -log(1 - cl) / w->exposure;
}

double hwc_wnd_need_s(const struct hwc_rule_ctx *c, double limit_per_h)
{
	const struct hwc_wnd one_hour = {.exposure = 1};
	return ceil(3600 * wnd_sees(c, &one_hour) / limit_per_h);
}

static double wnd_rate(const struct hwc_wnd *w)
{
	return w->d / w->exposure;
}

enum hwc_wact hwc_wnd_decide(const struct hwc_rule_ctx *c, const struct hwc_wnd *w, double limit,
			     int boot, double boot_rate)
{
	if (w->s == 0)
		return HWC_WA_BOOT; /* no watch: since boot, as without --watch */
	if (w->why)
		return boot == 1 ? HWC_WA_BOOT : HWC_WA_UNKNOWN;
	if (w->d > 0 && wnd_rate(w) > limit)
		return HWC_WA_LIVE;
	bool resolves = w->d > 0 || (limit > 0 && wnd_sees(c, w) <= limit);
	if (boot == 1)
		return (resolves && limit > 0) || (boot_rate > 0 && wnd_sees(c, w) <= boot_rate) ? HWC_WA_HISTORY : HWC_WA_BOOT;
	if (resolves || limit <= 0)
		return boot == -1 && !resolves ? HWC_WA_BOOT : HWC_WA_NONE;
	return boot == 0 ? HWC_WA_SHORT : HWC_WA_BOOT;
}

const char *hwc_fmt_per_hour(char *buf, size_t bufsz, double per_hour)
{
	if (per_hour == 0)
		snprintf(buf, bufsz, "0/h");
	else
		snprintf(buf, bufsz, per_hour >= 100 ? "%.0f/h" : per_hour >= 0.01 ? "%.3g/h" : "%.1e/h", per_hour);
	return buf;
}

static const char *rate_fmt(struct hwc_rule_ctx *c, const struct hwc_wnd *w, double r)
{
	char buf[48];
	if (w->ber)
		return hwc_arena_printf(c->a, "BER %.3g", r);
	return hwc_arena_strdup(c->a, hwc_fmt_per_hour(buf, sizeof(buf), r));
}

/* "12 symbol errors in the 10 s watch window (4320/h)", "1 symbol error ...": what's first plural. */
static const char *wnd_count(struct hwc_rule_ctx *c, const struct hwc_wnd *w)
{
	const char *what = w->what, *p = what;
	while (w->d == 1 && *p) {
		size_t n = strcspn(p, " ");
		if (n > 1 && p[n - 1] == 's') {
			what = hwc_arena_printf(c->a, "%.*s%s", (int)(p - what + n - 1), what, p + n);
			break;
		}
		p += n + (p[n] == ' ');
	}
	return hwc_arena_printf(c->a, "%s %s in the %s s watch window (%s)", fv_fmt_num(c->a, w->d), what, fv_fmt_num(c->a, w->s),
				rate_fmt(c, w, wnd_rate(w)));
}

/* "12 in 10 s (4320/h)", "0 in 10 s (sees 1078/h and more)"; a BER's "1e+08 bit errors in 2e+12
 * bits (BER 5e-05)" */
static const char *wnd_observed(struct hwc_rule_ctx *c, const struct hwc_wnd *w)
{
	const char *in = w->ber ? hwc_arena_printf(c->a, "bit errors in %.3g bits, %s s", w->exposure, fv_fmt_num(c->a, w->s))
				: hwc_arena_printf(c->a, "in %s s", fv_fmt_num(c->a, w->s));
	if (w->why)
		return hwc_arena_printf(c->a, "unknown (%s)", w->why);
	if (w->d > 0)
		return hwc_arena_printf(c->a, "%s %s (%s)", fv_fmt_num(c->a, w->d), in, rate_fmt(c, w, wnd_rate(w)));
	return hwc_arena_printf(c->a, "0 %s (sees %s and more)", in, rate_fmt(c, w, wnd_sees(c, w)));
}

static void wnd_evidence(struct hwc_rule_ctx *c, struct hwc_finding *fd, const struct hwc_wnd *w, double limit)
{
	hwc_evidence_add(fd, c->a, w->path, wnd_observed(c, w), limit > 0 ? hwc_arena_printf(c->a, "<= %s", rate_fmt(c, w, limit)) : "0");
	if (w->s > 0)
		hwc_evidence_add(fd, c->a, "watch.window_s", fv_fmt_num(c->a, w->s), NULL);
}

/* The window too short for the limit on ports whose count since boot is fine: one info per rule
 * and run, not one per port (a 10 s watch of a 16-port node would bury the report), naming the
 * ports and the window that would do (the longest any of them needs); each port's window and its
 * count since boot are the finding's evidence, one entry per port. */
struct hwc_wnd_short {
	size_t at; /* the finding's index in c->out */
	size_t n;
	const char *ports;
	double need_s, limit, sees;
	const struct hwc_wnd *w; /* of the port that needs need_s; its length is the run's */
};

static void short_text(struct hwc_rule_ctx *c, struct hwc_wnd_short *ws)
{
	const struct hwc_wnd *w = ws->w;
	struct hwc_finding *fd = &c->out->items[ws->at];
	/* a rate since boot is the count over the uptime, a lower bound (the counters may have been
	 * cleared since): within the limit only if nothing cleared them; a BER is over its own bits */
	const char *cond = w->ber ? "" : " (over the uptime: if nothing cleared the counters since boot)";
	fd->fix = hwc_arena_printf(c->a, "None needed: since boot or the last counter clear %s fine%s. To judge the rate over a window "
				   "too, watch for %s s or more (`hwcheck --watch %s`).", ws->n > 1 ? "each port is" : "the port is", cond,
				   fv_fmt_num(c->a, ws->need_s), fv_fmt_num(c->a, ws->need_s));
	fd->message = hwc_arena_printf(
		c->a, "no %s in the %s s watch window on %s%s%s, too short to judge %s (at %s %% confidence it sees %s and more; %s s would): "
		      "judged since boot or the last counter clear, where %s fine%s",
		w->what, fv_fmt_num(c->a, w->s), ws->n > 1 ? hwc_arena_printf(c->a, "%zu ports (", ws->n) : "", ws->ports, ws->n > 1 ? ")" : "",
		rate_fmt(c, w, ws->limit), fv_fmt_num(c->a, 100 * hwc_profile_threshold(c->prof, HWC_T_LINK_WATCH_CONFIDENCE)),
		rate_fmt(c, w, ws->sees), fv_fmt_num(c->a, ws->need_s), ws->n > 1 ? "each is" : "it is", cond);
}

static void short_add(struct hwc_rule_ctx *c, const struct hwc_wnd *w, const char *subj, double limit, const char *boot_text)
{
	struct hwc_wnd_short *ws = c->wshort;
	double sees = wnd_sees(c, w), need = ceil(w->s * sees / limit);
	if (!ws) {
		struct hwc_finding *fd = hwc_rule_emit_sev(c, HWC_SEV_INFO, "host", "%s", "");
		ws = fd ? hwc_arena_zalloc(c->a, sizeof(*ws)) : NULL;
		if (!ws)
			return;
		*ws = (struct hwc_wnd_short){.at = (size_t)(fd - c->out->items), .ports = subj};
		hwc_evidence_add(fd, c->a, "watch.window_s", fv_fmt_num(c->a, w->s), NULL);
		c->wshort = ws; /* the finding by its index from here on: the vector may move */
	} else {
		ws->ports = hwc_arena_printf(c->a, "%s, %s", ws->ports, subj);
	}
	ws->n++;
	if (need > ws->need_s || ws->n == 1) {
		struct hwc_wnd *keep = hwc_arena_zalloc(c->a, sizeof(*keep));
		if (keep)
			*keep = *w, ws->w = keep, ws->need_s = need, ws->limit = limit, ws->sees = sees;
	}
	hwc_evidence_add(&c->out->items[ws->at], c->a, w->path,
			 hwc_arena_printf(c->a, "%s; %s", wnd_observed(c, w), boot_text),
			 hwc_arena_printf(c->a, "<= %s", rate_fmt(c, w, limit)));
	short_text(c, ws);
}

struct hwc_finding *hwc_wnd_emit(struct hwc_rule_ctx *c, const struct hwc_wnd *w, enum hwc_wact act,
				 const char *subj, double limit, const char *boot_text)
{
	struct hwc_finding *fd = NULL;
	const char *above = limit > 0 ? hwc_arena_printf(c->a, ", above %s", rate_fmt(c, w, limit)) : "";
	switch (act) {
	case HWC_WA_LIVE:
		fd = hwc_rule_emit(c, subj, "%s%s: live (%s)", wnd_count(c, w), above, boot_text);
		break;
	case HWC_WA_HISTORY:
		fd = hwc_rule_emit_sev(c, HWC_SEV_INFO, subj, "history, not live: %s; %s, which would have seen %s", boot_text,
				       w->d > 0 ? wnd_count(c, w) : hwc_arena_printf(c->a, "no %s in the %s s watch window", w->what, fv_fmt_num(c->a, w->s)),
				       rate_fmt(c, w, wnd_sees(c, w)));
		break;
	case HWC_WA_SHORT:
		short_add(c, w, subj, limit, boot_text);
		return NULL;
	case HWC_WA_UNKNOWN:
		hwc_rule_unknown(c, subj, w->path, w->why, hwc_arena_printf(c->a, "the %s over the watch window", w->what));
		return NULL;
	default:
		return NULL;
	}
	wnd_evidence(c, fd, w, limit);
	return fd;
}

void hwc_wnd_note(struct hwc_rule_ctx *c, struct hwc_finding *fd, const struct hwc_wnd *w, double limit,
		  double boot_rate)
{
	if (!fd || w->s == 0)
		return;
	if (w->why)
		fd->message = hwc_arena_printf(c->a, "%s; the watch window: unknown (%s)", fd->message, w->why);
	else /* a BOOT verdict in a run that watched: the window saw nothing (else it would decide) */
		fd->message = hwc_arena_printf(c->a, "%s; no %s in the %s s watch window, too short to see %s (it sees %s and more): they may go on",
					       fd->message, w->what, fv_fmt_num(c->a, w->s),
					       boot_rate > 0 ? hwc_arena_printf(c->a, w->ber ? "the BER since the counters were cleared (%s)"
										     : "the rate since boot or the last counter clear (at least %s)",
										rate_fmt(c, w, boot_rate))
							     : w->ber ? "the BER since the counters were cleared" : "the rate since boot or the last counter clear",
					       rate_fmt(c, w, wnd_sees(c, w)));
	wnd_evidence(c, fd, w, limit);
}

struct hwc_finding *hwc_wnd_judge(struct hwc_rule_ctx *c, const struct hwc_wnd *w, const char *subj, double limit,
				  const struct hwc_wboot *b, enum hwc_wact *act_out)
{
	enum hwc_wact act = hwc_wnd_decide(c, w, limit, b->fires, b->rate);
	if (act_out)
		*act_out = act;
	if (act != HWC_WA_BOOT)
		return hwc_wnd_emit(c, w, act, subj, limit, b->text);
	if (b->fires == -1 && b->unk_fact)
		hwc_rule_unknown(c, subj, b->unk_fact, b->unk_why, b->unk_for);
	if (b->fires != 1)
		return NULL;
	struct hwc_finding *fd = hwc_rule_emit(c, subj, "%s", b->msg);
	hwc_wnd_note(c, fd, w, limit, b->rate);
	return fd;
}
