import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { prettyPayload } from './format.js';
import { SwfError } from './swf.js';

/** An error as the endpoint gave it: SWF's fault name and message; never a blank page. */
export function ErrorBox(props: { error: unknown; onRetry?: () => void }) {
  const { error } = props;
  const fault =
    error instanceof SwfError ? error.fault : error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  const where =
    error instanceof SwfError
      ? ` (${error.action}${error.status > 0 ? `, HTTP ${error.status}` : ''})`
      : '';
  return (
    <div class="error" role="alert">
      <strong class="fault">{fault}</strong>
      <span class="message">{message}</span>
      <span class="where">{where}</span>
      {props.onRetry === undefined ? null : (
        <button type="button" class="secondary" onClick={props.onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Loading(props: { what?: string }) {
  return (
    <p class="loading" aria-live="polite">
      Loading{props.what === undefined ? '' : ` ${props.what}`}…
    </p>
  );
}

const STATUS_TONES: Record<string, string> = {
  OPEN: 'info',
  COMPLETED: 'good',
  FAILED: 'bad',
  TIMED_OUT: 'warn',
  CANCELED: 'muted',
  TERMINATED: 'dark',
  CONTINUED_AS_NEW: 'info',
  REGISTERED: 'good',
  DEPRECATED: 'muted',
};

/** An execution's status (OPEN, or its close status) as a badge. */
export function StatusBadge(props: { status: string }) {
  return <span class={`badge tone-${STATUS_TONES[props.status] ?? 'info'}`}>{props.status}</span>;
}

/** Tabs as links (each tab is a URL), marked up as a tab list. */
export function TabLinks(props: {
  label: string;
  tabs: readonly { id: string; label: string; href: string }[];
  current: string;
}) {
  return (
    <nav class="tabs" aria-label={props.label}>
      {props.tabs.map((tab) => (
        <a
          key={tab.id}
          href={tab.href}
          class={tab.id === props.current ? 'tab current' : 'tab'}
          aria-current={tab.id === props.current ? 'page' : undefined}
        >
          {tab.label}
        </a>
      ))}
    </nav>
  );
}

/** A modal dialog (the browser's own: focus kept inside, Escape closes it). */
export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog !== null && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} class="modal" aria-label={props.title} onClose={props.onClose}>
      <h2>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/** A labelled form field. */
export function Field(props: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child each caller passes
    <label class="field">
      <span class="label">{props.label}</span>
      {props.children}
      {props.hint === undefined ? null : <span class="hint">{props.hint}</span>}
    </label>
  );
}

/** A payload (input, result, details): pretty-printed when it is JSON. */
export function Payload(props: { text: string | undefined; label?: string }) {
  if (props.text === undefined || props.text === '') return <span class="none">—</span>;
  const { text, json } = prettyPayload(props.text);
  return (
    <pre class={json ? 'payload json' : 'payload'} title={props.label}>
      {text}
    </pre>
  );
}

/** Definition-list rows, the empty ones left out. */
export function Facts(props: { rows: readonly [string, ComponentChildren][] }) {
  const rows = props.rows.filter(
    ([, value]) => value !== undefined && value !== null && value !== '',
  );
  if (rows.length === 0) return null;
  return (
    <dl class="facts">
      {rows.map(([name, value]) => (
        <div key={name} class="fact">
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
