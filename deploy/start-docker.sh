#!/usr/bin/env bash
# Make a Docker engine with the compose v2 plugin available on this machine, if it can be:
#
#   deploy/start-docker.sh [PIDFILE]
#
# exit 0: `docker info` and `docker compose version` work, with an engine that was running
#         already or one started here; the pid of a dockerd started here goes to PIDFILE
#         (default build/docker/dockerd.pid), so that the caller can stop exactly that one.
# exit 1: no engine (not root, no apt, or an install failed); the reason is printed.
#
# What it installs, from Debian's package registry only (as root with apt): docker.io and
# debootstrap (for `make images`) from the machine's own suite, and, when `docker compose` is
# missing, the compose v2 plugin: Debian trixie's docker-compose package, looked up with an apt
# configuration of its own (the machine's sources and installed packages stay as they are) and
# only its static binary copied to /usr/libexec/docker/cli-plugins/docker-compose.
#
# The engine it starts has no bridge network and no iptables rules, and stores images with the
# vfs driver, which works inside any sandbox: containers use the host's network
# (deploy/docker-compose.hostnet.yml).
set -euo pipefail

pidfile=${1:-build/docker/dockerd.pid}
plugin=/usr/libexec/docker/cli-plugins/docker-compose
say() { echo "start-docker: $*" >&2; }
rm -f "$pidfile"  # it names only a dockerd started by this run

engine_up() { timeout 20 docker info >/dev/null 2>&1; }
compose_v2() { docker compose version 2>/dev/null | grep -q 'version v\?2\.'; }

if [[ $EUID -ne 0 ]] && ! engine_up; then
    say "no Docker engine reachable and not root: cannot start one"
    exit 1
fi
if ! command -v apt-get >/dev/null && ! { engine_up && compose_v2; }; then
    say "no apt-get: cannot install docker.io or the compose v2 plugin"
    exit 1
fi

apt_updated=0
apt_install() {
    if [[ $apt_updated -eq 0 ]]; then
        apt-get update -qq || return 1
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ((${#missing[@]})) && [[ $EUID -eq 0 ]]; then
    say "installing ${missing[*]}"
    apt_install "${missing[@]}" || { say "apt-get install ${missing[*]} failed"; exit 1; }
fi

if ! compose_v2; then
    [[ $EUID -eq 0 ]] || { say "no docker compose v2 plugin and not root"; exit 1; }
    say "installing the compose v2 plugin from Debian trixie's docker-compose package"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts"
    cat >"$tmp/trixie.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt_opts=(-o "Dir::Etc::SourceList=$tmp/trixie.sources" -o "Dir::Etc::SourceParts=$tmp/parts"
        -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o APT::Sandbox::User=root)
    if ! apt-get "${apt_opts[@]}" update -qq ||
        ! (cd "$tmp" && apt-get "${apt_opts[@]}" download -qq docker-compose); then
        say "could not fetch trixie's docker-compose package"
        exit 1
    fi
    dpkg-deb -x "$tmp"/docker-compose_*.deb "$tmp/root"
    install -D -m 0755 "$tmp/root/usr/libexec/docker/cli-plugins/docker-compose" "$plugin"
    compose_v2 || { say "$plugin does not run"; exit 1; }
fi

if engine_up; then
    say "using the running engine ($(docker info --format '{{.ServerVersion}}'))"
    exit 0
fi
[[ $EUID -eq 0 ]] || { say "not root: cannot start dockerd"; exit 1; }

mkdir -p "$(dirname "$pidfile")"
log=$(dirname "$pidfile")/dockerd.log
say "starting dockerd (no bridge, vfs); log: $log"
nohup dockerd --iptables=false --bridge=none --storage-driver=vfs >"$log" 2>&1 </dev/null &
echo $! >"$pidfile"
for _ in $(seq 60); do
    if engine_up; then
        say "engine $(docker info --format '{{.ServerVersion}}') is up (pid $(cat "$pidfile"))"
        exit 0
    fi
    kill -0 "$(cat "$pidfile")" 2>/dev/null || break
    sleep 0.5
done
say "dockerd did not come up; the end of $log:"
tail -n 20 "$log" >&2 || true
kill "$(cat "$pidfile")" 2>/dev/null || true
rm -f "$pidfile"
exit 1
