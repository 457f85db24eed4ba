/**
 * How values cross SWF's text fields (inputs, results, details, signals, markers): `encode` turns a
 * value into the text SWF carries, `decode` turns it back. Both are pure and deterministic.
 */
export interface Codec {
  encode(value: unknown): string | undefined;
  decode(text: string | undefined): unknown;
}

/** JSON both ways; no text is `undefined`. The default codec of workflows and activities. */
export const jsonCodec: Codec = {
  encode: (value) => (value === undefined ? undefined : JSON.stringify(value)),
  decode: (text) => (text === undefined ? undefined : JSON.parse(text)),
};

/**
 * Text as it is, for activities and workflows that exchange plain strings (those written for the
 * state-function deciders, whose results are not JSON). A non-string value is sent as JSON.
 */
export const textCodec: Codec = {
  encode: (value) =>
    value === undefined || typeof value === 'string' ? value : JSON.stringify(value),
  decode: (text) => text,
};

/** The most characters SWF takes in an input, result, details or control field. */
export const PAYLOAD_MAX = 32_768;

/** A value that could not be encoded or decoded: what it was, and why. */
export class PayloadError extends Error {
  override readonly name = 'PayloadError';
  constructor(
    readonly what: string,
    message: string,
  ) {
    const text = `${what} ${message}`;
    super(`${text.charAt(0).toUpperCase()}${text.slice(1)}`);
  }
}

/** `value` encoded for `what`, checked against SWF's limit; a PayloadError when it cannot be. */
export function encodePayload(codec: Codec, value: unknown, what: string): string | undefined {
  let text: string | undefined;
  try {
    text = codec.encode(value);
  } catch (error) {
    throw new PayloadError(what, `cannot be encoded: ${messageOf(error)}`);
  }
  if (text !== undefined && text.length > PAYLOAD_MAX)
    throw new PayloadError(
      what,
      `is ${text.length} characters encoded; SWF takes at most ${PAYLOAD_MAX}`,
    );
  return text;
}

/** `text` decoded for `what`; a PayloadError when the codec refuses it. */
export function decodePayload(codec: Codec, text: string | undefined, what: string): unknown {
  try {
    return codec.decode(text);
  } catch (error) {
    throw new PayloadError(what, `cannot be decoded: ${messageOf(error)}`);
  }
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    return Object.prototype.toString.call(error);
  }
}
