import { useMemo, useRef } from 'preact/hooks';
import { formatDuration, formatTime } from '../format.js';
import type { HistoryModel, Instant, Lane, Outcome, Span } from '../history-model.js';
import { executionHref } from '../routes.js';
import type { ExecutionRef } from '../swf.js';
import { useVirtualizer } from '../virtual.js';

const LANE_HEIGHT = 30;
/** Past this many instants in a lane they are drawn as one path, not an element each. */
const MAX_INSTANT_ELEMENTS = 300;

export const OUTCOME_LABELS: Record<Outcome, string> = {
  completed: 'completed / fired',
  failed: 'failed',
  timedOut: 'timed out',
  canceled: 'canceled',
  terminated: 'terminated',
  startFailed: 'could not start',
  open: 'running',
  abandoned: 'open when the run closed',
};

interface Scale {
  readonly from: number;
  readonly to: number;
  /** Percent of the track's width at a time. */
  x(at: number): number;
}

function scaleOf(model: HistoryModel): Scale | undefined {
  if (model.startedAt === undefined) return undefined;
  const from = model.startedAt;
  const to = Math.max(model.closedAt ?? Math.max(Date.now(), model.lastAt ?? from), from + 1);
  return { from, to, x: (at) => ((at - from) / (to - from)) * 100 };
}

/**
 * A Gantt chart of the run: a lane per activity, timer, child and Lambda task (its retries later
 * bars in the same lane) and one for decision tasks, each bar from scheduled to closed, the wait
 * before the start lighter, coloured by outcome; a tick where a cancel was asked for; signals and
 * markers as instants. A bar links to its first event in the history.
 */
export function Timeline(props: {
  domain: string;
  execution: ExecutionRef;
  model: HistoryModel;
  complete: boolean;
}) {
  const { model } = props;
  const scale = scaleOf(model);
  const lanes = useMemo(() => [...model.lanes].sort(laneOrder), [model.lanes]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: lanes.length,
    estimateSize: () => LANE_HEIGHT,
    getScrollElement: () => scroller.current,
  });
  if (scale === undefined) return <p class="loading">Reading the history…</p>;
  const href = (eventId: number) =>
    executionHref(props.domain, props.execution, 'history', eventId);
  return (
    <section class="timeline" aria-label="Timeline">
      <Legend />
      <Axis scale={scale} />
      {model.instants.length === 0 ? null : (
        <Instants instants={model.instants} scale={scale} href={href} />
      )}
      <div ref={scroller} class="timeline-scroll">
        <ul
          class="timeline-lanes"
          style={{ height: `${virtualizer.getTotalSize()}px` }}
          aria-label="Tasks, timers and children"
        >
          {virtualizer.getVirtualItems().map((item) => {
            const lane = lanes[item.index];
            return lane === undefined ? null : (
              <li
                key={lane.key}
                class="lane"
                style={{ transform: `translateY(${item.start}px)`, height: `${LANE_HEIGHT}px` }}
              >
                <LaneRow lane={lane} scale={scale} href={href} />
              </li>
            );
          })}
        </ul>
      </div>
      {lanes.length === 0 ? (
        <p class="empty">No activities, timers, children, Lambda or decision tasks yet.</p>
      ) : null}
      {props.complete ? null : (
        <p class="muted">The history is still being read: the chart grows as it comes.</p>
      )}
    </section>
  );
}

/** Decision tasks first, then in the order each lane began. */
const laneOrder = (a: Lane, b: Lane) =>
  Number(b.kind === 'decision') - Number(a.kind === 'decision') ||
  (a.spans[0]?.scheduledAt ?? 0) - (b.spans[0]?.scheduledAt ?? 0);

function LaneRow(props: { lane: Lane; scale: Scale; href: (eventId: number) => string }) {
  const { lane } = props;
  const attempts =
    lane.kind === 'decision'
      ? `${lane.spans.length}`
      : lane.spans.length > 1
        ? `${lane.spans.length} attempts`
        : '';
  return (
    <>
      <div class={`lane-label kind-${lane.kind}`} title={lane.label}>
        <span class="lane-name">{lane.label}</span>
        {attempts === '' ? null : <span class="attempts">{attempts}</span>}
      </div>
      <div class="lane-track">
        {lane.spans.map((span) => (
          <Bar
            key={span.firstEventId}
            span={span}
            scale={props.scale}
            href={props.href(span.firstEventId)}
          />
        ))}
      </div>
    </>
  );
}

function Bar(props: { span: Span; scale: Scale; href: string }) {
  const { span, scale } = props;
  const end = span.closedAt ?? scale.to;
  const left = scale.x(span.scheduledAt);
  const width = Math.max(scale.x(end) - left, 0);
  const waited =
    span.startedAt === undefined
      ? 100
      : ((span.startedAt - span.scheduledAt) / Math.max(end - span.scheduledAt, 1)) * 100;
  const cancelAt =
    span.cancelRequestedAt === undefined
      ? undefined
      : ((span.cancelRequestedAt - span.scheduledAt) / Math.max(end - span.scheduledAt, 1)) * 100;
  const describe = `${span.label}${span.attempt > 1 ? `, attempt ${span.attempt}` : ''}: ${span.outcomeText}; scheduled ${formatTime(span.scheduledAt / 1000)}${span.startedAt === undefined ? '' : `, waited ${formatDuration(span.startedAt - span.scheduledAt)}`}, ${span.closedAt === undefined ? 'still open' : `took ${formatDuration(span.closedAt - span.scheduledAt)}`}${span.cancelRequestedAt === undefined ? '' : ', cancel requested'}`;
  return (
    <a
      class={`bar outcome-${span.outcome}`}
      style={{ left: `${left}%`, width: `${width}%` }}
      href={props.href}
      title={describe}
      aria-label={describe}
      data-outcome={span.outcome}
    >
      {span.kind === 'timer' || span.startedAt === undefined ? null : (
        <span class="wait" style={{ width: `${Math.min(waited, 100)}%` }} />
      )}
      {cancelAt === undefined ? null : (
        <span class="cancel-tick" style={{ left: `${Math.min(cancelAt, 100)}%` }} />
      )}
    </a>
  );
}

function Instants(props: {
  instants: readonly Instant[];
  scale: Scale;
  href: (eventId: number) => string;
}) {
  const { instants, scale } = props;
  const signals = instants.filter((i) => i.kind !== 'marker');
  const markers = instants.filter((i) => i.kind === 'marker');
  return (
    <>
      {signals.length === 0 ? null : (
        <InstantLane
          label="Signals, cancel requests"
          instants={signals}
          scale={scale}
          href={props.href}
        />
      )}
      {markers.length === 0 ? null : (
        <InstantLane label="Markers" instants={markers} scale={scale} href={props.href} />
      )}
    </>
  );
}

function InstantLane(props: {
  label: string;
  instants: readonly Instant[];
  scale: Scale;
  href: (eventId: number) => string;
}) {
  const { instants, scale } = props;
  return (
    <div class="lane instants">
      <div class="lane-label" title={props.label}>
        <span class="lane-name">{props.label}</span>
        <span class="attempts">{instants.length.toLocaleString('en-US')}</span>
      </div>
      <div class="lane-track">
        {instants.length > MAX_INSTANT_ELEMENTS ? (
          <svg
            class="instant-density"
            viewBox="0 0 1000 20"
            preserveAspectRatio="none"
            role="img"
            aria-label={`${instants.length} ${props.label.toLowerCase()}`}
          >
            <path d={instants.map((i) => `M${(scale.x(i.at) * 10).toFixed(1)} 3V17`).join('')} />
          </svg>
        ) : (
          instants.map((instant) => (
            <a
              key={instant.eventId}
              class={`instant kind-${instant.kind}`}
              style={{ left: `${scale.x(instant.at)}%` }}
              href={props.href(instant.eventId)}
              title={`${instant.label} at ${formatTime(instant.at / 1000)}`}
            >
              <span class="visually-hidden">{`${instant.label} at ${formatTime(instant.at / 1000)}`}</span>
            </a>
          ))
        )}
      </div>
    </div>
  );
}

function Axis(props: { scale: Scale }) {
  const { from, to } = props.scale;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <div class="axis" aria-hidden="true">
      <div class="lane-label" />
      <div class="lane-track">
        {ticks.map((t) => (
          <span key={t} class="tick" style={{ left: `${t * 100}%` }}>
            {t === 0
              ? formatTime(from / 1000).slice(11, 19)
              : `+${formatDuration((to - from) * t)}`}
          </span>
        ))}
      </div>
    </div>
  );
}

function Legend() {
  const shown: Outcome[] = [
    'completed',
    'failed',
    'timedOut',
    'canceled',
    'terminated',
    'startFailed',
    'open',
    'abandoned',
  ];
  return (
    <ul class="legend" aria-label="Colours">
      {shown.map((outcome) => (
        <li key={outcome}>
          <span class={`swatch outcome-${outcome}`} aria-hidden="true" /> {OUTCOME_LABELS[outcome]}
        </li>
      ))}
      <li>
        <span class="swatch wait-swatch" aria-hidden="true" /> waiting to start
      </li>
      <li>
        <span class="swatch cancel-swatch" aria-hidden="true" /> cancel requested
      </li>
    </ul>
  );
}
