export interface DeadLetter {
  readonly id: string;
  readonly record: string;
  readonly error: string;
  /** Epoch milliseconds. */
  readonly at: number;
}

/** Stream records the outbox gave up on, kept with their errors for inspection. */
export interface DeadLetterStore {
  putDeadLetter(id: string, record: string, error: string): Promise<void>;
  listDeadLetters(): Promise<DeadLetter[]>;
}
