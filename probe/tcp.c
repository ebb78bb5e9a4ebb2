/* SPDX-License-Identifier: MIT */
/* TCP between two hosts (hwcheck probe --tcp): N streams each way, like iperf, measured with the
 * RDMA probe's warm-up and steady-state stop and judged against the same ceiling. One control
 * connection carries the session (what to run, ready, stop, the peer's summary); each stream is
 * its own connection. The client drives and measures; the server checks what it receives and
 * reports its CPU and retransmits. Every socket operation is bounded by --timeout's per-call
 * limit (SO_RCVTIMEO / SO_SNDTIMEO, poll), so nothing waits forever. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "probe/probe_int.h"

#define T_MAGIC 0x68777463u /* "hwtc" */
/* 2: the hello says the session's group, the ack names the server's port */
#define T_VERSION 2
#define T_LAST 1u        /* hello flag: the client's last session */
#define T_END 2u         /* hello flag: no session, the client's run is over (--all-ports) */
#define T_CHECK_BYTES 256   /* compared with the pattern at the start of every read */
#define T_WRITE_BYTES (1u << 20) /* 8 x iperf3's default: fewer calls per byte */
#define T_READ_BYTES (1u << 20) /* one read takes what has arrived: fewer calls than iperf3's */

enum { M_HELLO = 1, M_DATA, M_ACK, M_START, M_READY, M_STOP, M_SUMMARY, M_BYE };
/* direction, as the client sees it */
enum { D_TO_PEER = 1, D_FROM_PEER = 2 };

struct tmsg {             /* every control message; network byte order on the wire */
	uint32_t magic, type, a, b;
	uint64_t x, y;
} __attribute__((packed));

/* ---- sockets ------------------------------------------------------------------------------ */

static void set_timeouts(int fd, double s)
{
	struct timeval tv = {.tv_sec = (time_t)s, .tv_usec = (suseconds_t)((s - (time_t)s) * 1e6)};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int send_msg(int fd, uint32_t type, uint32_t a, uint32_t b, uint64_t x, uint64_t y)
{
	struct tmsg m = {htonl(T_MAGIC), htonl(type), htonl(a), htonl(b), htobe64(x), htobe64(y)};
	const char *p = (const char *)&m;
	size_t left = sizeof(m);
	while (left) {
		ssize_t n = send(fd, p, left, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 && errno != EAGAIN ? -errno : -ETIMEDOUT;
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

/* The next control message within timeout_s: -ETIMEDOUT, -ECONNRESET (the peer closed), -EPROTO
 * (not ours), or another -errno. */
static int recv_msg(int fd, double timeout_s, struct tmsg *m)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int rc = poll(&p, 1, (int)(timeout_s * 1000));
	if (rc == 0)
		return -ETIMEDOUT;
	if (rc < 0)
		return -errno;
	char *q = (char *)m;
	size_t got = 0;
	while (got < sizeof(*m)) {
		ssize_t n = recv(fd, q + got, sizeof(*m) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return -ECONNRESET;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		got += (size_t)n;
	}
	m->magic = ntohl(m->magic);
	m->type = ntohl(m->type);
	m->a = ntohl(m->a);
	m->b = ntohl(m->b);
	m->x = be64toh(m->x);
	m->y = be64toh(m->y);
	return m->magic == T_MAGIC ? 0 : -EPROTO;
}

static const char *msg_err(int rc)
{
	return rc == -ETIMEDOUT	   ? "no answer in time"
	       : rc == -ECONNRESET ? "the peer closed the connection"
	       : rc == -EPROTO	   ? "not a hwcheck TCP probe peer"
				   : strerror(-rc);
}

/* Connects within timeout_s (non-blocking connect, then poll). Returns the socket or -1. */
static int connect_to(const struct addrinfo *ai, const struct addrinfo *src, const char *peer,
		      double timeout_s, char *err, size_t errlen)
{
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (src && bind(fd, src->ai_addr, src->ai_addrlen) < 0) {
		snprintf(err, errlen, "cannot bind to the source address: %s", strerror(errno));
		close(fd);
		return -1;
	}
	int rc = connect(fd, ai->ai_addr, ai->ai_addrlen), en = rc < 0 ? errno : 0;
	if (rc < 0 && en == EINPROGRESS) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int pr = poll(&p, 1, (int)(timeout_s * 1000));
		socklen_t l = sizeof(en);
		en = pr == 0 ? ETIMEDOUT : pr < 0 ? errno
			   : getsockopt(fd, SOL_SOCKET, SO_ERROR, &en, &l) < 0 ? errno : en;
	}
	if (en) {
		if (en == ECONNREFUSED)
			snprintf(err, errlen, "%s refused the connection (no 'hwcheck probe --tcp "
				 "--server' listening there?)", peer);
		else if (en == ETIMEDOUT)
			snprintf(err, errlen, "%s did not answer within %.0f s", peer, timeout_s);
		else
			snprintf(err, errlen, "connect to %s: %s", peer, strerror(en));
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	set_timeouts(fd, timeout_s);
	return fd;
}

/* The netdev that holds the socket's local address (getsockname, getifaddrs). */
static const char *sock_netdev(struct hwc_arena *a, int fd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &l) < 0)
		return NULL;
	struct sockaddr_in v4 = {.sin_family = AF_INET};
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
	if (ss.ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(&v4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
		memcpy(&ss, &v4, sizeof(v4)); /* a dual-stack listener's IPv4 client */
	}
	struct ifaddrs *ifs, *i;
	if (getifaddrs(&ifs) < 0)
		return NULL;
	const char *name = NULL;
	for (i = ifs; i && !name; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != ss.ss_family)
			continue;
		if (ss.ss_family == AF_INET) {
			const struct sockaddr_in *x = (const struct sockaddr_in *)i->ifa_addr;
			if (x->sin_addr.s_addr == ((const struct sockaddr_in *)&ss)->sin_addr.s_addr)
				name = hwc_arena_strdup(a, i->ifa_name);
		} else if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)i->ifa_addr;
			if (memcmp(&x->sin6_addr, &s6->sin6_addr, 16) == 0 &&
			    (!s6->sin6_scope_id || s6->sin6_scope_id == if_nametoindex(i->ifa_name)))
				name = hwc_arena_strdup(a, i->ifa_name);
		}
	}
	freeifaddrs(ifs);
	return name;
}

/* ---- streams ------------------------------------------------------------------------------ */

struct stream {
	int fd;
	unsigned idx;
	bool sender;
	size_t msg;
	unsigned char *pat, *buf; /* the stream's pattern (msg bytes); the receive buffer */
	atomic_ullong bytes;
	atomic_bool *stop;        /* senders: stop writing, then shut the write side */
	atomic_bool done;
	int err;                  /* errno that ended it early; 0 */
	bool eof, bad_data;
	uint64_t checked;         /* bytes compared with the pattern */
	pthread_t th;
	bool started;
	double wall0, wall1, cpu_end; /* the thread's own clocks, at start and at its end */
	/* snapshots by the measuring thread: start and end of the measured interval */
	uint64_t b0, b1;
	double cpu0, cpu1;
};

static double thread_cpu(clockid_t c)
{
	struct timespec ts;
	return clock_gettime(c, &ts) == 0 ? (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 : -1;
}

static void check_read(struct stream *s, size_t off, size_t n)
{
	size_t k = n < T_CHECK_BYTES ? n : T_CHECK_BYTES, first = s->msg - off;
	first = first < k ? first : k;
	if (memcmp(s->buf, s->pat + off, first) != 0 ||
	    memcmp(s->buf + first, s->pat, k - first) != 0)
		s->bad_data = true;
	s->checked += k;
}

static void *stream_main(void *p)
{
	struct stream *s = p;
	s->wall0 = pr_now();
	size_t off = 0;
	if (s->sender) {
		while (!atomic_load(s->stop)) {
			ssize_t n = send(s->fd, s->pat + off, s->msg - off, MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				s->err = n < 0 ? errno : EPIPE;
				break;
			}
			off = (off + (size_t)n) % s->msg;
			atomic_fetch_add(&s->bytes, (unsigned long long)n);
		}
		if (!s->err)
			shutdown(s->fd, SHUT_WR);
	} else {
		for (;;) {
			ssize_t n = recv(s->fd, s->buf, T_READ_BYTES, 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				s->eof = n == 0;
				s->err = n < 0 ? errno : 0;
				break;
			}
			check_read(s, off, (size_t)n);
			off = (off + (size_t)n) % s->msg;
			atomic_fetch_add(&s->bytes, (unsigned long long)n);
		}
	}
	s->cpu_end = thread_cpu(CLOCK_THREAD_CPUTIME_ID);
	s->wall1 = pr_now();
	atomic_store(&s->done, true);
	return NULL;
}

/* One direction's streams: the sockets, the threads, the counters. */
struct trun {
	struct stream *s;
	unsigned n;
	atomic_bool stop;
};

static uint64_t pattern_seed(unsigned dir, unsigned idx)
{
	return 7000u + dir * 100u + idx;
}

static int trun_start(struct trun *t, bool sender, unsigned dir, size_t msg, char *err,
		      size_t errlen)
{
	for (unsigned i = 0; i < t->n; i++) {
		struct stream *s = &t->s[i];
		s->idx = i;
		s->sender = sender;
		s->msg = msg;
		s->stop = &t->stop;
		s->pat = malloc(msg);
		s->buf = sender ? NULL : malloc(T_READ_BYTES);
		if (!s->pat || (!sender && !s->buf)) {
			snprintf(err, errlen, "out of memory for stream buffers");
			return -ENOMEM;
		}
		pr_pattern_fill(s->pat, msg, pattern_seed(dir, i));
	}
	for (unsigned i = 0; i < t->n; i++) {
		int rc = pthread_create(&t->s[i].th, NULL, stream_main, &t->s[i]);
		if (rc) {
			snprintf(err, errlen, "pthread_create: %s", strerror(rc));
			return -rc;
		}
		t->s[i].started = true;
	}
	return 0;
}

/* Stops the senders (receivers end at the peer's EOF or a timeout), joins, closes. */
static void trun_end(struct trun *t)
{
	atomic_store(&t->stop, true);
	for (unsigned i = 0; i < t->n; i++)
		if (t->s[i].started)
			pthread_join(t->s[i].th, NULL);
	for (unsigned i = 0; i < t->n; i++) {
		t->s[i].started = false;
		free(t->s[i].pat);
		free(t->s[i].buf);
		t->s[i].pat = t->s[i].buf = NULL;
	}
}

static void trun_close(struct trun *t)
{
	for (unsigned i = 0; t->s && i < t->n; i++)
		if (t->s[i].fd >= 0)
			close(t->s[i].fd);
	free(t->s);
	t->s = NULL;
}

static int trun_alloc(struct trun *t, unsigned n)
{
	t->n = n;
	atomic_store(&t->stop, false);
	t->s = calloc(n, sizeof(*t->s));
	for (unsigned i = 0; t->s && i < n; i++)
		t->s[i].fd = -1;
	return t->s ? 0 : -ENOMEM;
}

static void trun_snapshot(struct trun *t, bool end)
{
	for (unsigned i = 0; i < t->n; i++) {
		struct stream *s = &t->s[i];
		clockid_t c;
		double cpu = pthread_getcpuclockid(s->th, &c) == 0 ? thread_cpu(c) : -1;
		uint64_t b = atomic_load(&s->bytes);
		if (end) {
			s->b1 = b;
			s->cpu1 = cpu;
		} else {
			s->b0 = b;
			s->cpu0 = cpu;
		}
	}
}

static uint64_t trun_bytes(struct trun *t)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < t->n; i++)
		sum += atomic_load(&t->s[i].bytes);
	return sum;
}

/* The first stream that ended before it was told to: its reason. */
static const char *trun_failed(struct trun *t, struct hwc_arena *a)
{
	for (unsigned i = 0; i < t->n; i++) {
		struct stream *s = &t->s[i];
		if (!atomic_load(&s->done))
			continue;
		if (s->err)
			return hwc_arena_printf(a, "stream %u: %s: %s", i, s->sender ? "send" : "receive",
						s->err == EAGAIN ? "stalled past the timeout"
								 : strerror(s->err));
		if (atomic_load(&t->stop))
			continue; /* told to stop: the end is normal */
		if (s->eof)
			return hwc_arena_printf(a, "stream %u: the peer closed it mid-run", i);
		if (s->sender)
			return hwc_arena_printf(a, "stream %u: stopped early", i);
	}
	return NULL;
}

static int64_t sock_retrans(int fd)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) < 0)
		return -1;
	return ti.tcpi_total_retrans;
}

/* Whole-run figures of one side: retransmits of its senders, its busiest thread, data check. */
struct side_sum {
	int64_t retrans;       /* -1 unknown */
	double busy;           /* -1 unknown */
	uint64_t bytes, checked;
	bool bad_data;
};

static void trun_sum(struct trun *t, struct side_sum *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->busy = -1;
	for (unsigned i = 0; i < t->n; i++) {
		struct stream *s = &t->s[i];
		int64_t r = sock_retrans(s->fd);
		ss->retrans = r < 0 || ss->retrans < 0 ? -1 : ss->retrans + r;
		double w = s->wall1 - s->wall0;
		if (s->cpu_end >= 0 && w > 0 && s->cpu_end / w > ss->busy)
			ss->busy = s->cpu_end / w;
		ss->bytes += atomic_load(&s->bytes);
		ss->checked += s->checked;
		ss->bad_data = ss->bad_data || s->bad_data;
	}
}

/* On a failure: wake every stream (receivers too), then join. */
static void trun_abort(struct trun *t)
{
	atomic_store(&t->stop, true);
	for (unsigned i = 0; i < t->n; i++)
		if (t->s[i].fd >= 0)
			shutdown(t->s[i].fd, SHUT_RDWR);
	trun_end(t);
}

/* ---- results ------------------------------------------------------------------------------ */

struct tslot;

struct tsess {
	struct hwc_env *e;
	const struct hwc_probe_opts *o;
	struct hwc_facts *f;
	struct hwc_arena *a;
	int ctrl;
	uint64_t cookie;
	struct pr_target t;
	const char *peer;
	const char *peer_port; /* client: the server's netdev, from its ack */
	unsigned n;     /* streams */
	struct tslot *slot; /* server: where the acceptor puts this session's streams */
};

/* A netdev name (IFNAMSIZ, 16 bytes) as two control-message numbers, first byte highest. */
static void name_pack(const char *name, uint64_t *x, uint64_t *y)
{
	unsigned char b[16] = {0};
	memcpy(b, name, strnlen(name, 15));
	*x = *y = 0;
	for (int i = 0; i < 8; i++) {
		*x = *x << 8 | b[i];
		*y = *y << 8 | b[8 + i];
	}
}

static const char *name_unpack(struct hwc_arena *a, uint64_t x, uint64_t y)
{
	char b[17] = {0};
	for (int i = 0; i < 8; i++) {
		b[i] = (char)(x >> (56 - 8 * i));
		b[8 + i] = (char)(y >> (56 - 8 * i));
	}
	for (int i = 0; b[i]; i++)
		if (b[i] < 0x21 || b[i] > 0x7e)
			b[i] = '?';
	return b[0] ? hwc_arena_strdup(a, b) : NULL;
}

static void tcp_result_init(struct tsess *s, struct hwc_probe_result *r, const char *mode,
			    const char *direction)
{
	struct hwc_arena *a = s->a;
	pr_result_init(a, r, &s->t, s->o, HWC_PROBE_WRITE, mode);
	HWC_SET(r->op, "tcp");
	HWC_SET(r->direction, direction);
	if (s->peer)
		HWC_SET(r->peer, hwc_arena_strdup(a, s->peer));
	HWC_FAIL(r->rdma_device, HWC_ST_UNSUPPORTED, 0, "TCP: no RDMA device");
	HWC_FAIL(r->port, HWC_ST_UNSUPPORTED, 0, "TCP: no RDMA port");
	const char *nq = "TCP: no queue pairs";
	HWC_FAIL(r->qps, HWC_ST_UNSUPPORTED, 0, nq);
	HWC_FAIL(r->depth, HWC_ST_UNSUPPORTED, 0, nq);
	HWC_FAIL(r->gid_index, HWC_ST_UNSUPPORTED, 0, nq);
	HWC_SET(r->msg_bytes, T_WRITE_BYTES);
	if (!s->t.netdev)
		HWC_FAIL(r->netdev, HWC_ST_ABSENT, 0, "no netdev holds the connection's local address");
	if (!s->t.bdf)
		HWC_FAIL(r->bdf, HWC_ST_ABSENT, 0,
			 s->t.netdev ? hwc_arena_printf(a, "%s has no PCI function (a virtual device)",
							s->t.netdev)
				     : "no netdev, so no PCI function");
	const char *nm = "not measured: the run did not complete";
	pr_result_tcp_unknown(r, HWC_ST_ABSENT, nm);
	if (s->peer_port)
		HWC_SET(r->peer_port, s->peer_port);
	if (s->t.netdev) {
		struct hwc_fi64 mtu = {0};
		pr_env_lock();
		int rc = hwc_read_i64(s->e, hwc_arena_printf(a, "sys/class/net/%s/mtu", s->t.netdev), a,
				      &mtu);
		pr_env_unlock();
		if (rc == 0 && hwc_ok(mtu))
			HWC_SET(r->mtu_bytes, mtu.v);
	}
}

/* The ceiling of a TCP run: the netdev's link speed (sysfs, Mb/s) and the PCIe path. */
static void tcp_ceiling(struct tsess *s, struct hwc_probe_result *r)
{
	struct hwc_arena *a = s->a;
	pr_ceiling_pcie(s->f, &s->t, r);
	struct hwc_fi64 sp = {0};
	const char *path = hwc_arena_printf(a, "sys/class/net/%s/speed", s->t.netdev);
	pr_env_lock();
	int rc = s->t.netdev ? hwc_read_i64(s->e, path, a, &sp) : -ENOENT;
	pr_env_unlock();
	if (rc == 0 && hwc_ok(sp) && sp.v > 0 && sp.v < 100000000) {
		double pg = (double)sp.v / 1000.0;
		HWC_SET(r->port_gbps, pg);
		if (!r->ceiling_detail.v || (hwc_ok(r->pcie_gbps) && pg < r->pcie_gbps.v))
			r->ceiling_detail.v = hwc_arena_printf(a, "port %s at %lld Mb/s", s->t.netdev,
							       (long long)sp.v);
	} else {
		HWC_FAIL(r->port_gbps, HWC_ST_ABSENT, 0,
			 s->t.netdev ? hwc_arena_printf(a, "%s gives no link speed (link down, or a "
							"device without one)", path)
				     : "no netdev holds the connection's local address");
	}
	r->ceiling_detail.m.st = r->ceiling_detail.v ? HWC_ST_OK : HWC_ST_ABSENT;
}

static void fail_result(struct tsess *s, struct hwc_probe_result *r, const char *why)
{
	pr_result_fail(s->a, r, "failed", "%s", why);
	hwc_facts_error(s->f, "probe", s->peer ? s->peer : "tcp", "%s", r->reason.v);
	hwc_probe_explain(s->a, r);
}

/* Summary of one side as control-message fields: a = data (0 bad, 1 ok, 2 not checked there),
 * b = busiest thread in permille (UINT32_MAX unknown), x = bytes, y = retransmits (UINT64_MAX
 * unknown). */
static int send_summary(int ctrl, const struct side_sum *ss, bool receiver)
{
	uint32_t data = !receiver ? 2 : ss->bad_data ? 0 : 1;
	uint32_t busy = ss->busy < 0 ? UINT32_MAX : (uint32_t)(ss->busy * 1000 + 0.5);
	uint64_t re = ss->retrans < 0 ? UINT64_MAX : (uint64_t)ss->retrans;
	return send_msg(ctrl, M_SUMMARY, data, busy, ss->bytes, re);
}

/* ---- client ------------------------------------------------------------------------------- */

struct tmeas {
	double measured_s;
	bool stable;
	struct rusage ru0, ru1;
};

/* The peer must stay silent during a run: anything readable on the control connection (most
 * often its close) ends the run. */
static const char *ctrl_broken(struct tsess *s, double t0)
{
	struct pollfd p = {.fd = s->ctrl, .events = POLLIN};
	if (poll(&p, 1, 0) <= 0)
		return NULL;
	struct tmsg m;
	int rc = recv_msg(s->ctrl, 0, &m);
	return hwc_arena_printf(s->a, "the peer went away mid-run (%s after %.1f s)",
				rc == 0 ? "an unexpected message" : msg_err(rc), pr_now() - t0);
}

/* Warm-up, then the measured interval until steady or --probe-duration. */
static int tcp_measure(struct tsess *s, struct trun *t, struct pr_tick_ctx *tc, struct tmeas *m,
		       const char **why)
{
	const struct hwc_probe_opts *o = s->o;
	double t0 = pr_now(), tm = 0, tick = t0, last = t0;
	uint64_t lastb = 0, bm = 0;
	struct pr_steady st;
	bool measuring = false;
	for (;;) {
		struct timespec ts = {0, 25 * 1000 * 1000}; /* 4 looks per 100 ms slice */
		nanosleep(&ts, NULL);
		double now = pr_now();
		uint64_t b = trun_bytes(t);
		if (b != lastb) {
			lastb = b;
			last = now;
		}
		if ((*why = trun_failed(t, s->a)) || (*why = ctrl_broken(s, t0)))
			return -EIO;
		if (now - last > o->timeout_s) {
			*why = hwc_arena_printf(s->a, "no payload moved for %.0f s", o->timeout_s);
			return -EIO;
		}
		if (!measuring && now - t0 >= o->warmup_s) {
			measuring = true;
			tm = now;
			bm = b;
			trun_snapshot(t, false);
			getrusage(RUSAGE_SELF, &m->ru0);
			pr_steady_start(&st, now, b);
		}
		if (measuring) {
			/* --all-ports: the whole duration, so that runs together overlap */
			m->stable = pr_steady_update(&st, now, b) && !o->all_ports;
			if (m->stable || now - tm >= o->duration_s) {
				trun_snapshot(t, true);
				getrusage(RUSAGE_SELF, &m->ru1);
				m->measured_s = now - tm;
				return 0;
			}
		}
		if (now - tick >= 0.25) {
			tick = now;
			pr_tick(tc, now - t0,
				measuring && now > tm ? (double)(b - bm) * 8 / (now - tm) / 1e9 : -1);
		}
	}
}

static double tv_s(const struct timeval *a, const struct timeval *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_usec - a->tv_usec) / 1e6;
}

static void client_streams(struct tsess *s, struct hwc_probe_result *r, struct trun *t,
			   const struct tmeas *m, bool sender)
{
	double busy = -1;
	int64_t re_sum = 0;
	for (unsigned i = 0; i < t->n; i++) {
		const struct stream *st = &t->s[i];
		struct hwc_probe_stream *ps = HWC_VEC_PUSH(s->a, &r->per_stream);
		if (!ps)
			return;
		HWC_SET(ps->bytes, (int64_t)(st->b1 - st->b0));
		HWC_SET(ps->gbps, (double)(st->b1 - st->b0) * 8 / m->measured_s / 1e9);
		int64_t re = sender ? sock_retrans(st->fd) : -1;
		if (re >= 0)
			HWC_SET(ps->retransmits, re);
		else
			HWC_FAIL(ps->retransmits, HWC_ST_ABSENT, 0,
				 sender ? "TCP_INFO unreadable" : "the peer sent: see retransmits");
		re_sum = re < 0 || re_sum < 0 ? -1 : re_sum + re;
		if (st->cpu0 >= 0 && st->cpu1 >= st->cpu0) {
			double b = (st->cpu1 - st->cpu0) / m->measured_s;
			HWC_SET(ps->cpu_busy, b);
			busy = b > busy ? b : busy;
		} else {
			HWC_FAIL(ps->cpu_busy, HWC_ST_UNREADABLE, 0, "the thread's CPU clock");
		}
	}
	if (busy >= 0)
		HWC_SET(r->cpu_busy, busy);
	else
		HWC_FAIL(r->cpu_busy, HWC_ST_UNREADABLE, 0, "no stream thread's CPU clock");
	if (sender && re_sum >= 0)
		HWC_SET(r->retransmits, re_sum);
}

/* The client's numbers: its own measurement and the server's summary. */
static void client_fill(struct tsess *s, struct hwc_probe_result *r, struct trun *t,
			const struct tmeas *m, const struct tmsg *sum, bool sender)
{
	uint64_t bytes = 0;
	for (unsigned i = 0; i < t->n; i++)
		bytes += t->s[i].b1 - t->s[i].b0;
	HWC_SET(r->streams, t->n);
	HWC_SET(r->bytes, (int64_t)bytes);
	HWC_SET(r->duration_s, m->measured_s);
	HWC_SET(r->gbps, (double)bytes * 8 / m->measured_s / 1e9);
	HWC_SET(r->stopped, m->stable ? "stable" : "duration");
	const char *bs = "TCP is a byte stream: see bytes";
	HWC_FAIL(r->messages, HWC_ST_UNSUPPORTED, 0, bs);
	HWC_FAIL(r->msgs_per_s, HWC_ST_UNSUPPORTED, 0, bs);
	HWC_SET(r->cpu_user_s, tv_s(&m->ru0.ru_utime, &m->ru1.ru_utime));
	HWC_SET(r->cpu_sys_s, tv_s(&m->ru0.ru_stime, &m->ru1.ru_stime));
	client_streams(s, r, t, m, sender);
	if (!sender) {
		if (sum->y != UINT64_MAX)
			HWC_SET(r->retransmits, (int64_t)sum->y);
		else
			HWC_FAIL(r->retransmits, HWC_ST_UNREADABLE, 0, "the peer could not read TCP_INFO");
	}
	if (sum->b != UINT32_MAX)
		HWC_SET(r->peer_cpu_busy, sum->b / 1000.0);
	else
		HWC_FAIL(r->peer_cpu_busy, HWC_ST_UNREADABLE, 0, "the peer has no thread CPU clock");
	struct side_sum here;
	trun_sum(t, &here);
	bool ok = sender ? sum->a == 1 : !here.bad_data;
	bool same = here.bytes == sum->x;
	HWC_SET(r->data_ok, ok && same);
	const char *who = sender ? "the server" : "this host";
	const char *cmp = sender ? "" : hwc_arena_printf(s->a, " (%llu bytes compared)",
							  (unsigned long long)here.checked);
	r->data_check.v = hwc_arena_printf(
		s->a, "%s compared the first %d bytes of every read with each stream's pattern%s; "
		"bytes sent %llu, received %llu%s", who, T_CHECK_BYTES, cmp,
		(unsigned long long)(sender ? here.bytes : sum->x),
		(unsigned long long)(sender ? sum->x : here.bytes), same ? "" : ": they DIFFER");
	r->data_check.m = (struct hwc_fmeta){.st = HWC_ST_OK};
}

/* Opens the streams of one direction and waits for the server's READY. */
static const char *client_open(struct tsess *s, struct trun *t, unsigned dir,
			       const struct addrinfo *ai, const struct addrinfo *src)
{
	char err[256] = "";
	uint64_t max_ms = (uint64_t)((s->o->warmup_s + s->o->duration_s) * 1000);
	int rc = send_msg(s->ctrl, M_START, dir, s->n, T_WRITE_BYTES, max_ms);
	if (rc < 0)
		return hwc_arena_printf(s->a, "control connection: %s", msg_err(rc));
	for (unsigned i = 0; i < s->n; i++) {
		t->s[i].fd = connect_to(ai, src, s->peer, s->o->timeout_s, err, sizeof(err));
		if (t->s[i].fd < 0)
			return hwc_arena_printf(s->a, "stream %u: %s", i, err);
		rc = send_msg(t->s[i].fd, M_DATA, i, dir, s->cookie, 0);
		if (rc < 0)
			return hwc_arena_printf(s->a, "stream %u: %s", i, msg_err(rc));
	}
	struct tmsg m;
	rc = recv_msg(s->ctrl, s->o->timeout_s, &m);
	if (rc < 0 || m.type != M_READY)
		return hwc_arena_printf(s->a, "the server did not take the %u streams: %s", s->n,
					rc < 0 ? msg_err(rc) : "unexpected message");
	return NULL;
}

/* One direction's n streams, the thread bound to the port's NUMA node (pr_unbind(b) undoes it)
 * and its sampler: none when ports run together (as the loopback --all-ports). -1, the result
 * failed, without memory. */
static int dir_begin(struct tsess *s, struct hwc_probe_result *r, unsigned n, struct trun *t,
		     struct pr_binding *b, struct pr_sampler **smp)
{
	if (trun_alloc(t, n) < 0) {
		fail_result(s, r, "out of memory");
		return -1;
	}
	pr_bind(s->e, s->a, s->t.numa_node, b, r);
	*smp = s->o->together > 1 ? NULL : pr_sampler_start(s->e, s->a, &s->t);
	return 0;
}

/* One direction: open, run, stop, collect the server's summary. Returns -1 when the session
 * cannot go on. */
static int client_dir(struct tsess *s, unsigned dir, struct hwc_probe_result *r,
		      const struct addrinfo *ai, const struct addrinfo *src)
{
	struct hwc_arena *a = s->a;
	bool sender = dir == D_TO_PEER;
	tcp_ceiling(s, r);
	struct trun t = {0};
	struct pr_binding b;
	struct pr_tick_ctx tc = {.o = s->o, .label = hwc_arena_printf(a, "probe tcp %s %s %s",
		s->t.dev, sender ? "->" : "<-", s->peer)};
	if (dir_begin(s, r, s->n, &t, &b, &tc.s) < 0)
		return -1;
	struct tmeas m = {0};
	struct tmsg sum = {0};
	char err[256] = "";
	const char *why = client_open(s, &t, dir, ai, src);
	if (!why && trun_start(&t, sender, dir, T_WRITE_BYTES, err, sizeof(err)) < 0)
		why = hwc_arena_strdup(a, err);
	if (!why && tcp_measure(s, &t, &tc, &m, &why) == 0) {
		int rc = sender ? 0 : send_msg(s->ctrl, M_STOP, 0, 0, 0, 0);
		trun_end(&t); /* senders shut their side; receivers read to the server's EOF */
		if (!rc)
			rc = recv_msg(s->ctrl, s->o->timeout_s, &sum);
		if (rc < 0 || sum.type != M_SUMMARY)
			why = hwc_arena_printf(a, "no summary from the server: %s",
					       rc < 0 ? msg_err(rc) : "unexpected message");
		else
			why = trun_failed(&t, a); /* after the stop only an error counts */
	}
	trun_abort(&t);
	pr_sampler_finish(tc.s, r);
	pr_unbind(&b);
	if (why)
		fail_result(s, r, hwc_arena_printf(a, "tcp %s %s: %s", sender ? "to" : "from",
						   s->peer, why));
	else {
		client_fill(s, r, &t, &m, &sum, sender);
		hwc_probe_explain(a, r);
	}
	trun_close(&t);
	return why ? -1 : 0;
}

static int resolve(const char *host, const char *port, int family, int flags,
		   struct addrinfo **out)
{
	struct addrinfo h = {.ai_family = family, .ai_socktype = SOCK_STREAM, .ai_flags = flags};
	return getaddrinfo(host, port, &h, out);
}

/* Connects the control connection and says hello; fills s->t from its local address. */
static const char *client_hello(struct tsess *s, const struct addrinfo *ai,
				const struct addrinfo *src)
{
	char err[256] = "";
	s->ctrl = connect_to(ai, src, s->peer, s->o->timeout_s, err, sizeof(err));
	if (s->ctrl < 0)
		return hwc_arena_strdup(s->a, err);
	const char *nd = sock_netdev(s->a, s->ctrl);
	pr_target_netdev(s->e, s->a, nd ? nd : "?", &s->t);
	if (!nd)
		s->t.netdev = NULL;
	unsigned group = s->o->together > 1 ? s->o->together : 1;
	int rc = send_msg(s->ctrl, M_HELLO, T_VERSION, group, s->cookie, s->o->more ? 0 : T_LAST);
	struct tmsg m;
	if (!rc)
		rc = recv_msg(s->ctrl, s->o->timeout_s, &m);
	if (rc < 0 || m.type != M_ACK)
		return hwc_arena_printf(s->a, "%s: %s", s->peer,
					rc < 0 ? msg_err(rc) : "not a hwcheck TCP probe server");
	if (m.a != T_VERSION)
		return hwc_arena_printf(s->a, "%s speaks TCP probe version %u, this hwcheck %u",
					s->peer, m.a, T_VERSION);
	s->peer_port = name_unpack(s->a, m.x, m.y);
	return NULL;
}

/* How many streams: --probe-streams, else from the port rate and the card's local cores. */
static unsigned pick_streams(struct tsess *s)
{
	if (s->o->streams)
		return s->o->streams;
	struct hwc_probe_result tmp;
	memset(&tmp, 0, sizeof(tmp));
	tcp_ceiling(s, &tmp);
	struct pr_binding b;
	pr_bind(s->e, s->a, s->t.numa_node, &b, &tmp);
	cpu_set_t set;
	unsigned cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1;
	pr_unbind(&b);
	return hwc_probe_tcp_default_streams(hwc_ok(tmp.port_gbps) ? tmp.port_gbps.v : 0, cpus);
}

int pr_tcp_client(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		  struct hwc_probe_facts *pf)
{
	struct tsess s = {.e = e, .o = o, .f = f, .a = f->arena, .ctrl = -1, .peer = o->peer};
	s.t = (struct pr_target){.dev = "?", .numa_node = -1};
	s.cookie = ((uint64_t)getpid() << 32) ^ (uint64_t)(pr_now() * 1e6);
	char port[8];
	snprintf(port, sizeof(port), "%u", o->cm_port);
	struct addrinfo *ai = NULL, *src = NULL;
	int gai = resolve(o->peer, port, AF_UNSPEC, 0, &ai);
	const char *bad = o->peer;
	if (!gai && o->source) {
		gai = resolve(o->source, NULL, ai->ai_family, AI_NUMERICHOST, &src);
		bad = o->source;
	}
	const char *why = gai ? hwc_arena_printf(s.a, "cannot resolve %s: %s", bad, gai_strerror(gai))
			      : client_hello(&s, ai, src);
	if (!why)
		s.n = pick_streams(&s);
	static const unsigned dirs[] = {D_TO_PEER, D_FROM_PEER};
	for (size_t i = 0; i < 2; i++) {
		struct hwc_probe_result *r = HWC_VEC_PUSH(s.a, &pf->results);
		if (!r)
			break;
		tcp_result_init(&s, r, "client", dirs[i] == D_TO_PEER ? "to_peer" : "from_peer");
		if (why) {
			fail_result(&s, r, why);
			break; /* the other direction would meet the same */
		}
		if (client_dir(&s, dirs[i], r, ai, src) < 0)
			break;
	}
	if (s.ctrl >= 0) {
		if (!why)
			send_msg(s.ctrl, M_BYE, 0, 0, 0, 0);
		close(s.ctrl);
	}
	if (ai)
		freeaddrinfo(ai);
	if (src)
		freeaddrinfo(src);
	return 0;
}

/* ---- server ------------------------------------------------------------------------------- */

static int listen_on(unsigned port, char *err, size_t errlen)
{
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	bool v6 = fd >= 0;
	if (!v6)
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP); /* no IPv6 here */
	int one = 1, zero = 0;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (v6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
				  .sin6_addr = IN6ADDR_ANY_INIT};
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	if (fd < 0 || (v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6))
			  : bind(fd, (struct sockaddr *)&a4, sizeof(a4))) < 0 ||
	    listen(fd, 64) < 0) {
		int en = errno;
		snprintf(err, errlen, "cannot listen on TCP port %u: %s", port,
			 en == EADDRINUSE ? "the port is in use (another 'hwcheck probe --tcp --server'?)"
					  : strerror(en));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The next connection within timeout_s; its first message in m. */
static int accept_one(int lfd, double timeout_s, double msg_timeout_s, struct tmsg *m,
		      char *peer, size_t peerlen)
{
	struct pollfd p = {.fd = lfd, .events = POLLIN};
	int pr = poll(&p, 1, (int)(timeout_s * 1000));
	if (pr <= 0)
		return pr == 0 ? -ETIMEDOUT : -errno;
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	int fd = accept4(lfd, (struct sockaddr *)&ss, &l, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (peer && getnameinfo((struct sockaddr *)&ss, l, peer, (socklen_t)peerlen, NULL, 0,
				NI_NUMERICHOST) != 0)
		snprintf(peer, peerlen, "?");
	if (peer && strncmp(peer, "::ffff:", 7) == 0 && strchr(peer, '.'))
		memmove(peer, peer + 7, strlen(peer + 7) + 1); /* an IPv4 client of the dual stack */
	set_timeouts(fd, msg_timeout_s);
	int rc = recv_msg(fd, msg_timeout_s, m);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* ---- server: one acceptor, one thread per client session -------------------------------------
 * The acceptor takes every connection: a hello starts a session thread, a stream goes to the
 * session whose cookie it carries. A plain client runs one session (its hello says "last"); a
 * two-host --all-ports client runs one per pair of ports, alone and then together, and ends its
 * run with an END hello. */

#define T_MAX_SESS 32
#define T_BOX 64

struct tsrv;

struct tslot {
	struct tsrv *sv;
	struct hwc_probe_opts o;  /* the server's, with together = the session's group */
	struct hwc_facts tf;      /* the facts with the thread's own arena and errors */
	struct hwc_probe_facts pf;
	struct tsess s;
	struct tmsg hello;
	char peer[NI_MAXHOST];
	int box_fd[T_BOX];        /* streams the acceptor took for this session, not yet claimed */
	struct tmsg box_m[T_BOX];
	unsigned nbox;
	pthread_t th;
	bool finished;            /* under sv->mu */
};

struct tsrv {
	struct hwc_env *e;
	const struct hwc_probe_opts *o;
	struct hwc_facts *f;
	struct hwc_probe_facts *pf;
	int lfd;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct tslot *slot[T_MAX_SESS];
	unsigned sessions, last_done;
	bool end_seen;
	double t_idle;            /* when the server last had no session */
};

/* Claims the client's streams of one direction from the session's box (DATA hello with the
 * session's cookie, routed by the acceptor), within the timeout. */
static const char *server_take(struct tsess *s, struct trun *t, unsigned dir)
{
	struct tslot *sl = s->slot;
	struct tsrv *sv = sl->sv;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)s->o->timeout_s;
	unsigned got = 0;
	pthread_mutex_lock(&sv->mu);
	while (got < t->n) {
		for (unsigned k = 0; k < sl->nbox; k++) {
			const struct tmsg *m = &sl->box_m[k];
			int fd = sl->box_fd[k];
			if (m->b == dir && m->a < t->n && t->s[m->a].fd < 0) {
				t->s[m->a].fd = fd;
				got++;
			} else {
				close(fd); /* a duplicate, or the other direction's: not ours */
			}
		}
		sl->nbox = 0;
		if (got < t->n && pthread_cond_timedwait(&sv->cv, &sv->mu, &until) == ETIMEDOUT &&
		    !sl->nbox)
			break;
	}
	pthread_mutex_unlock(&sv->mu);
	if (got < t->n)
		return hwc_arena_printf(s->a, "%u of %u streams arrived within %.0f s", got, t->n,
					s->o->timeout_s);
	int rc = send_msg(s->ctrl, M_READY, 0, 0, 0, 0);
	return rc < 0 ? hwc_arena_printf(s->a, "control connection: %s", msg_err(rc)) : NULL;
}

/* Runs until the client's STOP (we send) or our receivers' EOF (we receive), ticking the
 * sampler; bounded by the run's length the client announced plus the timeout. */
static const char *server_wait(struct tsess *s, struct trun *t, bool sender, double max_s,
			       struct pr_sampler *smp)
{
	double t0 = pr_now(), limit = max_s + 2 * s->o->timeout_s;
	for (;;) {
		struct pollfd p = {.fd = s->ctrl, .events = POLLIN};
		int pr = poll(&p, 1, 250);
		pr_sampler_tick(smp);
		if (pr > 0) {
			struct tmsg m;
			int rc = recv_msg(s->ctrl, 0, &m);
			if (rc == 0 && m.type == M_STOP && sender)
				return NULL;
			if (rc < 0 || !sender)
				return hwc_arena_printf(s->a, "the client went away mid-run (%s)",
							rc < 0 ? msg_err(rc) : "unexpected message");
		}
		bool all = true;
		for (unsigned i = 0; i < t->n; i++) {
			const struct stream *st = &t->s[i];
			bool done = atomic_load(&st->done);
			all = all && done;
			if (done && st->err && !sender) /* a receiver ends at EOF, not an error */
				return hwc_arena_printf(s->a, "stream %u: receive: %s", i,
							st->err == EAGAIN ? "stalled past the timeout"
									  : strerror(st->err));
		}
		if (all && !sender)
			return NULL;
		const char *f = sender ? trun_failed(t, s->a) : NULL;
		if (f)
			return f;
		if (pr_now() - t0 > limit)
			return hwc_arena_printf(s->a, "the run went on past %.0f s", limit);
	}
}

static void server_fill(struct tsess *s, struct hwc_probe_result *r, struct trun *t, bool sender)
{
	struct side_sum ss;
	trun_sum(t, &ss);
	HWC_SET(r->streams, t->n);
	HWC_SET(r->bytes, (int64_t)ss.bytes);
	struct hwc_fmeta *client[] = {&r->gbps.m, &r->duration_s.m, &r->stopped.m, &r->cpu_user_s.m,
				      &r->cpu_sys_s.m};
	hwc_fmeta_set_all(client, HWC_ARRAY_SIZE(client), HWC_ST_ABSENT, "the client measures the rate");
	HWC_FAIL(r->peer_cpu_busy, HWC_ST_ABSENT, 0, "in the client's result");
	const char *bs = "TCP is a byte stream: see bytes";
	HWC_FAIL(r->messages, HWC_ST_UNSUPPORTED, 0, bs);
	HWC_FAIL(r->msgs_per_s, HWC_ST_UNSUPPORTED, 0, bs);
	if (ss.busy >= 0)
		HWC_SET(r->cpu_busy, ss.busy);
	else
		HWC_FAIL(r->cpu_busy, HWC_ST_UNREADABLE, 0, "no stream thread's CPU clock");
	if (sender && ss.retrans >= 0)
		HWC_SET(r->retransmits, ss.retrans);
	else
		HWC_FAIL(r->retransmits, HWC_ST_ABSENT, 0,
			 sender ? "TCP_INFO unreadable" : "the client sent: its result has them");
	if (sender) {
		HWC_FAIL(r->data_ok, HWC_ST_ABSENT, 0, "checked by the client");
		HWC_FAIL(r->data_check, HWC_ST_ABSENT, 0, "checked by the client");
	} else {
		HWC_SET(r->data_ok, !ss.bad_data);
		r->data_check.v = hwc_arena_printf(
			s->a, "the first %d bytes of every read compared with each stream's pattern "
			"(%llu bytes compared, %llu received)", T_CHECK_BYTES,
			(unsigned long long)ss.checked, (unsigned long long)ss.bytes);
		r->data_check.m = (struct hwc_fmeta){.st = HWC_ST_OK};
	}
}

/* One direction the client asked for (m: its START). -1: the session cannot go on. */
static int server_dir(struct tsess *s, const struct tmsg *m, struct hwc_probe_result *r)
{
	struct hwc_arena *a = s->a;
	unsigned dir = m->a;
	bool sender = dir == D_FROM_PEER;
	tcp_result_init(s, r, "server", sender ? "to_peer" : "from_peer");
	tcp_ceiling(s, r);
	if ((dir != D_TO_PEER && dir != D_FROM_PEER) || m->b < 1 || m->b > 64 ||
	    m->x != T_WRITE_BYTES) {
		fail_result(s, r, hwc_arena_printf(a, "the client asked for direction %u, %u streams "
						   "of %llu-byte writes: not supported", dir, m->b,
						   (unsigned long long)m->x));
		return -1;
	}
	struct trun t = {0};
	struct pr_binding b;
	struct pr_sampler *smp;
	if (dir_begin(s, r, m->b, &t, &b, &smp) < 0)
		return -1;
	char err[256] = "";
	const char *why = server_take(s, &t, dir);
	if (!why && trun_start(&t, sender, dir, T_WRITE_BYTES, err, sizeof(err)) < 0)
		why = hwc_arena_strdup(a, err);
	if (!why)
		why = server_wait(s, &t, sender, (double)m->y / 1000.0, smp);
	if (!why) {
		trun_end(&t); /* senders shut their side: the client reads to our EOF */
		struct side_sum ss;
		trun_sum(&t, &ss);
		int rc = send_summary(s->ctrl, &ss, !sender);
		if (rc < 0)
			why = hwc_arena_printf(a, "sending the summary: %s", msg_err(rc));
	}
	trun_abort(&t);
	pr_sampler_finish(smp, r);
	pr_unbind(&b);
	if (why) {
		fail_result(s, r, hwc_arena_printf(a, "tcp %s %s: %s", sender ? "to" : "from",
						   s->peer, why));
	} else {
		server_fill(s, r, &t, sender);
		hwc_probe_explain(a, r);
	}
	trun_close(&t);
	return why ? -1 : 0;
}

/* The session's first words: where it landed here, the ack naming that netdev. */
static const char *session_hello(struct tsess *s, const struct tmsg *m)
{
	const char *nd = sock_netdev(s->a, s->ctrl);
	pr_target_netdev(s->e, s->a, nd ? nd : "?", &s->t);
	if (!nd)
		s->t.netdev = NULL;
	uint64_t x, y;
	name_pack(nd ? nd : "", &x, &y);
	int rc = send_msg(s->ctrl, M_ACK, T_VERSION, 0, x, y);
	if (m->a != T_VERSION)
		return hwc_arena_printf(s->a, "the client %s speaks TCP probe version %u, this "
					"hwcheck %u", s->peer, m->a, T_VERSION);
	return rc < 0 ? hwc_arena_printf(s->a, "answering %s: %s", s->peer, msg_err(rc)) : NULL;
}

/* A session's thread: the directions the client asks for, until its BYE. */
static void *session_main(void *p)
{
	struct tslot *sl = p;
	struct tsess *s = &sl->s;
	const char *why = session_hello(s, &sl->hello);
	unsigned ran = 0;
	while (!why) {
		struct tmsg m;
		int rc = recv_msg(s->ctrl, s->o->timeout_s, &m);
		if (rc == 0 && m.type == M_BYE)
			break;
		if (rc < 0 || m.type != M_START) {
			why = hwc_arena_printf(s->a, "the client %s went silent or away after %u "
					       "direction(s): %s", s->peer, ran,
					       rc < 0 ? msg_err(rc) : "unexpected message");
			break;
		}
		struct hwc_probe_result *r = HWC_VEC_PUSH(s->a, &sl->pf.results);
		if (!r || server_dir(s, &m, r) < 0)
			break;
		ran++;
	}
	if (why) {
		struct hwc_probe_result *r = HWC_VEC_PUSH(s->a, &sl->pf.results);
		if (r) {
			tcp_result_init(s, r, "server", "from_peer");
			fail_result(s, r, why);
		}
	}
	close(s->ctrl);
	pthread_mutex_lock(&sl->sv->mu);
	sl->finished = true;
	pthread_mutex_unlock(&sl->sv->mu);
	return NULL;
}

/* A client's hello on fd: a session thread, or (T_END) the end of the client's run. */
static void session_start(struct tsrv *sv, int fd, const struct tmsg *m, const char *peer)
{
	if (m->y & T_END) {
		send_msg(fd, M_ACK, T_VERSION, 0, 0, 0);
		close(fd);
		sv->end_seen = true;
		return;
	}
	unsigned i = 0;
	while (i < T_MAX_SESS && sv->slot[i])
		i++;
	struct tslot *sl = i < T_MAX_SESS ? calloc(1, sizeof(*sl)) : NULL;
	struct hwc_arena *a = sl ? hwc_arena_new() : NULL;
	if (!a) {
		hwc_facts_error(sv->f, "probe", peer, "cannot serve another session (%u at once)",
				T_MAX_SESS);
		free(sl);
		close(fd);
		return;
	}
	sl->sv = sv;
	sl->o = *sv->o;
	sl->o.together = m->b;
	sl->tf = *sv->f;
	sl->tf.arena = a;
	memset(&sl->tf.errors, 0, sizeof(sl->tf.errors));
	sl->hello = *m;
	snprintf(sl->peer, sizeof(sl->peer), "%s", peer);
	sl->s = (struct tsess){.e = sv->e, .o = &sl->o, .f = &sl->tf, .a = a, .ctrl = fd,
			       .cookie = m->x, .peer = sl->peer, .slot = sl};
	sl->s.t = (struct pr_target){.dev = "?", .numa_node = -1};
	int rc = pthread_create(&sl->th, NULL, session_main, sl);
	if (rc) {
		hwc_facts_error(sv->f, "probe", peer, "cannot start a thread: %s", strerror(rc));
		hwc_arena_free(a);
		free(sl);
		close(fd);
		return;
	}
	sv->slot[i] = sl;
	sv->sessions++;
}

/* A stream's first words: into the box of the session with its cookie; a stranger is closed. */
static void stream_route(struct tsrv *sv, int fd, const struct tmsg *m)
{
	pthread_mutex_lock(&sv->mu);
	struct tslot *to = NULL;
	for (unsigned i = 0; i < T_MAX_SESS && !to; i++)
		if (sv->slot[i] && !sv->slot[i]->finished && sv->slot[i]->s.cookie == m->x)
			to = sv->slot[i];
	if (to && to->nbox < T_BOX) {
		to->box_fd[to->nbox] = fd;
		to->box_m[to->nbox++] = *m;
		pthread_cond_broadcast(&sv->cv);
	} else {
		close(fd);
	}
	pthread_mutex_unlock(&sv->mu);
}

/* Joins the finished sessions and moves their results and errors into the server's facts.
 * Returns how many still run. */
static unsigned sessions_reap(struct tsrv *sv)
{
	unsigned running = 0;
	for (unsigned i = 0; i < T_MAX_SESS; i++) {
		struct tslot *sl = sv->slot[i];
		if (!sl)
			continue;
		pthread_mutex_lock(&sv->mu);
		bool fin = sl->finished;
		pthread_mutex_unlock(&sv->mu);
		if (!fin) {
			running++;
			continue;
		}
		pthread_join(sl->th, NULL);
		for (size_t k = 0; k < sl->pf.results.n; k++) {
			struct hwc_probe_result *r = HWC_VEC_PUSH(sv->f->arena, &sv->pf->results);
			if (!r)
				break;
			*r = sl->pf.results.items[k];
			pr_result_persist(sv->f->arena, r);
		}
		for (size_t k = 0; k < sl->tf.errors.n; k++) {
			const struct hwc_diag *d = &sl->tf.errors.items[k];
			hwc_facts_error(sv->f, d->source, d->subject, "%s", d->message);
		}
		sv->last_done += (sl->hello.y & T_LAST) != 0;
		for (unsigned k = 0; k < sl->nbox; k++)
			close(sl->box_fd[k]);
		hwc_arena_free(sl->s.a);
		free(sl);
		sv->slot[i] = NULL;
		sv->t_idle = pr_now();
	}
	return running;
}

/* Nothing runs: whether the server is done (the client's last session, or its END), and
 * otherwise whether it waited too long for the next session (then the reason). */
static bool server_done(struct tsrv *sv, double wait_first, const char **why)
{
	if (sv->last_done || sv->end_seen)
		return true;
	double idle = pr_now() - sv->t_idle;
	if (!sv->sessions && idle > wait_first)
		*why = hwc_arena_printf(sv->f->arena, "no client came within %.0f s", wait_first);
	else if (sv->sessions && idle > sv->o->timeout_s)
		*why = hwc_arena_printf(sv->f->arena, "the client went silent for %.0f s before "
					"its last session", sv->o->timeout_s);
	return *why != NULL;
}

/* The acceptor: until the client's run is over, or it gave up waiting. */
static const char *server_accept_loop(struct tsrv *sv, double wait_first)
{
	const char *why = NULL;
	sv->t_idle = pr_now();
	for (;;) {
		if (!sessions_reap(sv) && server_done(sv, wait_first, &why))
			return why;
		struct tmsg m;
		char peer[NI_MAXHOST];
		int fd = accept_one(sv->lfd, 0.1, sv->o->timeout_s, &m, peer, sizeof(peer));
		if (fd < 0)
			continue;
		if (m.type == M_HELLO)
			session_start(sv, fd, &m, peer);
		else if (m.type == M_DATA)
			stream_route(sv, fd, &m);
		else
			close(fd); /* a stranger */
	}
}

int pr_tcp_server(struct hwc_env *e, const struct hwc_probe_opts *o, struct hwc_facts *f,
		  struct hwc_probe_facts *pf)
{
	struct tsrv sv = {.e = e, .o = o, .f = f, .pf = pf};
	pthread_mutex_init(&sv.mu, NULL);
	pthread_cond_init(&sv.cv, NULL);
	char err[256] = "";
	/* The client may take a while to be started; after that, silence means it is gone. */
	double wait_first = o->timeout_s * 6;
	unsigned left = hwc_env_time_left_ms(e); /* --timeout bounds the wait too */
	if (left != UINT32_MAX && left / 1000.0 < wait_first)
		wait_first = left / 1000.0;
	sv.lfd = listen_on(o->cm_port, err, sizeof(err));
	const char *why = sv.lfd < 0 ? hwc_arena_strdup(f->arena, err)
				     : server_accept_loop(&sv, wait_first);
	if (why) {
		struct tsess s = {.e = e, .o = o, .f = f, .a = f->arena, .ctrl = -1};
		s.t = (struct pr_target){.dev = "?", .numa_node = -1};
		struct hwc_probe_result *r = HWC_VEC_PUSH(f->arena, &pf->results);
		if (r) {
			tcp_result_init(&s, r, "server", "from_peer");
			fail_result(&s, r, why);
		}
	}
	if (sv.lfd >= 0)
		close(sv.lfd);
	pthread_cond_destroy(&sv.cv);
	pthread_mutex_destroy(&sv.mu);
	return 0;
}

/* Tells the server at peer that this client's run is over (two-host --all-ports). */
void pr_tcp_end(const struct hwc_probe_opts *o, const char *peer)
{
	char port[8], err[256];
	snprintf(port, sizeof(port), "%u", o->cm_port);
	struct addrinfo *ai = NULL;
	if (resolve(peer, port, AF_UNSPEC, 0, &ai) != 0)
		return;
	int fd = connect_to(ai, NULL, peer, o->timeout_s, err, sizeof(err));
	freeaddrinfo(ai);
	if (fd < 0)
		return;
	struct tmsg m;
	if (send_msg(fd, M_HELLO, T_VERSION, 1, 0, T_END) == 0)
		recv_msg(fd, o->timeout_s, &m);
	close(fd);
}
