/** Where the grader's commands write; injectable so tests can capture the output. */
export interface GradeIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (progress lines are redrawn in place only there). */
  readonly interactive: boolean;
}

export const processIO: GradeIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
};

/** A collecting GradeIO for tests. */
export function memoryIO(): GradeIO & { readonly out: string[]; readonly err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, interactive: false, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t) };
}
