#!/bin/sh
# SPDX-License-Identifier: MIT
# Acceptance gate for a provisioning pipeline: runs hwcheck, reads the verdict of its JSON report
# (the "summary" object) and passes the host only when every rule decided and none found a
# problem. "Not looked at" (a rule that could not decide, e.g. without mstflint) is not a pass
# unless allowed, and a rule listed as required must decide even then.
#
# Usage: hwcheck-gate.sh [HWCHECK OPTIONS...]   (e.g. --profile /etc/hwcheck/site.json)
# Environment (all optional):
#   HWCHECK                the hwcheck binary (default: hwcheck on PATH)
#   HWCHECK_GATE_ALLOW     verdicts that pass besides ok, space-separated: incomplete, warn
#   HWCHECK_GATE_REQUIRE   rule ids that must decide (fail when unknown), space-separated
#   HWCHECK_TIMEOUT        seconds hwcheck may take (default 120)
#   JQ                     jq (default: jq on PATH)
# Exit: 0 pass; 1 fail (the verdict is not allowed, or a required rule is undecided);
#       2 usage (jq missing, an unknown rule id); 3 no verdict (hwcheck could not collect or run).
set -eu

HWCHECK=${HWCHECK:-hwcheck}
ALLOW=${HWCHECK_GATE_ALLOW:-}
REQUIRE=${HWCHECK_GATE_REQUIRE:-}
TIMEOUT=${HWCHECK_TIMEOUT:-120}
JQ=${JQ:-jq}

say() { echo "hwcheck-gate: $*"; }

if ! command -v "$JQ" >/dev/null 2>&1; then
	say "jq is needed to read the report (apt install jq)" >&2
	exit 2
fi
for r in $REQUIRE; do
	if ! "$HWCHECK" rules explain "$r" >/dev/null 2>&1; then
		say "HWCHECK_GATE_REQUIRE: $r is not a hwcheck rule ('hwcheck rules list')" >&2
		exit 2
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set +e
timeout -k 5 "$((TIMEOUT + 15))" "$HWCHECK" --json --no-color --timeout "$TIMEOUT" "$@" \
	>"$tmp/report.json" 2>"$tmp/stderr"
rc=$?
set -e

# The summary's verdict; a report from before the summary existed gets the same rule from its
# findings (waived ones do not count).
# shellcheck disable=SC2016 # jq programs: $s is jq's variable
VERDICT='if .summary.verdict then .summary.verdict else
	[.findings[] | select(.waived != true) | .severity] as $s |
	if ($s | index("error")) then "error" elif ($s | index("warn")) then "warn"
	elif ($s | index("unknown")) then "incomplete" else "ok" end end'
UNKNOWN='if .summary.unknown then .summary.unknown[] | "\(.rule) \(.subject): \(.reason)" else
	.findings[] | select(.severity == "unknown" and .waived != true) |
	"\(.rule_id) \(.subject): \(.message)" end'

verdict=$("$JQ" -r "$VERDICT" "$tmp/report.json" 2>/dev/null) || verdict=""
if [ "$rc" = 3 ] || [ -z "$verdict" ] || { [ "$rc" != 0 ] && [ "$rc" != 1 ]; }; then
	say "NO VERDICT: hwcheck could not judge this host (exit $rc)"
	sed 's/^/  /' "$tmp/stderr"
	exit 3
fi

"$JQ" -r '.findings[] | select(.waived != true and (.severity == "error" or .severity == "warn")) |
	"  \(.severity) \(.rule_id) \(.subject): \(.message)"' "$tmp/report.json"
"$JQ" -r "$UNKNOWN" "$tmp/report.json" | sed 's/^/  undecided /'

status=0
case " ok $ALLOW " in
*" $verdict "*) ;;
*) status=1 ;;
esac
undecided=$("$JQ" -r "$UNKNOWN" "$tmp/report.json" | cut -d' ' -f1 | sort -u)
for r in $REQUIRE; do
	if printf '%s\n' "$undecided" | grep -qx "$r"; then
		say "required rule $r could not decide"
		status=1
	fi
done
if [ "$status" = 0 ]; then
	say "PASS (verdict $verdict)"
else
	say "FAIL (verdict $verdict; passing: ok${ALLOW:+ $ALLOW})"
fi
exit "$status"
