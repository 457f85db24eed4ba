/**
 * The call patterns of third-party SWF libraries, replayed as raw HTTP with the headers and JSON each
 * library sends (test/support/library-clients.ts), and judged by what each reads back. Sources
 * (public code, cited by file):
 *
 * - boto 2 (boto/swf/layer1.py `make_request`, boto/exception.py `get_error_name`): target
 *   `com.amazonaws.swf.service.model.SimpleWorkflowService.<Action>`, `Content-Type: application/json;
 *   charset=UTF-8`, `Content-Encoding: amz-1.0`; None members dropped; fault name = `__type` after `#`.
 *   The same legacy target is what the SWF Developer Guide's "Making HTTP Requests to Amazon SWF"
 *   (UsingJSON-swf.html) documents, and what older Go and Ruby (ruote-swf) clients send.
 */
import { describe, expect, it } from 'vitest';
import { uid } from '../support/decider.js';
import {
  activityType,
  boto2ErrorName,
  events,
  libraryDomainForFile,
  workflowType,
} from '../support/library-clients.js';

const { domain, client } = libraryDomainForFile();

describe('boto 2 and other clients of the legacy target (UsingJSON-swf.html)', () => {
  it('answers every call sent to com.amazonaws.swf.service.model.SimpleWorkflowService.<Action>', async () => {
    const boto = client('boto2');
    // Output-less action: 200 with an empty body (boto 2 returns None for it).
    const name = uid('boto2-domain');
    const registered = await boto.call('RegisterDomain', {
      name,
      description: 'music',
      workflowExecutionRetentionPeriodInDays: '1',
    });
    expect(registered.status, registered.text).toBe(200);
    expect(registered.text).toBe('');
    expect((await boto.ok('DescribeDomain', { name })).domainInfo).toMatchObject({
      name,
      status: 'REGISTERED',
    });
    // A fault: boto 2 raises SWFResponseError whose error_code is the name after '#'.
    const again = await boto.call('RegisterDomain', {
      name,
      workflowExecutionRetentionPeriodInDays: '1',
    });
    expect(again.status).toBe(400);
    expect(boto2ErrorName(again)).toBe('DomainAlreadyExistsFault');
    const go = client('goLegacy');
    expect((await go.ok('ListDomains', { registrationStatus: 'REGISTERED' })).domainInfos).toEqual(
      expect.arrayContaining([expect.objectContaining({ name })]),
    );
  });

  it('runs a workflow end to end through layer1 calls on the legacy target', async () => {
    const boto = client('boto2');
    const workflowId = uid('boto2-wf');
    const deciders = uid('boto2-deciders');
    const workers = uid('boto2-workers');
    // layer1.start_workflow_execution: None members dropped by _normalize_request_dict.
    const { runId } = await boto.ok('StartWorkflowExecution', {
      domain,
      workflowId,
      workflowType,
      taskList: { name: deciders },
      input: 'in',
    });
    const first = await boto.ok('PollForDecisionTask', {
      domain,
      taskList: { name: deciders },
      identity: 'boto2-decider',
    });
    expect(first.taskToken).toEqual(expect.any(String));
    await boto.ok('RespondDecisionTaskCompleted', {
      taskToken: first.taskToken,
      decisions: [
        {
          decisionType: 'ScheduleActivityTask',
          scheduleActivityTaskDecisionAttributes: {
            activityId: 'a1',
            activityType,
            taskList: { name: workers },
          },
        },
      ],
    });
    const task = await boto.ok('PollForActivityTask', {
      domain,
      taskList: { name: workers },
      identity: 'boto2-worker',
    });
    expect(task).toMatchObject({ activityId: 'a1', workflowExecution: { workflowId, runId } });
    expect(await boto.ok('RecordActivityTaskHeartbeat', { taskToken: task.taskToken })).toEqual({
      cancelRequested: false,
    });
    await boto.ok('RespondActivityTaskCompleted', { taskToken: task.taskToken, result: 'done' });
    const second = await boto.ok('PollForDecisionTask', {
      domain,
      taskList: { name: deciders },
      identity: 'boto2-decider',
    });
    await boto.ok('RespondDecisionTaskCompleted', {
      taskToken: second.taskToken,
      decisions: [
        {
          decisionType: 'CompleteWorkflowExecution',
          completeWorkflowExecutionDecisionAttributes: { result: 'ok' },
        },
      ],
    });
    const history = await boto.ok('GetWorkflowExecutionHistory', {
      domain,
      execution: { runId, workflowId },
      reverseOrder: true,
    });
    expect(events(history)[0]?.eventType).toBe('WorkflowExecutionCompleted');
  });
});
