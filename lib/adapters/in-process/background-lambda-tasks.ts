import type { LambdaTask, LambdaTaskRunner } from '../../ports/lambda-invoker.js';

/**
 * The local server's Lambda tasks: each runs in the background of this process, so the stream poller
 * goes on with other records while a function takes its time. A task in flight when the server stops
 * is left unrecorded; its start-to-close timeout ends it after a restart, as a lost invocation would.
 */
export class BackgroundLambdaTasks implements LambdaTaskRunner {
  private stopped = false;

  async dispatch(task: LambdaTask, runHere: () => Promise<void>): Promise<void> {
    void runHere().catch((error: unknown) => {
      if (this.stopped) return;
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      console.warn(
        JSON.stringify({
          level: 'warn',
          message: 'lambda task not recorded',
          runId: task.runId,
          scheduledEventId: task.scheduledEventId,
          reason,
        }),
      );
    });
  }

  /** Stops reporting: tasks still running end unrecorded (their timeouts close them). */
  stop(): void {
    this.stopped = true;
  }
}
