import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';

export interface QueuedPointer {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
}

/**
 * The stream function's on-failure queue, read by an operator: each message received stays hidden
 * long enough for its records to be fetched and carried out, and is deleted only when told.
 */
export class SqsPointerQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly hiddenSeconds = 300,
  ) {}

  async receive(): Promise<readonly QueuedPointer[]> {
    const { Messages } = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: this.hiddenSeconds,
        WaitTimeSeconds: 1,
      }),
    );
    return (Messages ?? []).flatMap((m) =>
      m.MessageId === undefined || m.ReceiptHandle === undefined
        ? []
        : [{ messageId: m.MessageId, receiptHandle: m.ReceiptHandle, body: m.Body ?? '' }],
    );
  }

  async remove(message: QueuedPointer): Promise<void> {
    await this.sqs.send(
      new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: message.receiptHandle }),
    );
  }

  /** Makes a message kept in the queue visible again at once, as it was before it was received. */
  async release(message: QueuedPointer): Promise<void> {
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: message.receiptHandle,
        VisibilityTimeout: 0,
      }),
    );
  }
}
