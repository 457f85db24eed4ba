import { describe, expect, it } from 'vitest';
import { toWireEvent } from '../../../lib/core/history-event.js';
import { answerProblems, answersProblems, shapeProblems } from '../../support/output-shapes.js';
import { operationOutputs, outputShapes } from '../../support/swf-output-model.js';

const execution = { workflowId: 'w', runId: 'r' };
const workflowType = { name: 'wf', version: '1' };
const started = {
  eventId: 1,
  eventTimestamp: 1_700_000_000.123,
  eventType: 'WorkflowExecutionStarted',
  workflowExecutionStartedEventAttributes: {
    childPolicy: 'TERMINATE',
    taskList: { name: 'tl' },
    workflowType,
  },
};
const decisionTask = (events: unknown[]) =>
  JSON.stringify({
    taskToken: 't',
    startedEventId: 3,
    workflowExecution: execution,
    workflowType,
    events,
  });

describe('the answer-side model', () => {
  it('names an output shape for each answering operation and none for the others', () => {
    expect(operationOutputs.PollForDecisionTask).toBe('DecisionTask');
    expect(operationOutputs.StartWorkflowExecution).toBe('Run');
    expect(operationOutputs.RegisterDomain).toBeNull();
    expect(operationOutputs.DeleteActivityType).toBeNull();
  });

  it('holds every event type and the members newer than older packaged models', () => {
    const eventType = outputShapes.EventType;
    expect(eventType?.type === 'string' ? eventType.enum : []).toHaveLength(54);
    const scheduled = outputShapes.DecisionTaskScheduledEventAttributes;
    const completed = outputShapes.DecisionTaskCompletedEventAttributes;
    expect(scheduled?.type === 'structure' ? scheduled.members : {}).toHaveProperty(
      'scheduleToStartTimeout',
    );
    expect(completed?.type === 'structure' ? completed.members : {}).toMatchObject({
      taskList: 'TaskList',
      taskListScheduleToStartTimeout: 'DurationInSecondsOptional',
    });
  });
});

describe('the answer validator', () => {
  it('passes a conforming answer', () => {
    expect(answerProblems('PollForDecisionTask', decisionTask([started]))).toEqual([]);
    expect(answerProblems('StartWorkflowExecution', '{"runId":"r"}')).toEqual([]);
    expect(answerProblems('CountPendingDecisionTasks', '{"count":0,"truncated":false}')).toEqual(
      [],
    );
  });

  it('fails a missing required member', () => {
    const { eventType: _eventType, ...untyped } = started;
    expect(answerProblems('PollForDecisionTask', decisionTask([untyped]))).toEqual([
      '$.events[0].eventType: required, missing',
    ]);
    expect(answerProblems('CountPendingDecisionTasks', '{}')).toEqual([
      '$.count: required, missing',
    ]);
  });

  it('fails a member of the wrong JSON type', () => {
    const isoTime = { ...started, eventTimestamp: '2023-11-14T22:13:20Z' };
    expect(answerProblems('PollForDecisionTask', decisionTask([isoTime]))).toEqual([
      '$.events[0].eventTimestamp: expected a timestamp (epoch seconds), got "2023-11-14T22:13:20Z"',
    ]);
    expect(answerProblems('CountPendingDecisionTasks', '{"count":"0"}')).toEqual([
      '$.count: expected an integer, got "0"',
    ]);
    expect(answerProblems('CountPendingDecisionTasks', '{"count":1.5,"truncated":0}')).toEqual([
      '$.count: expected an integer, got 1.5',
      '$.truncated: expected a boolean, got 0',
    ]);
    expect(
      shapeProblems('DecisionTask', { ...JSON.parse(decisionTask([])), events: null }),
    ).toEqual(['$.events: expected a list, got null']);
  });

  it('fails a value outside its enum, length or range', () => {
    const badType = { ...started, eventType: 'WorkflowExecutionBegun' };
    expect(answerProblems('PollForDecisionTask', decisionTask([badType]))[0]).toMatch(
      /^\$\.events\[0\]\.eventType: "WorkflowExecutionBegun" is not one of WorkflowExecutionStarted, /,
    );
    expect(
      answerProblems('StartWorkflowExecution', JSON.stringify({ runId: 'r'.repeat(65) })),
    ).toEqual(['$.runId: length 65 > max 64']);
    expect(answerProblems('CountPendingDecisionTasks', '{"count":-1}')).toEqual([
      '$.count: value -1 < min 0',
    ]);
  });

  it('reports a member the shape does not have', () => {
    expect(answerProblems('StartWorkflowExecution', '{"runId":"r","workflowId":"w"}')).toEqual([
      '$.workflowId: unknown member',
    ]);
  });

  it('takes an empty answer, and only that, for an operation without output', () => {
    expect(answerProblems('RegisterDomain', '')).toEqual([]);
    expect(answerProblems('RegisterDomain', '{}')).toEqual([]);
    expect(answerProblems('RegisterDomain', '{"ok":true}')).toHaveLength(1);
    expect(answerProblems('StartWorkflowExecution', 'not json')).toEqual(['$: not JSON: not json']);
  });

  it('checks only the 200s of recorded answers, naming each one', () => {
    const answers = [
      { action: 'CountPendingActivityTasks', status: 200, text: '{}' },
      { action: 'CountPendingActivityTasks', status: 400, text: '{"__type":"x","message":"m"}' },
      { action: 'Frobnicate', status: 200, text: '{}' },
    ];
    expect(answersProblems(answers)).toEqual([
      '#0 CountPendingActivityTasks $.count: required, missing',
      '#2 Frobnicate: not an SWF action',
    ]);
  });

  it('passes the wire form of the one event the contract workload cannot cause', () => {
    // RecordMarkerFailed's only cause is an IAM refusal, which the service does not model
    // (test/contract/output-shapes.test.ts shows every other event type through the local server).
    const event = toWireEvent({
      eventId: 5,
      eventTimestamp: 1_700_000_000.5,
      eventType: 'RecordMarkerFailed',
      attributes: {
        markerName: 'm',
        cause: 'OPERATION_NOT_PERMITTED',
        decisionTaskCompletedEventId: 4,
      },
    });
    expect(shapeProblems('HistoryEvent', event)).toEqual([]);
    expect(shapeProblems('HistoryEvent', { ...event, eventId: '5' })).toEqual([
      '$.eventId: expected a long, got "5"',
    ]);
  });
});
