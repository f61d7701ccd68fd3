import radius from 'radius';
import { describe, expect, it } from 'vitest';
import { disconnectRequest, readAnswer, send } from '../../deploy/freeradius/disconnect-relay.mjs';
import { startFakeNas } from '../support/fake-nas.js';

// The relay's own RADIUS code (deploy/freeradius/disconnect-relay.mjs), against the `radius`
// package and the fake router's checks written from the RFC.
const SECRET = 'relay-unit-secret';
const TO = {
  host: '127.0.0.1',
  port: 0,
  user_name: 'ABCDEFGHJK',
  acct_session_id: '8100001A',
  nas_identifier: 'access_unit',
  nas_ip_address: '192.0.2.7',
};

describe('the Disconnect relay', () => {
  it('signs a Disconnect-Request a router accepts, naming the session', async () => {
    const nas = await startFakeNas(SECRET);
    try {
      expect(await send({ ...TO, port: nas.port }, SECRET, 2000)).toEqual({ outcome: 'ack' });
      expect(nas.received[0]).toMatchObject({
        code: 'Disconnect-Request',
        authenticatorValid: true,
        messageAuthenticatorValid: true,
        attributes: {
          'User-Name': 'ABCDEFGHJK',
          'Acct-Session-Id': '8100001A',
          'NAS-Identifier': 'access_unit',
          'NAS-IP-Address': '192.0.2.7',
        },
      });

      nas.answer({ nak: 506 });
      expect(await send({ ...TO, port: nas.port }, SECRET, 2000)).toEqual({
        outcome: 'nak',
        error_cause: 506,
      });
      nas.answer('silence');
      expect(await send({ ...TO, port: nas.port }, SECRET, 300)).toEqual({ outcome: 'timeout' });
    } finally {
      await nas.close();
    }
  });

  it('is not answered by a router with another secret (it drops what it cannot authenticate)', async () => {
    const nas = await startFakeNas('another-secret');
    try {
      expect(await send({ ...TO, port: nas.port }, SECRET, 300)).toEqual({ outcome: 'timeout' });
      expect(nas.received[0]).toMatchObject({ authenticatorValid: false, messageAuthenticatorValid: false });
    } finally {
      await nas.close();
    }
  });

  it('takes only an answer to its own request, signed with the secret', () => {
    const request = disconnectRequest(7, TO, SECRET, 1_800_000_000);
    const decoded = radius.decode_without_secret({ packet: request });
    const answer = (code: string, secret: string, attributes: [string, number][] = []) =>
      radius.encode_response({ packet: decoded, code, secret, attributes });

    expect(readAnswer(answer('Disconnect-ACK', SECRET), request, SECRET)).toEqual({ outcome: 'ack' });
    expect(readAnswer(answer('Disconnect-NAK', SECRET, [['Error-Cause', 503]]), request, SECRET)).toEqual({
      outcome: 'nak',
      error_cause: 503,
    });
    // Forged (another secret), for another request, or not an answer at all: ignored.
    expect(readAnswer(answer('Disconnect-ACK', 'forged'), request, SECRET)).toBeUndefined();
    const other = disconnectRequest(8, TO, SECRET, 1_800_000_000);
    expect(readAnswer(answer('Disconnect-ACK', SECRET), other, SECRET)).toBeUndefined();
    expect(readAnswer(answer('CoA-ACK', SECRET), request, SECRET)).toBeUndefined();
    expect(readAnswer(Buffer.alloc(10), request, SECRET)).toBeUndefined();
  });
});
