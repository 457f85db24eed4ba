/** The marks that make a started Lambda task's function run once, however often it is handed over. */
export interface LambdaTaskClaims {
  /**
   * Marks a started Lambda task as invoked: true the first time for the task, false ever after, so a
   * hand-over delivered twice (Lambda's asynchronous invocations may be) invokes its function once.
   * `expiresAt` (epoch seconds): when the mark may go.
   */
  claimLambdaTask(runId: string, scheduledEventId: number, expiresAt: number): Promise<boolean>;
}
