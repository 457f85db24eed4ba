import { isHttpUrl } from '../adapters/in-process/local-task-push.js';

/**
 * `npm start`'s Lambda functions for ScheduleLambdaFunction tasks, from SWF_LAMBDA_FUNCTIONS: a JSON
 * object from each function's name (as decisions name it) to the http:// URL its input is POSTed to.
 * Unset or empty: none, and ScheduleLambdaFunction fails with LAMBDA_SERVICE_NOT_AVAILABLE_IN_REGION.
 */
export function localLambdaFunctions(
  value: string | undefined,
  name = 'SWF_LAMBDA_FUNCTIONS',
): [functionName: string, url: string][] {
  if (value === undefined || value.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new Error(`${name} must be JSON: ${error instanceof Error ? error.message : error}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${name} must be a JSON object from function names to http:// URLs`);
  return Object.entries(parsed).map(([fn, url]) => {
    if (fn.trim() === '') throw new Error(`${name} names a function with an empty name`);
    if (typeof url !== 'string' || !isHttpUrl(url))
      throw new Error(`${name}["${fn}"] must be the http:// URL its input is POSTed to`);
    return [fn, url];
  });
}
