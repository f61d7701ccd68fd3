// The canary's RADIUS check: an Access-Request for the canary's account, its answer's authenticators verified.

import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { type CheckResult, fail, timed } from './types.js';

export interface RadiusTarget {
  host: string;
  port: number;
  user: string;
  /** NAS-Identifier sent with the request: the canary's site. */
  nasId: string;
  timeoutMs: number;
  /** Local address to send from (the address the canary's router is registered at). */
  source?: string;
}

export interface RadiusSecrets {
  sharedSecret: string;
  password: string;
}

const CODES: Record<number, string> = { 2: 'Access-Accept', 3: 'Access-Reject', 11: 'Access-Challenge' };
const MESSAGE_AUTHENTICATOR = 80;

/**
 * Checks a reply to our request (RFC 2865 §3, RFC 3579 §3.2): the Response Authenticator must
 * be MD5(Code + Identifier + Length + Request Authenticator + Attributes + Secret), and a
 * Message-Authenticator, when the reply has one, HMAC-MD5 over the reply with the Request
 * Authenticator in place and itself zeroed. Returns the reason it is not authentic, if any.
 * (The `radius` package's verify_response gives up when the request carried a
 * Message-Authenticator, which ours always does, so this is done here.)
 */
function replyProblem(reply: Buffer, requestAuthenticator: Buffer, secret: string): string | undefined {
  if (reply.length < 20) return 'malformed';
  const length = reply.readUInt16BE(2);
  if (length < 20 || length > reply.length) return 'malformed';
  const packet = reply.subarray(0, length);
  const expected = createHash('md5')
    .update(packet.subarray(0, 4))
    .update(requestAuthenticator)
    .update(packet.subarray(20))
    .update(secret, 'utf8')
    .digest();
  if (!timingSafeEqual(expected, packet.subarray(4, 20))) return 'bad_authenticator';

  for (let offset = 20; offset < length; ) {
    const type = packet[offset] as number;
    const size = packet[offset + 1] ?? 0;
    if (size < 2 || offset + size > length) return 'malformed';
    if (type === MESSAGE_AUTHENTICATOR) {
      if (size !== 18) return 'malformed';
      const copy = Buffer.from(packet);
      requestAuthenticator.copy(copy, 4);
      copy.fill(0, offset + 2, offset + 18);
      const mac = createHmac('md5', secret).update(copy).digest();
      if (!timingSafeEqual(mac, packet.subarray(offset + 2, offset + 18))) return 'bad_message_authenticator';
    }
    offset += size;
  }
  return undefined;
}

/**
 * `radius_auth`: one PAP Access-Request (RFC 2865) with the canary account, carrying a
 * Message-Authenticator (as servers hardened against BlastRADIUS require), retransmitted once
 * a second over UDP until the deadline. Passes only on an Access-Accept whose authenticators
 * prove it came from a server that knows the shared secret.
 */
export function checkRadiusAuth(
  target: RadiusTarget,
  secrets: () => Promise<RadiusSecrets>,
): Promise<CheckResult> {
  return timed('radius_auth', target.timeoutMs, async (signal) => {
    if (!target.host) fail('not_configured', 'CANARY_RADIUS_HOST is required');
    let creds: RadiusSecrets;
    try {
      creds = await secrets();
    } catch (error) {
      return fail('not_configured', `RADIUS_SECRET or CANARY_PASSWORD: ${(error as Error).message}`);
    }
    // Loaded on the first run rather than with the function: only this check needs it.
    const { default: radius } = await import('radius');
    const identifier = randomInt(0, 256);
    const request = radius.encode({
      code: 'Access-Request',
      secret: creds.sharedSecret,
      identifier,
      attributes: [
        ['User-Name', target.user],
        ['User-Password', creds.password],
        ['NAS-Identifier', target.nasId],
        ['Service-Type', 'Login-User'],
      ],
      add_message_authenticator: true,
    });
    const requestAuthenticator = Buffer.from(request.subarray(4, 20));

    const socket = createSocket(isIPv6(target.host.replace(/^\[|\]$/g, '')) ? 'udp6' : 'udp4');
    let resend: NodeJS.Timeout | undefined;
    const close = () => {
      clearInterval(resend);
      try {
        socket.close();
      } catch {
        // already closed
      }
    };
    signal.addEventListener('abort', close, { once: true });
    try {
      const reply = await new Promise<Buffer>((resolve, reject) => {
        socket.on('error', reject);
        socket.on('message', (msg, rinfo) => {
          // Only an answer from the server we asked, to this request, is considered.
          if (rinfo.port !== target.port || msg.length < 20 || msg[1] !== identifier) return;
          resolve(msg);
        });
        if (target.source) socket.bind({ address: target.source, port: 0 });
        const send = () =>
          socket.send(request, target.port, target.host.replace(/^\[|\]$/g, ''), (error) => {
            if (error) reject(error);
          });
        send();
        resend = setInterval(send, 1000);
      });
      const problem = replyProblem(reply, requestAuthenticator, creds.sharedSecret);
      if (problem === 'malformed') fail(problem, 'the reply is not a well-formed RADIUS packet');
      if (problem) fail(problem, 'the reply is not signed with our shared secret (wrong RADIUS_SECRET?)');
      const code = reply[0] as number;
      if (code !== 2) {
        const name = CODES[code] ?? `code ${code}`;
        fail(name === 'Access-Reject' ? 'access_reject' : 'unexpected_reply', `${name} for ${target.user}`);
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ECONNREFUSED') fail('refused', 'the port is closed');
      throw error;
    } finally {
      close();
    }
  });
}
