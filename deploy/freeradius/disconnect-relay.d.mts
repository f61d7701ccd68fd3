// Types of disconnect-relay.mjs for the TypeScript that tests it (the relay itself is plain Node).
import type { ClaimedDisconnect } from '../../functions/radius/disconnect.js';

/**
 * One Disconnect-Request to send: a claim as the API answers it to the relay (the one
 * declaration, functions/radius/disconnect.ts); a test may leave out the claim's own fields.
 */
export type DisconnectToSend = Omit<ClaimedDisconnect, 'session_id' | 'attempt'> &
  Partial<Pick<ClaimedDisconnect, 'session_id' | 'attempt'>>;
export interface Answer {
  outcome: 'ack' | 'nak' | 'timeout';
  error_cause?: number;
}
export function disconnectRequest(
  identifier: number,
  d: DisconnectToSend,
  secret: string,
  nowS: number,
): Buffer;
export function readAnswer(
  reply: Buffer,
  request: Buffer,
  secret: string,
): (Omit<Answer, 'outcome'> & { outcome: 'ack' | 'nak' }) | undefined;
export function send(d: DisconnectToSend, secret: string, timeoutMs: number): Promise<Answer>;
