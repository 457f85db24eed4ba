import { describe, expect, it } from 'vitest';
import { toWireEvent } from '../../../lib/core/history-event.js';
import {
  answerProblems,
  answersProblems,
  errorCode,
  errorProblems,
  shapeProblems,
} from '../../support/output-shapes.js';
import { operationErrors, operationOutputs, outputShapes } from '../../support/swf-output-model.js';

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
const fault = (name: string, namespace = 'com.amazonaws.swf.base.model', message = 'm') =>
  JSON.stringify({ __type: `${namespace}#${name}`, message });
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

  it('checks every recorded answer, 200s and errors, naming each one', () => {
    const answers = [
      { action: 'CountPendingActivityTasks', status: 200, text: '{}' },
      { action: 'CountPendingActivityTasks', status: 400, text: '{"__type":"x","message":"m"}' },
      { action: 'CountPendingActivityTasks', status: 400, text: fault('UnknownResourceFault') },
      { action: 'Frobnicate', status: 200, text: '{}' },
    ];
    expect(answersProblems(answers)).toEqual([
      '#0 CountPendingActivityTasks $.count: required, missing',
      "#1 CountPendingActivityTasks (HTTP 400) $.__type: x is not one of CountPendingActivityTasks's errors (OperationNotPermittedFault, UnknownResourceFault) nor common",
      '#3 Frobnicate: not an SWF action',
    ]);
  });

  it('passes the wire form of a RecordMarkerFailed event', () => {
    // Its only cause is an access policy refusing the marker (test/contract/output-shapes.test.ts
    // causes it through the local server with every other event type).
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

describe('the error validator', () => {
  it("lists each operation's modeled errors, and their shapes", () => {
    expect(operationErrors.ListDomains).toEqual(['OperationNotPermittedFault']);
    expect(operationErrors.DeleteWorkflowType).toEqual([
      'OperationNotPermittedFault',
      'TypeNotDeprecatedFault',
      'UnknownResourceFault',
    ]);
    expect(operationErrors.StartWorkflowExecution).toContain('DefaultUndefinedFault');
    expect(Object.keys(operationErrors)).toEqual(Object.keys(operationOutputs));
    for (const name of new Set(Object.values(operationErrors).flat()))
      expect(outputShapes[name]).toEqual({
        type: 'structure',
        members: { message: 'ErrorMessage' },
      });
  });

  it('passes a fault the action lists, and a common error', () => {
    expect(errorProblems('DescribeDomain', 400, fault('UnknownResourceFault'))).toEqual([]);
    expect(errorProblems('DeleteActivityType', 400, fault('TypeNotDeprecatedFault'))).toEqual([]);
    // No namespace, and `Message` as some services spell it: the SDKs read both.
    expect(
      errorProblems('RegisterDomain', 400, '{"__type":"DomainAlreadyExistsFault","Message":"d"}'),
    ).toEqual([]);
    expect(
      errorProblems('ListDomains', 400, fault('ValidationException', 'com.amazon.coral.validate')),
    ).toEqual([]);
    expect(
      errorProblems(
        'PollForDecisionTask',
        500,
        fault('InternalFailure', 'com.amazon.coral.service'),
      ),
    ).toEqual([]);
    expect(errorProblems('SignalWorkflowExecution', 400, fault('ThrottlingException'))).toEqual([]);
    expect(errorProblems('RegisterDomain', 400, fault('TooManyTagsFault', 'x', ''))).toEqual([]);
  });

  it('fails a fault the action does not list', () => {
    expect(errorProblems('StartWorkflowExecution', 400, fault('DomainDeprecatedFault'))).toEqual([
      "$.__type: DomainDeprecatedFault is not one of StartWorkflowExecution's errors (DefaultUndefinedFault, LimitExceededFault, OperationNotPermittedFault, TypeDeprecatedFault, UnknownResourceFault, WorkflowExecutionAlreadyStartedFault) nor common",
    ]);
    expect(errorProblems('ListDomains', 400, fault('UnknownResourceFault'))).toHaveLength(1);
    // A query-protocol error is not one an awsJson1_0 service answers.
    expect(errorProblems('ListDomains', 400, fault('InvalidParameterValue'))).toHaveLength(1);
  });

  it('fails a missing or non-string message, an unknown member, a bad status or body', () => {
    expect(errorProblems('DescribeDomain', 400, '{"__type":"x#UnknownResourceFault"}')).toEqual([
      '$.message: expected a string, got undefined',
    ]);
    expect(
      errorProblems('DescribeDomain', 400, '{"__type":"x#UnknownResourceFault","message":3}'),
    ).toEqual(['$.message: expected a string, got 3']);
    expect(
      errorProblems(
        'DescribeDomain',
        400,
        '{"__type":"x#UnknownResourceFault","message":"m","domain":"d"}',
      ),
    ).toEqual(['$.domain: unknown member of UnknownResourceFault']);
    expect(errorProblems('DescribeDomain', 404, fault('UnknownResourceFault'))).toEqual([
      '$: UnknownResourceFault is answered with HTTP 400, not 404',
    ]);
    expect(errorProblems('DescribeDomain', 400, '{"message":"m"}')).toEqual([
      "$.__type: expected the error's name, got undefined",
    ]);
    expect(errorProblems('DescribeDomain', 400, 'oops')).toEqual(['$: not JSON: oops']);
  });

  it('reads the code as the SDKs do', () => {
    expect(errorCode('com.amazonaws.swf.base.model#UnknownResourceFault')).toBe(
      'UnknownResourceFault',
    );
    expect(errorCode('ValidationException')).toBe('ValidationException');
    expect(errorCode('aws.protocoltests#FooError:http://internal.amazon.com/')).toBe('FooError');
    expect(errorCode('FooError,BarError')).toBe('FooError');
  });
});
