import { webhookAnswer } from '../../functions/billing/payments/webhook.js';

/** One delivery of the spec webhook, settled as its route settles it (its error thrown). */
export const webhookSettlement = async (
  e: Parameters<typeof webhookAnswer>[0],
): Promise<Awaited<ReturnType<typeof webhookAnswer>>['settlement']> => (await webhookAnswer(e)).settlement;
