// A router's Dynamic Authorization server (RFC 5176) faked on a loopback UDP port.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createSocket, type RemoteInfo } from 'node:dgram';
import radius from 'radius';

/**
 * A router's Dynamic Authorization server (RFC 5176) on a loopback UDP port, as a MikroTik with
 * `/radius incoming set accept=yes` runs one: it decodes each Disconnect-Request (the `radius`
 * package), checks its Request Authenticator and Message-Authenticator with the shared secret
 * (written here from the RFC, apart from the relay's code), and answers as the test says: a
 * Disconnect-ACK, a Disconnect-NAK with an Error-Cause, or nothing.
 */

export type NasAnswer = 'ack' | 'silence' | { nak: number };

export interface ReceivedDisconnect {
  code: string;
  attributes: Record<string, unknown>;
  /** The Request Authenticator is MD5(packet with it zeroed + secret) (RFC 5176 section 3.5, RFC 2866). */
  authenticatorValid: boolean;
  /** Present and equal to the HMAC-MD5 of the packet with both authenticators zeroed (RFC 5176 section 3.5, RFC 3579). */
  messageAuthenticatorValid: boolean;
  from: RemoteInfo;
  at: number;
}

export interface FakeNas {
  port: number;
  received: ReceivedDisconnect[];
  /** What the next requests are answered (default: ACK). */
  answer: (a: NasAnswer | ((r: ReceivedDisconnect) => NasAnswer)) => void;
  /** Resolves once `n` requests came in (fails after `ms`). */
  waitFor: (n: number, ms?: number) => Promise<ReceivedDisconnect[]>;
  close: () => Promise<void>;
}

const MESSAGE_AUTHENTICATOR = 80;

function verify(
  packet: Buffer,
  secret: string,
): Pick<ReceivedDisconnect, 'authenticatorValid' | 'messageAuthenticatorValid'> {
  const zeroed = Buffer.from(packet);
  zeroed.fill(0, 4, 20);
  const expected = createHash('md5').update(zeroed).update(secret).digest();
  const authenticatorValid = timingSafeEqual(expected, packet.subarray(4, 20));
  let messageAuthenticatorValid = false;
  const length = packet.readUInt16BE(2);
  for (let at = 20; at + 2 <= length; at += packet[at + 1] as number) {
    const len = packet[at + 1] as number;
    if (len < 2) break;
    if (packet[at] === MESSAGE_AUTHENTICATOR && len === 18) {
      const given = Buffer.from(packet.subarray(at + 2, at + 18));
      zeroed.fill(0, at + 2, at + 18);
      const hmac = createHmac('md5', secret).update(zeroed).digest();
      messageAuthenticatorValid = timingSafeEqual(hmac, given);
    }
  }
  return { authenticatorValid, messageAuthenticatorValid };
}

export function startFakeNas(secret: string, port = 0): Promise<FakeNas> {
  const socket = createSocket('udp4');
  const received: ReceivedDisconnect[] = [];
  let answer: NasAnswer | ((r: ReceivedDisconnect) => NasAnswer) = 'ack';
  const waiters: (() => void)[] = [];
  socket.on('message', (packet, from) => {
    let decoded: ReturnType<typeof radius.decode>;
    try {
      decoded = radius.decode_without_secret({ packet });
    } catch {
      return;
    }
    if (decoded.code !== 'Disconnect-Request' && decoded.code !== 'CoA-Request') return;
    const r: ReceivedDisconnect = {
      code: decoded.code,
      attributes: decoded.attributes,
      ...verify(packet, secret),
      from,
      at: performance.now(),
    };
    received.push(r);
    for (const w of waiters.splice(0)) w();
    // A router drops what it cannot authenticate: no answer at all.
    if (!r.authenticatorValid || !r.messageAuthenticatorValid) return;
    const a = typeof answer === 'function' ? answer(r) : answer;
    if (a === 'silence') return;
    const ack = decoded.code === 'Disconnect-Request' ? 'Disconnect-ACK' : 'CoA-ACK';
    const nak = decoded.code === 'Disconnect-Request' ? 'Disconnect-NAK' : 'CoA-NAK';
    const reply = radius.encode_response({
      packet: decoded,
      code: a === 'ack' ? ack : nak,
      secret,
      attributes: a === 'ack' ? [] : [['Error-Cause', a.nak]],
    });
    socket.send(reply, from.port, from.address);
  });
  return new Promise((done, fail) => {
    socket.once('error', fail);
    socket.bind(port, '127.0.0.1', () => {
      done({
        port: socket.address().port,
        received,
        answer: (a) => {
          answer = a;
        },
        waitFor: async (n, ms = 20_000) => {
          const deadline = Date.now() + ms;
          while (received.length < n) {
            if (Date.now() > deadline)
              throw new Error(`the fake NAS got ${received.length} of ${n} requests within ${ms} ms`);
            await new Promise<void>((r) => {
              waiters.push(r);
              setTimeout(r, 100);
            });
          }
          return received.slice(0, n);
        },
        close: () => new Promise<void>((r) => socket.close(() => r())),
      });
    });
  });
}
