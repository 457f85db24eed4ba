import { describe, expect, it } from 'vitest';
import { childClosed, childStarted } from '../../../lib/core/cross-execution.js';
import { signalExecution, startRun, terminateExecution } from '../../../lib/core/executions.js';
import type { HistoryEvent } from '../../../lib/core/history-event.js';
import { onlyEvent, RunDriver, runConfig, startChild } from '../../support/core-builders.js';

/** Each event's timestamp against the one before it: none may be earlier. */
const backwards = (history: readonly HistoryEvent[]) =>
  history.slice(1).filter((event, i) => event.eventTimestamp < (history[i]?.eventTimestamp ?? 0));

describe('history timestamps', () => {
  it('never go back when a writer read its clock before another writer committed', () => {
    const run = new RunDriver();
    run.signal('first'); // stamped T0 + 1
    const readBefore = run.now - 0.5; // a writer that lost the run to that signal and retried

    const events = run.commit(signalExecution(run.state, { signalName: 'late' }, readBefore));

    expect(events.map((e) => e.eventTimestamp)).toEqual(events.map(() => run.now));
    expect(backwards(run.history)).toEqual([]);
    expect(run.state.latestEventTimestamp).toBe(run.now);
  });

  it('stamp a child close the parent records after later events with the time it records it', () => {
    const parent = new RunDriver();
    const initiated = onlyEvent(
      parent.decide([startChild('kid')]),
      'StartChildWorkflowExecutionInitiated',
    );
    const kid = { workflowId: 'kid', runId: 'kid-run' };
    const started = childStarted(parent.state, initiated.eventId, kid, parent.now + 1);
    if (started === undefined) throw new Error('child not started');
    parent.commit(started);
    const child = startRun(
      {
        domain: parent.state.domain,
        execution: kid,
        workflowType: { name: 'main', version: '1' },
        config: runConfig,
        parent: { execution: parent.state.execution, initiatedEventId: initiated.eventId },
      },
      parent.now,
    );
    const closedAt = parent.now + 1;
    const closed = terminateExecution(child.state, { reason: 'done' }, closedAt).state;
    // Signals reach the parent after the child closed, before its close is recorded there.
    parent.now = closedAt + 0.2;
    parent.commit(signalExecution(parent.state, { signalName: 'racing' }, parent.now));

    const t = childClosed(parent.state, closed, closedAt);
    if (t === undefined) throw new Error('close not recorded');
    parent.commit(t);

    const terminated = onlyEvent(t.events, 'ChildWorkflowExecutionTerminated');
    expect(terminated.eventTimestamp).toBe(closedAt + 0.2);
    expect(backwards(parent.history)).toEqual([]);
  });

  it('keep the clock of a writer that is later than the history', () => {
    const run = new RunDriver();
    const later = run.now + 7;
    const events = run.commit(signalExecution(run.state, { signalName: 's' }, later));
    expect(events[0]?.eventTimestamp).toBe(later);
  });
});
