#!/usr/bin/env bash
# Build the Debian base image of every Frontier image without an image registry:
# debootstrap (bookworm, minbase + python3.11 + venv) into a folder, the bookworm point and
# security updates on top, then `docker import` of that folder.
#
#   deploy/base/build.sh TAG [WORKDIR]
#
# Idempotent: when TAG exists the script does nothing (bump the tag in the Makefile to
# rebuild).  Downloaded .debs are kept in WORKDIR/debs, so a rebuild fetches only what changed.
# Needs root, debootstrap and a running Docker engine.
set -euo pipefail

tag=${1:?usage: deploy/base/build.sh TAG [WORKDIR]}
workdir=$(realpath -m "${2:-build/docker/base}")
suite=bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
packages=python3.11,python3.11-venv,python3-distutils  # distutils: python3.11-venv needs it
uid=10001  # the unprivileged user `frontier` that the images run as

if docker image inspect "$tag" >/dev/null 2>&1; then
    echo "base image $tag exists: skipping debootstrap"
    exit 0
fi
if [[ $EUID -ne 0 ]]; then
    echo "deploy/base/build.sh: debootstrap needs root" >&2
    exit 1
fi
command -v debootstrap >/dev/null || {
    echo "deploy/base/build.sh: debootstrap not found (apt-get install -y debootstrap)" >&2
    exit 1
}

rootfs=$workdir/rootfs
cleanup() {
    # debootstrap and apt may leave /proc or /sys mounted in the tree on failure
    findmnt -rno TARGET | grep -F "$rootfs/" | sort -r | xargs -r umount -l || true
    rm -rf --one-file-system "$rootfs"
}
trap cleanup EXIT
cleanup
mkdir -p "$workdir/debs" "$rootfs"

echo "debootstrap $suite ($packages) into $rootfs"
debootstrap --variant=minbase --include="$packages" --cache-dir="$workdir/debs" \
    "$suite" "$rootfs" "$mirror" >"$workdir/debootstrap.log" 2>&1 || {
    tail -n 30 "$workdir/debootstrap.log" >&2
    exit 1
}

cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security_mirror $suite-security main
EOF
echo "applying $suite-updates and $suite-security"
chroot "$rootfs" apt-get update -qq
chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get -qq -y upgrade \
    -o Dpkg::Options::=--force-confold >"$workdir/upgrade.log" 2>&1 || {
    tail -n 30 "$workdir/upgrade.log" >&2
    exit 1
}
chroot "$rootfs" useradd --uid "$uid" --user-group --home-dir /nonexistent --no-create-home \
    --shell /usr/sbin/nologin frontier

debian_version=$(cat "$rootfs/etc/debian_version")
python_version=$(chroot "$rootfs" python3.11 -c 'import platform; print(platform.python_version())')
# shellcheck disable=SC2016 # the format is dpkg-query's, not the shell's
chroot "$rootfs" dpkg-query -W -f '${Package}=${Version}\n' >"$workdir/packages.txt"
cp "$workdir/packages.txt" "$rootfs/etc/frontier-base.packages"

# what an image needs at run time is the packages, not apt's lists, caches, docs or locales
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/tmp/* "$rootfs"/root/.cache "$rootfs"/debootstrap

echo "docker import $tag (Debian $debian_version, Python $python_version)"
tar --numeric-owner --xattrs -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python3.11"]' \
    --change "LABEL org.opencontainers.image.title=frontier-base" \
    --change "LABEL org.opencontainers.image.description=\"Debian $suite minbase, Python $python_version\"" \
    --change "LABEL org.opencontainers.image.version=$tag" \
    --change "LABEL io.frontier.debian-version=$debian_version" \
    --change "LABEL io.frontier.python-version=$python_version" \
    --change "LABEL io.frontier.image=base" \
    - "$tag" >/dev/null
docker image ls "$tag"
