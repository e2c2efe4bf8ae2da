/**
 * Runs a bundled submission in a child Node process under the permission model: it may read only
 * its private work directory; no writes, child processes, workers or addons; no eval. A time limit
 * and a heap limit stop infinite loops and memory bombs. Messages come back on fd 3 and are
 * validated; stdout/stderr are kept (truncated) as the student's own output, never parsed.
 */
import { execa } from "execa";
import { type ChildMessage, ChildMessageSchema, type Job } from "./protocol.js";

export interface SandboxLimits {
  readonly timeoutMs: number;
  readonly heapMb: number;
}

export const DEFAULT_LIMITS: SandboxLimits = { timeoutMs: 60_000, heapMb: 1024 };

export type SandboxExit =
  | { readonly kind: "finished" }
  | { readonly kind: "timeout"; readonly afterMs: number }
  | { readonly kind: "out-of-memory" }
  | { readonly kind: "crashed"; readonly code: number | undefined; readonly signal: string | undefined }
  /** The process ended with status 0 before saying it was done (e.g. the event loop emptied). */
  | { readonly kind: "ended-early" };

export interface SandboxRun {
  readonly messages: readonly ChildMessage[];
  /** Lines on fd 3 that were not valid messages. */
  readonly invalidMessages: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly exit: SandboxExit;
  readonly millis: number;
}

const OUTPUT_LIMIT = 64 * 1024;

function permissionFlags(workDir: string): string[] {
  const major = Number(process.versions.node.split(".")[0]);
  const flag = major >= 22 ? "--permission" : "--experimental-permission";
  return [flag, `--allow-fs-read=${workDir}/*`];
}

export async function runSandboxed(
  bundlePath: string,
  workDir: string,
  jobs: readonly Job[],
  limits: SandboxLimits = DEFAULT_LIMITS,
): Promise<SandboxRun> {
  const started = performance.now();
  const child = execa(
    process.execPath,
    [
      ...permissionFlags(workDir),
      "--disallow-code-generation-from-strings",
      `--max-old-space-size=${limits.heapMb}`,
      "--enable-source-maps",
      "--no-warnings",
      "--stack-trace-limit=30",
      bundlePath,
      JSON.stringify(jobs),
    ],
    {
      cwd: workDir,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
      timeout: limits.timeoutMs,
      killSignal: "SIGKILL",
      reject: false,
      // Only what Node needs; none of the grader's environment (tokens, paths) leaks in.
      env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" },
      extendEnv: false,
      maxBuffer: { stdout: OUTPUT_LIMIT, stderr: OUTPUT_LIMIT },
      stripFinalNewline: false,
    },
  );
  const messages: ChildMessage[] = [];
  let invalidMessages = 0;
  let pending = "";
  const channel = child.stdio[3];
  channel?.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const parsed = safeParse(line);
      if (parsed === undefined) invalidMessages++;
      else messages.push(parsed);
    }
  });
  const result = await child;
  const stderr = truncate(String(result.stderr ?? ""));
  const done = messages.some((m) => m.type === "done");
  let exit: SandboxExit;
  if (result.timedOut) exit = { kind: "timeout", afterMs: limits.timeoutMs };
  else if (/heap out of memory|Allocation failed|Array buffer allocation failed/i.test(stderr)) exit = { kind: "out-of-memory" };
  else if (done) exit = { kind: "finished" };
  else if (result.exitCode === 0) exit = { kind: "ended-early" };
  else exit = { kind: "crashed", code: result.exitCode, signal: result.signal ?? undefined };
  return {
    messages,
    invalidMessages,
    stdout: truncate(String(result.stdout ?? "")),
    stderr,
    exit,
    millis: Math.round(performance.now() - started),
  };
}

function safeParse(line: string): ChildMessage | undefined {
  try {
    const r = ChildMessageSchema.safeParse(JSON.parse(line));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length <= OUTPUT_LIMIT ? text : `${text.slice(0, OUTPUT_LIMIT)}\n… (output truncated)`;
}
