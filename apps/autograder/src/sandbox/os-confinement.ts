/**
 * The operating-system layers around the sandbox host, where the platform allows them: its own
 * empty network namespace (`unshare -n`, or `unshare -r -n` without root) and resource limits
 * (`prlimit`: CPU seconds, no core files, no file growth, few open files). Each is probed once per
 * process; a layer the machine refuses (a container without the capability) is left out and named
 * by `confinementLayers()`. The isolate is the boundary; these only narrow what a flaw in it could reach.
 */
import { execFileSync } from "node:child_process";

export interface Confinement {
  /** Command and arguments to put before `node …`. */
  readonly prefix: readonly string[];
  /** The layers in force, for the docs and the report. */
  readonly layers: readonly string[];
}

let probed: { readonly unshare: readonly string[] | undefined; readonly prlimit: boolean } | undefined;

function works(command: string, args: readonly string[]): boolean {
  try {
    execFileSync(command, [...args, "true"], { stdio: "ignore", timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

function probe(): NonNullable<typeof probed> {
  if (probed === undefined) {
    const linux = process.platform === "linux";
    const unshare = !linux ? undefined : works("unshare", ["-n"]) ? ["-n"] : works("unshare", ["-r", "-n"]) ? ["-r", "-n"] : undefined;
    probed = { unshare, prlimit: linux && works("prlimit", ["--core=0"]) };
  }
  return probed;
}

/** The prefix for one run of `timeoutMs`. The CPU limit leaves room for the isolate's own threads. */
export function confinement(timeoutMs: number): Confinement {
  const found = probe();
  const prefix: string[] = [];
  const layers: string[] = [];
  if (found.prlimit) {
    const cpuSeconds = Math.ceil((2 * timeoutMs) / 1000) + 10;
    prefix.push("prlimit", `--cpu=${cpuSeconds}`, "--core=0", "--fsize=0", "--nofile=256", "--");
    layers.push(`rlimits (CPU ${cpuSeconds} s, no core files, no file writes, 256 open files)`);
  }
  if (found.unshare !== undefined) {
    prefix.push("unshare", ...found.unshare, "--");
    layers.push("no network (an empty network namespace)");
  }
  return { prefix, layers };
}
