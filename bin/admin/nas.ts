import { getNas, NAS_VENDORS, type NasVendor, setNasVendor } from '../../functions/store/nas.js';
import { UsageError } from './context.js';

const USAGE = `nas vendor --nas-id <id> --vendor ${NAS_VENDORS.join('|')} | nas show --nas-id <id>`;

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
  if (command === 'show') {
    const nas = await getNas(nasId);
    if (!nas) throw new UsageError(`no hotspot ${nasId}`);
    process.stdout.write(`${JSON.stringify({ ...nas, vendor: nas.vendor ?? 'mikrotik' }, null, 2)}\n`);
    return;
  }
  throw new UsageError(USAGE);
}
