#!/bin/sh
# Starts the RADIUS front: its service (service/main.mjs, the project's RADIUS data plane:
# authorize, post-auth, accounting, the client lookup, the Disconnect claim) on loopback, then
# FreeRADIUS with the configuration of this directory, in the foreground, logging to stdout.
# Every setting comes from the environment (see docs/radius.md); FreeRADIUS turns an unset
# variable into an empty string without a word, so this script refuses to start unless each one
# is set and well formed.
#
#   TABLE_NAME=... AWS_REGION=... RADIUS_CLIENT_IPADDR=0.0.0.0/0 RADIUS_LISTEN_ADDR=0.0.0.0 \
#   RADIUS_AUTH_PORT=1812 RADIUS_ACCT_PORT=1813 RADIUS_TLS_PORT=2083 ./run.sh
#
# The service listens on 127.0.0.1:RADIUS_SERVICE_PORT (18120) and reads and writes the table
# with the AWS credentials of its environment (in AWS, the task's role); FreeRADIUS is started
# only once it answers its health check (routers loaded), and the service exits with FreeRADIUS.
# FreeRADIUS and the relay call it with a bearer token (RADIUS_API_SECRET, generated here for
# this run when unset: it never leaves the task). With RADIUS_API_URL set, no service is
# started and FreeRADIUS calls that URL instead (a stand-in in the configuration's tests).
#
# The RadSec listener's certificates (the router CA, this server's certificate and key) come
# from RADIUS_TLS_CA_PEM, RADIUS_TLS_CERT_PEM and RADIUS_TLS_KEY_PEM when they are set (in AWS,
# ECS puts them there from the front's certificate secret, which the stack's rotation renews),
# written into RADIUS_TLS_DIR (default: tls/ here) and taken out of the environment; otherwise
# ca.pem, server.pem and server.key must already be in RADIUS_TLS_DIR. Nothing is fetched.
#
# Extra arguments go to freeradius (`./run.sh -X` for a debugging session: single-threaded,
# and it prints secrets and passwords).
set -eu

dir=$(cd "$(dirname "$0")" && pwd)
problems=""

need() {
  eval "value=\${$1:-}"
  if [ -z "$value" ]; then problems="$problems\n  $1 is not set"; return 1; fi
  return 0
}

for name in RADIUS_CLIENT_IPADDR RADIUS_LISTEN_ADDR RADIUS_AUTH_PORT RADIUS_ACCT_PORT RADIUS_TLS_PORT; do
  need "$name" || true
done
# The service (no RADIUS_API_URL): it needs the table, and Node.
service=""
if [ -z "${RADIUS_API_URL:-}" ]; then
  service="$dir/service/main.mjs"
  [ -f "$service" ] || problems="$problems\n  RADIUS_API_URL is not set and there is no $service (npm start and the image build it)"
  need TABLE_NAME || true
  RADIUS_SERVICE_PORT=${RADIUS_SERVICE_PORT:-18120}
  case "$RADIUS_SERVICE_PORT" in
    ''|*[!0-9]*) problems="$problems\n  RADIUS_SERVICE_PORT must be a port number" ;;
  esac
  RADIUS_API_URL="http://127.0.0.1:$RADIUS_SERVICE_PORT"
  # The bearer between FreeRADIUS and its service: this run's own unless given.
  if [ -z "${RADIUS_API_SECRET:-}" ]; then
    RADIUS_API_SECRET=$(head -c 32 /dev/urandom | base64 | tr -d '\n')
  fi
else
  need RADIUS_API_SECRET || true
fi

if [ -n "${RADIUS_API_URL:-}" ]; then
  case "$RADIUS_API_URL" in
    http://*|https://*) ;;
    *) problems="$problems\n  RADIUS_API_URL must start with https:// (or http:// on loopback)" ;;
  esac
  # The routes are appended to it: a trailing slash would double.
  RADIUS_API_URL=${RADIUS_API_URL%/}
fi
# The bearer secret is pasted into a header the server expands: bearer-token characters only.
if [ -n "${RADIUS_API_SECRET:-}" ] && ! printf '%s' "$RADIUS_API_SECRET" | grep -Eq '^[A-Za-z0-9._~+/=-]{16,}$'; then
  problems="$problems\n  RADIUS_API_SECRET must be at least 16 characters among A-Z a-z 0-9 . _ ~ + / = -"
fi
for name in RADIUS_AUTH_PORT RADIUS_ACCT_PORT RADIUS_TLS_PORT; do
  eval "port=\${$name:-}"
  if [ -n "$port" ]; then
    case "$port" in
      *[!0-9]*) problems="$problems\n  $name must be a port number" ;;
      *) if [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then problems="$problems\n  $name must be 1-65535"; fi ;;
    esac
  fi
done
# Optional: seconds FreeRADIUS waits for the API before it rejects (default 2).
RADIUS_API_TIMEOUT=${RADIUS_API_TIMEOUT:-2}
case "$RADIUS_API_TIMEOUT" in
  ''|*[!0-9.]*) problems="$problems\n  RADIUS_API_TIMEOUT must be a number of seconds" ;;
esac
# Optional: the Disconnect relay (disconnect-relay.mjs, RFC 5176) runs next to FreeRADIUS unless
# RADIUS_DISCONNECT=off; it needs Node 18 or later, as the service does.
RADIUS_DISCONNECT=${RADIUS_DISCONNECT:-on}
node=$(command -v node || true)
case "$RADIUS_DISCONNECT" in
  on) [ -z "$node" ] && problems="$problems\n  node is needed for the Disconnect relay (RADIUS_DISCONNECT=off runs without it)" ;;
  off) ;;
  *) problems="$problems\n  RADIUS_DISCONNECT must be on or off" ;;
esac
[ -n "$service" ] && [ -z "$node" ] && problems="$problems\n  node (22) is needed for the service"
# Optional: seconds a UDP router's definition (asked of the API) is kept; at most 60, so that a
# revoked router is dropped within a minute.
RADIUS_CLIENT_LIFETIME=${RADIUS_CLIENT_LIFETIME:-60}
case "$RADIUS_CLIENT_LIFETIME" in
  ''|*[!0-9]*) problems="$problems\n  RADIUS_CLIENT_LIFETIME must be 1-60 seconds" ;;
  *) if [ "$RADIUS_CLIENT_LIFETIME" -lt 1 ] || [ "$RADIUS_CLIENT_LIFETIME" -gt 60 ]; then
       problems="$problems\n  RADIUS_CLIENT_LIFETIME must be 1-60 seconds"; fi ;;
esac
if [ "${RADIUS_AUTH_PORT:-a}" = "${RADIUS_ACCT_PORT:-b}" ]; then
  problems="$problems\n  RADIUS_AUTH_PORT and RADIUS_ACCT_PORT must differ"
fi

if [ -n "$problems" ]; then
  printf 'run.sh: cannot start FreeRADIUS:%b\n(see docs/radius.md)\n' "$problems" >&2
  exit 64
fi

# The RadSec certificates: from the environment (written to RADIUS_TLS_DIR), or already there.
RADIUS_TLS_DIR=${RADIUS_TLS_DIR:-$dir/tls}
tls_given=0
for name in RADIUS_TLS_CA_PEM RADIUS_TLS_CERT_PEM RADIUS_TLS_KEY_PEM; do
  eval "value=\${$name:-}"
  [ -n "$value" ] && tls_given=$((tls_given + 1))
done
if [ "$tls_given" -eq 3 ]; then
  mkdir -p "$RADIUS_TLS_DIR"
  ( umask 077
    printf '%s\n' "$RADIUS_TLS_CA_PEM" > "$RADIUS_TLS_DIR/ca.pem"
    printf '%s\n' "$RADIUS_TLS_CERT_PEM" > "$RADIUS_TLS_DIR/server.pem"
    printf '%s\n' "$RADIUS_TLS_KEY_PEM" > "$RADIUS_TLS_DIR/server.key" )
elif [ "$tls_given" -ne 0 ]; then
  echo "run.sh: RADIUS_TLS_CA_PEM, RADIUS_TLS_CERT_PEM and RADIUS_TLS_KEY_PEM go together (the front's certificate secret)" >&2
  exit 64
fi
# The private key stays in its file: neither FreeRADIUS nor the relay inherits it.
unset RADIUS_TLS_CA_PEM RADIUS_TLS_CERT_PEM RADIUS_TLS_KEY_PEM value
for file in ca.pem server.pem server.key; do
  if [ ! -s "$RADIUS_TLS_DIR/$file" ]; then
    echo "run.sh: no $RADIUS_TLS_DIR/$file: set RADIUS_TLS_CA_PEM, RADIUS_TLS_CERT_PEM and RADIUS_TLS_KEY_PEM, or put the RadSec files there (see docs/radius.md)" >&2
    exit 64
  fi
done

bin=$(command -v freeradius || command -v radiusd || true)
[ -z "$bin" ] && [ -x /usr/sbin/freeradius ] && bin=/usr/sbin/freeradius
if [ -z "$bin" ]; then
  echo "run.sh: freeradius is not installed: sudo apt-get install -y freeradius freeradius-rest freeradius-utils" >&2
  exit 69
fi

# BlastRADIUS (CVE-2024-3596): FreeRADIUS 3.2.5 and later know require_message_authenticator
# and limit_proxy_state in radiusd.conf's security section; older ones refuse them. Written for
# the server that will run, from its own version.
version=$("$bin" -v 2>/dev/null | sed -n 's/.*Version \([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n 1)
version=${version:-0.0.0}
major=${version%%.*}; rest=${version#*.}; minor=${rest%%.*}; patch=${rest#*.}
# An older one gets Message-Authenticator added to its replies by the configuration instead
# (message-authenticator.conf, included by sites/hotspot); a newer one adds it itself.
if [ "$major" -gt 3 ] || { [ "$major" -eq 3 ] && { [ "$minor" -gt 2 ] || { [ "$minor" -eq 2 ] && [ "$patch" -ge 5 ]; }; }; }; then
  printf '%s\n' '#  Written by run.sh for this server (3.2.5 or later).' \
    'require_message_authenticator = yes' 'limit_proxy_state = yes' > "$dir/blastradius.conf"
  rm -f "$dir/message-authenticator.conf"
else
  rm -f "$dir/blastradius.conf"
  printf '%s\n' '#  Written by run.sh for this server (before 3.2.5).' \
    'update reply {' '	&Message-Authenticator := 0x00' '}' > "$dir/message-authenticator.conf"
fi

export RADIUS_API_URL RADIUS_API_SECRET RADIUS_SECRET RADIUS_CLIENT_IPADDR RADIUS_LISTEN_ADDR \
  RADIUS_AUTH_PORT RADIUS_ACCT_PORT RADIUS_TLS_PORT RADIUS_API_TIMEOUT RADIUS_CLIENT_LIFETIME RADIUS_TLS_DIR
checking=0
case " $* " in *" -C "*) checking=1 ;; esac
# The service and the relay are started first and this shell then becomes FreeRADIUS: their
# parent is FreeRADIUS, and they exit when FreeRADIUS does. Not for a configuration check (-C).
if [ -n "$service" ] && [ "$checking" -eq 0 ]; then
  export RADIUS_SERVICE_PORT
  "$node" "$service" &
  service_pid=$!
  # FreeRADIUS starts only once its service answers (the routers loaded): RADIUS_SERVICE_START_S.
  tries=$(( ${RADIUS_SERVICE_START_S:-60} * 5 ))
  until "$node" -e 'fetch(process.argv[1]).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))' \
      "$RADIUS_API_URL/health" 2>/dev/null; do
    if ! kill -0 "$service_pid" 2>/dev/null; then
      echo "run.sh: the service exited before it was ready (its output is above)" >&2
      exit 70
    fi
    tries=$((tries - 1))
    if [ "$tries" -le 0 ]; then
      echo "run.sh: the service did not answer $RADIUS_API_URL/health in time" >&2
      kill "$service_pid" 2>/dev/null || true
      exit 70
    fi
    sleep 0.2
  done
  # The sealing key is the service's alone.
  unset ROUTER_SEAL_KEY
fi
if [ "$RADIUS_DISCONNECT" = on ] && [ "$checking" -eq 0 ]; then "$node" "$dir/disconnect-relay.mjs" & fi
exec "$bin" -f -d "$dir" "$@"
