import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { LambdaTask, LambdaTaskRunner } from '../../ports/lambda-invoker.js';

/** The event functions/lambda-task.ts is invoked with. */
export interface LambdaTaskEvent {
  readonly swfLambdaTask: LambdaTask;
}

/**
 * Hands each started Lambda task to the service's Lambda-task function by asynchronous Invoke: that
 * function invokes the task's own function, waiting up to its start-to-close timeout (900 s at most),
 * and records how it ended, while the stream function goes on with its records.
 */
export class AwsLambdaTaskRunner implements LambdaTaskRunner {
  constructor(
    private readonly functionName: string | undefined,
    private readonly client: LambdaClient = new LambdaClient({}),
  ) {}

  /** Never runs the task here (`runHere`): the stream function must not wait on a user's function. */
  async dispatch(task: LambdaTask, _runHere?: () => Promise<void>): Promise<void> {
    if (this.functionName === undefined)
      throw new Error('LAMBDA_TASK_FUNCTION is not set: no function runs Lambda tasks');
    const event: LambdaTaskEvent = { swfLambdaTask: task };
    await this.client.send(
      new InvokeCommand({
        FunctionName: this.functionName,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify(event)),
      }),
    );
  }
}
