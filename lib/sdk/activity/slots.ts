/** A counting semaphore for worker slots; `close()` wakes every waiter with `false`. */
export class Slots {
  #free: number;
  #closed = false;
  readonly #waiters: ((granted: boolean) => void)[] = [];

  constructor(readonly size: number) {
    this.#free = size;
  }

  get free(): number {
    return this.#free;
  }

  /** Resolves `true` with a slot taken, or `false` if the slots were closed first. */
  acquire(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    const next = this.#closed ? undefined : this.#waiters.shift();
    if (next !== undefined) next(true);
    else this.#free = Math.min(this.size, this.#free + 1);
  }

  close(): void {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter(false);
  }
}
