/**
 * Worker processes for the queue tests, ready once they print "ready <pid>". Each script starts from
 * a prebuilt bundle of it (scripts/fast-start/prebuilt.mjs, rebuilt when a source changed) rather
 * than through tsx, whose loader transforms the whole source graph again at every start (about
 * 2 CPU s a process); what the tests check is the queue's behaviour, not how the script is loaded.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { prebuiltBundle } from "../../../../scripts/fast-start/prebuilt.mjs";

const PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The bundle of a worker script (its `.mjs`): named after the script's path in the package, so that two scripts never share a cache folder. */
export async function bundleOf(script: string): Promise<string> {
  const name = `test-queue-${relative(PACKAGE_ROOT, script)
    .replace(/\.ts$/, "")
    .replace(/[^A-Za-z0-9]+/g, "-")}`;
  return (await prebuiltBundle({ name, entry: script })).entry;
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string>;
}

export async function spawnWorker(script: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--conditions=@tessera/source", await bundleOf(script), ...args], {
    cwd: PACKAGE_ROOT,
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
