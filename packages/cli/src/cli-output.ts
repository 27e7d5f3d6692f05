/** Where the CLI prints; tests pass a capturing one. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
  /** True when colours may be used (a TTY without NO_COLOR). */
  color: boolean;
  /** True when a progress bar may be drawn. */
  interactive: boolean;
}

/** The process's stdout/stderr; colours off when not a TTY or when NO_COLOR is set. */
export function createOutput(): CliOutput {
  const tty = Boolean(process.stdout.isTTY);
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    color: tty && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb',
    interactive: Boolean(process.stderr.isTTY),
  };
}
