/** Where a command writes its output, and what it knows of the terminal; injectable so tests can capture it. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stdout is a terminal (absent: it is not). */
  readonly stdoutIsTTY?: boolean | undefined;
  /** The terminal's width in columns (absent: not a terminal, help is wrapped to 80). */
  readonly stdoutColumns?: number | undefined;
  /** The environment read for NO_COLOR / FORCE_COLOR / TERM (absent: none of them is set). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

export const processIO: CliIO = {
  stdout: (text) => {
    process.stdout.write(text);
  },
  stderr: (text) => {
    process.stderr.write(text);
  },
  get stdoutIsTTY() {
    return process.stdout.isTTY === true;
  },
  get stdoutColumns() {
    return process.stdout.isTTY === true ? process.stdout.columns : undefined;
  },
  env: process.env,
};
