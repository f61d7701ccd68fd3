import * as z from 'zod/mini';

export const OtpRequestBody = z.strictObject({
  msisdn: z.string().check(z.maxLength(32)),
});

export const OtpVerifyBody = z.strictObject({
  msisdn: z.string().check(z.maxLength(32)),
  otp: z.string().check(z.regex(/^\d{6}$/, 'must be 6 digits')),
  /** Optional: the token returned by the request; when given it must be the current one. */
  otp_token: z.optional(z.string().check(z.uuid())),
});

export const OtpRequestResponse = z.object({ otp_token: z.string() });
export const OtpVerifyResponse = z.object({
  session_token: z.string(),
  subscriber_ref: z.string(),
  expires_in: z.int(),
});
export const SessionResponse = z.object({
  valid: z.boolean(),
  subscriber_ref: z.string(),
  expires_at: z.string(),
  role: z.enum(['subscriber', 'reseller', 'admin']),
});
