import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Payload } from '../components.js';
import { eventSummary, eventTone, formatDuration, formatTime } from '../format.js';
import { executionHref } from '../routes.js';
import { attributesOf, type ExecutionRef, type HistoryEvent } from '../swf.js';
import { useVirtualizer } from '../virtual.js';

const ROW_HEIGHT = 30;

/** The text an event is found by: its type and attributes (kept, as the filter is typed). */
const searchText = new WeakMap<HistoryEvent, string>();
function textOf(event: HistoryEvent): string {
  let text = searchText.get(event);
  if (text === undefined) {
    text =
      `${event.eventId} ${event.eventType} ${JSON.stringify(attributesOf(event))}`.toLowerCase();
    searchText.set(event, text);
  }
  return text;
}

/**
 * The whole history as a table: virtualized (only the rows in view are drawn), filterable, each row
 * opening to its attributes with payloads pretty-printed. Each row is a button (Enter or Space opens
 * and closes it); ↑ ↓ PgUp PgDn Home End move between rows, and only the current row is in the Tab
 * order. The opened event is in the URL.
 */
export function HistoryTable(props: {
  domain: string;
  execution: ExecutionRef;
  events: readonly HistoryEvent[];
  selected?: number;
}) {
  const [filter, setFilter] = useState('');
  const [opened, setOpened] = useState<ReadonlySet<number>>(
    () => new Set(props.selected === undefined ? [] : [props.selected]),
  );
  const [active, setActiveState] = useState(0);
  // Read by the key handler: keys may come faster than the page is drawn again.
  const activeRef = useRef(0);
  const setActive = (index: number) => {
    activeRef.current = index;
    setActiveState(index);
  };
  const scroller = useRef<HTMLDivElement>(null);
  const shown = useMemo(() => {
    const words = filter.toLowerCase().trim();
    return words === ''
      ? props.events
      : props.events.filter((event) => textOf(event).includes(words));
  }, [props.events, filter]);
  const startedAt = props.events[0]?.eventTimestamp;
  const virtualizer = useVirtualizer({
    count: shown.length,
    estimateSize: () => ROW_HEIGHT,
    getScrollElement: () => scroller.current,
    getItemKey: (index) => shown[index]?.eventId ?? index,
  });
  const goTo = (eventId: number, open = true) => {
    const index = shown.findIndex((event) => event.eventId === eventId);
    if (index === -1) return;
    setActive(index);
    if (open) setOpened((set) => new Set(set).add(eventId));
    virtualizer.scrollToIndex(index, { align: 'start' });
  };
  // A linked event: opened and scrolled to once its page has been read.
  const linked = useRef(props.selected);
  useEffect(() => {
    if (linked.current !== undefined && shown.some((event) => event.eventId === linked.current)) {
      goTo(linked.current);
      linked.current = undefined;
    }
  }, [shown]);
  const toggle = (event: HistoryEvent) => {
    const next = new Set(opened);
    if (next.has(event.eventId)) next.delete(event.eventId);
    else next.add(event.eventId);
    setOpened(next);
    const selected = next.has(event.eventId) ? event.eventId : undefined;
    history.replaceState(
      null,
      '',
      executionHref(props.domain, props.execution, 'history', selected),
    );
  };
  const onKey = (e: KeyboardEvent) => {
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = {
      ArrowDown: 1,
      ArrowUp: -1,
      PageDown: page,
      PageUp: -page,
      Home: -Infinity,
      End: Infinity,
    };
    const move = moves[e.key];
    if (move !== undefined) {
      e.preventDefault();
      const index = Math.max(0, Math.min(shown.length - 1, activeRef.current + move));
      setActive(index);
      virtualizer.scrollToIndex(index);
      // The row's button takes the focus now if it is drawn, else once it is.
      const id = shown[index]?.eventId;
      const button = id === undefined ? null : document.getElementById(`event-${id}`);
      if (button !== null) button.focus({ preventScroll: true });
      else focusActive.current = true;
    }
  };
  const focusActive = useRef(false);
  useEffect(() => {
    if (!focusActive.current) return;
    const id = shown[active]?.eventId;
    const button = id === undefined ? null : document.getElementById(`event-${id}`);
    if (button !== null) {
      button.focus({ preventScroll: true });
      focusActive.current = false;
    }
  });
  return (
    <div class="history-view">
      <div class="list-bar">
        <label class="inline">
          Filter events{' '}
          <input
            type="search"
            value={filter}
            placeholder="type, name, id, text…"
            onInput={(e) => {
              setFilter(e.currentTarget.value);
              setActive(0);
            }}
          />
        </label>
        <span class="muted">
          {shown.length.toLocaleString('en-US')} of {props.events.length.toLocaleString('en-US')}{' '}
          events
        </span>
      </div>
      <div class="history-head" aria-hidden="true">
        <span class="c-id">ID</span>
        <span class="c-time">Time</span>
        <span class="c-elapsed">Elapsed</span>
        <span class="c-type">Event</span>
        <span class="c-summary">Summary</span>
      </div>
      <section ref={scroller} class="history-scroll" aria-label="History events" onKeyDown={onKey}>
        <div class="history-rows" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {virtualizer.getVirtualItems().map((item) => {
            const event = shown[item.index];
            if (event === undefined) return null;
            return (
              <div
                key={event.eventId}
                ref={virtualizer.measureElement}
                data-index={item.index}
                class="history-item"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <EventRow
                  event={event}
                  startedAt={startedAt}
                  open={opened.has(event.eventId)}
                  active={item.index === active}
                  onToggle={() => {
                    setActive(item.index);
                    toggle(event);
                  }}
                  onGoTo={goTo}
                />
              </div>
            );
          })}
        </div>
      </section>
    </div>
  );
}

function EventRow(props: {
  event: HistoryEvent;
  startedAt: number | undefined;
  open: boolean;
  active: boolean;
  onToggle: () => void;
  onGoTo: (eventId: number) => void;
}) {
  const { event } = props;
  const elapsed =
    props.startedAt === undefined
      ? ''
      : `+${formatDuration((event.eventTimestamp - props.startedAt) * 1000)}`;
  return (
    <div class={`history-row${props.active ? ' active' : ''}${props.open ? ' open' : ''}`}>
      <button
        type="button"
        id={`event-${event.eventId}`}
        class="history-line"
        aria-expanded={props.open}
        tabIndex={props.active ? 0 : -1}
        onClick={props.onToggle}
      >
        <span class="c-id">
          <span class="chevron" aria-hidden="true">
            {props.open ? '▾' : '▸'}
          </span>
          {event.eventId}
        </span>
        <span class="c-time">{formatTime(event.eventTimestamp)}</span>
        <span class="c-elapsed">{elapsed}</span>
        <span class={`c-type tone-text-${eventTone(event.eventType)}`}>{event.eventType}</span>
        <span class="c-summary">{eventSummary(event)}</span>
      </button>
      {props.open ? <EventDetails event={event} onGoTo={props.onGoTo} /> : null}
    </div>
  );
}

/** Every attribute: payloads pretty-printed when JSON, references to other events as links. */
function EventDetails(props: { event: HistoryEvent; onGoTo: (eventId: number) => void }) {
  const attributes = Object.entries(attributesOf(props.event));
  return (
    <dl class="event-details">
      {attributes.map(([name, value]) => (
        <div key={name} class="fact">
          <dt>{name}</dt>
          <dd>
            {name.endsWith('EventId') && typeof value === 'number' ? (
              <button type="button" class="link" onClick={() => props.onGoTo(value)}>
                event {value}
              </button>
            ) : typeof value === 'string' && (value.length > 100 || /^\s*[[{]/.test(value)) ? (
              <Payload text={value} label={name} />
            ) : typeof value === 'string' || typeof value === 'number' ? (
              <code>{value}</code>
            ) : (
              <pre class="payload json">{JSON.stringify(value, null, 2)}</pre>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
