/**
 * Replays a workflow's code over a decision task's history, one step per decision task it holds, and
 * collects the decisions of the step being decided. Each step gets the events its decider saw, then
 * the code runs until it waits on nothing but operations (its microtasks drained); while replaying,
 * every decision it asks for is matched with the event that recorded it. Nothing is kept between
 * decision tasks: any process can decide any task.
 */
import type { Decision, HistoryEvent, WorkflowExecution, WorkflowType } from '@aws-sdk/client-swf';
import { recordMarker } from '../decider/decisions.js';
import type { Logger } from '../logger.js';
import { closeDecision, closeRefusal, failure, invalidInput, type Settled } from './close.js';
import { decodePayload } from './codec.js';
import {
  describeDecision,
  describeEvent,
  isPatchMarker,
  isRecordOf,
  PATCH_MARKER,
} from './commands.js';
import { WorkflowContext } from './context.js';
import type { WorkflowDefinition } from './definitions.js';
import { NonDeterminismError } from './errors.js';
import { type Activation, activationsOf, subjectOf } from './history.js';
import { SeededRandom } from './random.js';
import type { Deliverable, IdKind, RunApi, WorkflowInfo } from './run-api.js';
import { Scope } from './scope.js';
import { SignalBox } from './signals.js';

/** A decision task to replay: its events (every page) and, if known, who it is for. */
export interface ReplayTask {
  readonly events: readonly HistoryEvent[];
  /** The task's DecisionTaskStarted (default: the last one in `events`). */
  readonly startedEventId?: number | undefined;
  readonly workflowExecution?: WorkflowExecution | undefined;
  readonly workflowType?: WorkflowType | undefined;
}

export type ReplayOutcome =
  | { readonly kind: 'decided'; readonly decisions: Decision[]; readonly steps: number }
  | {
      readonly kind: 'nonDeterminism';
      readonly error: NonDeterminismError;
      readonly steps: number;
    };

/** Replays `task` with `definition`'s code: the decisions to answer, or why there are none. */
export function replayWorkflow(
  definition: WorkflowDefinition,
  task: ReplayTask,
  logger: Logger,
): Promise<ReplayOutcome> {
  return new Replay(definition, task, logger).run();
}

/** Lets every microtask run: all the code that can go on without a new event. */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

class Replay implements RunApi {
  readonly codec;
  readonly signals = new SignalBox();
  #info: WorkflowInfo;
  readonly #root = new Scope(undefined);
  readonly #subjects = new Map<number, Deliverable>();
  readonly #ids: Record<IdKind, number> = { activity: 0, timer: 0, child: 0, lambda: 0 };
  readonly #patches = new Map<string, boolean>();
  readonly #decisions: Decision[] = [];
  readonly #cancelListeners: (() => void)[] = [];
  readonly #random: SeededRandom;
  #step: Activation | undefined;
  #replaying = false;
  #cursor = 0;
  #error: NonDeterminismError | undefined;
  #finished = false;
  #cancelRequested = false;
  #settled: Settled | undefined;
  #close: Decision | undefined;
  #closed = false;

  constructor(
    private readonly definition: WorkflowDefinition,
    private readonly task: ReplayTask,
    readonly logger: Logger,
  ) {
    this.codec = definition.codec;
    const workflowExecution = task.workflowExecution ?? { workflowId: '', runId: '' };
    this.#info = {
      workflowExecution,
      workflowType: task.workflowType ?? { name: definition.name, version: definition.version },
      taskList: undefined,
      tagList: [],
      parentWorkflowExecution: undefined,
      continuedExecutionRunId: undefined,
      lambdaRole: undefined,
    };
    this.#random = new SeededRandom(`${workflowExecution.workflowId}/${workflowExecution.runId}`);
  }

  async run(): Promise<ReplayOutcome> {
    const { events } = this.task;
    const steps = activationsOf(events, this.task.startedEventId ?? lastStarted(events));
    let next = 0;
    try {
      for (const step of steps) {
        this.#step = step;
        this.#replaying = step.completedEventId !== undefined;
        this.#cursor = 0;
        for (let e = events[next]; e !== undefined && (e.eventId ?? 0) <= step.startedEventId; ) {
          this.#deliver(e);
          e = events[++next];
        }
        await drain();
        this.#emitClose();
        this.#checkAllMatched();
        if (this.#error !== undefined)
          return { kind: 'nonDeterminism', error: this.#error, steps: steps.length };
      }
      return { kind: 'decided', decisions: this.#decisions, steps: steps.length };
    } finally {
      this.#finished = true;
    }
  }

  get info(): WorkflowInfo {
    return this.#info;
  }

  get isReplaying(): boolean {
    return this.#replaying;
  }

  get cancelRequested(): boolean {
    return this.#cancelRequested;
  }

  assertRunning(): void {
    if (this.#finished)
      throw new Error(
        'the workflow context was used after its decision task was decided: workflow code must await only its context operations (no timers, I/O or other promises of the host)',
      );
  }

  now(): Date {
    return this.#step?.time ?? new Date(0);
  }

  random(): number {
    return this.#random.next();
  }

  uuid(): string {
    return this.#random.uuid();
  }

  nextId(kind: IdKind): number {
    this.#ids[kind] += 1;
    return this.#ids[kind];
  }

  onCancelRequested(listener: () => void): void {
    this.#cancelListeners.push(listener);
  }

  emit(decision: Decision, op?: Deliverable): HistoryEvent | undefined {
    this.assertRunning();
    if (this.#error !== undefined) return undefined;
    if (!this.isReplaying) {
      this.#decisions.push(decision);
      return undefined;
    }
    const recorded = this.#step?.recorded ?? [];
    while (this.#isSkippable(recorded[this.#cursor], decision)) this.#cursor++;
    const event = recorded[this.#cursor];
    if (event !== undefined && isRecordOf(decision, event)) {
      this.#cursor++;
      if (op !== undefined) this.#subjects.set(event.eventId ?? 0, op);
      return event;
    }
    this.#error = this.#mismatch(event, describeDecision(decision));
    return undefined;
  }

  peekRecorded(): HistoryEvent | undefined {
    if (!this.isReplaying) return undefined;
    const recorded = this.#step?.recorded ?? [];
    let at = this.#cursor;
    while (recorded[at] !== undefined && isPatchMarker(recorded[at] as HistoryEvent)) at++;
    return recorded[at];
  }

  /**
   * Live, a patch is applied (and recorded). Replaying, it is applied if its marker was recorded at
   * this step (among the patch markers next in line); else the run began on code without it.
   */
  patched(patchId: string): boolean {
    const known = this.#patches.get(patchId);
    if (known !== undefined) return known;
    const applied = !this.isReplaying || this.#patchRecordedHere(patchId);
    this.#patches.set(patchId, applied);
    if (applied) this.emit(recordMarker(PATCH_MARKER, patchId));
    return applied;
  }

  #patchRecordedHere(patchId: string): boolean {
    const recorded = this.#step?.recorded ?? [];
    for (let at = this.#cursor; at < recorded.length; at++) {
      const event = recorded[at] as HistoryEvent;
      if (!isPatchMarker(event)) return false;
      if (event.markerRecordedEventAttributes?.details === patchId) return true;
    }
    return false;
  }

  /** A patch marker the code no longer asks for (its patch call was removed) is passed over. */
  #isSkippable(event: HistoryEvent | undefined, decision: Decision): boolean {
    return event !== undefined && isPatchMarker(event) && !isRecordOf(decision, event);
  }

  #mismatch(event: HistoryEvent | undefined, actual: string): NonDeterminismError {
    const answer = this.#step?.completedEventId ?? 0;
    if (event !== undefined)
      return new NonDeterminismError(event.eventId ?? 0, describeEvent(event), actual);
    return new NonDeterminismError(
      answer,
      `no further decision in the answer recorded by event ${answer} (DecisionTaskCompleted)`,
      actual,
    );
  }

  /** Replaying, every decision the step's answer recorded must have been asked for again. */
  #checkAllMatched(): void {
    if (this.#error !== undefined || !this.isReplaying) return;
    const recorded = this.#step?.recorded ?? [];
    while (
      recorded[this.#cursor] !== undefined &&
      isPatchMarker(recorded[this.#cursor] as HistoryEvent)
    )
      this.#cursor++;
    const left = recorded[this.#cursor];
    if (left !== undefined)
      this.#error = new NonDeterminismError(
        left.eventId ?? 0,
        describeEvent(left),
        'nothing there (the code no longer asks for it at that step)',
      );
  }

  #deliver(event: HistoryEvent): void {
    switch (event.eventType) {
      case 'WorkflowExecutionStarted':
        this.#start(event);
        return;
      case 'WorkflowExecutionSignaled': {
        const a = event.workflowExecutionSignaledEventAttributes;
        this.signals.receive({
          eventId: event.eventId ?? 0,
          name: a?.signalName ?? '',
          input: a?.input,
          sender: a?.externalWorkflowExecution,
        });
        return;
      }
      case 'WorkflowExecutionCancelRequested':
        this.#cancelRequested = true;
        for (const listener of this.#cancelListeners.splice(0)) listener();
        return;
      default: {
        const subject = subjectOf(event);
        if (subject !== undefined) this.#subjects.get(subject)?.deliver(event);
      }
    }
  }

  /** Runs the workflow's function (from the next microtask on), or closes at once on bad input. */
  #start(event: HistoryEvent): void {
    const a = event.workflowExecutionStartedEventAttributes;
    this.#info = {
      ...this.#info,
      taskList: a?.taskList,
      tagList: a?.tagList ?? [],
      parentWorkflowExecution: a?.parentWorkflowExecution,
      continuedExecutionRunId: a?.continuedExecutionRunId,
      lambdaRole: a?.lambdaRole,
    };
    let input: unknown;
    try {
      input = decodePayload(this.codec, a?.input, "the workflow's input");
    } catch (error) {
      this.#close = invalidInput(error, a?.input);
      return;
    }
    const ctx = new WorkflowContext(this, this.#root);
    void Promise.resolve()
      .then(() => this.definition.run(ctx, input))
      .then(
        (value) => this.#onSettled({ ok: true, value }),
        (error: unknown) => this.#onSettled({ ok: false, error }),
      );
  }

  #onSettled(settled: Settled): void {
    if (this.#settled !== undefined || this.#finished) return;
    this.#settled = settled;
    this.#close = closeDecision(settled, this.codec);
  }

  /**
   * Once the function has settled, its close decision ends each step until SWF executes it: a close
   * refused because events came meanwhile (UNHANDLED_DECISION) is sent again with the next step.
   */
  #emitClose(): void {
    const close = this.#close;
    if (close === undefined || this.#closed || this.#error !== undefined) return;
    const event = this.emit(close);
    if (event === undefined) return;
    const refusal = closeRefusal(event);
    if (refusal === undefined) this.#closed = true;
    else if (
      event.eventType === 'ContinueAsNewWorkflowExecutionFailed' &&
      refusal !== 'UNHANDLED_DECISION'
    )
      this.#close = failure(`ContinueAsNewWorkflowExecution failed: ${refusal}`, undefined);
  }
}

function lastStarted(events: readonly HistoryEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--)
    if (events[i]?.eventType === 'DecisionTaskStarted') return events[i]?.eventId ?? 0;
  return 0;
}
