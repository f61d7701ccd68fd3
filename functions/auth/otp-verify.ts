import { endpoint, json } from '../core/http.js';
import { OtpVerifyBody, OtpVerifyResponse } from './schemas.js';
import { verifyOtp } from './service.js';

export const handler = endpoint(
  'POST /api/v1/auth/otp/verify',
  { body: OtpVerifyBody, response: { status: 200, schema: OtpVerifyResponse } },
  async ({ body }) => json(200, await verifyOtp(body.msisdn, body.otp, body.otp_token)),
);
