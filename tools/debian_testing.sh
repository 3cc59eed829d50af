#!/usr/bin/env bash
# Python 3.14 and 3.15, the real interpreters, from Debian's testing suite in a chroot.
#
#   tools/debian_testing.sh prepare
#       Make the chroot once (debootstrap; about a minute, 330 MB): a no-op when it is there.
#   tools/debian_testing.sh run COMMAND [ARGS...]
#       Run COMMAND inside it, in this repository (mounted at the same path), as root.
#   tools/debian_testing.sh pytest VERSION [PYTEST ARGS...]
#       Make (once) a virtual environment of that Python with this package and its dev
#       extra in .cache/venv<VERSION>-debian, and run pytest there.
#
# The chroot lives in a cache outside the repository, shared by every clone on this machine:
# $IMPORTLINTER_CONTRACTS_DEBIAN, or ~/.cache/importlinter-contracts/debian-testing. It needs
# root (chroot, mounts) and debootstrap; the mounts live in a private mount namespace, so they
# end with the command. Exit status 3 says the interpreters cannot be had here, on one line.
set -euo pipefail
# chroot, unshare and mount are in the sbin folders, which a PATH may leave out.
PATH=$PATH:/usr/sbin:/sbin

repo=$(cd "$(dirname "$0")/.." && pwd)
root=${IMPORTLINTER_CONTRACTS_DEBIAN:-$HOME/.cache/importlinter-contracts/debian-testing}
mirror=http://deb.debian.org/debian
# git: the review's tests read revisions with it; e2fsprogs: chattr, for a read-only cache;
# strace: the tests that count the files a check opens.
packages=python3.14,python3.15,python3.14-venv,python3.15-venv,ca-certificates,git,e2fsprogs,strace

cannot() {
  echo "debian_testing.sh: Python 3.14 and 3.15 cannot be had here: $1" >&2
  exit 3
}

prepare() {
  if [ -f "$root/.ready" ]; then
    # A chroot made before a package joined the list gets it now.
    [ -x "$root/usr/bin/git" ] || add_packages git
    [ -x "$root/usr/bin/chattr" ] || add_packages e2fsprogs
    [ -x "$root/usr/bin/strace" ] || add_packages strace
    return 0
  fi
  [ "$(id -u)" = 0 ] || cannot "making the chroot needs root"
  if ! command -v debootstrap >/dev/null; then
    command -v apt-get >/dev/null || cannot "no debootstrap and no apt-get to install it"
    (apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null) ||
      cannot "debootstrap could not be installed"
  fi
  local script=/usr/share/debootstrap/scripts/sid  # testing is sid's layout under another name
  [ -f "$script" ] || cannot "debootstrap has no script for Debian's testing suite"
  rm -rf "$root.partial"
  mkdir -p "$(dirname "$root")"
  echo "debian_testing.sh: making the chroot in $root (about a minute)" >&2
  debootstrap --variant=minbase --include="$packages" testing "$root.partial" "$mirror" "$script" \
    >"$root.log" 2>&1 || cannot "debootstrap failed (its log: $root.log)"
  # The machine's own certificate bundle (it may hold a proxy's authority) and name servers.
  cp /etc/ssl/certs/ca-certificates.crt "$root.partial/etc/ssl/certs/ca-certificates.crt"
  cp /etc/resolv.conf "$root.partial/etc/resolv.conf"
  # Testing's Release file expires; apt inside the chroot must not refuse it later.
  echo 'Acquire::Check-Valid-Until "false";' >"$root.partial/etc/apt/apt.conf.d/99no-valid-until"
  mv "$root.partial" "$root"
  touch "$root/.ready"
}

add_packages() {
  [ "$(id -u)" = 0 ] || cannot "installing $* in the chroot needs root"
  echo "debian_testing.sh: installing $* in the chroot" >&2
  unshare --mount --propagation private -- /bin/sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" || exit 3
    chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin DEBIAN_FRONTEND=noninteractive \
      /bin/sh -c "apt-get update -qq && apt-get install -y -qq \"\$@\"" sh "$@"
  ' sh "$root" "$@" >>"$root.log" 2>&1 || cannot "apt-get could not install $* (its log: $root.log)"
}

run() {
  prepare
  mkdir -p "$root$repo"
  # Only the variables a build and a test need: none of the host's Python settings.
  unshare --mount --propagation private -- /bin/sh -c '
    root=$1 repo=$2; shift 2
    mount --bind "$repo" "$root$repo" && mount -t proc proc "$root/proc" &&
      mount --rbind /dev "$root/dev" || exit 3
    exec chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin \
      LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
      ${CI:+CI=$CI} /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$repo" "$@"
  ' sh "$root" "$repo" "$@"
}

case "${1:-}" in
  prepare) prepare ;;
  run) shift; run "$@" ;;
  pytest)
    version=${2:?which Python: 3.14 or 3.15}
    shift 2
    venv=.cache/venv$version-debian
    run /bin/sh -c "[ -x $venv/bin/python ] || python$version -m venv $venv &&
      $venv/bin/pip install --quiet -e '.[test]' && $venv/bin/python -m pytest \"\$@\"" sh "$@"
    ;;
  *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
