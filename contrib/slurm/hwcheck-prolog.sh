#!/bin/sh
# SPDX-License-Identifier: MIT
# Slurm Prolog: the health check before each job; a problem drains the node and fails the prolog,
# so Slurm requeues the job elsewhere.
set -eu
HWCHECK_SLURM_MODE=prolog
export HWCHECK_SLURM_MODE
exec "$(dirname "$0")/hwcheck-healthcheck.sh" "$@"
