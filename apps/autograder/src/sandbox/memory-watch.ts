/**
 * Polls a process's resident memory (Linux): beyond a limit it is killed. A backstop for the
 * sandbox host: the isolate's own limit normally stops a run first.
 */
import { readFileSync } from "node:fs";

export interface MemoryWatch {
  stop(): void;
  readonly exceeded: boolean;
}

export function watchMemory(pid: number | undefined, limitKb: number, kill: () => void): MemoryWatch {
  let exceeded = false;
  const timer =
    pid === undefined || process.platform !== "linux"
      ? undefined
      : setInterval(() => {
          const rss = residentKb(pid);
          if (rss !== undefined && rss > limitKb) {
            exceeded = true;
            kill();
          }
        }, 200);
  timer?.unref();
  return {
    stop: () => clearInterval(timer),
    get exceeded() {
      return exceeded;
    },
  };
}

function residentKb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}
