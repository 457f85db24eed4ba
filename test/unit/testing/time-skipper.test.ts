/**
 * When the test environment's time jumps, and when it must not: the skipper over runs driven through
 * the core, a service whose outbox and deadline fires the test controls, and calls it is told of.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fireDue } from '../../../lib/core/deadlines.js';
import type { HttpRequest } from '../../../lib/http/dispatch.js';
import { RunBook } from '../../../lib/testing/run-book.js';
import { isLongPoll, TimeSkipper } from '../../../lib/testing/time-skipper.js';
import { VirtualClock } from '../../../lib/testing/virtual-clock.js';
import {
  completeWorkflow,
  RunDriver,
  runConfig,
  scheduleActivity,
  startChild,
  startTimer,
} from '../../support/core-builders.js';

const DAY_MS = 86_400_000;

let runs = 0;

/** A run started now, of a year at most, with a runId of its own. */
function newRun(): RunDriver {
  const run = new RunDriver({
    startAt: Date.now() / 1000,
    config: { ...runConfig, executionStartToCloseTimeout: String(365 * 86_400) },
  });
  runs++;
  run.state = { ...run.state, execution: { ...run.state.execution, runId: `run-${runs}` } };
  return run;
}

/** A run that waits on a timer of `seconds` (its first decision task answered). */
function waitingOnTimer(seconds: number): RunDriver {
  const run = newRun();
  run.decide([startTimer('t', String(seconds))]);
  return run;
}

/** The outbox's catching up, held until the test lets it finish. */
class FakeService {
  firing = 0;
  moves = 0;
  held: (() => void)[] = [];
  holdOutbox = false;
  /** What the deadline heap does when the clock moves (fires what is due, in a test that says so). */
  onMove: () => void = () => {};
  readonly scheduler = {
    get firing() {
      return service.firing;
    },
    clockMoved: () => {
      service.moves++;
      service.onMove();
    },
  };
  streamCaughtUp(): Promise<void> {
    if (!this.holdOutbox) return Promise.resolve();
    return new Promise((resolve) => this.held.push(resolve));
  }
  releaseOutbox(): void {
    this.holdOutbox = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

let service: FakeService;
let skipper: TimeSkipper | undefined;

function start() {
  const clock = new VirtualClock();
  const runs = new RunBook();
  service = new FakeService();
  skipper = new TimeSkipper(clock, runs);
  skipper.start(service);
  return { clock, skipper };
}

afterEach(async () => {
  service?.releaseOutbox();
  await skipper?.stop();
  skipper = undefined;
});

const call = (action: string): HttpRequest => ({
  method: 'POST',
  headers: { 'x-amz-target': `SimpleWorkflowService.${action}` },
  body: Buffer.from('{}'),
});

/** Resolves once `condition` holds; fails after 2 s. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Gives the skipper several of its looks (it looks again every 100 ms unless told of a change). */
const severalLooks = () => new Promise((resolve) => setTimeout(resolve, 350));

describe('TimeSkipper', () => {
  it('jumps to the earliest deadline once every run waits on deadlines alone', async () => {
    const { clock, skipper } = start();
    const later = waitingOnTimer(30 * 86_400);
    const sooner = waitingOnTimer(7 * 86_400);
    const startMs = clock.now();
    skipper.committed(later.state);
    skipper.committed(sooner.state);
    await until(() => service.moves === 1);
    // At the sooner timer's deadline, to the millisecond (its fire then comes from the heap).
    const due = (sooner.state.timers.t?.fireAt ?? 0) * 1000;
    expect(clock.now()).toBeGreaterThanOrEqual(due);
    expect(clock.now() - due).toBeLessThan(200);
    expect(clock.now() - startMs).toBeGreaterThan(7 * DAY_MS - 1_000);
  });

  it('does not jump while a task is queued or started', async () => {
    const { clock, skipper } = start();
    skipper.committed(waitingOnTimer(86_400).state);
    const busy = newRun();
    skipper.committed(busy.state); // its first decision task is queued
    await severalLooks();
    expect(service.moves).toBe(0);
    busy.startDecisionTask();
    skipper.committed(busy.state);
    await severalLooks();
    expect(service.moves).toBe(0);
    busy.respond([scheduleActivity('a')]);
    skipper.committed(busy.state); // an activity queued
    await severalLooks();
    busy.startActivity('a');
    skipper.committed(busy.state); // and running
    await severalLooks();
    expect(service.moves).toBe(0);
    expect(clock.skippedMs).toBe(0);
    busy.closeActivity('a');
    busy.decide([startTimer('later', String(2 * 86_400))]);
    skipper.committed(busy.state);
    await until(() => service.moves === 1);
  });

  it('does not jump while a call is answered, but a long poll waiting holds nothing up', async () => {
    const { skipper } = start();
    let answer: () => void = () => {};
    const answered = skipper.aroundCall(
      () => new Promise<void>((resolve) => (answer = resolve)),
      call('SignalWorkflowExecution'),
    );
    const poll = skipper.aroundCall(() => new Promise<void>(() => {}), call('PollForActivityTask'));
    skipper.committed(waitingOnTimer(86_400).state);
    await severalLooks();
    expect(service.moves).toBe(0);
    answer();
    await answered;
    await until(() => service.moves === 1);
    void poll;
  });

  it('does not jump while a deadline fire runs', async () => {
    const { skipper } = start();
    service.firing = 1;
    skipper.committed(waitingOnTimer(86_400).state);
    await severalLooks();
    expect(service.moves).toBe(0);
    service.firing = 0;
    await until(() => service.moves === 1);
  });

  it('waits for the outbox, and looks again when a change commits meanwhile', async () => {
    const { clock, skipper } = start();
    service.holdOutbox = true;
    const run = waitingOnTimer(86_400);
    skipper.committed(run.state);
    await until(() => service.held.length > 0);
    // While the outbox catches up, the change it was carrying out schedules a decision task.
    run.signal('wake up');
    skipper.committed(run.state);
    service.releaseOutbox();
    await severalLooks();
    expect(service.moves).toBe(0);
    expect(clock.skippedMs).toBe(0);
  });

  it('does not jump while a parent is yet to hear that its child closed', async () => {
    const { skipper } = start();
    const parent = newRun();
    parent.decide([startTimer('t', '86400'), startChild('kid')]);
    const child = newRun();
    const [initiated, entry] = Object.entries(parent.state.children)[0] ?? [];
    if (initiated === undefined || entry === undefined) throw new Error('no child initiated');
    const started = { ...entry, runId: child.state.execution.runId };
    skipper.committed({ ...parent.state, children: { [initiated]: started } });
    child.decide([completeWorkflow('grown up')]);
    skipper.committed(child.state);
    await severalLooks();
    expect(service.moves).toBe(0);
    // The outbox tells the parent: the child's close recorded, the child is gone from its state.
    skipper.committed({ ...parent.state, children: {}, nextEventId: parent.state.nextEventId + 1 });
    await until(() => service.moves === 1);
  });

  it('does not jump while time is held, and does once it is released', async () => {
    const { skipper } = start();
    const release = skipper.hold();
    skipper.committed(waitingOnTimer(86_400).state);
    await severalLooks();
    expect(service.moves).toBe(0);
    release();
    await until(() => service.moves === 1);
  });

  it('sleeps by hand: each deadline on the way, then the rest of the time', async () => {
    const { clock, skipper } = start();
    const release = skipper.hold();
    const run = waitingOnTimer(3_600);
    skipper.committed(run.state);
    const fired: number[] = [];
    service.onMove = () => {
      const due = fireDue(run.state, clock.now() / 1000, new Map());
      if (!due.changed) return;
      fired.push(clock.now());
      run.state = due.state;
      skipper.committed(run.state);
    };
    const before = clock.now();
    const due = (run.state.timers.t?.fireAt ?? 0) * 1000;
    await skipper.sleep(2 * 3_600_000);
    expect(clock.now() - before).toBeGreaterThanOrEqual(2 * 3_600_000);
    expect(clock.now() - before).toBeLessThan(2 * 3_600_000 + 1_000);
    // Twice: to the timer, which fired at its time, then to the end of the sleep.
    expect(service.moves).toBe(2);
    expect(fired).toHaveLength(1);
    expect((fired[0] ?? 0) - due).toBeGreaterThanOrEqual(0);
    expect((fired[0] ?? 0) - due).toBeLessThan(1_000);
    release();
  });

  it('tells long polls from other calls by their target', () => {
    expect(isLongPoll(call('PollForDecisionTask'))).toBe(true);
    expect(isLongPoll(call('PollForActivityTask'))).toBe(true);
    expect(isLongPoll(call('RespondDecisionTaskCompleted'))).toBe(false);
    expect(
      isLongPoll({
        ...call(''),
        headers: {
          'x-amz-target':
            'com.amazonaws.swf.service.model.SimpleWorkflowService.PollForActivityTask',
        },
      }),
    ).toBe(true);
  });
});
