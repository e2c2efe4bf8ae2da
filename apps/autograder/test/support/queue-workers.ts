/**
 * `tessera-grade worker` processes for the queue tests, started as `pnpm grade worker` starts them:
 * through scripts/fast-start/run.mjs, from a bundle of the sources rebuilt whenever one changed
 * (a start through tsx transforms the whole source graph again: about 2 CPU s a worker).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  output(): string;
  /** The exit code, or the signal that ended it. */
  readonly exited: Promise<number | string>;
}

const LAUNCHER = fileURLToPath(new URL("../../../../scripts/fast-start/run.mjs", import.meta.url));

export async function spawnGradeWorker(args: readonly string[], env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--conditions=@tessera/source", LAUNCHER, "grade", "worker", ...args], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "?")));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      output += d.toString();
      if (/\] ready: /.test(output)) resolve();
    });
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    void exited.then((how) => reject(new Error(`the worker exited (${how}) before it was ready:\n${output}`)));
  });
  return { child, pid: child.pid ?? -1, output: () => output, exited };
}

export function alive(w: WorkerProcess): boolean {
  return w.child.exitCode === null && w.child.signalCode === null;
}
