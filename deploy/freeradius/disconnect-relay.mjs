#!/usr/bin/env node
// The Disconnect relay (RFC 5176), started by run.sh next to FreeRADIUS: the API cannot reach
// the routers (in AWS it has no route to them), the RADIUS front can. It asks the API for the
// Disconnect-Requests due (POST /api/v1/radius/disconnects/claim, with the same bearer secret
// FreeRADIUS uses), sends each to its router's UDP port 3799 signed with that router's own
// secret (the claim carries it; RADIUS_SECRET only for a NAS id no UDP router speaks for), and
// reports the router's answer (Disconnect-ACK, Disconnect-NAK with its
// Error-Cause, or nothing) to /api/v1/radius/disconnects/{id}/result. The API decides
// everything else: retries, backoff, closing the session.
//
// Plain Node (18 or later), no package: the FreeRADIUS image only needs `node` besides. Why not
// FreeRADIUS itself: its originate-coa needs a trigger packet and a home_server per router
// address, written in its configuration; a router's address is only known at run time.
//
// Environment: RADIUS_API_URL, RADIUS_API_SECRET (as run.sh sets them: its task's service),
// RADIUS_SECRET (optional: for NAS ids only RadSec routers speak for),
// RADIUS_DISCONNECT_POLL_MS (1000: how often the API is asked when nothing was due),
// RADIUS_DISCONNECT_TIMEOUT_MS (3000: how long a router has to answer one send).
// Logs one line per send to stdout, never a secret.

import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';
import { pathToFileURL } from 'node:url';

const DISCONNECT_REQUEST = 40;
const DISCONNECT_ACK = 41;
const DISCONNECT_NAK = 42;
const ATTR = {
  userName: 1,
  nasIpAddress: 4,
  nasIdentifier: 32,
  acctSessionId: 44,
  eventTimestamp: 55,
  messageAuthenticator: 80,
  errorCause: 101,
};

/** One attribute: type, length, value (at most 253 bytes). */
function attribute(type, value) {
  if (value.length > 253) throw new Error(`attribute ${type} is longer than 253 bytes`);
  return Buffer.concat([Buffer.from([type, value.length + 2]), value]);
}

const int32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/**
 * A Disconnect-Request as RFC 5176 section 3.5 and FreeRADIUS sign it: the Message-Authenticator
 * is the HMAC-MD5 of the packet with a zero Request Authenticator, then the Request
 * Authenticator is MD5(packet + secret) (as an Accounting-Request's, RFC 2866).
 * @param {number} identifier
 * @param {{user_name: string, acct_session_id?: string, nas_identifier: string, nas_ip_address?: string}} d
 * @param {string} secret
 * @param {number} nowS
 */
export function disconnectRequest(identifier, d, secret, nowS) {
  const attrs = [attribute(ATTR.userName, Buffer.from(d.user_name))];
  if (d.acct_session_id) attrs.push(attribute(ATTR.acctSessionId, Buffer.from(d.acct_session_id)));
  attrs.push(attribute(ATTR.nasIdentifier, Buffer.from(d.nas_identifier)));
  if (d.nas_ip_address && isIPv4(d.nas_ip_address)) {
    attrs.push(attribute(ATTR.nasIpAddress, Buffer.from(d.nas_ip_address.split('.').map(Number))));
  }
  attrs.push(attribute(ATTR.eventTimestamp, int32(nowS)));
  const maAt = 20 + attrs.reduce((n, a) => n + a.length, 0) + 2;
  attrs.push(attribute(ATTR.messageAuthenticator, Buffer.alloc(16)));
  const body = Buffer.concat(attrs);
  const packet = Buffer.concat([Buffer.alloc(20), body]);
  packet[0] = DISCONNECT_REQUEST;
  packet[1] = identifier;
  packet.writeUInt16BE(packet.length, 2);
  createHmac('md5', secret).update(packet).digest().copy(packet, maAt);
  createHash('md5').update(packet).update(secret).digest().copy(packet, 4);
  return packet;
}

/**
 * The router's answer to `request`, or undefined when the packet is not one (another id, another
 * code, or a Response Authenticator that does not check out with the secret: not the router).
 * @param {Buffer} reply
 * @param {Buffer} request
 * @param {string} secret
 * @returns {{outcome: 'ack' | 'nak', error_cause?: number} | undefined}
 */
export function readAnswer(reply, request, secret) {
  if (reply.length < 20 || reply[1] !== request[1]) return undefined;
  if (reply[0] !== DISCONNECT_ACK && reply[0] !== DISCONNECT_NAK) return undefined;
  const length = reply.readUInt16BE(2);
  if (length < 20 || length > reply.length) return undefined;
  const packet = reply.subarray(0, length);
  const expected = createHash('md5')
    .update(packet.subarray(0, 4))
    .update(request.subarray(4, 20))
    .update(packet.subarray(20))
    .update(secret)
    .digest();
  if (!timingSafeEqual(expected, packet.subarray(4, 20))) return undefined;
  let errorCause;
  for (let at = 20; at + 2 <= length; ) {
    const type = packet[at];
    const len = packet[at + 1];
    if (len < 2 || at + len > length) return undefined;
    if (type === ATTR.errorCause && len === 6) errorCause = packet.readUInt32BE(at + 2);
    at += len;
  }
  return {
    outcome: packet[0] === DISCONNECT_ACK ? 'ack' : 'nak',
    ...(errorCause !== undefined ? { error_cause: errorCause } : {}),
  };
}

/** Sends one request and waits for its answer: 'timeout' when none came in time. */
export function send(d, secret, timeoutMs) {
  return new Promise((done) => {
    const socket = createSocket(isIPv6(d.host) ? 'udp6' : 'udp4');
    const request = disconnectRequest(randomInt(256), d, secret, Math.floor(Date.now() / 1000));
    const finish = (answer) => {
      clearTimeout(timer);
      socket.close();
      done(answer);
    };
    const timer = setTimeout(() => finish({ outcome: 'timeout' }), timeoutMs);
    socket.on('message', (msg) => {
      const answer = readAnswer(msg, request, secret);
      if (answer) finish(answer);
    });
    socket.on('error', () => finish({ outcome: 'timeout' }));
    socket.send(request, d.port, d.host);
  });
}

const env = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') {
    if (fallback === undefined) throw new Error(`${name} is not set`);
    return fallback;
  }
  return value;
};

async function main() {
  const api = env('RADIUS_API_URL').replace(/\/+$/, '');
  const bearer = env('RADIUS_API_SECRET');
  // Only for a NAS id no UDP router speaks for (the claim carries the others' own secrets).
  const secret = env('RADIUS_SECRET', '');
  const pollMs = Number(env('RADIUS_DISCONNECT_POLL_MS', '1000'));
  const timeoutMs = Number(env('RADIUS_DISCONNECT_TIMEOUT_MS', '3000'));
  // run.sh execs FreeRADIUS in its own place: when FreeRADIUS goes, this process is handed to
  // another parent, and goes too.
  const parent = process.ppid;
  const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
  const post = (path, body) =>
    fetch(`${api}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
  let lastProblem = '';
  const problem = (what) => {
    // One line per kind of trouble, not one a second while the API is down.
    if (what !== lastProblem) process.stdout.write(`disconnect-relay: ${what}\n`);
    lastProblem = what;
  };

  const report = async (d, answer) => {
    for (let tries = 0; tries < 3; tries++) {
      try {
        const res = await post(`/api/v1/radius/disconnects/${encodeURIComponent(d.session_id)}/result`, {
          attempt: d.attempt,
          ...answer,
        });
        if (res.ok || res.status === 404) return;
      } catch {
        // the API is away: try again below
      }
      await new Promise((r) => setTimeout(r, 500 * (tries + 1)));
    }
    // Unreported: the API counts the send as unanswered when its window ends.
    problem(`result of ${d.session_id} not reported`);
  };

  const handle = async (d) => {
    // The router's own secret from the claim; never written anywhere.
    const key = d.secret ?? secret;
    // Nothing to sign with: reported unanswered (the API retries, then marks it failed).
    const answer = key ? await send(d, key, timeoutMs) : { outcome: 'timeout' };
    process.stdout.write(
      `disconnect-relay: ${d.session_id} attempt ${d.attempt} -> ${d.host}:${d.port} ${answer.outcome}` +
        `${answer.error_cause !== undefined ? ` (Error-Cause ${answer.error_cause})` : ''}\n`,
    );
    await report(d, answer);
  };

  process.stdout.write(`disconnect-relay: asking ${api} every ${pollMs} ms\n`);
  for (;;) {
    if (process.ppid !== parent) process.exit(0);
    let items = [];
    try {
      const res = await post('/api/v1/radius/disconnects/claim', { max: 20 });
      if (res.ok) {
        items = (await res.json()).items ?? [];
        lastProblem = '';
      } else problem(`the API answered ${res.status} to the claim`);
    } catch (error) {
      problem(`the API is unreachable (${error.cause?.code ?? error.name})`);
    }
    // Sends run on their own: a silent router does not hold up the next poll.
    for (const d of items) void handle(d);
    if (items.length < 20) await new Promise((r) => setTimeout(r, pollMs));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    process.stderr.write(`disconnect-relay: ${error.message}\n`);
    process.exit(64);
  });
}
