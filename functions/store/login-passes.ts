// The login passes' items: one device proven for one access code, short-lived, read by RADIUS during a flood.

import { entity } from './entity.js';

/**
 * A login pass: one device at one hotspot proven for one access code by a signed-in subscriber
 * on the portal (functions/portal/login-pass.ts), within its account's wrong-code budget. Past a
 * hotspot's wrong-code count, RADIUS lets a printed card in on a device it holds a pass for
 * (functions/radius/guesses.ts `gateLogin`): the device is named as RADIUS names it,
 * `<nas_id>/<MAC>`, so a guesser changing MAC at the router finds no pass for its next MAC.
 * Short-lived: the card's first login on the device follows within seconds, and from then on
 * the card is on that device (its lease, then its ended sessions). DynamoDB's TTL deletes it
 * late; `until` is what counts.
 */
export interface LoginPass {
  code: string;
  /** `<nas_id>/<MAC>` (functions/radius/attributes.ts `deviceKey`). */
  device: string;
  /** Epoch ms: the pass proves the device until then. */
  until: number;
}

export const LoginPassEntity = entity<LoginPass>('login_pass')({
  key: (p: Pick<LoginPass, 'code' | 'device'>) => ({ pk: `PASS#${p.code}`, sk: `DEVICE#${p.device}` }),
  ttl: (p) => Math.ceil(p.until / 1000) + 60,
});

/** Gives (or renews) a device's pass for a code. */
// Access: PutItem pk=PASS#<code> sk=DEVICE#<nas_id>/<MAC>.
export const putLoginPass = (p: LoginPass): Promise<boolean> => LoginPassEntity.put(p);

/** Whether the device holds a pass for the code now. */
// Access: GetItem pk=PASS#<code> sk=DEVICE#<nas_id>/<MAC> (consistent).
export async function holdsLoginPass(code: string, device: string, nowMs: number): Promise<boolean> {
  const pass = await LoginPassEntity.get({ code, device }, { consistent: true });
  return pass !== undefined && pass.until > nowMs;
}
