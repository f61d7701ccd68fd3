// The operator CLI's `vouchers export` command: a batch's or a reseller's vouchers as CSV.

import { writeFileSync } from 'node:fs';
import { listVouchers, operatorBatchCsv } from '../../functions/billing/vouchers.js';
import { getForfait } from '../../functions/store/forfaits.js';
import { UsageError } from './context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Every voucher of a reseller, one line each, its forfait by name (as the cards print it). */
async function resellerCsv(resellerId: string): Promise<string> {
  const lines = ['code,forfait,status,batch_id,created_at,redeemed_at'];
  const names = new Map<string, string>();
  const nameOf = async (id: string) => {
    if (!names.has(id)) names.set(id, (await getForfait(id))?.name ?? id);
    return names.get(id) as string;
  };
  for (let page = 1; ; page++) {
    const out = await listVouchers(resellerId, undefined, page, 100);
    for (const v of out.items) {
      const cells = [
        v.code,
        await nameOf(v.forfait_id),
        v.status,
        v.batch_id,
        v.created_at,
        v.redeemed_at ?? '',
      ];
      lines.push(cells.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(','));
    }
    if (page >= out.pages) break;
  }
  return `${lines.join('\n')}\n`;
}

/** `vouchers export --batch-id <uuid> [--lang fr] | --reseller-id <uuid> [--out file.csv]` (English unless `--lang fr`). */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  if (command === 'export') {
    const batchId = flags['batch-id'];
    const resellerId = flags['reseller-id'];
    if (!!batchId === !!resellerId) throw new UsageError('give exactly one of --batch-id or --reseller-id');
    const id = (batchId ?? resellerId) as string;
    if (!UUID.test(id)) throw new UsageError(`--${batchId ? 'batch-id' : 'reseller-id'} must be a UUID`);
    const csv = batchId
      ? await operatorBatchCsv(batchId, flags.lang === 'fr' ? 'fr' : 'en')
      : await resellerCsv(id);
    const out = flags.out;
    if (out && out !== 'true') {
      writeFileSync(out, csv);
      process.stdout.write(`wrote ${csv.trim().split('\n').length - 1} vouchers to ${out}\n`);
    } else process.stdout.write(csv);
    return;
  }
  throw new UsageError('vouchers export --batch-id <uuid> | --reseller-id <uuid> [--out file.csv]');
}
