/** Ends an exhaustive switch: adding a member to the union makes every unhandled switch a type error. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
