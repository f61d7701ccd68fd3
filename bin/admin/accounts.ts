import { randomUUID } from 'node:crypto';
import { requireMsisdn } from '../../functions/auth/service.js';
import { listOperators, upsertOperator } from '../../functions/store/accounts.js';
import { recordResellerName } from '../../functions/store/vlans.js';
import { required, UsageError } from './context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** `accounts add` and `accounts list`. */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  if (command === 'add') {
    const msisdn = requireMsisdn(required(flags, 'msisdn'));
    const role = required(flags, 'role');
    if (role !== 'admin' && role !== 'reseller') throw new UsageError('--role must be admin or reseller');
    let resellerId = flags['reseller-id'];
    if (resellerId && !UUID.test(resellerId)) throw new UsageError('--reseller-id must be a UUID');
    if (role === 'admin' && resellerId) throw new UsageError('--reseller-id is for resellers only');
    if (role === 'reseller') resellerId ??= randomUUID();
    const account = await upsertOperator({
      msisdn,
      role,
      ...(resellerId ? { resellerId } : {}),
      ...(flags.name ? { name: flags.name } : {}),
    });
    // The reseller's name is what a VLAN allocation with only the reseller id uses.
    if (role === 'reseller' && resellerId && flags.name) await recordResellerName(resellerId, flags.name);
    process.stdout.write(`${JSON.stringify(account, null, 2)}\n`);
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
  throw new UsageError(
    'accounts add --msisdn <E.164> --role admin|reseller [--reseller-id <uuid>] [--name <name>] | accounts list',
  );
}
