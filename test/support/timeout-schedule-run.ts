/**
 * One generated schedule run against the service and, step by step, against the timeout oracle: each
 * call's answer, and after each step the whole history, the open counts and what waits on each list.
 * The first disagreement throws a Mismatch that carries the steps taken so far.
 */
import type { Answer, ManualClockService } from './manual-clock-service.js';
import type { TestStores } from './stores.js';
import {
  ACTIVITY_IDS,
  ACTIVITY_TYPES,
  ALT_LIST,
  freshTimeoutDomain,
  MAIN_LIST,
  toWire,
} from './timeout-domain.js';
import { type TaskRef, TimeoutOracle } from './timeout-oracle.js';
import { checkAgainstOracle, type Execution } from './timeout-schedule-checks.js';
import { type Config, chooseActivity, oracleDecision, type Step } from './timeout-schedules.js';

export class Mismatch extends Error {}

/** What the runs exercised, tallied across them (ORACLE_STATS), and how many logs were printed. */
export interface ScheduleReport {
  readonly tallies: Map<string, number>;
  printed: number;
}

type HeldTask = { token: string; ref: TaskRef };
type StepOf<T extends Step['t']> = Extract<Step, { t: T }>;

/** Runs one schedule; throws a Mismatch (with the step log) at the first disagreement. */
export async function runSchedule(
  stores: TestStores,
  config: Config,
  steps: readonly Step[],
  report: ScheduleReport,
): Promise<void> {
  const run = await ScheduleRun.start(stores, config);
  await run.check('start');
  for (const [n, step] of steps.entries()) {
    const label = `step ${n} ${step.t}`;
    if (await run.step(label, step)) await run.check(label);
  }
  await run.finish();
  run.report(report);
}

class ScheduleRun {
  private readonly log: string[];
  private readonly decisionTokens: HeldTask[] = [];
  private readonly activityTokens = new Map<string, HeldTask[]>();
  /** Whether the timer service is stalled: deadlines pass and their fires do not come. */
  private stalled = false;
  private checks = 0;

  private constructor(
    private readonly service: ManualClockService,
    private readonly o: TimeoutOracle,
    private readonly domain: string,
    private readonly execution: Execution,
    config: Config,
  ) {
    this.log = [`config ${JSON.stringify(config)}`];
  }

  static async start(stores: TestStores, config: Config): Promise<ScheduleRun> {
    const { service, domain } = await freshTimeoutDomain(stores);
    // Start on a round second plus some milliseconds, away from the registration.
    service.clock.ms += 1_000 + 137;
    const started = await service.must('StartWorkflowExecution', {
      domain,
      workflowId: 'w',
      workflowType: { name: 'w', version: '1' },
      // Given, or left to the workflow type's defaults (task list, 600 s, 60 s, ABANDON).
      ...(config.typeDefaults
        ? {}
        : {
            taskList: { name: MAIN_LIST },
            taskStartToCloseTimeout: config.taskStartToClose,
            executionStartToCloseTimeout: config.executionStartToClose,
            childPolicy: config.childPolicy,
          }),
    });
    const oracle = new TimeoutOracle({
      startAt: service.clock.ms,
      taskList: MAIN_LIST,
      taskStartToCloseTimeout: config.typeDefaults ? '60' : config.taskStartToClose,
      executionStartToCloseTimeout: config.typeDefaults ? '600' : config.executionStartToClose,
      childPolicy: config.typeDefaults ? 'ABANDON' : config.childPolicy,
      workflowType: { name: 'w', version: '1' },
      activityTypes: ACTIVITY_TYPES,
    });
    const execution = { workflowId: 'w', runId: started.runId as string };
    return new ScheduleRun(service, oracle, domain, execution, config);
  }

  private fail = (what: string): never => {
    throw new Mismatch(`${what}\n--- steps ---\n${this.log.join('\n')}`);
  };

  private at(ms = this.service.clock.ms): string {
    return `+${ms - this.o.config.startAt}ms`;
  }

  private sameAnswer(label: string, got: Answer, expectedOk: boolean): void {
    if (got.ok !== expectedOk)
      this.fail(
        `${label}: service ${got.ok ? 'accepted' : `refused (${got.fault})`}, SWF would ${expectedOk ? 'accept' : 'refuse (UnknownResourceFault)'}`,
      );
    if (!got.ok && got.fault !== 'UnknownResourceFault') this.fail(`${label}: fault ${got.fault}`);
  }

  /** A target time that is no deadline's very millisecond: which side of it SWF takes is not documented. */
  private offDeadline(target: number): number {
    let at = target;
    while (this.o.deadlines().some((d) => d.at === at)) at += 1;
    return at;
  }

  /** Moves the clock by `by` ms before a call, the timer service punctual unless it is stalled. */
  private async before(by: number): Promise<void> {
    const target = this.offDeadline(this.service.clock.ms + by);
    if (this.stalled) this.service.advanceStalled(target);
    else {
      const from = this.service.clock.ms;
      await this.service.advancePunctual(target);
      this.o.fireUpTo(target, 'own', from);
    }
  }

  /** The timer service hands over, late, every fire due by `target`. */
  private async catchUp(target: number): Promise<void> {
    const from = this.service.clock.ms;
    await this.service.advanceLate(target);
    this.o.fireUpTo(target, 'until', from);
    this.stalled = false;
  }

  async check(label: string): Promise<void> {
    // What waits on each list: every third check, and not while the timer service stalls (a task past
    // its timeout stays queued until its fire comes, though no poll is handed it).
    const withPending = !this.stalled && this.checks++ % 3 === 0;
    const target = { service: this.service, domain: this.domain, execution: this.execution };
    await checkAgainstOracle(target, this.o, label, withPending, this.fail);
  }

  /** Takes one step; false when it had nothing to act on, and so nothing to check after it. */
  async step(label: string, step: Step): Promise<boolean> {
    switch (step.t) {
      case 'pollD':
        await this.before(step.dt);
        await this.pollDecision(label, step.wrong);
        return true;
      case 'respondD':
        return this.respondDecision(label, step);
      case 'pollA':
        await this.before(step.dt);
        await this.pollActivity(label, chooseActivity(step.target, this.o.activityIds(false)));
        return true;
      case 'beat':
      case 'close':
        return this.answerHeldActivity(label, step);
      case 'work':
        await this.work(label, step);
        return true;
      case 'signal':
        await this.signal(label, step);
        return true;
      case 'advance':
        await this.advance(label, step);
        return true;
    }
  }

  private async pollDecision(label: string, wrong: boolean): Promise<void> {
    const waiting = this.o.decisionTaskList() ?? MAIN_LIST;
    const list = wrong ? (waiting === MAIN_LIST ? ALT_LIST : MAIN_LIST) : waiting;
    const got = await this.service.call('PollForDecisionTask', {
      domain: this.domain,
      taskList: { name: list },
      identity: 'decider',
    });
    const want = this.o.pollForDecisionTask(list, this.service.clock.ms, 'decider');
    this.log.push(
      `${this.at()} ${label} poll ${list} -> ${want.ok && want.value ? `started ${want.value.startedEventId}` : 'none'}`,
    );
    const token = got.ok ? (got.value?.taskToken as string | undefined) : undefined;
    const expected = want.ok ? want.value : undefined;
    if ((token !== undefined) !== (expected !== undefined))
      this.fail(
        `${label}: service ${token ? 'handed out' : 'gave no'} decision task, SWF would ${expected ? 'hand one out' : 'give none'}`,
      );
    if (token === undefined || expected === undefined) return;
    if (got.ok && got.value?.startedEventId !== expected.startedEventId)
      this.fail(
        `${label}: startedEventId ${String(got.value?.startedEventId)}, expected ${expected.startedEventId}`,
      );
    if (got.ok && got.value?.previousStartedEventId !== this.o.previousStarted())
      this.fail(
        `${label}: previousStartedEventId ${String(got.value?.previousStartedEventId)}, expected ${this.o.previousStarted()}`,
      );
    this.decisionTokens.push({ token, ref: expected });
  }

  /**
   * The decider answers the task it holds (polling for one first if it holds none), unless the step
   * sends an older token.
   */
  private async respondDecision(label: string, step: StepOf<'respondD'>): Promise<boolean> {
    await this.before(step.dt);
    if (step.pick === 0 && this.o.startedDecisionTask() === undefined && !this.stalled) {
      await this.pollDecision(`${label} (poll first)`, false);
      await this.check(`${label} (poll first)`);
      await this.before(1 + (step.dt % 700));
    }
    const chosen = this.decisionTokens[this.decisionTokens.length - 1 - Math.min(step.pick, 1)];
    if (chosen === undefined) return false;
    const decisions = step.decisions.map(oracleDecision);
    const override =
      step.override === undefined
        ? undefined
        : {
            list: step.override.toAlt ? ALT_LIST : MAIN_LIST,
            ...(step.override.timeout === undefined ? {} : { timeout: step.override.timeout }),
          };
    const got = await this.service.call('RespondDecisionTaskCompleted', {
      taskToken: chosen.token,
      decisions: decisions.map(toWire),
      ...(override === undefined
        ? {}
        : {
            taskList: { name: override.list },
            ...(override.timeout === undefined
              ? {}
              : { taskListScheduleToStartTimeout: override.timeout }),
          }),
    });
    const want = this.o.respondDecisionTaskCompleted(
      chosen.ref,
      this.service.clock.ms,
      decisions,
      override,
    );
    this.log.push(
      `${this.at()} ${label} task ${chosen.ref.startedEventId} ${JSON.stringify(decisions)} override ${JSON.stringify(override)} -> ${want.ok ? 'ok' : 'refused'}`,
    );
    this.sameAnswer(label, got, want.ok);
    return true;
  }

  private heldActivity(id: string, pick: number): HeldTask | undefined {
    const list = this.activityTokens.get(id) ?? [];
    return list.length === 0 ? undefined : list[Math.max(0, list.length - 1 - pick)];
  }

  private async pollActivity(label: string, id: string): Promise<HeldTask | undefined> {
    const got = await this.service.call('PollForActivityTask', {
      domain: this.domain,
      taskList: { name: `acts-${id}` },
      identity: 'worker',
    });
    const want = this.o.pollForActivityTask(`acts-${id}`, this.service.clock.ms, 'worker');
    const expected = want.ok ? want.value : undefined;
    this.log.push(
      `${this.at()} ${label} poll ${id} -> ${expected ? `started ${expected.startedEventId}` : 'none'}`,
    );
    const token = got.ok ? (got.value?.taskToken as string | undefined) : undefined;
    if ((token !== undefined) !== (expected !== undefined))
      this.fail(
        `${label}: service ${token ? 'handed out' : 'gave no'} activity task, SWF would ${expected ? 'hand one out' : 'give none'}`,
      );
    if (token === undefined || expected === undefined) return undefined;
    if (got.ok && got.value?.startedEventId !== expected.startedEventId)
      this.fail(
        `${label}: startedEventId ${String(got.value?.startedEventId)}, expected ${expected.startedEventId}`,
      );
    const entry = { token, ref: expected };
    const list = this.activityTokens.get(id) ?? [];
    list.push(entry);
    this.activityTokens.set(id, list);
    return entry;
  }

  /** A heartbeat or an answer with a token the worker holds (its latest, or an older one). */
  private async answerHeldActivity(
    label: string,
    step: StepOf<'beat'> | StepOf<'close'>,
  ): Promise<boolean> {
    const id = chooseActivity(step.target, this.o.activityIds(true));
    const chosen = this.heldActivity(id, step.pick);
    if (chosen === undefined) return false;
    await this.before(step.dt);
    if (step.t === 'beat') await this.heartbeat(label, id, chosen, step.details);
    else await this.respondActivity(label, id, chosen, step.how);
    return true;
  }

  private async heartbeat(
    label: string,
    id: string,
    chosen: HeldTask,
    details: string | undefined,
  ): Promise<void> {
    const got = await this.service.call('RecordActivityTaskHeartbeat', {
      taskToken: chosen.token,
      ...(details === undefined ? {} : { details }),
    });
    const want = this.o.recordActivityTaskHeartbeat(chosen.ref, this.service.clock.ms, details);
    this.log.push(
      `${this.at()} ${label} ${id} task ${chosen.ref.startedEventId} ${details ?? '-'} -> ${want.ok ? `ok cancelRequested=${want.value.cancelRequested}` : 'refused'}`,
    );
    this.sameAnswer(label, got, want.ok);
    if (got.ok && want.ok && got.value?.cancelRequested !== want.value.cancelRequested)
      this.fail(
        `${label}: cancelRequested ${String(got.value?.cancelRequested)}, expected ${want.value.cancelRequested}`,
      );
  }

  private async respondActivity(
    label: string,
    id: string,
    chosen: HeldTask,
    how: 'completed' | 'failed' | 'canceled',
  ): Promise<void> {
    const answers = {
      completed: ['RespondActivityTaskCompleted', { result: 'r' }],
      failed: ['RespondActivityTaskFailed', { reason: 'f' }],
      canceled: ['RespondActivityTaskCanceled', { details: 'c' }],
    } as const;
    const [action, extra] = answers[how];
    const got = await this.service.call(action, { taskToken: chosen.token, ...extra });
    const want = this.o.respondActivityTask(chosen.ref, this.service.clock.ms, how);
    this.log.push(
      `${this.at()} ${label} ${id} ${how} task ${chosen.ref.startedEventId} -> ${want.ok ? 'ok' : 'refused'}`,
    );
    this.sameAnswer(label, got, want.ok);
  }

  /**
   * A worker's whole go at an activity: it takes it, heartbeats now and then, and answers (or walks
   * away), each call checked on its own.
   */
  private async work(label: string, step: StepOf<'work'>): Promise<void> {
    await this.before(step.dt);
    const id = chooseActivity(step.target, this.o.activityIds(false));
    const task = await this.pollActivity(label, id);
    if (task === undefined) return;
    await this.check(`${label} (took ${id})`);
    if (step.stall !== undefined) this.stalled = true;
    for (const [i, beat] of step.beats.entries()) {
      await this.before(beat.gap);
      await this.heartbeat(`${label} beat ${i}`, id, task, beat.details);
      await this.check(`${label} beat ${i}`);
    }
    if (step.end !== 'walk away') {
      await this.before(step.endGap);
      await this.respondActivity(`${label} ${step.end}`, id, task, step.end);
    }
    if (step.stall === undefined) return;
    const target = this.offDeadline(this.service.clock.ms + step.stall);
    await this.catchUp(target);
    this.log.push(`${this.at(target)} ${label} the timer service catches up`);
    await this.check(`${label} (caught up)`);
  }

  private async signal(label: string, step: StepOf<'signal'>): Promise<void> {
    await this.before(step.dt);
    const got = await this.service.call('SignalWorkflowExecution', {
      domain: this.domain,
      workflowId: 'w',
      runId: this.execution.runId,
      signalName: 's',
      input: 'i',
    });
    const want = this.o.signal(this.service.clock.ms);
    this.log.push(`${this.at()} ${label} -> ${want.ok ? 'ok' : 'refused'}`);
    this.sameAnswer(label, got, want.ok);
  }

  /** The clock moves to just before or after the next deadline, or anywhere. */
  private async advance(label: string, step: StepOf<'advance'>): Promise<void> {
    const now = this.service.clock.ms;
    const next = this.o.nextTaskDeadline();
    const target = this.offDeadline(
      step.to === 'next' && next !== undefined && next.at + step.delta > now
        ? Math.max(now + 1, next.at + step.delta)
        : now + step.far,
    );
    if (step.mode === 'stalled') {
      this.service.advanceStalled(target);
      this.stalled = true;
    } else if (step.mode === 'late') await this.catchUp(target);
    else {
      await this.service.advancePunctual(target);
      this.o.fireUpTo(target, 'own', now);
      this.stalled = false;
    }
    const start = this.o.config.startAt;
    this.log.push(
      `${this.at()} ${label} ${step.mode} to ${target - start}ms (next deadline ${next ? `${next.kind}${'timeoutType' in next ? ` ${next.timeoutType}` : ''} at ${next.at - start}` : 'none'})`,
    );
  }

  /** The end: past the execution's timeout, late; then every token is refused and no poll gets a task. */
  async finish(): Promise<void> {
    const end =
      this.o.config.startAt + Number(this.o.config.executionStartToCloseTimeout) * 1000 + 1;
    const from = this.service.clock.ms;
    await this.service.advanceLate(Math.max(end, from + 1));
    this.o.fireUpTo(Math.max(end, from + 1), 'until', from);
    this.log.push(`${this.at()} end`);
    await this.check('end');
    if (this.o.status !== 'CLOSED') this.fail('the execution outlived its timeout in the oracle');
    await this.refusesEveryToken();
    for (const name of [MAIN_LIST, ALT_LIST, ...ACTIVITY_IDS.map((id) => `acts-${id}`)]) {
      const taskList = { name };
      const d = await this.service.must('PollForDecisionTask', { domain: this.domain, taskList });
      const a = await this.service.must('PollForActivityTask', { domain: this.domain, taskList });
      if (d.taskToken !== undefined || a.taskToken !== undefined)
        this.fail(`a task handed out on ${name} after the close`);
    }
    await this.check('after the end');
  }

  private async refusesEveryToken(): Promise<void> {
    const call = (action: Parameters<ManualClockService['call']>[0], taskToken: string) =>
      this.service.call(action, { taskToken });
    for (const { token } of this.decisionTokens)
      this.sameAnswer('late decision', await call('RespondDecisionTaskCompleted', token), false);
    for (const list of this.activityTokens.values())
      for (const { token } of list) {
        this.sameAnswer('late heartbeat', await call('RecordActivityTaskHeartbeat', token), false);
        this.sameAnswer(
          'late completion',
          await call('RespondActivityTaskCompleted', token),
          false,
        );
      }
  }

  /** ORACLE_LOG=n prints the first n schedules' steps; ORACLE_STATS tallies what the runs exercised. */
  report(report: ScheduleReport): void {
    if (process.env.ORACLE_LOG !== undefined && report.printed++ < Number(process.env.ORACLE_LOG))
      console.log(this.log.join('\n'));
    const tally = (key: string) => report.tallies.set(key, (report.tallies.get(key) ?? 0) + 1);
    for (const e of this.o.events) {
      const timeout = e.eventType.endsWith('TimedOut')
        ? `:${String(e.attributes.timeoutType)}`
        : '';
      const details = e.attributes.details === undefined ? '' : '+details';
      tally(`${e.eventType}${timeout}${details}`);
    }
    for (const line of this.log) {
      const outcome = /-> (refused|none|ok|started)/.exec(line);
      if (outcome !== null) tally(`${line.split(' ')[3]}:${outcome[1]}`);
    }
  }
}
