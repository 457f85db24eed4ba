/** Runs the Lambda functions ScheduleLambdaFunction decisions name (swf-api.md §6.1). */
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
