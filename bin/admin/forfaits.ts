// The operator CLI's `forfaits` commands: add, update, retire and list the platform's forfaits.

import { randomUUID } from 'node:crypto';
import {
  createForfait,
  type Forfait,
  getForfait,
  listForfaitsOnSale,
  retireForfait,
  updateForfait,
} from '../../functions/store/forfaits.js';
import { required, UsageError } from './context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const NUMERIC = {
  'price-fcfa': 'price_fcfa',
  'duration-hours': 'duration_hours',
  'data-limit-mb': 'data_limit_mb',
  'cir-kbps': 'cir_kbps',
  'mir-kbps': 'mir_kbps',
} as const;

const USAGE =
  'forfaits add --name <name> --price-fcfa <n> --duration-hours <n> --data-limit-mb <n> --cir-kbps <n> --mir-kbps <n>' +
  ' | forfaits update --id <uuid> [--name ...] [--price-fcfa ...] [...]' +
  ' | forfaits retire --id <uuid> | forfaits list';

function positiveInt(flag: string, value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
    throw new UsageError(`--${flag} must be a positive integer`);
  return Number(value);
}

function idFlag(flags: Record<string, string>): string {
  const id = required(flags, 'id');
  if (!UUID.test(id)) throw new UsageError('--id must be a UUID');
  return id;
}

/** The fields given as flags; `all` requires every one (add). */
function fields(flags: Record<string, string>, all: boolean): Partial<Omit<Forfait, 'id'>> {
  const out: Partial<Omit<Forfait, 'id'>> = {};
  const name = all ? required(flags, 'name') : flags.name;
  if (name !== undefined) {
    if (name === 'true' || !name.trim()) throw new UsageError('--name needs a value');
    out.name = name.trim();
  }
  for (const [flag, key] of Object.entries(NUMERIC) as [
    keyof typeof NUMERIC,
    (typeof NUMERIC)[keyof typeof NUMERIC],
  ][]) {
    const value = all ? required(flags, flag) : flags[flag];
    if (value !== undefined) out[key] = positiveInt(flag, value);
  }
  if (out.cir_kbps && out.mir_kbps && out.cir_kbps > out.mir_kbps) {
    throw new UsageError('--cir-kbps must not exceed --mir-kbps');
  }
  return out;
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** `forfaits add|update|retire|list`: the catalogue (retired forfaits stay readable). */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  if (command === 'add') {
    const forfait = { id: randomUUID(), ...(fields(flags, true) as Omit<Forfait, 'id'>) };
    if (!(await createForfait(forfait))) throw new Error('forfait id taken, try again');
    print(await getForfait(forfait.id));
    return;
  }
  if (command === 'update') {
    const id = idFlag(flags);
    const changes = fields(flags, false);
    if (!Object.keys(changes).length) throw new UsageError('nothing to update');
    // Checked whole: one rate changed alone is judged against the other as stored.
    const current = await getForfait(id);
    const rates = { cir_kbps: current?.cir_kbps ?? 0, mir_kbps: current?.mir_kbps ?? 0, ...changes };
    if (current && rates.cir_kbps > rates.mir_kbps)
      throw new UsageError(`--cir-kbps must not exceed --mir-kbps (${rates.mir_kbps} as stored)`);
    const updated = await updateForfait(id, changes);
    if (!updated) throw new Error(`no forfait on sale with id ${id}`);
    print(updated);
    return;
  }
  if (command === 'retire') {
    const id = idFlag(flags);
    if (!(await retireForfait(id))) throw new Error(`no forfait with id ${id}`);
    print(await getForfait(id));
    return;
  }
  if (command === 'list') {
    const all = await listForfaitsOnSale();
    for (const f of all) {
      process.stdout.write(
        `${f.id}  ${String(f.price_fcfa).padStart(6)} FCFA  ${String(f.duration_hours).padStart(4)} h  ${f.name}\n`,
      );
    }
    if (!all.length) process.stdout.write('no forfait on sale\n');
    return;
  }
  throw new UsageError(USAGE);
}
