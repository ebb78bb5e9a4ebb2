#!/bin/sh
# SPDX-License-Identifier: MIT
# Slurm HealthCheckProgram (and, as hwcheck-prolog.sh, a Prolog): runs hwcheck's fast tier (no
# bandwidth probe, bounded well under 60 s), drains the node with a reason starting "hwcheck:" when
# it finds a problem, and resumes only nodes whose drain reason hwcheck set itself.
#
# Environment (all optional):
#   HWCHECK          the hwcheck binary (default: hwcheck on PATH)
#   HWCHECK_ARGS     extra options, e.g. "--profile /etc/hwcheck/site.json --fail-on error"
#   HWCHECK_TIMEOUT  seconds hwcheck may take (default 45)
#   SCONTROL         the scontrol binary (default: scontrol on PATH)
#   JQ               jq, to read the JSON report before resuming a node (default: jq on PATH)
#   HWCHECK_SLURM_MODE  healthcheck (default) or prolog
set -eu

HWCHECK=${HWCHECK:-hwcheck}
HWCHECK_ARGS=${HWCHECK_ARGS:-}
HWCHECK_TIMEOUT=${HWCHECK_TIMEOUT:-45}
SCONTROL=${SCONTROL:-scontrol}
JQ=${JQ:-jq}
MODE=${HWCHECK_SLURM_MODE:-healthcheck}
NODE=${SLURMD_NODENAME:-$(hostname -s)}
PREFIX="hwcheck:"

log() {
	if command -v logger >/dev/null 2>&1; then
		logger -t hwcheck-slurm -- "$*" || true
	fi
	echo "hwcheck-slurm: $*" >&2
}

# The current drain reason, without Slurm's trailing " [user@time]".
current_reason() {
	"$SCONTROL" show node "$NODE" 2>/dev/null |
		sed -n 's/^[[:space:]]*Reason=\(.*\)$/\1/p' | sed 's/ \[[^]]*\]$//' | head -n 1
}

# Whether the rules our drain reason names (ids like PCIE_LINK_DOWNGRADED) decide now: a rule
# that cannot look does not clear the node it drained. Prints "decided" alone when they all do;
# else the undecided ones, or why it cannot tell (jq reads the JSON report).
drain_rules_decided() {
	rules=$(printf '%s\n' "$reason" | tr -c 'A-Z0-9_' '\n' | grep -E '^[A-Z][A-Z0-9]*_[A-Z0-9_]+$' |
		sort -u) || true
	if [ -z "$rules" ]; then
		echo decided
		return 0
	fi
	if ! command -v "$JQ" >/dev/null 2>&1; then
		echo "(jq is not installed: cannot tell whether $(echo "$rules" | tr '\n' ' ')decided)"
		return 0
	fi
	# shellcheck disable=SC2086 # HWCHECK_ARGS is a list of options
	unknown=$(timeout -k 5 "$((HWCHECK_TIMEOUT + 10))" "$HWCHECK" --json --no-color \
		--timeout "$HWCHECK_TIMEOUT" $HWCHECK_ARGS 2>/dev/null |
		"$JQ" -r 'select(.schema == "hwcheck.report") | "report", ([(.summary.unknown[]?.rule),
			(.findings[] | select(.severity == "unknown") | .rule_id)] | unique | .[])' \
			2>/dev/null) || true
	if [ "$(printf '%s\n' "$unknown" | head -n 1)" != report ]; then
		echo "(no JSON report: cannot tell)"
		return 0
	fi
	still=""
	for r in $rules; do
		if printf '%s\n' "$unknown" | grep -qx "$r"; then still="$still $r"; fi
	done
	echo "${still:-decided}"
}

# hwcheck bounds itself (--timeout); timeout(1) is the backstop if it ever hangs.
set +e
# shellcheck disable=SC2086 # HWCHECK_ARGS is a list of options
line=$(timeout -k 5 "$((HWCHECK_TIMEOUT + 10))" "$HWCHECK" --summary-line --no-color \
	--timeout "$HWCHECK_TIMEOUT" $HWCHECK_ARGS 2>/dev/null)
rc=$?
set -e
line=$(printf '%s' "$line" | head -n 1)

reason=$(current_reason)
ours=no
case "$reason" in "$PREFIX"*) ours=yes ;; esac

case "$rc" in
0)
	if [ "$ours" = yes ]; then
		decided=$(drain_rules_decided) || true
		if [ "$decided" != decided ]; then
			log "$NODE: not resuming: undecided now: ${decided# } (drained for: $reason)"
		else
			log "$NODE: checks pass again; resuming (was: $reason)"
			"$SCONTROL" update NodeName="$NODE" State=RESUME
		fi
	fi
	exit 0
	;;
1)
	case "$line" in
	"$PREFIX"*) new=$line ;;
	*) new="$PREFIX $line" ;;
	esac
	if [ -n "$reason" ] && [ "$ours" = no ]; then
		log "$NODE: $new (left alone: drained by someone else: $reason)"
	elif [ "$reason" != "$new" ]; then
		log "$NODE: draining: $new"
		"$SCONTROL" update NodeName="$NODE" State=DRAIN Reason="$new"
	fi
	# A Prolog that fails makes Slurm requeue the job and hold the node.
	[ "$MODE" = prolog ] && exit 1
	exit 0
	;;
*)
	# 2 usage, 3 nothing collected, 4 internal, 124/137 timeout: hwcheck could not judge the node.
	log "$NODE: hwcheck could not run the checks (exit $rc); node state left as it is"
	exit 0
	;;
esac
