/**
 * The slice of the service model the request validator needs (see swf-model.ts), and the tests'
 * answer oracle (test/support/swf-output-model.ts, from the same generator).
 */
export type ModelShape =
  | {
      readonly type: 'structure';
      readonly required?: readonly string[];
      readonly members: Readonly<Record<string, string>>;
    }
  | { readonly type: 'list'; readonly member: string; readonly min?: number; readonly max?: number }
  | { readonly type: 'map'; readonly key: string; readonly value: string }
  | {
      readonly type: 'string';
      readonly min?: number;
      readonly max?: number;
      readonly enum?: readonly string[];
    }
  | { readonly type: 'integer' | 'long'; readonly min?: number; readonly max?: number }
  | { readonly type: 'boolean' }
  | { readonly type: 'timestamp' };
