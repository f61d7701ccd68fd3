import { endpoint, json } from '../core/http.js';
import { OtpVerifyBody } from './schemas.js';
import { verifyOtp } from './service.js';

export const handler = endpoint('POST /api/v1/auth/otp/verify', { body: OtpVerifyBody }, async ({ body }) =>
  json(200, await verifyOtp(body.msisdn, body.otp, body.otp_token)),
);
