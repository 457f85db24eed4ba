import { UnknownResourceFault } from '../core/faults.js';
import type { TaskKind } from '../core/task-queue.js';
import type { SigningKeySource } from '../ports/secrets.js';
import { signToken, verifyToken } from './token-mac.js';

/** What a task token names: one attempt at one task of one run. */
export interface TaskTokenClaims {
  readonly kind: TaskKind;
  readonly runId: string;
  readonly scheduledEventId: number;
  /** The attempt: a token from an earlier start of the same task does not open a later one. */
  readonly startedEventId: number;
}

/**
 * Opaque task tokens: the claims and their HMAC, both base64url, well under SWF's 1,024 characters.
 * A forged or altered token is an UnknownResourceFault, like a stale one (docs/architecture.md, "Task tokens").
 */
export class TaskTokens {
  constructor(private readonly keys: SigningKeySource) {}

  async encode(claims: TaskTokenClaims): Promise<string> {
    const body = [
      claims.kind === 'decision' ? 'D' : 'A',
      claims.runId,
      claims.scheduledEventId,
      claims.startedEventId,
    ].join('.');
    const payload = Buffer.from(body).toString('base64url');
    return `${payload}.${await signToken(this.keys, 'task-token', payload)}`;
  }

  async decode(token: string, kind: TaskKind): Promise<TaskTokenClaims> {
    const [payload, mac, ...rest] = token.split('.');
    if (payload === undefined || mac === undefined || rest.length > 0) throw invalid();
    if (!(await verifyToken(this.keys, 'task-token', payload, mac))) throw invalid();
    const [k, runId, scheduled, started] = Buffer.from(payload, 'base64url')
      .toString('utf8')
      .split('.');
    const claims = {
      kind: k === 'D' ? ('decision' as const) : ('activity' as const),
      runId: runId ?? '',
      scheduledEventId: Number(scheduled),
      startedEventId: Number(started),
    };
    if (claims.kind !== kind) {
      throw new UnknownResourceFault(
        `The task token is for ${claims.kind === 'decision' ? 'a decision' : 'an activity'} task`,
      );
    }
    return claims;
  }
}

const invalid = () =>
  new UnknownResourceFault('Unknown task token: it was altered or not issued by this service');
