import { readFileSync } from 'node:fs';
import { PolicyError } from '../core/iam-policy.js';
import { type PolicySet, parseAccessPolicies } from '../core/principals.js';

/**
 * `npm start -- --access-policies FILE`: a JSON object from each access key id to its IAM policy
 * document (or a list of them). Anything wrong (no such file, not JSON, a policy IAM would refuse)
 * is an Error whose message names the file, and the principal and statement at fault.
 */
export function readAccessPolicies(path: string): PolicySet {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new PolicyError(`--access-policies ${path}: cannot read it (${describe(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PolicyError(`--access-policies ${path} is not JSON: ${describe(error)}`);
  }
  return parseAccessPolicies(parsed, `--access-policies ${path}`);
}

const describe = (error: unknown) =>
  error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error);
