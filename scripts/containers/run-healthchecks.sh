#!/usr/bin/env bash
# Runs the health checks of one compose project's containers, for engines that schedule them through systemd timers
# where there is no systemd (podman 4.3 here): without this, a container's health stays `starting` for ever and
# compose's `depends_on: service_healthy` never proceeds. Started (detached) by `npm run containers:up`, stopped
# by `containers:down` (it removes the pid file) or once the project has had no containers for a minute.
#   run-healthchecks.sh <project> <pid-file>
set -uo pipefail
project="$1"
pidfile="$2"
echo $$ >"$pidfile"
idle=0
while [ "$(cat "$pidfile" 2>/dev/null)" = "$$" ]; do
  starting=0
  seen=0
  # Names and status ("Up 5 seconds ago (starting)") of the project's running containers; a health check shows in brackets.
  while IFS='|' read -r name status; do
    [ -n "$name" ] || continue
    seen=1
    case "$status" in
      *"(healthy)"*) podman healthcheck run "$name" </dev/null >/dev/null 2>&1 || true ;;
      *"(starting)"* | *"(unhealthy)"*)
        starting=1
        podman healthcheck run "$name" </dev/null >/dev/null 2>&1 || true
        ;;
    esac
  # (podman gets </dev/null above: it would otherwise read the rest of this list as its stdin.)
  done < <(podman ps --filter "label=com.docker.compose.project=$project" --format '{{.Names}}|{{.Status}}' 2>/dev/null)
  if [ "$seen" = 0 ]; then idle=$((idle + 1)); else idle=0; fi
  [ "$idle" -lt 30 ] || break
  # Every 2 s while a container is not yet healthy (compose waits on them), every 10 s after.
  if [ "$starting" = 1 ] || [ "$seen" = 0 ]; then sleep 2; else sleep 10; fi
done
[ "$(cat "$pidfile" 2>/dev/null)" = "$$" ] && rm -f "$pidfile"
exit 0
