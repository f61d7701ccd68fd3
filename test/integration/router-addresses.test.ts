import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../functions/core/errors.js';
import { register, revoke } from '../../functions/routers/routers.js';
import { getRouter } from '../../functions/store/routers.js';
import { useTestTable } from '../support/db.js';
import { hotspotOf } from '../support/hotspots.js';

// Finding L7 of issue 31: a UDP router's address is one claim however it is spelled, and an
// address one reseller registered is not another's to take.

useTestTable();

async function udpAt(resellerId: string, sourceIp: string) {
  const nasId = await hotspotOf(resellerId, 'access_addr');
  return register({
    reseller_id: resellerId,
    name: 'R',
    nas_ids: [nasId],
    transport: 'udp',
    source_ip: sourceIp,
  });
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'registered',
    (e: unknown) => (e instanceof AppError ? e.code : `unexpected: ${String(e)}`),
  );

/** A documentation address no other test of the run uses. */
const fresh4 = () => `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

describe('L7: UDP router addresses', () => {
  it('are stored in one spelling: an IPv4-mapped IPv6 address is its IPv4 address, IPv6 lower case and compressed', async () => {
    const ip = fresh4();
    const mapped = await udpAt(randomUUID(), `::ffff:${ip}`);
    expect(mapped.router.source_ip).toBe(ip);
    const suffix = Math.floor(Math.random() * 0xffff).toString(16);
    const v6 = await udpAt(randomUUID(), `2001:0DB8:0000:0000:0000:0000:0000:${suffix.toUpperCase()}`);
    expect(v6.router.source_ip).toBe(`2001:db8::${suffix}`);
  });

  it('refuse a duplicate, however it is written', async () => {
    const resellerId = randomUUID();
    const ip = fresh4();
    await udpAt(resellerId, ip);
    expect(await outcome(udpAt(resellerId, `::ffff:${ip}`))).toBe('ERR_CONFLICT');
    expect(await outcome(udpAt(randomUUID(), `0:0:0:0:0:FFFF:${ip}`))).toBe('ERR_CONFLICT');
  });

  it("stay their reseller's once its router is revoked: another reseller cannot take one, the reseller itself can", async () => {
    const a = randomUUID();
    const ip = fresh4();
    const first = await udpAt(a, ip);
    const router = await getRouter(first.router.router_id);
    await revoke(router as NonNullable<typeof router>);
    expect(await outcome(udpAt(randomUUID(), ip))).toBe('ERR_CONFLICT');
    expect(await outcome(udpAt(a, ip))).toBe('registered');
  });
});
