import { describe, expect, it } from 'vitest';
import { requestOtp } from '../../functions/auth/service.js';
import { AppError } from '../../functions/core/errors.js';
import { useTestTable } from '../support/db.js';
import { newMsisdn } from '../support/http.js';

useTestTable();

describe('OTP request limit under heavy contention', () => {
  it('gives exactly three codes to forty parallel requests, and a clean 429 to the rest', async () => {
    const msisdn = newMsisdn();
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        requestOtp(msisdn).then(
          () => 'ok',
          (e: unknown) => (e instanceof AppError ? e.code : String(e)),
        ),
      ),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(3);
    expect(results.filter((r) => r === 'ERR_RATE_LIMITED')).toHaveLength(37);
  });
});
