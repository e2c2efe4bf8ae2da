/**
 * Whether processes are gone: exited and reaped, not zombies. For the GPU worker checks (with the
 * fake GPU in tests, and on a real GPU in scripts/gpu-fault-check.ts).
 */
import { existsSync, readFileSync } from "node:fs";

/**
 * "running", "zombie" or "gone" (the process table has no entry: it exited and was reaped). Without
 * /proc (macOS) a zombie counts as running: it is still in the table.
 */
export function processState(pid: number): "running" | "zombie" | "gone" {
  if (!existsSync("/proc/self/stat")) {
    try {
      process.kill(pid, 0);
      return "running";
    } catch {
      return "gone";
    }
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return "gone";
  }
  // pid (comm) state ...: comm may hold spaces and parentheses, the state follows the last ")".
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" ? "zombie" : "running";
}

/**
 * Waits until none of `pids` is in the process table, up to `limitMs`; returns the state of each
 * one still there. A killed child is reaped when its exit reaches the event loop, so this yields.
 */
export async function lingering(pids: readonly number[], limitMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const left = pids.map((pid) => ({ pid, state: processState(pid) })).filter((p) => p.state !== "gone");
    if (left.length === 0 || Date.now() > deadline) return left.map((p) => `${p.pid}: ${p.state}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
