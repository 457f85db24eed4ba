/**
 * Ambiguous DynamoDB outcomes, as an intercept of the service's DynamoDB requests:
 *  - 'lost'       : the request fails before DynamoDB applies it (a 500 the client's retries did not
 *                   get past), so the store sees an InternalServerError;
 *  - 'landed-500' : DynamoDB applies it, but the answer never arrives and the client's attempts end
 *                   in a 500: the store sees an error for a write that landed;
 *  - 'landed-retried': DynamoDB applies it, the answer is lost (timeout, reset) and the client's
 *                   standard retry sends the same request again; the store sees the retry's answer
 *                   (ConditionalCheckFailed for a conditional put that the first attempt satisfied).
 *  - 'lost-retried': the first attempt never reaches DynamoDB (it times out on the way) and the
 *                   client's retry is sent; the store sees the retry's answer, as the second try's.
 */
import { toWireItem } from '../../lib/adapters/dynamodb/attribute-values.js';
import { DynamoDbError, type DynamoIntercept } from '../../lib/adapters/dynamodb/doc-client.js';

export type AmbiguousOutcome = 'lost' | 'landed-500' | 'landed-retried' | 'lost-retried';

export interface Rule {
  /** Which requests it may hit. */
  readonly match: (operation: string, input: Record<string, unknown>) => boolean;
  readonly outcome: AmbiguousOutcome;
  /** How many requests it hits before it is used up (Infinity: while armed). */
  remaining: number;
  /** A fraction of the matching requests (1: all). */
  readonly fraction?: number;
  /** Matching requests let through before it starts hitting. */
  skip?: number;
  /**
   * For 'landed-retried' and 'lost-retried': what happens between the first attempt and its retry
   * (another request's write to the same item, say: the retry comes after a timeout and a backoff).
   */
  readonly between?: () => Promise<void>;
}

export interface OutcomeLog {
  operation: string;
  outcome: AmbiguousOutcome;
  key: string;
}

export function ambiguousOutcomes(random: () => number = Math.random) {
  const rules: Rule[] = [];
  const log: OutcomeLog[] = [];
  const intercept: DynamoIntercept = async (operation, input, send) => {
    const rule = rules.find(
      (r) =>
        r.remaining > 0 &&
        r.match(operation, input) &&
        (r.fraction === undefined || random() < r.fraction),
    );
    if (rule === undefined) return send();
    if ((rule.skip ?? 0) > 0) {
      rule.skip = (rule.skip ?? 0) - 1;
      return send();
    }
    rule.remaining--;
    log.push({ operation, outcome: rule.outcome, key: describeKey(input) });
    const error = () =>
      new DynamoDbError('InternalServerError', `outcome: ${rule.outcome}`, 500, {});
    switch (rule.outcome) {
      case 'lost':
        throw error();
      case 'landed-500':
        await send();
        throw error();
      case 'landed-retried':
      case 'lost-retried':
        if (rule.outcome === 'landed-retried') {
          try {
            await send();
          } catch {
            // the first attempt's answer is lost either way
          }
        }
        await rule.between?.();
        // The retry's answer, as the client reports it: its second try.
        try {
          return await send();
        } catch (retried) {
          if (!(retried instanceof DynamoDbError)) throw retried;
          // The same answer (its item, a transaction's cancellation reasons), as the second try's.
          throw new DynamoDbError(
            retried.name,
            retried.message,
            retried.statusCode,
            {
              ...(retried.Item === undefined ? {} : { Item: toWireItem(retried.Item) }),
              ...(retried.CancellationReasons === undefined
                ? {}
                : {
                    CancellationReasons: retried.CancellationReasons.map((reason) => ({
                      ...reason,
                      ...(reason.Item === undefined ? {} : { Item: toWireItem(reason.Item) }),
                    })),
                  }),
            },
            2,
          );
        }
    }
  };
  return {
    intercept,
    log,
    add(rule: Omit<Rule, 'remaining'> & { remaining?: number }): Rule {
      const added = { remaining: 1, ...rule } as Rule;
      rules.push(added);
      return added;
    },
    /**
     * Takes every rule away. A rule armed for a number of requests that met none of them fails the test
     * here: the request it was meant for never came (or no longer matches), so the test checked the
     * plain outcome instead of the ambiguous one.
     */
    clear() {
      const unmet = rules.filter((r) => Number.isFinite(r.remaining) && r.remaining > 0);
      rules.length = 0;
      if (unmet.length > 0)
        throw new Error(
          `outcome: ${unmet.length} rule(s) met no request (${unmet.map((r) => r.outcome).join(', ')})`,
        );
    },
  };
}

function describeKey(input: Record<string, unknown>): string {
  const item = (input.Item ?? input.Key) as Record<string, { S?: string }> | undefined;
  if (item !== undefined) return `${item.pk?.S}/${item.sk?.S}`;
  return Object.keys(input).join(',');
}

/** The key of a single-item request's item ('pk', 'sk'), in DynamoDB JSON. */
export function itemKey(input: Record<string, unknown>): {
  pk?: string | undefined;
  sk?: string | undefined;
} {
  const item = (input.Item ?? input.Key) as Record<string, { S?: string }> | undefined;
  return { pk: item?.pk?.S, sk: item?.sk?.S };
}

export const isStatePut = (operation: string, input: Record<string, unknown>) =>
  operation === 'PutItem' && itemKey(input).sk === 'STATE';

export const isPointerPut = (operation: string, input: Record<string, unknown>) =>
  operation === 'PutItem' && (itemKey(input).pk ?? '').includes('OPEN');
