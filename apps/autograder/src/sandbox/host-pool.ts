/**
 * The sandbox hosts of one prepared file: a run takes an idle host started for the same limits, or
 * starts one, and gives it back when the host can serve again (host-process.ts says when). Runs
 * that overlap get hosts of their own, so that each still runs alone in its process's time.
 */
import { SandboxHost } from "./host-process.js";
import type { Job } from "./protocol.js";
import type { RunOptions, SandboxLimits, SandboxRun } from "./run.js";

export class HostPool {
  private readonly idle: SandboxHost[] = [];
  private readonly started = new Set<SandboxHost>();
  private closed = false;

  constructor(
    private readonly bundlePath: string,
    private readonly workDir: string,
  ) {}

  async run(jobs: readonly Job[], limits: SandboxLimits, options: RunOptions = {}): Promise<SandboxRun> {
    if (this.closed) throw new Error(`the sandbox of ${this.bundlePath} was disposed of before this run`);
    const at = this.idle.findIndex((h) => h.serves(limits));
    const host = at >= 0 ? this.idle.splice(at, 1)[0]! : await this.start(limits);
    const run = await host.run(jobs, options);
    if (!this.closed && host.serves(limits)) this.idle.push(host);
    else this.started.delete(host);
    return run;
  }

  /** Ends every host (runs still going end with their processes) and waits until they are gone. */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    const hosts = [...this.started];
    this.started.clear();
    await Promise.all(hosts.map((h) => h.close()));
  }

  private async start(limits: SandboxLimits): Promise<SandboxHost> {
    const host = await SandboxHost.start(this.bundlePath, this.workDir, limits);
    this.started.add(host);
    return host;
  }
}
