/* SPDX-License-Identifier: MIT */
/* hwcheck: entry point, option parsing and command dispatch. */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/output.h"
#include "core/util.h"

static const char usage_text[] =
	"Usage: hwcheck [OPTIONS] [COMMAND [ARGS]]\n"
	"Inspect NVIDIA/Mellanox ConnectX adapters and the host around them for bottlenecks.\n"
	"\n"
	"Commands:\n"
	"  check              collect facts, run the rules, report findings (default)\n"
	"  facts              print the collected facts\n"
	"  list               inventory of the ConnectX cards, one row per function: BDF,\n"
	"                     product, PSID, firmware, NUMA node, netdevs, RDMA devices, ports\n"
	"  snapshot -o FILE   capture every file and command output read into a tar that\n"
	"                     replays with --root (untar it first)\n"
	"  rules list         list the rules\n"
	"  rules explain ID   explain one rule\n"
	"  version            print the version\n"
	"  diff BASE [CUR]    what changed since a baseline (snapshot tar or directory,\n"
	"                     facts or report JSON); CUR defaults to this machine;\n"
	"                     exit 1 when something regressed\n"
	"  merge REPORT...    many hosts' reports in one table: findings, outlier cards,\n"
	"                     firmware versions\n"
	"  fw-plan            before a firmware change, per card: the image (--fw-image) against\n"
	"                     the card, the settings a reset to defaults would undo, what is\n"
	"                     pending, the reset the card needs; exit 1 on a firmware finding\n"
	"  probe              RDMA bandwidth probes per port against the ceiling (docs/probe.md):\n"
	"                     loopback by default; --server, or --client HOST, for two hosts;\n"
	"                     --tcp: TCP streams both ways between two hosts, like iperf3\n"
	"\n"
	"Options:\n"
	"  --json             machine-readable output (the versioned report schema)\n"
	"  --root DIR         read the machine under DIR instead of / (also HWCHECK_ROOT);\n"
	"                     external commands are then replayed from DIR/hwcheck/commands\n"
	"  --facts FILE       run the rules on a saved facts or report file, off the machine\n"
	"  --profile FILE     site policy (JSON): thresholds, expectations, waivers\n"
	"  --fail-on SEV      exit 1 on findings at or above info|unknown|warn|error (default\n"
	"                     warn; unknown also fails when a rule could not decide)\n"
	"  -d, --device DEV   only this BDF, netdev or RDMA device\n"
	"  --pci-dump FILE    read PCI devices from an 'lspci -xxxx' dump instead of sysfs;\n"
	"                     alone (no --root) the dump is the machine: its cards are judged\n"
	"  -o, --output FILE  write the output (text or JSON) to FILE (atomically) instead of\n"
	"                     stdout; snapshot: the tar\n"
	"  --timeout SEC      bound the whole run (default: each tool has its own, and a run\n"
	"                     that blocks is stopped after 3600 s)\n"
	"  --cmd-timeout SEC  timeout of each external command (default 10; mstconfig's query\n"
	"                     of every parameter 30, its one public time being 13.3 s)\n"
	"  --watch SEC        check, facts, snapshot: after the collection read the port\n"
	"                     counters (IB counters, ethtool -S, carrier changes) twice, SEC\n"
	"                     seconds apart (1..3600), and judge their deltas over the window;\n"
	"                     a snapshot records both samples, its replay shows the same window\n"
	"  --no-tools         never run external tools (mstflint...)\n"
	"  --serial-tools     run one card's mstflint tools one after the other (default: at\n"
	"                     once; a tool that answers busy is re-run alone)\n"
	"  --fw-image FILE    check a firmware image against each card (mstflint -i FILE\n"
	"                     query): PSID, older or newer than running, the profile's list\n"
	"  --exec-tools       run the real tools even with --root (a privileged container\n"
	"                     reading the host mounted at --root); default under --root: replay\n"
	"  --redact           snapshot: replace serial numbers, MACs, GUIDs and the far end's\n"
	"                     names in the capture by placeholders of the same shape\n"
	"  --summary-line     print one line of at most 80 characters\n"
	"  --exit-codes MAP   default | nagios | npd\n"
	"  --no-color         no colours (also when NO_COLOR is set or stdout is no TTY)\n"
	"  --prom FILE        also write node_exporter textfile metrics to FILE (check)\n"
	"  --temp-noise DEGC  diff: temperature rise counted as a regression (default 5)\n"
	"  --probe-tolerance PCT\n"
	"                     diff: probe bandwidth drop in % counted as one (default 5)\n"
	"  -v, --verbose      more detail in the text report\n"
	"  --probe            (check, facts) also run the loopback probe\n"
	"  --probe-op LIST    write,read,send or all (default all)\n"
	"  --probe-size BYTES message size (65536); --probe-qps N (1); --probe-depth N (128)\n"
	"  --probe-duration S longest measured time per op, after a 0.25 s warm-up (2)\n"
	"  --probe-port PORT  rdma_cm port of --server / --client (19515)\n"
	"  --probe-gid N      RoCE GID index (default: chosen, RoCE v2 first)\n"
	"  --probe-source ADDR  (--client) the local address to connect from\n"
	"  --tcp              probe with TCP instead of RDMA (needs --server or --client HOST;\n"
	"                     --probe-port is then the TCP port)\n"
	"  --probe-streams N  (--tcp --client) streams per direction, 1-64 (default: one per\n"
	"                     25 Gb/s of the port, at most the card's local cores)\n"
	"  --all-ports        after each port alone, every port at once: each port's rate alone\n"
	"                     and together, against the links they share; two hosts: --client\n"
	"                     ADDR1,ADDR2,... one server address per pair of ports\n"
	"  -h, --help         this help\n"
	"  --version          print the version (as 'version')\n"
	"\n"
	"Exit codes:\n"
	"  0  no finding at or above --fail-on\n"
	"  1  findings at or above --fail-on, or a rule or fact the profile requires is unknown\n"
	"  2  usage error: unknown command or option, bad argument, unreadable input file\n"
	"  3  nothing could be collected (empty or unreadable root)\n"
	"  4  internal error\n"
	"  --exit-codes nagios: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (a rule could not decide,\n"
	"  nothing collected, usage error); npd: 0 OK, 1 NonOK, 2 Unknown\n";

enum {
	OPT_JSON = 256, OPT_ROOT, OPT_FACTS, OPT_PROFILE, OPT_FAIL_ON, OPT_PCI_DUMP, OPT_TIMEOUT,
	OPT_CMD_TIMEOUT, OPT_NO_TOOLS, OPT_EXEC_TOOLS, OPT_SUMMARY, OPT_EXIT_CODES, OPT_NO_COLOR, OPT_REDACT,
	OPT_PROM, OPT_TEMP_NOISE, OPT_PROBE_TOL, OPT_VERSION, OPT_FW_IMAGE, OPT_SERIAL_TOOLS, OPT_WATCH,
	OPT_PROBE = 400, /* + enum hwc_probe_cli_opt */
};

static const struct option long_opts[] = {
	{"json", no_argument, NULL, OPT_JSON},
	{"root", required_argument, NULL, OPT_ROOT},
	{"facts", required_argument, NULL, OPT_FACTS},
	{"profile", required_argument, NULL, OPT_PROFILE},
	{"fail-on", required_argument, NULL, OPT_FAIL_ON},
	{"device", required_argument, NULL, 'd'},
	{"pci-dump", required_argument, NULL, OPT_PCI_DUMP},
	{"output", required_argument, NULL, 'o'},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"cmd-timeout", required_argument, NULL, OPT_CMD_TIMEOUT},
	{"watch", required_argument, NULL, OPT_WATCH},
	{"no-tools", no_argument, NULL, OPT_NO_TOOLS},
	{"exec-tools", no_argument, NULL, OPT_EXEC_TOOLS},
	{"serial-tools", no_argument, NULL, OPT_SERIAL_TOOLS},
	{"summary-line", no_argument, NULL, OPT_SUMMARY},
	{"exit-codes", required_argument, NULL, OPT_EXIT_CODES},
	{"no-color", no_argument, NULL, OPT_NO_COLOR},
	{"redact", no_argument, NULL, OPT_REDACT},
	{"prom", required_argument, NULL, OPT_PROM},
	{"temp-noise", required_argument, NULL, OPT_TEMP_NOISE},
	{"probe-tolerance", required_argument, NULL, OPT_PROBE_TOL},
	{"fw-image", required_argument, NULL, OPT_FW_IMAGE},
	{"probe", no_argument, NULL, OPT_PROBE + HWC_POPT_PROBE},
	{"probe-op", required_argument, NULL, OPT_PROBE + HWC_POPT_OP},
	{"probe-size", required_argument, NULL, OPT_PROBE + HWC_POPT_SIZE},
	{"probe-qps", required_argument, NULL, OPT_PROBE + HWC_POPT_QPS},
	{"probe-depth", required_argument, NULL, OPT_PROBE + HWC_POPT_DEPTH},
	{"probe-duration", required_argument, NULL, OPT_PROBE + HWC_POPT_DURATION},
	{"server", no_argument, NULL, OPT_PROBE + HWC_POPT_SERVER},
	{"client", required_argument, NULL, OPT_PROBE + HWC_POPT_CLIENT},
	{"probe-port", required_argument, NULL, OPT_PROBE + HWC_POPT_PORT},
	{"probe-gid", required_argument, NULL, OPT_PROBE + HWC_POPT_GID},
	{"probe-source", required_argument, NULL, OPT_PROBE + HWC_POPT_SOURCE},
	{"tcp", no_argument, NULL, OPT_PROBE + HWC_POPT_TCP},
	{"probe-streams", required_argument, NULL, OPT_PROBE + HWC_POPT_STREAMS},
	{"all-ports", no_argument, NULL, OPT_PROBE + HWC_POPT_ALL_PORTS},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

static int parse_seconds(const char *opt, const char *s, unsigned long max, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max || *s == '-') {
		hwc_cli_err("%s: expected seconds between 1 and %lu, got '%s'", opt, max, s);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* The options that only some commands take, against the command given. */
static bool options_fit(const struct hwc_cli *c)
{
	if (c->redact && strcmp(c->command, "snapshot") != 0) {
		/* a user who asked for redaction must not get an unredacted report instead */
		hwc_cli_err("--redact: only 'snapshot' redacts; '%s' output would not be", c->command);
		return false;
	}
	if (!c->watch_s)
		return true;
	if (strcmp(c->command, "check") && strcmp(c->command, "facts") && strcmp(c->command, "snapshot")) {
		hwc_cli_err("--watch: only check, facts and snapshot sample the counters ('%s' given)",
			    c->command);
		return false;
	}
	if (c->facts_file) {
		hwc_cli_err("--watch: --facts judges a saved file, there is no machine to sample");
		return false;
	}
	if (c->timeout_s && c->watch_s >= c->timeout_s) {
		hwc_cli_err("--watch %u does not fit in --timeout %u (the wait counts against it)",
			    c->watch_s, c->timeout_s);
		return false;
	}
	return true;
}

struct command {
	const char *name;
	int (*fn)(struct hwc_cli *);
};

static const struct command commands[] = {
	{"check", hwc_cmd_check},       {"facts", hwc_cmd_facts},
	{"snapshot", hwc_cmd_snapshot}, {"rules", hwc_cmd_rules},
	{"version", hwc_cmd_version},   {"probe", hwc_cmd_probe},
	{"diff", hwc_cmd_diff},         {"merge", hwc_cmd_merge},
	{"list", hwc_cmd_list},
	{"fw-plan", hwc_cmd_fwplan},
};

/* --exit-codes as given, read before the options are parsed: a usage error found while parsing
 * them must already speak the convention asked for. */
static const char *exit_map_of(int argc, char **argv)
{
	const char *m = "default";
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], "--exit-codes=", 13) == 0)
			m = argv[i] + 13;
		else if (strcmp(argv[i], "--exit-codes") == 0 && i + 1 < argc)
			m = argv[++i];
	}
	return m;
}

/* A code the command did not map (usage error, nothing collected, internal error) in the
 * monitoring conventions: Nagios UNKNOWN (3), node-problem-detector Unknown (2). */
static int map_exit(const char *map, int rc)
{
	if (rc < HWC_EXIT_USAGE)
		return rc;
	if (strcmp(map, "nagios") == 0)
		return 3;
	if (strcmp(map, "npd") == 0)
		return 2;
	return rc;
}

/* -o FILE for every output but the snapshot tar: stdout itself becomes the temporary file that
 * replaces FILE once the command is done, so every renderer honours it. */
static int output_begin(struct hwc_cli *c, struct hwc_outfile *o)
{
	int rc = hwc_outfile_open(o, c->output);
	if (rc < 0) {
		hwc_cli_err("-o %s: cannot write: %s", c->output, hwc_output_strerror(rc));
		return HWC_EXIT_USAGE;
	}
	fflush(stdout);
	if (dup2(fileno(o->fp), STDOUT_FILENO) < 0) {
		hwc_cli_err("-o %s: %s", c->output, strerror(errno));
		hwc_outfile_abort(o);
		return HWC_EXIT_INTERNAL;
	}
	c->output = NULL;
	c->color = false;
	return 0;
}

static int output_end(struct hwc_outfile *o, const char *path, int rc)
{
	/* a write that failed (a full disk) leaves the target as it was */
	int werr = hwc_cli_stdout_errno();
	if (werr || rc == HWC_EXIT_USAGE || rc == HWC_EXIT_INTERNAL) {
		hwc_outfile_abort(o);
		if (werr) {
			hwc_cli_err("-o %s: cannot write: %s", path, strerror(werr));
			clearerr(stdout); /* said once, here */
		}
		return werr ? HWC_EXIT_INTERNAL : rc;
	}
	int err = hwc_outfile_commit(o);
	if (err < 0) {
		hwc_cli_err("-o %s: cannot write: %s", path, hwc_output_strerror(err));
		return HWC_EXIT_INTERNAL;
	}
	return rc;
}

static int dispatch(struct hwc_cli *c)
{
	for (size_t i = 0; i < HWC_ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i].name, c->command) == 0)
			return commands[i].fn(c);
	if (strcmp(c->command, "help") == 0) {
		fputs(usage_text, stdout);
		return HWC_EXIT_OK;
	}
	hwc_cli_err("unknown command '%s'; try 'hwcheck --help'", c->command);
	return HWC_EXIT_USAGE;
}

static int run(struct hwc_cli *c, int argc, char **argv);

static int run_mapped(int argc, char **argv, char **argv_given)
{
	struct hwc_cli c = {
		.prog = "hwcheck",
		.command = "check",
		.fail_on = HWC_SEV_WARN,
		.exit_codes = "default",
		.argv_all = argv_given,
		.argc_all = argc,
	};
	const char *map = exit_map_of(argc, argv);
	int rc = run(&c, argc, argv);
	return c.exit_mapped ? rc : map_exit(map, rc);
}

static int run(struct hwc_cli *cp, int argc, char **argv)
{
	struct hwc_cli c = *cp;
	bool version = false;
	c.root = secure_getenv("HWCHECK_ROOT");
	const char *nc = getenv("NO_COLOR");
	c.color = isatty(STDOUT_FILENO) && !(nc && *nc);
	opterr = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":d:o:vh", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_JSON: c.json = true; break;
		case OPT_ROOT: c.root = optarg; break;
		case OPT_FACTS: c.facts_file = optarg; break;
		case OPT_PROFILE: c.profile = optarg; break;
		case OPT_FAIL_ON: {
			int s = hwc_severity_from_name(optarg);
			if (s < 0) {
				hwc_cli_err("--fail-on: expected info, unknown, warn or error, got '%s'", optarg);
				return HWC_EXIT_USAGE;
			}
			c.fail_on = s;
			break;
		}
		case 'd': c.device = optarg; break;
		case OPT_PCI_DUMP: c.pci_dump = optarg; break;
		case 'o': c.output = optarg; break;
		case OPT_TIMEOUT:
			if (parse_seconds("--timeout", optarg, 86400, &c.timeout_s) < 0)
				return HWC_EXIT_USAGE;
			break;
		case OPT_CMD_TIMEOUT:
			if (parse_seconds("--cmd-timeout", optarg, 86400, &c.cmd_timeout_s) < 0)
				return HWC_EXIT_USAGE;
			break;
		case OPT_WATCH:
			if (parse_seconds("--watch", optarg, 3600, &c.watch_s) < 0)
				return HWC_EXIT_USAGE;
			break;
		case OPT_NO_TOOLS: c.no_tools = true; break;
		case OPT_EXEC_TOOLS: c.exec_tools = true; break;
		case OPT_SERIAL_TOOLS: c.serial_tools = true; break;
		case OPT_SUMMARY: c.summary_line = true; break;
		case OPT_EXIT_CODES:
			if (strcmp(optarg, "default") && strcmp(optarg, "nagios") && strcmp(optarg, "npd")) {
				hwc_cli_err("--exit-codes: expected default, nagios or npd, got '%s'", optarg);
				return HWC_EXIT_USAGE;
			}
			c.exit_codes = optarg;
			break;
		case OPT_NO_COLOR: c.color = false; break;
		case OPT_REDACT: c.redact = true; break;
		case OPT_PROM: c.prom = optarg; break;
		case OPT_TEMP_NOISE: c.temp_noise = optarg; break;
		case OPT_PROBE_TOL: c.probe_tolerance = optarg; break;
		case OPT_FW_IMAGE: c.fw_image = optarg; break;
		case 'v': c.verbose = true; break;
		case 'h': fputs(usage_text, stdout); return HWC_EXIT_OK;
		case OPT_VERSION: version = true; break;
		case ':':
			hwc_cli_err("option '%s' needs an argument; try 'hwcheck --help'", argv[optind - 1]);
			return HWC_EXIT_USAGE;
		default:
			if (opt >= OPT_PROBE && opt < OPT_PROBE + HWC_POPT__COUNT) {
				if (hwc_cli_probe_opt(&c, opt - OPT_PROBE, optarg) < 0)
					return HWC_EXIT_USAGE;
				break;
			}
			if (optopt)
				hwc_cli_err("unknown option '-%c'; try 'hwcheck --help'", optopt);
			else
				hwc_cli_err("unknown option '%s'; try 'hwcheck --help'", argv[optind - 1]);
			return HWC_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		if (version) {
			hwc_cli_err("--version takes no command ('%s' given)", argv[optind]);
			return HWC_EXIT_USAGE;
		}
		c.command = argv[optind++];
		c.args = argv + optind;
		c.nargs = argc - optind;
	}
	if (version)
		c.command = "version";
	if (c.json)
		c.color = false;
	if (!options_fit(&c))
		return HWC_EXIT_USAGE;
	/* "nothing could be collected" in the convention asked for: the watchdog leaves no report */
	hwc_cli_guard(c.timeout_s, strcmp(c.exit_codes, "nagios") == 0 ? 3
				   : strcmp(c.exit_codes, "npd") == 0  ? 2
								       : HWC_EXIT_NOTHING);
	if (c.watch_s && !c.timeout_s)
		hwc_cli_guard_extend(c.watch_s);
	int rc;
	if (c.output && strcmp(c.output, "-") != 0 && strcmp(c.command, "snapshot") != 0) {
		const char *path = c.output;
		struct hwc_outfile o;
		rc = output_begin(&c, &o);
		if (rc == 0)
			rc = output_end(&o, path, dispatch(&c));
	} else {
		rc = dispatch(&c);
	}
	cp->exit_mapped = c.exit_mapped;
	return rc;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "C");
	hwc_cli_safe_streams();
	/* argv as given: getopt_long permutes argv, and the report must show the command line run */
	char **given = calloc((size_t)argc + 1, sizeof(*given));
	if (!given) {
		hwc_cli_err("out of memory");
		return HWC_EXIT_INTERNAL;
	}
	memcpy(given, argv, (size_t)argc * sizeof(*given));
	int rc = run_mapped(argc, argv, given);
	free(given);
	/* a report that did not reach its reader must not exit as if it had */
	int werr = hwc_cli_stdout_errno();
	if (werr) {
		hwc_cli_err("stdout: cannot write the output: %s", strerror(werr));
		rc = HWC_EXIT_INTERNAL;
	}
	return rc;
}
