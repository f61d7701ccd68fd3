#!/bin/sh
# Installs an in-country edge on Debian 12 (docs/outage.md, "Install") with what Debian ships:
# its FreeRADIUS (3.2.1) with the RADIUS front's configuration, its Node (18) running the edge
# service on loopback, and systemd-timesyncd; two systemd units under two accounts. One command,
# as root, from the folder `npm run edge:build` makes (dist/hotspot-edge/: this script, edge.mjs,
# the units and freeradius/), the edge's token on standard input or in a file:
#
#   sudo sh install.sh --region https://api.example.com < edge-token.txt
#   sudo sh install.sh --region https://api.example.com --token-file /root/edge-token.txt --ntp ntp.example.ci
#
# The token is never an argument (anyone on the machine reads arguments with ps). It is kept in
# /etc/hotspot-edge/token, readable by root and the service's account `hotspot-edge` only;
# FreeRADIUS, the part that faces the network, runs as `hotspot-radius`, which cannot read it.
# Options: --ntp SERVER[,SERVER] (an in-country time server: during a cut the international ones
# are out of reach), --auth-port 1812 --acct-port 1813 --tls-port 2083 (RadSec), --edge-port 8470
# (the service, on loopback), --tls-dir DIR holding ca.pem, server.pem and server.key (otherwise a
# self-signed pair is made: UDP routers need none); --root DIR writes the files under DIR without
# apt-get, accounts or systemctl (what the tests check).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
region="" token_file="" root="" tls_dir="" ntp=""
auth_port=1812 acct_port=1813 tls_port=2083 edge_port=8470
while [ $# -gt 0 ]; do
  case "$1" in
    --region) region=$2; shift 2 ;;
    --token-file) token_file=$2; shift 2 ;;
    --token|--token=*)
      echo "install.sh: the token is never an argument (ps shows arguments to everyone): give it on standard input or with --token-file FILE" >&2
      exit 64 ;;
    --ntp) ntp=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    --tls-dir) tls_dir=$2; shift 2 ;;
    --auth-port) auth_port=$2; shift 2 ;;
    --acct-port) acct_port=$2; shift 2 ;;
    --tls-port) tls_port=$2; shift 2 ;;
    --edge-port) edge_port=$2; shift 2 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
case "$region" in
  https://*|http://127.*|http://localhost*) ;;
  *) echo "install.sh: --region must be the region's https:// API URL" >&2; exit 64 ;;
esac
for port in "$auth_port" "$acct_port" "$tls_port" "$edge_port"; do
  case "$port" in ''|*[!0-9]*) echo "install.sh: ports are numbers" >&2; exit 64 ;; esac
done
case "$ntp" in *[!A-Za-z0-9.,:-]*) echo "install.sh: --ntp takes host names or addresses, comma-separated" >&2; exit 64 ;; esac

opt="$root/opt/hotspot-edge" etc="$root/etc/hotspot-edge" var="$root/var/lib/hotspot-edge" units="$root/etc/systemd/system"

# The token: from --token-file, else standard input, else (a reinstall) the one kept already.
token=""
if [ -n "$token_file" ]; then
  token=$(head -n 1 "$token_file" | tr -d ' \r\n')
elif [ ! -t 0 ]; then
  token=$(head -n 1 | tr -d ' \r\n')
fi
if [ -z "$token" ] && [ -s "$etc/token" ]; then token=$(tr -d ' \r\n' < "$etc/token"); fi
# An edge installed before kept its token in edge.env.
if [ -z "$token" ]; then token=$(sed -n 's/^EDGE_TOKEN=//p' "$etc/edge.env" 2>/dev/null || true); fi
if ! printf '%s' "$token" | grep -Eq '^edge_[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$'; then
  echo "install.sh: give the edge's token (npm run admin -- edges add) on standard input or with --token-file FILE" >&2
  exit 64
fi

[ -f "$here/edge.mjs" ] || { echo "install.sh: no edge.mjs beside this script: run it from the folder npm run edge:build makes" >&2; exit 66; }
[ -f "$here/freeradius/run.sh" ] || { echo "install.sh: no freeradius/ configuration beside this script" >&2; exit 66; }

# What the edge runs on: Debian's own packages. chrony or ntpsec, when there, already keep time.
packages="freeradius freeradius-rest freeradius-utils nodejs openssl ca-certificates"
timesync=systemd-timesyncd
if command -v chronyd >/dev/null 2>&1 || command -v ntpd >/dev/null 2>&1; then timesync=""; fi
if [ -z "$root" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "install.sh: run it as root (sudo)" >&2; exit 77; }
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $packages $timesync
  # Debian's own FreeRADIUS service would hold the RADIUS ports with its default configuration.
  systemctl disable --now freeradius >/dev/null 2>&1 || true
  for account in hotspot-edge hotspot-radius; do
    id "$account" >/dev/null 2>&1 ||
      useradd --system --user-group --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin "$account"
  done
fi

mkdir -p "$opt" "$etc" "$var" "$units"
cp "$here/edge.mjs" "$opt/edge.mjs"
rm -rf "$opt/freeradius"
cp -R "$here/freeradius" "$opt/freeradius"
chmod 755 "$opt/freeradius/run.sh"
mkdir -p "$opt/freeradius/tls"
if [ -n "$tls_dir" ]; then
  cp "$tls_dir/ca.pem" "$tls_dir/server.pem" "$tls_dir/server.key" "$opt/freeradius/tls/"
elif [ ! -s "$opt/freeradius/tls/server.key" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=hotspot-edge" \
    -keyout "$opt/freeradius/tls/server.key" -out "$opt/freeradius/tls/server.pem" 2>/dev/null
  cp "$opt/freeradius/tls/server.pem" "$opt/freeradius/tls/ca.pem"
fi
chmod 600 "$opt/freeradius/tls/server.key"

# The loopback secret between FreeRADIUS and the service: made here, kept across reinstalls.
local_secret=$(sed -n 's/^EDGE_LOCAL_SECRET=//p' "$etc/edge.env" 2>/dev/null || true)
[ -n "$local_secret" ] || local_secret=$(openssl rand -hex 24)
umask 077
printf '%s\n' "$token" > "$etc/token"
cat > "$etc/edge.env" <<ENV
EDGE_REGION_URL=$region
EDGE_TOKEN_FILE=/etc/hotspot-edge/token
EDGE_LOCAL_SECRET=$local_secret
EDGE_DATA_DIR=/var/lib/hotspot-edge
EDGE_PORT=$edge_port
ENV
cat > "$etc/radius.env" <<ENV
RADIUS_API_URL=http://127.0.0.1:$edge_port
RADIUS_API_SECRET=$local_secret
RADIUS_CLIENT_IPADDR=0.0.0.0/0
RADIUS_LISTEN_ADDR=0.0.0.0
RADIUS_AUTH_PORT=$auth_port
RADIUS_ACCT_PORT=$acct_port
RADIUS_TLS_PORT=$tls_port
RADIUS_TLS_DIR=/opt/hotspot-edge/freeradius/tls
RADIUS_DISCONNECT=off
ENV
umask 022
cp "$here/hotspot-edge.service" "$here/hotspot-edge-radius.service" "$units/"
# The edge decides time left and leases by its clock during a cut: an in-country time server
# keeps it right when the international ones are out of reach (docs/outage.md, "Time").
if [ -n "$ntp" ]; then
  mkdir -p "$root/etc/systemd/timesyncd.conf.d"
  printf '%s\n' '# Written by the hotspot edge installer: in-country time servers first.' '[Time]' \
    "NTP=$(printf '%s' "$ntp" | tr ',' ' ')" > "$root/etc/systemd/timesyncd.conf.d/hotspot-edge.conf"
fi

if [ -n "$root" ]; then
  echo "hotspot edge installed under $root"
  exit 0
fi
chown -R hotspot-radius:hotspot-radius "$opt/freeradius"
chown -R hotspot-edge:hotspot-edge "$var"
chmod 700 "$var"
chown root:hotspot-edge "$etc/edge.env" "$etc/token"
chown root:hotspot-radius "$etc/radius.env"
chmod 640 "$etc/edge.env" "$etc/token" "$etc/radius.env"
chmod 755 "$etc"
units_now="hotspot-edge.service hotspot-edge-radius.service"
[ -n "$timesync" ] && units_now="$units_now systemd-timesyncd.service"
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload
  # shellcheck disable=SC2086
  systemctl enable --now $units_now
  [ -n "$timesync" ] && timedatectl set-ntp true 2>/dev/null || true
  [ -n "$ntp" ] && [ -n "$timesync" ] && systemctl restart systemd-timesyncd.service
  echo "hotspot edge installed and started: journalctl -u hotspot-edge -u hotspot-edge-radius"
else
  # A chroot or an image being built: the units are enabled and start at the next boot.
  # shellcheck disable=SC2086
  systemctl enable $units_now >/dev/null 2>&1 || true
  echo "hotspot edge installed; systemd is not running here: its units start at the next boot"
fi
