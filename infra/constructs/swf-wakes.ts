import { Names, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/** The prefix is at most this long: a wake queue's name adds 43 characters, SQS allows 80. */
const PREFIX_LENGTH = 30;

export interface SwfWakesProps {
  /** The function whose long polls wait on the wake queues (and make them). */
  readonly pollers: IFunction;
  /** Every function that commits changes: each wakes a waiting poll per task it queues. */
  readonly committers: readonly IFunction[];
}

/**
 * The wake channel of polls waiting in the API function's containers (docs/dispatch-on-aws.md): one
 * SQS standard queue per task list, named by a prefix of the stack's own, made by the first poll that
 * waits on the list. The API function may make, read and delete from those queues only; the other
 * functions may only look them up and send to them.
 */
export class SwfWakes extends Construct {
  /** The queue names' prefix (SWF_WAKE_QUEUE_PREFIX). */
  readonly queuePrefix: string;

  constructor(scope: Construct, id: string, props: SwfWakesProps) {
    super(scope, id);
    this.queuePrefix = Names.uniqueResourceName(this, {
      maxLength: PREFIX_LENGTH,
      separator: '-',
    });
    const stack = Stack.of(this);
    const queues = stack.formatArn({
      service: 'sqs',
      resource: `${this.queuePrefix}-*`,
    });
    const send = ['sqs:GetQueueUrl', 'sqs:SendMessage'];
    props.pollers.addToRolePolicy(
      new PolicyStatement({
        actions: [...send, 'sqs:CreateQueue', 'sqs:ReceiveMessage'],
        resources: [queues],
      }),
    );
    for (const fn of props.committers.filter((f) => f !== props.pollers)) {
      fn.addToRolePolicy(new PolicyStatement({ actions: send, resources: [queues] }));
    }
  }
}
