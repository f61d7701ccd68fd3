// The operator CLI's `nas` commands: a hotspot's vendor, Disconnect address, login origin and OTP budget, and its record.

import { isIP } from 'node:net';
import {
  getNas,
  loginOriginOf,
  NAS_VENDORS,
  type NasVendor,
  setNasCoa,
  setNasLoginOrigin,
  setNasOtpBudget,
  setNasVendor,
} from '../../functions/store/nas.js';
import { UsageError } from './context.js';

const USAGE =
  `nas vendor --nas-id <id> --vendor ${NAS_VENDORS.join('|')} | nas show --nas-id <id> | ` +
  'nas coa --nas-id <id> [--host <ip>] [--port <n>] | nas login-origin --nas-id <id> --origin <http://host[:port]> | ' +
  'nas otp-budget --nas-id <id> [--per-hour <n>]';

/**
 * `nas vendor`: which router family a hotspot runs, so that RADIUS answers it with the
 * attributes it understands (MikroTik when never set). `nas show`: the hotspot's record.
 */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  const nasId = flags['nas-id'];
  if (!nasId || nasId === 'true') throw new UsageError(USAGE);
  if (command === 'vendor') {
    const vendor = flags.vendor as NasVendor;
    if (!NAS_VENDORS.includes(vendor)) throw new UsageError(USAGE);
    if (!(await setNasVendor(nasId, vendor))) throw new UsageError(`no hotspot ${nasId}`);
    process.stdout.write(`${nasId}: RADIUS answers with ${vendor} attributes\n`);
    return;
  }
  if (command === 'coa') {
    // Where the router takes Disconnect-Requests: without flags, back to the defaults.
    const host = flags.host && flags.host !== 'true' ? flags.host : undefined;
    const port = flags.port ? Number(flags.port) : undefined;
    if (host !== undefined && !isIP(host)) throw new UsageError('--host must be an IP address');
    if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535))
      throw new UsageError('--port must be 1-65535');
    if (!(await setNasCoa(nasId, { host, port }))) throw new UsageError(`no hotspot ${nasId}`);
    process.stdout.write(
      `${nasId}: Disconnect-Requests go to ${host ?? '<the address its accounting comes from>'}:${port ?? 3799}\n`,
    );
    return;
  }
  if (command === 'login-origin') {
    // Where the router takes logins: the portal posts codes to this origin and no other.
    let origin: string;
    try {
      const url = new URL(flags.origin ?? '');
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password)
        throw new Error('not a web origin');
      origin = url.origin;
    } catch {
      throw new UsageError(USAGE);
    }
    if (!(await setNasLoginOrigin(nasId, origin))) throw new UsageError(`no hotspot ${nasId}`);
    process.stdout.write(`${nasId}: the portal posts codes to ${origin} only\n`);
    return;
  }
  if (command === 'otp-budget') {
    // The SMS codes an hour a busy hotspot's address may ask for; without --per-hour, back to
    // OTP_REQUESTS_PER_HOTSPOT_PER_HOUR.
    const perHour = flags['per-hour'] === undefined ? undefined : Number(flags['per-hour']);
    if (perHour !== undefined && !(Number.isInteger(perHour) && perHour >= 1 && perHour <= 100_000))
      throw new UsageError('--per-hour must be 1-100000');
    if (!(await setNasOtpBudget(nasId, perHour))) throw new UsageError(`no hotspot ${nasId}`);
    process.stdout.write(
      `${nasId}: ${perHour ?? 'the default number of'} SMS codes an hour from its router's address\n`,
    );
    return;
  }
  if (command === 'show') {
    const nas = await getNas(nasId);
    if (!nas) throw new UsageError(`no hotspot ${nasId}`);
    process.stdout.write(
      `${JSON.stringify({ ...nas, vendor: nas.vendor ?? 'mikrotik', login_origin: loginOriginOf(nas) }, null, 2)}\n`,
    );
    return;
  }
  throw new UsageError(USAGE);
}
