/** Runs the Lambda functions ScheduleLambdaFunction decisions name. */
export interface LambdaInvoker {
  /** False where no Lambda service is reachable (the local server without registered functions). */
  readonly available: boolean;
  invoke(request: LambdaRequest): Promise<LambdaResult>;
}

export interface LambdaRequest {
  readonly name: string;
  readonly input?: string;
  /** The execution's lambdaRole: the role SWF assumes to invoke the function. */
  readonly role?: string;
  /** Whose task it is: the role's session is named after it, so CloudTrail shows it. */
  readonly execution?: { readonly domain: string; readonly runId: string };
  readonly timeoutSeconds: number;
}

export type LambdaResult =
  | { readonly kind: 'completed'; readonly result?: string }
  | { readonly kind: 'failed'; readonly reason: string; readonly details?: string }
  | {
      readonly kind: 'start-failed';
      readonly cause: 'ASSUME_ROLE_FAILED';
      readonly message: string;
    }
  | { readonly kind: 'timed-out' };

/** A Lambda task whose LambdaFunctionStarted is committed: what is left is to invoke it and record how it ended. */
export interface LambdaTask {
  readonly runId: string;
  readonly scheduledEventId: number;
  readonly startedEventId: number;
  readonly request: LambdaRequest;
}

/**
 * Runs started Lambda tasks away from the outbox's records, so a function that takes minutes holds up
 * no other effect, run or task (a function may run 900 s; the stream must not wait on it).
 */
export interface LambdaTaskRunner {
  /**
   * Hands the task over and resolves once it is: to a function of its own on AWS (an asynchronous
   * Invoke), or to `runHere` in the background in this process (the local server). A rejection means
   * it was not handed over.
   */
  dispatch(task: LambdaTask, runHere: () => Promise<void>): Promise<void>;
}
