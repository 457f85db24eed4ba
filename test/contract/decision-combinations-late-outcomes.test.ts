/**
 * Chosen combinations of decisions whose outcome comes while the decision task is out: timers that
 * fire, activities and Lambda tasks that end or time out, children that close. The decider has not
 * seen them, so its requests to them fail and its close is UNHANDLED_DECISION.
 */
import {
  RespondActivityTaskCompletedCommand,
  RespondDecisionTaskCompletedCommand,
} from '@aws-sdk/client-swf';
import { describe, expect, it } from 'vitest';
import { uid } from '../support/decider.js';
import {
  cancelExternal,
  find,
  historyWhen,
  lambdaRole,
  serveCombos,
  signalExternal,
  startChild,
  types,
  w,
  world,
} from '../support/decision-combinations.js';
import { servedForFile } from '../support/local.js';
import { pendingActivities, pendingDecisions } from '../support/waiting.js';

const server = servedForFile(serveCombos);

describe('timers across decisions', () => {
  it('StartTimer, CancelTimer, StartTimer of one id in one list: only the second timer fires', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1', control: 'first' }),
      w({ kind: 'cancelTimer', timerId: 't' }),
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '2', control: 'second' }),
    ]);
    const events = await historyWhen(server, execution, (h) => find(h, 'TimerFired').length > 0);
    expect(types(events)).toEqual([
      'WorkflowExecutionStarted',
      'DecisionTaskScheduled',
      'DecisionTaskStarted',
      'DecisionTaskCompleted',
      'TimerStarted',
      'TimerCanceled',
      'TimerStarted',
      'TimerFired',
      'DecisionTaskScheduled',
    ]);
    expect(events[5]?.timerCanceledEventAttributes).toEqual({
      timerId: 't',
      startedEventId: 5,
      decisionTaskCompletedEventId: 4,
    });
    expect(events[7]?.timerFiredEventAttributes).toEqual({ timerId: 't', startedEventId: 7 });
    // the first timer's second would have come by now; nothing more is recorded
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(types(await server.driver.history(execution))).toHaveLength(9);
  });

  it('a timer that fired while the task was out: CancelTimer fails TIMER_ID_UNKNOWN, the id is free again, and a close is UNHANDLED_DECISION', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
    ]);
    await server.driver.signal(execution, 'wake');
    const second = await server.driver.pollDecision(taskList);
    expect(types(second.events).at(-1)).toBe('DecisionTaskStarted');
    expect(find(second.events, 'TimerFired')).toHaveLength(0);
    await historyWhen(server, execution, (h) => find(h, 'TimerFired').length === 1);
    await server.driver.respond(second.taskToken, [
      w({ kind: 'cancelTimer', timerId: 't' }),
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '3600' }),
      w({ kind: 'complete', result: 'done' }),
    ]);
    const events = await server.driver.history(execution);
    expect(types(events).slice(8)).toEqual([
      'TimerFired',
      'DecisionTaskCompleted',
      'CancelTimerFailed',
      'TimerStarted',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[10]?.cancelTimerFailedEventAttributes).toEqual({
      timerId: 't',
      cause: 'TIMER_ID_UNKNOWN',
      decisionTaskCompletedEventId: 10,
    });
    expect(events[12]?.completeWorkflowExecutionFailedEventAttributes).toEqual({
      cause: 'UNHANDLED_DECISION',
      decisionTaskCompletedEventId: 10,
    });
    expect((await server.driver.describe(execution)).openCounts).toMatchObject({
      openTimers: 1,
      openDecisionTasks: 1,
    });
  });

  it('a timerId is reused after its timer fired: the second fires with its own startedEventId', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
    ]);
    await historyWhen(server, execution, (h) => find(h, 'TimerFired').length === 1);
    const second = await server.driver.pollDecision(taskList);
    await server.driver.respond(second.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
    ]);
    const events = await historyWhen(server, execution, (h) => find(h, 'TimerFired').length === 2);
    const started = find(events, 'TimerStarted').map((e) => e.eventId);
    expect(find(events, 'TimerFired').map((e) => e.timerFiredEventAttributes)).toEqual([
      { timerId: 't', startedEventId: started[0] },
      { timerId: 't', startedEventId: started[1] },
    ]);
  });

  it('a timer started and cancelled in one list never fires, and one left open by a close never fires', async () => {
    const a = await server.driver.start(world.workflowType);
    const b = await server.driver.start(world.workflowType);
    const ta = await server.driver.pollDecision(a.taskList);
    await server.driver.respond(ta.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
      w({ kind: 'cancelTimer', timerId: 't' }),
    ]);
    const tb = await server.driver.pollDecision(b.taskList);
    await server.driver.respond(tb.taskToken, [
      w({ kind: 'startTimer', timerId: 't', startToFireTimeout: '1' }),
      w({ kind: 'complete' }),
    ]);
    const [ha, hb] = [
      await server.driver.history(a.execution),
      await server.driver.history(b.execution),
    ];
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await server.service.streamCaughtUp();
    expect(await server.driver.history(a.execution)).toEqual(ha);
    expect(await server.driver.history(b.execution)).toEqual(hb);
    expect(types(ha).slice(3)).toEqual(['DecisionTaskCompleted', 'TimerStarted', 'TimerCanceled']);
    expect(types(hb).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'TimerStarted',
      'WorkflowExecutionCompleted',
    ]);
  });
});

describe('activities across decisions', () => {
  it('Schedule, RequestCancel, Schedule of one activityId in one list: the second is the one handed out', async () => {
    const acts = uid('acts');
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const task = await server.driver.pollDecision(taskList);
    await server.driver.respond(task.taskToken, [
      w({ kind: 'schedule', activityId: 'a', type: 'act', input: 'one' }, acts),
      w({ kind: 'cancelActivity', activityId: 'a' }),
      w({ kind: 'schedule', activityId: 'a', type: 'act', input: 'two' }, acts),
    ]);
    const events = await server.driver.history(execution);
    expect(types(events).slice(3)).toEqual([
      'DecisionTaskCompleted',
      'ActivityTaskScheduled',
      'ActivityTaskCancelRequested',
      'ActivityTaskCanceled',
      'ActivityTaskScheduled',
      'DecisionTaskScheduled',
    ]);
    expect(events[6]?.activityTaskCanceledEventAttributes).toEqual({
      scheduledEventId: 5,
      startedEventId: 0,
      latestCancelRequestedEventId: 6,
    });
    const worker = await server.driver.pollActivity(acts);
    expect(worker).toMatchObject({ activityId: 'a', input: 'two', startedEventId: 10 });
    const after = await server.driver.history(execution);
    expect(after[9]?.activityTaskStartedEventAttributes?.scheduledEventId).toBe(8);
    expect((await server.driver.describe(execution)).openCounts?.openActivityTasks).toBe(1);
    await server.swf.send(new RespondActivityTaskCompletedCommand({ taskToken: worker.taskToken }));
    const done = await server.driver.history(execution);
    expect(done[10]?.activityTaskCompletedEventAttributes).toEqual({
      scheduledEventId: 8,
      startedEventId: 10,
    });
  });
});

describe('Lambda tasks combined', () => {
  it('a Lambda task that ends while the task is out makes a close UNHANDLED_DECISION', async () => {
    let release: (value: string) => void = () => {};
    server.service.lambda.register(
      'gate',
      () =>
        new Promise<string>((resolve) => {
          release = resolve;
        }),
    );
    const { execution, taskList } = await server.driver.start(world.workflowType, { lambdaRole });
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, [
      {
        decisionType: 'ScheduleLambdaFunction',
        scheduleLambdaFunctionDecisionAttributes: {
          id: 'g',
          name: 'gate',
          startToCloseTimeout: '60',
        },
      },
    ]);
    await historyWhen(server, execution, (h) => find(h, 'LambdaFunctionStarted').length === 1);
    await server.driver.signal(execution, 'wake');
    const second = await server.driver.pollDecision(taskList);
    release('opened');
    await historyWhen(server, execution, (h) => find(h, 'LambdaFunctionCompleted').length === 1);
    await server.driver.respond(second.taskToken, [
      w({ kind: 'lambda', id: 'g' }),
      w({ kind: 'complete' }),
    ]);
    const events = await server.driver.history(execution);
    expect(types(events).slice(9)).toEqual([
      'LambdaFunctionCompleted',
      'DecisionTaskCompleted',
      'LambdaFunctionScheduled',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[12]?.completeWorkflowExecutionFailedEventAttributes).toEqual({
      cause: 'UNHANDLED_DECISION',
      decisionTaskCompletedEventId: 11,
    });
  });
});

describe('outcomes the decider has not seen', () => {
  it('a child that closed while the parent’s task was out: requests to it fail, the close is UNHANDLED_DECISION', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const childId = uid('child');
    const childList = uid('child-deciders');
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, [startChild(childId, { taskList: childList })]);
    await historyWhen(
      server,
      execution,
      (h) => find(h, 'ChildWorkflowExecutionStarted').length === 1,
    );
    const second = await server.driver.pollDecision(taskList);
    const ct = await server.driver.pollDecision(childList);
    await server.driver.respond(ct.taskToken, [w({ kind: 'complete', result: 'child done' })]);
    await historyWhen(
      server,
      execution,
      (h) => find(h, 'ChildWorkflowExecutionCompleted').length === 1,
    );
    await server.driver.respond(second.taskToken, [
      cancelExternal(childId, { control: 'c1' }),
      signalExternal(childId, { control: 'c2' }),
      w({ kind: 'complete' }),
    ]);
    const events = await historyWhen(
      server,
      execution,
      (h) =>
        find(h, 'RequestCancelExternalWorkflowExecutionFailed').length === 1 &&
        find(h, 'SignalExternalWorkflowExecutionFailed').length === 1,
    );
    const completed = find(events, 'DecisionTaskCompleted').at(-1)?.eventId ?? -1;
    expect(types(events).slice(completed - 1, completed + 4)).toEqual([
      'DecisionTaskCompleted',
      'RequestCancelExternalWorkflowExecutionInitiated',
      'SignalExternalWorkflowExecutionInitiated',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(
      find(events, 'RequestCancelExternalWorkflowExecutionFailed')[0]
        ?.requestCancelExternalWorkflowExecutionFailedEventAttributes,
    ).toEqual({
      workflowId: childId,
      cause: 'UNKNOWN_EXTERNAL_WORKFLOW_EXECUTION',
      initiatedEventId: completed + 1,
      decisionTaskCompletedEventId: completed,
      control: 'c1',
    });
    expect((await server.driver.describe(execution)).executionInfo?.executionStatus).toBe('OPEN');
    expect(find(events, 'DecisionTaskScheduled').length).toBe(3);
  });

  it('an activity that timed out while the task was out: RequestCancelActivityTask fails ACTIVITY_ID_UNKNOWN and the id is free', async () => {
    const acts = uid('acts');
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const first = await server.driver.pollDecision(taskList);
    await server.driver.respond(first.taskToken, [
      {
        decisionType: 'ScheduleActivityTask',
        scheduleActivityTaskDecisionAttributes: {
          activityType: world.activityTypes.act,
          activityId: 'a',
          taskList: { name: acts },
          scheduleToStartTimeout: '1',
        },
      },
    ]);
    await server.driver.signal(execution, 'wake');
    const second = await server.driver.pollDecision(taskList);
    await historyWhen(server, execution, (h) => find(h, 'ActivityTaskTimedOut').length === 1);
    await server.driver.respond(second.taskToken, [
      w({ kind: 'cancelActivity', activityId: 'a' }),
      w({ kind: 'schedule', activityId: 'a', type: 'act' }, acts),
      w({ kind: 'fail', reason: 'too late' }),
    ]);
    const events = await server.driver.history(execution);
    const completed = find(events, 'DecisionTaskCompleted').at(-1)?.eventId ?? -1;
    expect(types(events).slice(completed - 2)).toEqual([
      'ActivityTaskTimedOut',
      'DecisionTaskCompleted',
      'RequestCancelActivityTaskFailed',
      'ActivityTaskScheduled',
      'FailWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[completed - 2]?.activityTaskTimedOutEventAttributes).toEqual({
      timeoutType: 'SCHEDULE_TO_START',
      scheduledEventId: 5,
      startedEventId: 0,
    });
    expect(events[completed]?.requestCancelActivityTaskFailedEventAttributes).toEqual({
      activityId: 'a',
      cause: 'ACTIVITY_ID_UNKNOWN',
      decisionTaskCompletedEventId: completed,
    });
    expect(await pendingActivities(server.driver, acts)).toBe(1);
  });

  it('the decision task owed after failures goes to the task list the response names', async () => {
    const { execution, taskList } = await server.driver.start(world.workflowType);
    const moved = uid('moved');
    const first = await server.driver.pollDecision(taskList);
    await server.driver.signal(execution, 'during');
    await server.driver.swf.send(
      new RespondDecisionTaskCompletedCommand({
        taskToken: first.taskToken,
        decisions: [
          w({ kind: 'schedule', activityId: 'a', type: 'ghost' }),
          w({ kind: 'complete' }),
        ],
        taskList: { name: moved },
        executionContext: 'ctx',
      }),
    );
    const events = await server.driver.history(execution);
    expect(types(events).slice(4)).toEqual([
      'DecisionTaskCompleted',
      'ScheduleActivityTaskFailed',
      'CompleteWorkflowExecutionFailed',
      'DecisionTaskScheduled',
    ]);
    expect(events[4]?.decisionTaskCompletedEventAttributes).toEqual({
      executionContext: 'ctx',
      scheduledEventId: 2,
      startedEventId: 3,
      taskList: { name: moved },
    });
    expect(events[7]?.decisionTaskScheduledEventAttributes?.taskList).toEqual({ name: moved });
    expect(await pendingDecisions(server.driver, taskList)).toBe(0);
    const next = await server.driver.pollDecision(moved);
    expect(next.previousStartedEventId).toBe(3);
  });
});

/**
 * The decisions of one response are carried out in list order (the API
 * reference's Decision page: "The ordering of decisions should follow a logical flow"): a child
 * started before a signal or cancel request to it exists by the time the request is delivered, and a
 * request before the start does not find it.
 */
