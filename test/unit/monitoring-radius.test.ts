import { createHash, createHmac } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRadiusAuth } from '../../functions/monitoring/checks/radius.js';

const SECRET = 'the-shared-secret';

/** A reply (code, id, attributes) signed as a RADIUS server with `secret` would sign it. */
function signedReply(
  code: number,
  id: number,
  requestAuth: Buffer,
  secret: string,
  options: { messageAuthenticator?: 'good' | 'bad' } = {},
): Buffer {
  const attrs = options.messageAuthenticator
    ? Buffer.concat([Buffer.from([80, 18]), Buffer.alloc(16)])
    : Buffer.alloc(0);
  const packet = Buffer.concat([Buffer.from([code, id, 0, 0]), requestAuth, attrs]);
  packet.writeUInt16BE(packet.length, 2);
  if (options.messageAuthenticator) {
    const mac = createHmac('md5', options.messageAuthenticator === 'good' ? secret : 'other')
      .update(packet)
      .digest();
    mac.copy(packet, 22);
  }
  createHash('md5').update(packet).update(secret).digest().copy(packet, 4);
  return packet;
}

/** A UDP server that answers every request with `reply(request)`. */
async function fakeServer(
  reply: (request: Buffer) => Buffer | undefined,
): Promise<{ port: number; socket: Socket }> {
  const socket = createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    const out = reply(msg);
    if (out) socket.send(out, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return { port: socket.address().port, socket };
}

let servers: Socket[] = [];
afterEach(() => {
  for (const s of servers) s.close();
  servers = [];
});

const run = async (reply: (request: Buffer) => Buffer | undefined) => {
  const { port, socket } = await fakeServer(reply);
  servers.push(socket);
  return checkRadiusAuth(
    { host: '127.0.0.1', port, user: 'canary', nasId: 'access_canary', timeoutMs: 1000 },
    async () => ({ sharedSecret: SECRET, password: 'canary-pw-123' }),
  );
};
const auth = (req: Buffer) => req.subarray(4, 20);

describe('the Response Authenticator check', () => {
  it('accepts a reply signed with the shared secret', async () => {
    const r = await run((req) => signedReply(2, req[1] as number, auth(req), SECRET));
    expect(r.success).toBe(true);
  });

  it('refuses a reply signed with another secret', async () => {
    const r = await run((req) => signedReply(2, req[1] as number, auth(req), 'other'));
    expect(r).toMatchObject({ success: false, error: 'bad_authenticator' });
  });

  it('refuses a reply to another request (other Request Authenticator)', async () => {
    const r = await run((req) => signedReply(2, req[1] as number, Buffer.alloc(16, 8), SECRET));
    expect(r).toMatchObject({ success: false, error: 'bad_authenticator' });
  });

  it('checks a Message-Authenticator when the reply carries one', async () => {
    const good = await run((req) =>
      signedReply(2, req[1] as number, auth(req), SECRET, { messageAuthenticator: 'good' }),
    );
    expect(good.success).toBe(true);
    const bad = await run((req) =>
      signedReply(2, req[1] as number, auth(req), SECRET, { messageAuthenticator: 'bad' }),
    );
    expect(bad).toMatchObject({ success: false, error: 'bad_message_authenticator' });
  });

  it('refuses a truncated packet', async () => {
    // Its header says 40 bytes; 20 came.
    const r = await run((req) => {
      const reply = signedReply(2, req[1] as number, auth(req), SECRET);
      reply.writeUInt16BE(40, 2);
      return reply;
    });
    expect(r).toMatchObject({ success: false, error: 'malformed' });
  });
});

describe('radius_auth against a scripted server', () => {
  it('sends a PAP Access-Request with a Message-Authenticator and the canary user', async () => {
    let seen: Buffer | undefined;
    const r = await run((req) => {
      seen = req;
      return signedReply(2, req[1] as number, auth(req), SECRET);
    });
    expect(r.success).toBe(true);
    expect(seen?.[0]).toBe(1); // Access-Request
    const types: number[] = [];
    for (let o = 20; seen && o < seen.length; o += seen[o + 1] as number) types.push(seen[o] as number);
    expect(types).toEqual(expect.arrayContaining([1, 2, 32, 80])); // User-Name, User-Password, NAS-Identifier, Message-Authenticator
    expect(seen?.includes(Buffer.from('canary-pw-123'))).toBe(false); // the password is hidden (RFC 2865 §5.2)
  });

  it('ignores an answer to another identifier and times out', async () => {
    const r = await run((req) => signedReply(2, ((req[1] as number) + 1) % 256, auth(req), SECRET));
    expect(r).toMatchObject({ success: false, error: 'timeout' });
  });

  it('fails with unexpected_reply on an Access-Challenge', async () => {
    const r = await run((req) => signedReply(11, req[1] as number, auth(req), SECRET));
    expect(r).toMatchObject({ success: false, error: 'unexpected_reply' });
  });

  it('retransmits while the server stays silent, and passes when a later try is answered', async () => {
    let tries = 0;
    const { port, socket } = await fakeServer((req) => {
      tries += 1;
      return tries < 2 ? undefined : signedReply(2, req[1] as number, auth(req), SECRET);
    });
    servers.push(socket);
    const r = await checkRadiusAuth(
      { host: '127.0.0.1', port, user: 'canary', nasId: 'n', timeoutMs: 2500 },
      async () => ({ sharedSecret: SECRET, password: 'canary-pw-123' }),
    );
    expect(r.success).toBe(true);
    expect(tries).toBe(2);
  });
});
