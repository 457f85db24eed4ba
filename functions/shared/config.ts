/**
 * The Lambda functions' settings, read from the environment once per container (at cold start). A
 * missing or malformed value fails the cold start loudly, instead of every request failing later.
 */
export interface FunctionConfig {
  readonly tableName: string;
  readonly region: string;
  /** From `ACCOUNT_ID`; when unset, taken from the invoked function's ARN on the first invocation. */
  readonly accountId: string | undefined;
  /** From `POLL_MAX_WAIT_MS`: how long a long poll may wait, kept under API Gateway's 30 s limit. */
  readonly pollMaxWaitMs: number | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env): FunctionConfig {
  const accountId = optional(env, 'ACCOUNT_ID');
  if (accountId !== undefined && !isAccountId(accountId)) {
    throw new ConfigError(`ACCOUNT_ID must be a 12-digit AWS account id, not "${accountId}"`);
  }
  return {
    tableName: required(env, 'TABLE_NAME'),
    region: required(env, 'AWS_REGION'),
    accountId,
    pollMaxWaitMs: positiveInteger(env, 'POLL_MAX_WAIT_MS'),
  };
}

/** The account id in a Lambda ARN: `arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]`. */
export function accountIdFromArn(arn: string): string {
  const accountId = arn.split(':')[4];
  if (accountId === undefined || !isAccountId(accountId)) {
    throw new ConfigError(`Cannot read an account id from the function ARN "${arn}"`);
  }
  return accountId;
}

const isAccountId = (value: string) => /^\d{12}$/.test(value);

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function required(env: Env, name: string): string {
  const value = optional(env, name);
  if (value === undefined) throw new ConfigError(`${name} is not set`);
  return value;
}

function positiveInteger(env: Env, name: string): number | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) {
    throw new ConfigError(`${name} must be a positive integer, not "${value}"`);
  }
  return parsed;
}
