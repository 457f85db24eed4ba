/**
 * The call patterns of third-party SWF libraries, replayed as raw HTTP with the headers and JSON each
 * library sends (test/support/library-clients.ts), and judged by what each reads back. Sources
 * (public code, cited by file):
 *
 * - garcon (garcon/decider.py `run`): an empty decision poll is one without `events`.
 * - aws-swf-fluent-php (src/Aws/Swf/Fluent/Domain.php): workflowIds from PHP's microtime() (a space
 *   inside), deciders polling with `reverseOrder: true` and reading only the first page.
 */
import { describe, expect, it } from 'vitest';
import { uid } from '../support/decider.js';
import { events, libraryDomainForFile, workflowType } from '../support/library-clients.js';

const { domain, client } = libraryDomainForFile();

describe('empty polls as libraries detect them', () => {
  it('an empty decision task has no taskToken and no events (simpleflow, garcon, Flow, aws-sdk-ruby)', async () => {
    const sdk = client('sdk');
    const answer = await sdk.ok('PollForDecisionTask', {
      domain,
      taskList: { name: uid('idle') },
      identity: 'idle',
    });
    expect(answer.taskToken).toBeUndefined();
    expect('events' in answer).toBe(false);
    expect(answer).toEqual({ startedEventId: 0, previousStartedEventId: 0 });
  });

  it('an empty activity task has no taskToken (boto 2 layer2, aws-swf for node)', async () => {
    const boto = client('boto2');
    const answer = await boto.call('PollForActivityTask', {
      domain,
      taskList: { name: uid('idle') },
      identity: 'idle',
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body?.taskToken).toBeUndefined();
  });
});

describe('aws-swf-fluent-php (Fluent/Domain.php)', () => {
  it('takes a microtime() workflowId and serves a decider that reads one page newest first', async () => {
    const sdk = client('sdk');
    const workflowId = `0.${String(Date.now() % 1e8).padStart(8, '0')} ${Math.floor(Date.now() / 1000)}`;
    const taskList = uid('main');
    await sdk.ok('StartWorkflowExecution', {
      domain,
      workflowId,
      workflowType,
      taskList: { name: taskList },
      executionStartToCloseTimeout: '1800',
      taskStartToCloseTimeout: '600',
      childPolicy: 'TERMINATE',
    });
    const task = await sdk.ok('PollForDecisionTask', {
      domain,
      taskList: { name: taskList },
      identity: 'decider',
      reverseOrder: true,
    });
    expect(task.workflowExecution).toMatchObject({ workflowId });
    expect(events(task).map((e) => e.eventType)).toEqual([
      'DecisionTaskStarted',
      'DecisionTaskScheduled',
      'WorkflowExecutionStarted',
    ]);
  });
});
