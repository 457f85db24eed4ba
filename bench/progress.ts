/** One progress line on stderr, rewritten in place on a terminal, printed every few seconds otherwise. */
export class Progress {
  private last = 0;
  private readonly tty = process.stderr.isTTY === true;
  private readonly started = Date.now();

  constructor(private readonly scenario: string) {
    process.stderr.write(`▶ ${scenario}\n`);
  }

  update(done: number, total: number, note = ''): void {
    const now = Date.now();
    if (!this.tty && now - this.last < 5_000 && done < total) return;
    this.last = now;
    const line = `  ${this.scenario}: ${done}/${total} ${note} (${((now - this.started) / 1000).toFixed(0)} s)`;
    process.stderr.write(this.tty ? `\r\x1b[2K${line}` : `${line}\n`);
  }

  note(text: string): void {
    process.stderr.write(this.tty ? `\r\x1b[2K  ${text}\n` : `  ${text}\n`);
  }

  done(summary: string): void {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    process.stderr.write(
      `${this.tty ? '\r\x1b[2K' : ''}✔ ${this.scenario} in ${seconds} s: ${summary}\n`,
    );
  }
}
