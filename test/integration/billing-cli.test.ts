import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SEED_FORFAITS } from '../../functions/billing/catalogue.js';
import { generateVouchers } from '../../functions/billing/vouchers.js';
import { getForfait, listForfaitsOnSale } from '../../functions/store/forfaits.js';
import { recordReseller } from '../../functions/store/resellers.js';
import { useTestTable } from '../support/db.js';

const table = useTestTable({ seed: true });
const exec = promisify(execFile);

async function admin(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const out = await exec('npx', ['tsx', 'bin/admin.ts', ...args], {
      env: { ...process.env, TABLE_NAME: table.name(), DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
    });
    return { ...out, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

describe('npm run admin -- forfaits and vouchers', () => {
  it('adds, updates and retires a forfait; a retired one leaves the catalogue but stays readable', async () => {
    const added = await admin(
      'forfaits',
      'add',
      '--name',
      'Pass Test',
      '--price-fcfa',
      '150',
      '--duration-hours',
      '2',
      '--data-limit-mb',
      '500',
      '--cir-kbps',
      '512',
      '--mir-kbps',
      '2048',
    );
    expect(added.code, added.stderr).toBe(0);
    const forfait = JSON.parse(added.stdout) as { id: string; status: string; price_fcfa: number };
    expect(forfait).toMatchObject({ status: 'active', price_fcfa: 150 });

    const updated = await admin('forfaits', 'update', '--id', forfait.id, '--price-fcfa', '175');
    expect(updated.code, updated.stderr).toBe(0);
    expect((await getForfait(forfait.id))?.price_fcfa).toBe(175);

    expect((await admin('forfaits', 'retire', '--id', forfait.id)).code).toBe(0);
    expect((await listForfaitsOnSale()).map((f) => f.id)).not.toContain(forfait.id);
    expect((await getForfait(forfait.id))?.status).toBe('retired');
  }, 60_000);

  it('refuses a bad flag with a usage error (exit 2)', async () => {
    const r = await admin('forfaits', 'add', '--name', 'X', '--price-fcfa', 'abc');
    expect(r.code).toBe(2);
  }, 30_000);

  it('exports a voucher batch to a CSV file', async () => {
    const resellerId = randomUUID();
    await recordReseller({ resellerId, name: 'Chez Awa' });
    const { batch_id, items } = await generateVouchers({
      forfaitId: (SEED_FORFAITS[0] as { id: string }).id,
      resellerId,
      n: 5,
    });
    const out = join(tmpdir(), `vouchers-${randomUUID()}.csv`);
    const r = await admin('vouchers', 'export', '--batch-id', batch_id, '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',')[0])
        .sort(),
    ).toEqual(items.map((v) => v.code).sort());
  }, 30_000);
});
