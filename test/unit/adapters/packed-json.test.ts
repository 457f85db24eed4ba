import { describe, expect, it } from 'vitest';
import {
  packJson,
  unpackAttribute,
  unpackJson,
} from '../../../lib/adapters/dynamodb/packed-json.js';

const state = {
  execution: { workflowId: 'order-1', runId: 'r'.repeat(43) },
  activities: Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [
      `activity-${i}`,
      { activityType: { name: 'Charge', version: '1' }, status: 'scheduled', scheduledEventId: i },
    ]),
  ),
};

describe('packed JSON', () => {
  it('keeps a small document as JSON text', () => {
    const small = { a: 1, b: 'two' };
    expect(packJson(small)).toBe(JSON.stringify(small));
    expect(unpackJson(packJson(small))).toEqual(small);
  });

  it('deflates a larger document to a fraction of its JSON, and reads it back unchanged', () => {
    const packed = packJson(state);
    expect(packed).toBeInstanceOf(Uint8Array);
    expect((packed as Uint8Array).byteLength).toBeLessThan(JSON.stringify(state).length / 4);
    expect(unpackJson(packed)).toEqual(state);
  });

  it('reads stream images: bytes from the Streams API, base64 from a Lambda event, text from old items', () => {
    const bytes = packJson(state) as Uint8Array;
    expect(unpackAttribute({ B: bytes })).toEqual(state);
    expect(unpackAttribute({ B: Buffer.from(bytes).toString('base64') })).toEqual(state);
    expect(unpackAttribute({ S: JSON.stringify(state) })).toEqual(state);
    expect(unpackAttribute(undefined)).toBeUndefined();
    expect(unpackAttribute({})).toBeUndefined();
  });
});
