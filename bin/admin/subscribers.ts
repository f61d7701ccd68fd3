// The operator CLI's `subscribers erase` command.

import { eraseSubscriber } from '../../functions/auth/erase.js';
import { requireMsisdn } from '../../functions/auth/otp.js';
import { required, UsageError } from './context.js';

export const SUBSCRIBERS_USAGE = 'subscribers erase <E.164> (or --msisdn <E.164>)';

/** The number may follow the command (`subscribers erase +225...`): it lands in `--msisdn`. */
export const positional = 'msisdn';

/**
 * `subscribers erase`: erases a subscriber (functions/auth/erase.ts; what each record keeps is
 * in docs/decisions.md). Safe to run again: a number with no account is reported and left.
 */
export async function run(command: string | undefined, flags: Record<string, string>): Promise<void> {
  if (command !== 'erase') throw new UsageError(SUBSCRIBERS_USAGE);
  const msisdn = requireMsisdn(required(flags, 'msisdn'));
  const done = await eraseSubscriber(msisdn);
  if (!done) {
    process.stdout.write('no subscriber account for this number: nothing to erase (erased already?)\n');
    return;
  }
  process.stdout.write(
    `subscriber erased: account ${done.account ? 'deleted' : 'already gone'}, ${done.devices} device credential(s) ` +
      `and ${done.mac_bindings} MAC binding(s) deleted, the number taken off ${done.payments} payment(s) and ` +
      `${done.flags} flag(s), ${done.limits} OTP limiter(s) dropped\n`,
  );
}
