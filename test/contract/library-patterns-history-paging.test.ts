/**
 * The call patterns of third-party SWF libraries, replayed as raw HTTP with the headers and JSON each
 * library sends (test/support/library-clients.ts), and judged by what each reads back. Sources
 * (public code, cited by file):
 *
 * - simpleflow (simpleflow/swf/mapper/actors/decider.py `poll`): pages a decision task's history by
 *   repeating PollForDecisionTask with `nextPageToken` and the same other members, and treats a page
 *   without `taskToken` as a poll timeout; exceptions.py `is_unknown` reads UnknownResourceFault
 *   messages with regexes.
 * - aws-sdk-ruby v1 (lib/aws/simple_workflow/decision_task.rb `_events`): enumerating a decision
 *   task's events again replays the first page's `nextPageToken`; `complete!` omits `decisions` when
 *   there are none.
 * - swfsm (Go, poller/poller.go): decision tasks read newest first through aws-sdk-go's
 *   PollForDecisionTaskPages; a task is a response whose TaskToken is not nil.
 */
import { describe, expect, it } from 'vitest';
import { uid } from '../support/decider.js';
import {
  boto2ErrorName,
  events,
  ids,
  type Json,
  libraryDomainForFile,
} from '../support/library-clients.js';

const { domain, client, startRun } = libraryDomainForFile();

describe('simpleflow: a decision task paged by PollForDecisionTask (actors/decider.py)', () => {
  it('carries the task token on every page, and the pages make the whole history', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    for (let i = 0; i < 7; i++)
      await sdk.ok('SignalWorkflowExecution', {
        domain,
        workflowId: run.workflowId,
        signalName: `s${i}`,
      });
    // simpleflow sends the same members on every page, start_at_previous_started_event=False included.
    const request = {
      domain,
      taskList: { name: run.taskList },
      identity: 'simpleflow-host',
      maximumPageSize: 3,
      startAtPreviousStartedEvent: false,
    };
    const first = await sdk.ok('PollForDecisionTask', request);
    const all = [...events(first)];
    let page = first;
    let pages = 1;
    while (page.nextPageToken !== undefined) {
      page = await sdk.ok('PollForDecisionTask', { ...request, nextPageToken: page.nextPageToken });
      pages++;
      // simpleflow: `if not token: raise PollTimeout`
      expect(page.taskToken).toBe(first.taskToken);
      expect(page.startedEventId).toBe(first.startedEventId);
      expect(page.workflowExecution).toEqual(first.workflowExecution);
      all.push(...events(page));
    }
    expect(pages).toBeGreaterThan(2);
    expect(ids(all)).toEqual(Array.from({ length: Number(first.startedEventId) }, (_, i) => i + 1));
    expect(all.at(-1)?.eventType).toBe('DecisionTaskStarted');
  });

  it('words UnknownResourceFault so that exceptions.is_unknown finds the resource', async () => {
    const sdk = client('sdk');
    // REGEX_UNKNOWN_RESOURCE and REGEX_NESTED_RESOURCE of simpleflow/swf/mapper/exceptions.py
    const resource = (message: string) => {
      const first = /^Unknown ([^ :,]+)/.exec(message)?.[1];
      if (first === 'type' || first === 'execution')
        return /Unknown (?:type|execution)[:,]\s*([^ =]+)\s*=/.exec(message)?.[1];
      return first;
    };
    const messageOf = async (action: string, body: Json) => {
      const answer = await sdk.call(action, body);
      expect(boto2ErrorName(answer)).toBe('UnknownResourceFault');
      return String(answer.body?.message);
    };
    const unknowns: [action: string, body: Json, resource: string][] = [
      ['DescribeDomain', { name: uid('none') }, 'domain'],
      [
        'DescribeWorkflowType',
        { domain, workflowType: { name: 'no', version: '1' } },
        'WorkflowType',
      ],
      [
        'DescribeActivityType',
        { domain, activityType: { name: 'no', version: '1' } },
        'ActivityType',
      ],
      [
        'DescribeWorkflowExecution',
        { domain, execution: { workflowId: 'no', runId: 'no' } },
        'WorkflowExecution',
      ],
    ];
    for (const [action, body, named] of unknowns)
      expect(resource(await messageOf(action, body))).toBe(named);
  });
});

describe('swfsm (Go, poller/poller.go): PollForDecisionTaskPages newest first', () => {
  it('pages a decision task in reverse order down to the first event, the token on every page', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    for (let i = 0; i < 6; i++)
      await sdk.ok('SignalWorkflowExecution', {
        domain,
        workflowId: run.workflowId,
        signalName: `s${i}`,
      });
    // aws-sdk-go's paginator resends the input with NextPageToken; swfsm asks ReverseOrder: true and
    // stops once its state marker is found (here: never, so every page is read).
    const request = {
      domain,
      identity: 'swfsm',
      reverseOrder: true,
      taskList: { name: run.taskList },
      maximumPageSize: 4,
    };
    const first = await sdk.ok('PollForDecisionTask', request);
    const all = [...events(first)];
    let page = first;
    while (page.nextPageToken !== undefined) {
      page = await sdk.ok('PollForDecisionTask', { ...request, nextPageToken: page.nextPageToken });
      // poller.go: `resp.TaskToken != nil` decides whether the merged pages are a task.
      expect(page.taskToken).toBe(first.taskToken);
      all.push(...events(page));
    }
    const started = Number(first.startedEventId);
    expect(ids(all)).toEqual(Array.from({ length: started }, (_, i) => started - i));
  });
});

describe('aws-sdk-ruby v1: DecisionTask#events enumerated twice (decision_task.rb)', () => {
  it('gives the same later pages for the first page token each time, and takes complete! without decisions', async () => {
    const sdk = client('sdk');
    const run = await startRun();
    for (let i = 0; i < 4; i++)
      await sdk.ok('SignalWorkflowExecution', {
        domain,
        workflowId: run.workflowId,
        signalName: `s${i}`,
      });
    // DecisionTaskCollection#poll_for_single_task: identity, maximum_page_size, reverse_order false.
    const request = {
      domain,
      identity: 'host:4242',
      taskList: { name: run.taskList },
      maximumPageSize: 4,
      reverseOrder: false,
    };
    const first = await sdk.ok('PollForDecisionTask', request);
    const enumerate = async () => {
      const seen = [...events(first)];
      let token = first.nextPageToken;
      while (token !== undefined) {
        const page = await sdk.ok('PollForDecisionTask', { ...request, nextPageToken: token });
        seen.push(...events(page));
        token = page.nextPageToken;
      }
      return ids(seen);
    };
    const once = await enumerate();
    expect(await enumerate()).toEqual(once);
    expect(once.at(-1)).toBe(first.startedEventId);
    // complete! sends only the token when no decision was added.
    expect(
      (await sdk.call('RespondDecisionTaskCompleted', { taskToken: first.taskToken })).status,
    ).toBe(200);
  });
});
