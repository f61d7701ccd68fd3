#!/bin/sh
# Installs an in-country edge on Debian 12 (docs/outage.md): the RADIUS front's FreeRADIUS
# configuration (deploy/freeradius, the same as the region's) and the edge service beside it on
# loopback, as two systemd units. One command, as root:
#
#   sudo sh install.sh --region https://api.example.com --token edge_<id>.<secret>
#
# From a checkout, after `npm run edge:build` (dist/edge.mjs); or from the folder
# `npm run edge:build` packs (dist/hotspot-edge/: this script, edge.mjs and freeradius/).
# Options: --auth-port 1812 --acct-port 1813 --tls-port 2083 (RadSec); --tls-dir DIR holding
# ca.pem, server.pem and server.key (otherwise a self-signed pair is made: UDP routers need
# none, RadSec routers need the region CA's); --root DIR installs under DIR without apt-get,
# useradd or systemctl (what the tests run).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
region="" token="" root="" tls_dir=""
auth_port=1812 acct_port=1813 tls_port=2083
while [ $# -gt 0 ]; do
  case "$1" in
    --region) region=$2; shift 2 ;;
    --token) token=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    --tls-dir) tls_dir=$2; shift 2 ;;
    --auth-port) auth_port=$2; shift 2 ;;
    --acct-port) acct_port=$2; shift 2 ;;
    --tls-port) tls_port=$2; shift 2 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
case "$region" in
  https://*|http://127.*|http://localhost*) ;;
  *) echo "install.sh: --region must be the region's https:// API URL" >&2; exit 64 ;;
esac
if ! printf '%s' "$token" | grep -Eq '^edge_[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$'; then
  echo "install.sh: --token must be the edge's token (npm run admin -- edges add)" >&2; exit 64
fi

bundle=""
for f in "$here/edge.mjs" "$here/../../dist/edge.mjs"; do [ -f "$f" ] && { bundle=$f; break; }; done
config=""
for d in "$here/freeradius" "$here/../freeradius"; do [ -f "$d/run.sh" ] && { config=$d; break; }; done
[ -n "$bundle" ] || { echo "install.sh: no edge.mjs: run npm run edge:build first" >&2; exit 66; }
[ -n "$config" ] || { echo "install.sh: no freeradius/ configuration beside it" >&2; exit 66; }

if [ -z "$root" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "install.sh: run it as root (sudo)" >&2; exit 77; }
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q freeradius freeradius-rest freeradius-utils nodejs openssl ca-certificates
  # Debian's own FreeRADIUS service would hold the RADIUS ports with its default configuration.
  systemctl disable --now freeradius 2>/dev/null || true
  id hotspot-edge >/dev/null 2>&1 || useradd --system --home-dir /var/lib/hotspot-edge --shell /usr/sbin/nologin hotspot-edge
fi

opt="$root/opt/hotspot-edge" etc="$root/etc/hotspot-edge" var="$root/var/lib/hotspot-edge" units="$root/etc/systemd/system"
mkdir -p "$opt" "$etc" "$var" "$units"
cp "$bundle" "$opt/edge.mjs"
rm -rf "$opt/freeradius"
cp -R "$config" "$opt/freeradius"
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
cat > "$etc/edge.env" <<ENV
EDGE_REGION_URL=$region
EDGE_TOKEN=$token
EDGE_LOCAL_SECRET=$local_secret
EDGE_DATA_DIR=/var/lib/hotspot-edge
EDGE_PORT=8470
ENV
cat > "$etc/radius.env" <<ENV
RADIUS_API_URL=http://127.0.0.1:8470
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

if [ -z "$root" ]; then
  chown -R hotspot-edge "$opt/freeradius" "$var"
  chown root:hotspot-edge "$etc/edge.env" "$etc/radius.env"
  chmod 640 "$etc/edge.env" "$etc/radius.env"
  chmod 700 "$var"
  systemctl daemon-reload
  systemctl enable --now hotspot-edge.service hotspot-edge-radius.service
  echo "hotspot edge installed: journalctl -u hotspot-edge -u hotspot-edge-radius"
else
  echo "hotspot edge installed under $root"
fi
