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
#   HWCHECK_SLURM_MODE  healthcheck (default) or prolog
set -eu

HWCHECK=${HWCHECK:-hwcheck}
HWCHECK_ARGS=${HWCHECK_ARGS:-}
HWCHECK_TIMEOUT=${HWCHECK_TIMEOUT:-45}
SCONTROL=${SCONTROL:-scontrol}
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
		log "$NODE: checks pass again; resuming (was: $reason)"
		"$SCONTROL" update NodeName="$NODE" State=RESUME
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
