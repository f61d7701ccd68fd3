// The operator CLI's `accounts` commands: add, remove, revoke and list operators.

import { randomUUID } from 'node:crypto';
import { requireMsisdn } from '../../functions/auth/otp.js';
import { COUNTRIES, isCountry, sameZone } from '../../functions/core/currency.js';
import {
  getAccount,
  listOperators,
  registerOperator,
  removeOperator,
  revokeTokens,
} from '../../functions/store/accounts.js';
import { markResellerRemoved, recordReseller } from '../../functions/store/resellers.js';
import { required, UsageError } from './context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export const ACCOUNTS_USAGE =
  'accounts add --msisdn <E.164> --role admin|reseller [--reseller-id <uuid>] [--name <name>] [--country CI|SN|CM|...] [--change-role] | ' +
  'accounts remove --msisdn <E.164> | accounts revoke --msisdn <E.164> | accounts list';

/**
 * `accounts add`: registers an operator, and is safe to run again. An existing reseller keeps its
 * reseller_id (its VLAN, sites and money hang on it) and its name unless `--name` is given; a
 * different `--reseller-id` is refused. Turning an admin into a reseller or back needs
 * `--change-role`. The write is conditioned on the account as read, so a change made meanwhile
 * is never overwritten.
 */
async function add(flags: Record<string, string>): Promise<void> {
  const msisdn = requireMsisdn(required(flags, 'msisdn'));
  const role = required(flags, 'role');
  if (role !== 'admin' && role !== 'reseller') throw new UsageError('--role must be admin or reseller');
  const given = flags['reseller-id'];
  if (given && !UUID.test(given)) throw new UsageError('--reseller-id must be a UUID');
  if (role === 'admin' && given) throw new UsageError('--reseller-id is for resellers only');
  const country = flags.country?.toUpperCase();
  if (country !== undefined && !isCountry(country)) {
    throw new UsageError(`--country must be one of ${COUNTRIES.join(' ')}`);
  }
  if (role === 'admin' && country) throw new UsageError('--country is for resellers only');

  const existing = await getAccount(msisdn);
  const operator = existing && existing.role !== 'subscriber' ? existing : undefined;
  if (operator && operator.role !== role && flags['change-role'] !== 'true') {
    throw new UsageError(
      `${msisdn} is already ${operator.role === 'admin' ? 'an admin' : `reseller ${operator.reseller_id}`}: ` +
        `pass --change-role to make it ${role === 'admin' ? 'an admin' : 'a reseller'}`,
    );
  }
  let resellerId: string | undefined;
  if (role === 'reseller') {
    const kept = operator?.role === 'reseller' ? operator.reseller_id : undefined;
    if (kept && given && given !== kept) {
      throw new UsageError(
        `${msisdn} is already reseller ${kept}, which keeps its VLAN, sites and money: an account's ` +
          'reseller_id does not change (remove the account first to register the number for another reseller)',
      );
    }
    resellerId = kept ?? given ?? randomUUID();
  }
  const account = await registerOperator(
    {
      msisdn,
      role,
      ...(resellerId ? { resellerId } : {}),
      ...(flags.name ? { name: flags.name } : {}),
    },
    existing && {
      role: existing.role,
      ...(existing.reseller_id ? { reseller_id: existing.reseller_id } : {}),
    },
  );
  if (!account) throw new Error(`${msisdn} changed while it was being registered: run the command again`);
  // The reseller's profile: vouchers are made only for a recorded reseller, its country sets its
  // currency, and its name is what a VLAN allocation with only the reseller id uses.
  if (role === 'reseller' && resellerId) {
    const recorded = await recordReseller({
      resellerId,
      ...(flags.name ? { name: flags.name } : {}),
      ...(country ? { country, sameZone: sameZone(country) } : {}),
    });
    if (recorded === 'zone_change') {
      throw new UsageError(
        `--country ${country}: this reseller already sells in the other CFA franc; its revenue would add XOF to XAF`,
      );
    }
  }
  process.stdout.write(`${JSON.stringify(account, null, 2)}\n`);
}

/** `accounts add|remove|revoke|list`. */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  if (command === 'add') return add(flags);
  if (command === 'remove') {
    const msisdn = requireMsisdn(required(flags, 'msisdn'));
    const before = await getAccount(msisdn);
    if (!before) throw new Error(`no account for ${msisdn}`);
    if (before.role === 'subscriber') {
      // A subscriber removed: the account stays (its payments and history hang on its id), but
      // every token it holds ends, every code it bought is revoked, and its routers are told to
      // cut its live sessions (Disconnect-Request through the RADIUS front).
      await revokeTokens(msisdn, before.id);
      // Loaded here: the other commands do not need the RADIUS side.
      const { revokeCodesOfAccount } = await import('../../functions/radius/disconnect.js');
      const { codes, disconnects } = await revokeCodesOfAccount(before.id, Date.now());
      process.stdout.write(
        `${msisdn}: its session tokens are revoked, its ${codes} access code(s) revoked, ` +
          `${disconnects} live session(s) being disconnected\n`,
      );
      return;
    }
    // An operator: the account stays (a subscriber, same id, history attached); its operator
    // role and every token it holds end now.
    if (!(await removeOperator(msisdn))) {
      throw new Error(`${msisdn} is not an admin or reseller account`);
    }
    // Its reseller's last operator account gone: the reseller is removed, and its agents sell no more.
    const resellerId = before.role === 'reseller' ? before.reseller_id : undefined;
    if (
      resellerId &&
      !(await listOperators()).some((a) => a.role === 'reseller' && a.reseller_id === resellerId)
    )
      await markResellerRemoved(resellerId, new Date().toISOString());
    // The reseller id is printed so that the number can be registered again for the same reseller.
    process.stdout.write(
      `${msisdn} is no longer ${before.role === 'admin' ? 'an admin' : `reseller ${before.reseller_id}`}; ` +
        'its session tokens are revoked\n',
    );
    return;
  }
  if (command === 'revoke') {
    const msisdn = requireMsisdn(required(flags, 'msisdn'));
    if (!(await revokeTokens(msisdn))) throw new Error(`no account for ${msisdn}`);
    process.stdout.write(`every session token of ${msisdn} is revoked\n`);
    return;
  }
  if (command === 'list') {
    const accounts = await listOperators();
    for (const a of accounts) {
      process.stdout.write(
        `${a.role.padEnd(9)} ${a.msisdn.padEnd(16)} ${a.reseller_id ?? '-'.padEnd(36)} ${a.name ?? ''}\n`,
      );
    }
    if (!accounts.length) process.stdout.write('no admin or reseller accounts yet\n');
    return;
  }
  throw new UsageError(ACCOUNTS_USAGE);
}
