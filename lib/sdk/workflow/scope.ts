/** Something a scope can cancel: an operation, or a scope inside it. */
export interface Cancellable {
  cancel(): void;
}

/**
 * A cancellation scope: cancelling it cancels every operation still open in it and in the scopes it
 * holds; an operation started in a cancelled scope is cancelled at once, before anything is sent.
 */
export class Scope implements Cancellable {
  readonly #members = new Set<Cancellable>();
  #cancelled = false;

  constructor(readonly parent: Scope | undefined) {
    parent?.add(this);
  }

  get isCancelled(): boolean {
    return this.#cancelled;
  }

  add(member: Cancellable): void {
    if (this.#cancelled) member.cancel();
    else this.#members.add(member);
  }

  remove(member: Cancellable): void {
    this.#members.delete(member);
  }

  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    for (const member of [...this.#members]) member.cancel();
    this.#members.clear();
  }

  /** Leaves the parent scope once its code is done, so a long run's scopes do not pile up. */
  close(): void {
    this.parent?.remove(this);
  }
}
