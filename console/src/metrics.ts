/** The endpoint's `GET /metrics`, where it has one (the local server); the charts hide without it. */
import { parseExposition, type Sample } from './metrics-model.js';

/** The samples, or undefined when the endpoint has no metrics (404, or not the text format). */
export async function loadMetrics(signal?: AbortSignal): Promise<Sample[] | undefined> {
  const response = await fetch('/metrics', {
    headers: { accept: 'text/plain' },
    ...(signal === undefined ? {} : { signal }),
  });
  const type = response.headers.get('content-type') ?? '';
  // An SWF endpoint without the route answers 404, or a fault in JSON (a GET is no SWF call).
  const exposition = type.startsWith('text/plain') || type.includes('openmetrics');
  if (response.status === 404 || !exposition) return undefined;
  if (!response.ok) throw new Error(`GET /metrics answered HTTP ${response.status}`);
  return parseExposition(await response.text());
}

/** Whether the endpoint has metrics at all. */
export async function metricsAvailable(signal?: AbortSignal): Promise<boolean> {
  try {
    return (await loadMetrics(signal)) !== undefined;
  } catch {
    return false;
  }
}
