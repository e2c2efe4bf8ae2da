/**
 * The operating-system layers around the sandbox host, where the platform allows them: its own
 * empty network namespace (`unshare -n`, or `unshare -r -n` without root) and resource limits
 * (`prlimit`: CPU seconds, no core files, no file growth, few open files). Each is probed once per
 * process; a layer the machine refuses (a container without the capability) is left out and named
 * by `confinementLayers()`. The isolate is the boundary; these only narrow what a flaw in it could reach.
 */
import { execFile } from "node:child_process";

export interface Confinement {
  /** Command and arguments to put before `node …`. */
  readonly prefix: readonly string[];
  /** The layers in force, for the docs and the report. */
  readonly layers: readonly string[];
}

/** What the machine allows: the `unshare` flags that give an empty network namespace, and whether `prlimit` works. */
export interface Probed {
  readonly unshare: readonly string[] | undefined;
  readonly prlimit: boolean;
}

let probed: Promise<Probed> | undefined;

function works(command: string, args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(command, [...args, "true"], { timeout: 5000 }, (err) => resolve(err === null));
  });
}

async function probeNow(): Promise<Probed> {
  if (process.platform !== "linux") return { unshare: undefined, prlimit: false };
  const [netOnly, asUser, prlimit] = await Promise.all([works("unshare", ["-n"]), works("unshare", ["-r", "-n"]), works("prlimit", ["--core=0"])]);
  return { unshare: netOnly ? ["-n"] : asUser ? ["-r", "-n"] : undefined, prlimit };
}

/** Probes the machine once per process (the probes run side by side, off the main thread); later calls share the answer. */
export function probeConfinement(): Promise<Probed> {
  probed ??= probeNow();
  return probed;
}

/** The CPU seconds one run of `timeoutMs` may use: room for the isolate's own threads beside the run's wall time. */
export function runCpuSeconds(timeoutMs: number): number {
  return Math.ceil((2 * timeoutMs) / 1000) + 10;
}

/**
 * The prefix for a process that serves runs of `timeoutMs`: its CPU limit is one run's budget
 * plus `reserveCpuSeconds` (a host that serves several runs gets one more budget, and is retired
 * once it has used that much: see host-process.ts).
 */
export async function confinement(timeoutMs: number, reserveCpuSeconds = 0): Promise<Confinement> {
  const found = await probeConfinement();
  const prefix: string[] = [];
  const layers: string[] = [];
  if (found.prlimit) {
    const cpuSeconds = runCpuSeconds(timeoutMs) + reserveCpuSeconds;
    prefix.push("prlimit", `--cpu=${cpuSeconds}`, "--core=0", "--fsize=0", "--nofile=256", "--");
    layers.push(`rlimits (CPU ${cpuSeconds} s, no core files, no file writes, 256 open files)`);
  }
  if (found.unshare !== undefined) {
    prefix.push("unshare", ...found.unshare, "--");
    layers.push("no network (an empty network namespace)");
  }
  return { prefix, layers };
}
