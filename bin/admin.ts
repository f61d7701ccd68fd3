// The operator CLI (`npm run admin -- <group> <command>`): each group a module of bin/admin.

/**
 * Operator CLI: `npm run admin -- <group> <command> [--flag value ...]`.
 * Each group is a module `bin/admin/<group>.ts` exporting `run(command, flags)`.
 * Runs against the local DynamoDB Local by default (DYNAMODB_PORT, default 8000, as `npm start`
 * uses), or against AWS when TABLE_NAME is set (with the usual AWS environment).
 */
import './local/preamble.js';
import { existsSync } from 'node:fs';
import { connectAdmin, parseFlags, UsageError } from './admin/context.js';

const GROUPS: Record<string, string> = {
  accounts:
    'accounts add --msisdn <E.164> --role admin|reseller [--reseller-id <uuid>] [--name <name>] [--change-role] | accounts remove --msisdn <E.164> | accounts revoke --msisdn <E.164> | accounts list',
  forfaits: 'forfaits add|update|retire|list ...',
  agents:
    'agents add --reseller-id <uuid> --msisdn <E.164> [--commission-bp n] | agents list|float|stock|cash ...',
  vouchers: 'vouchers export --batch-id <uuid> | --reseller-id <uuid> [--out file.csv]',
  payments: 'payments refund --payment-id <uuid>',
  canary: 'canary run',
  nas: 'nas vendor --nas-id <id> --vendor mikrotik|coova|wispr | nas show --nas-id <id> | nas coa --nas-id <id> [--host <ip>] [--port <n>] | nas login-origin --nas-id <id> --origin <url> | nas otp-budget --nas-id <id> [--per-hour <n>]',
  routers:
    'routers add --reseller-id <uuid> --nas-id <id>[,<id>] --transport radsec|udp [--source-ip <ip>] [--out <dir>] | routers list --reseller-id <uuid> | routers show|revoke|rotate --router-id <id>',
  edges:
    'edges add --reseller-id <uuid>[,<uuid>] --address <ip> [--name <name>] | edges show|revoke --edge-id <uuid>',
  subscribers: 'subscribers erase <E.164>',
  mikrotik:
    'mikrotik script (--nas-id <id> | --router-id <id>) [--routeros 7|6] [--source-ip <ip>] [--radius-host <ip>] [--portal-url <url>] | mikrotik login-html --portal-url <url>',
};
// Commands that only print something: no table needed, so no running DynamoDB either.
const OFFLINE = new Set(['mikrotik login-html']);

async function main(): Promise<void> {
  const [group, command, ...rest] = process.argv.slice(2);
  const usage = `usage: npm run admin -- <group> <command>\n${Object.values(GROUPS)
    .map((g) => `  ${g}`)
    .join('\n')}\n`;
  const file = new URL(`./admin/${group}.ts`, import.meta.url);
  if (!group || !(group in GROUPS) || !existsSync(file)) {
    process.stderr.write(usage);
    process.exit(2);
  }
  const mod = (await import(file.href)) as {
    run: (command: string | undefined, flags: Record<string, string>) => Promise<void>;
    /** The flag a group's first bare argument stands for (`subscribers erase <msisdn>`). */
    positional?: string;
  };
  const bare =
    mod.positional && rest[0] !== undefined && !rest[0].startsWith('--') ? rest.shift() : undefined;
  const disconnect = OFFLINE.has(`${group} ${command}`) ? async () => undefined : await connectAdmin();
  try {
    await mod.run(command, {
      ...parseFlags(rest),
      ...(bare && mod.positional ? { [mod.positional]: bare } : {}),
    });
  } finally {
    await disconnect();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`admin: ${(error as Error).message}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
