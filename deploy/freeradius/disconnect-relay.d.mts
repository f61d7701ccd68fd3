// Types of disconnect-relay.mjs for the TypeScript that tests it (the relay itself is plain Node).
export interface DisconnectToSend {
  session_id?: string;
  attempt?: number;
  host: string;
  port: number;
  user_name: string;
  acct_session_id?: string;
  nas_identifier: string;
  nas_ip_address?: string;
}
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
