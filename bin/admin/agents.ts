// The operator CLI's `agents` commands: add, list, float, stock and cash of a reseller's agents.

import { addAgent, agentsOf } from '../../functions/agents/agents.js';
import { give as allot, receiveCash } from '../../functions/agents/handovers.js';
import type { AdminPrincipal } from '../../functions/core/principal.js';
import { required, UsageError } from './context.js';

export const AGENTS_USAGE =
  'agents add --reseller-id <uuid> --msisdn <E.164> [--name <name>] [--commission-bp <0..5000>] [--nas-ids a,b] | ' +
  'agents list --reseller-id <uuid> | agents float --id <uuid> --fcfa <n> | ' +
  'agents stock --id <uuid> --forfait-id <uuid> --count <n> | agents cash --id <uuid> --fcfa <n>';

/**
 * The operator runs the CLI with the platform's own AWS credentials: it acts as an admin would
 * through the API, with the same domain functions and the same checks (functions/agents).
 */
const OPERATOR: AdminPrincipal = { sub: 'operator-cli', ref: 'SUB-0', role: 'admin', exp: 0 };

const positive = (flags: Record<string, string>, name: string): number => {
  const n = Number(required(flags, name));
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number`);
  return n;
};

const line = (a: {
  id: string;
  msisdn: string;
  commission_bp: number;
  float_fcfa: number;
  owed_fcfa: number;
  sold_fcfa: number;
  name?: string;
}) =>
  `${a.id} ${a.msisdn.padEnd(16)} ${String(a.commission_bp).padStart(5)}bp float ${a.float_fcfa} sold ${a.sold_fcfa} owed ${a.owed_fcfa} ${a.name ?? ''}\n`;

export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  switch (command) {
    case 'add': {
      const agent = await addAgent(OPERATOR, {
        reseller_id: required(flags, 'reseller-id'),
        msisdn: required(flags, 'msisdn'),
        ...(flags.name ? { name: flags.name } : {}),
        commission_bp: flags['commission-bp'] ? positive(flags, 'commission-bp') : 0,
        ...(flags['nas-ids'] ? { nas_ids: flags['nas-ids'].split(',') } : {}),
      });
      process.stdout.write(
        `agent ${agent.id} invited: ${agent.msisdn} sells for reseller ${agent.reseller_id} once it accepts the link it was texted\n`,
      );
      return;
    }
    case 'list': {
      const { items } = await agentsOf(OPERATOR, required(flags, 'reseller-id'));
      for (const a of items) process.stdout.write(line(a));
      return;
    }
    case 'float':
      process.stdout.write(
        line(await allot(OPERATOR, required(flags, 'id'), { float_fcfa: positive(flags, 'fcfa') })),
      );
      return;
    case 'stock':
      process.stdout.write(
        line(
          await allot(OPERATOR, required(flags, 'id'), {
            forfait_id: required(flags, 'forfait-id'),
            count: positive(flags, 'count'),
          }),
        ),
      );
      return;
    case 'cash':
      process.stdout.write(line(await receiveCash(OPERATOR, required(flags, 'id'), positive(flags, 'fcfa'))));
      return;
    default:
      throw new UsageError(`usage: ${AGENTS_USAGE}`);
  }
}
