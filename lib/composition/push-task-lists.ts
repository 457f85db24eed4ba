import type { PushTaskList } from '../ports/task-push.js';

/** A setting that is missing or malformed: the process fails as it starts, with this message. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Push task lists as JSON: `[{"kind":"activity"|"decision","domain":…,"taskList":…,"target":…}]`, the
 * target being the function's name or ARN. Unset or empty: none.
 */
export function pushTaskLists(env: Env, name = 'SWF_PUSH_TASK_LISTS'): readonly PushTaskList[] {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`${name} must be JSON: ${reason}`);
  }
  return checkPushTaskLists(parsed, name);
}

const PUSH_TASK_LIST_KEYS = ['kind', 'domain', 'taskList', 'target'] as const;

/**
 * Checks push task lists read from JSON (`label` names them in messages): an array of objects with
 * exactly a kind ('activity' or 'decision') and non-empty domain, taskList and target; one target per
 * list. The CDK stack checks its props with the same rules.
 */
export function checkPushTaskLists(value: unknown, label: string): PushTaskList[] {
  if (!Array.isArray(value)) throw new ConfigError(`${label} must be a JSON array of task lists`);
  const seen = new Set<string>();
  return value.map((item: unknown, i) => {
    const at = `${label}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw new ConfigError(`${at} must be an object with kind, domain, taskList and target`);
    const fields: Record<string, unknown> = { ...item };
    const unknown = Object.keys(fields).find((k) => !PUSH_TASK_LIST_KEYS.some((key) => key === k));
    if (unknown !== undefined) throw new ConfigError(`${at} has an unknown field "${unknown}"`);
    const { kind, domain, taskList, target } = fields;
    if (kind !== 'activity' && kind !== 'decision')
      throw new ConfigError(
        `${at}.kind must be "activity" or "decision", not ${JSON.stringify(kind)}`,
      );
    const list: PushTaskList = {
      kind,
      domain: nonEmpty(domain, `${at}.domain`),
      taskList: nonEmpty(taskList, `${at}.taskList`),
      target: nonEmpty(target, `${at}.target`),
    };
    const key = JSON.stringify([kind, list.domain, list.taskList]);
    if (seen.has(key))
      throw new ConfigError(
        `${at} repeats the ${kind} task list "${list.taskList}" of domain "${list.domain}"`,
      );
    seen.add(key);
    return list;
  });
}

function nonEmpty(value: unknown, at: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new ConfigError(`${at} must be a non-empty string, not ${JSON.stringify(value)}`);
  return value;
}
