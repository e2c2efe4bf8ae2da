/** Worker processes for the queue tests: spawned with tsx, ready once they print "ready <pid>". */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string>;
}

export async function spawnWorker(script: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@tessera/source", script, ...args], {
    // tsx is the package's dev dependency: resolve it from there.
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "?")));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      output += d.toString();
      if (/^ready \d+$/m.test(output)) resolve();
    });
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    void exited.then((how) => reject(new Error(`worker exited (${how}) before it was ready:\n${output}`)));
  });
  await ready;
  return { child, pid: child.pid ?? -1, output: () => output, exited };
}
