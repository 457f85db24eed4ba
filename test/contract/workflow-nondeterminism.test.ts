/**
 * Code that changed while an execution was open: the replay of the next decision task does not match
 * the history. The worker reports it (logger and observe, with the event and what each side has)
 * and sends nothing from the wrong replay: the task times out, and once the right code is back the
 * execution goes on. A workflow that asks for it is failed instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  implementActivity,
  NON_DETERMINISM_REASON,
  registerTypes,
  type WorkflowContext,
} from '../../lib/sdk/index.js';
import {
  type CodeWorkflowService,
  startCodeWorkflowService,
} from '../support/code-workflow-service.js';
import { eventsOf } from '../support/decider.js';

let codeService: CodeWorkflowService;
beforeAll(async () => {
  codeService = await startCodeWorkflowService('workflow-nondeterminism');
  const A = codeService.activity<string, string>('StepA');
  const B = codeService.activity<string, string>('StepB');
  steps = { A, B };
  await codeService.serve(
    [],
    [implementActivity(A, (s) => `A ${s}`), implementActivity(B, (s) => `B ${s}`)],
  );
}, 60_000);
afterAll(() => codeService.close());

let steps: {
  A: ReturnType<CodeWorkflowService['activity']>;
  B: ReturnType<CodeWorkflowService['activity']>;
};

/** The workflow as first deployed (`first` = StepA), or changed (`first` = StepB). */
const evolving = (name: string, first: 'A' | 'B', onNonDeterminism?: 'failExecution') =>
  codeService.workflow(
    name,
    async (ctx: WorkflowContext) => {
      await ctx.activity(steps[first], 'first');
      await ctx.waitForSignal('Go');
      await ctx.activity(steps.B, 'second');
      return 'done';
    },
    {
      // Its own list: only the workers of one test take its decision tasks.
      taskList: `${codeService.decisionList}-${name}`,
      taskStartToCloseTimeout: '2s',
      ...(onNonDeterminism ? { onNonDeterminism } : {}),
    },
  );

const go = (workflowId: string) => codeService.signal(workflowId, 'Go');

/** A DeciderWorker for the workflow on its own list. */
const decider = (workflow: ReturnType<typeof evolving>, identity: string) =>
  codeService.decider([workflow], { identity, taskList: workflow.options.taskList ?? '' });

describe('a replay that does not match the history', () => {
  it('is reported with the event and both sides, answers nothing, and goes on once the code is back', async () => {
    const v1 = evolving('Evolving', 'A');
    await registerTypes(codeService.client, codeService.domain, { workflows: [v1] });
    const first = decider(v1, 'v1');
    const execution = await codeService.start(v1, null);
    const waiting = await codeService.untilEvent(execution, 'ActivityTaskCompleted');
    await codeService.untilEvent(execution, 'DecisionTaskCompleted', 2);
    await first.shutdown();
    const scheduledA = eventsOf(waiting, 'ActivityTaskScheduled')[0];

    const changed = decider(evolving('Evolving', 'B'), 'v2');
    await go(execution.workflowId);
    await codeService.untilEvent(execution, 'DecisionTaskTimedOut');
    await changed.shutdown();
    const report = codeService.observations.find(
      (o) => o.kind === 'nonDeterminism' && o.workflowId === execution.workflowId,
    );
    expect(report).toMatchObject({
      kind: 'nonDeterminism',
      eventId: scheduledA?.eventId,
      expected: `event ${scheduledA?.eventId} ActivityTaskScheduled: activity 1 (StepA 1)`,
      actual: 'ScheduleActivityTask: activity 1 (StepB 1)',
      action: 'leaveTask',
    });
    const logged = codeService.logger.lines.find(
      (l) => l.level === 'error' && l.fields?.workflowId === execution.workflowId,
    );
    expect(logged?.message).toMatch(/does not match its history/);
    expect(logged?.fields).toMatchObject({ eventId: scheduledA?.eventId });

    const fixed = decider(v1, 'v1 again');
    const closed = await codeService.waitForClose(execution);
    await fixed.shutdown();
    expect(closed).toMatchObject({ closeStatus: 'COMPLETED', result: '"done"' });
    // Nothing the changed code decided was ever recorded: it would have scheduled StepB first. (Who
    // answered cannot be read from the started events' identities: a task started for a poll whose
    // worker shut down as it came goes to the next poll of the list, here the fixed code's.)
    const scheduled = eventsOf(closed.events, 'ActivityTaskScheduled').map(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name,
    );
    expect(scheduled).toEqual([steps.A.name, steps.B.name]);
    expect(closed.events.map((e) => e.decisionTaskStartedEventAttributes?.identity)).toContain(
      'v2',
    );
  });

  it('fails the execution when the workflow asks for that', async () => {
    const v1 = evolving('EvolvingStrict', 'A', 'failExecution');
    await registerTypes(codeService.client, codeService.domain, { workflows: [v1] });
    const first = decider(v1, 'strict v1');
    const execution = await codeService.start(v1, null);
    await codeService.untilEvent(execution, 'ActivityTaskCompleted');
    await codeService.untilEvent(execution, 'DecisionTaskCompleted', 2);
    await first.shutdown();
    const changed = decider(evolving('EvolvingStrict', 'B', 'failExecution'), 'strict v2');
    await go(execution.workflowId);
    const closed = await codeService.waitForClose(execution);
    await changed.shutdown();
    expect(closed.closeStatus).toBe('FAILED');
    expect(closed.reason).toBe(NON_DETERMINISM_REASON);
    expect(closed.details).toMatch(
      /at event \d+: the history has event \d+ ActivityTaskScheduled: activity 1 \(StepA 1\); the code asked for ScheduleActivityTask: activity 1 \(StepB 1\)/,
    );
  });
});
