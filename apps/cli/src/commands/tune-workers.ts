/**
 * `tessera tune --gpus 0,1`: one measuring worker per GPU of this machine (`tessera worker --gpu N`
 * processes, started from this very program), on the run's Redis, or on a private redis-server on
 * loopback with a random password when the run names none. The password never goes on a worker's
 * command line: it travels in TESSERA_REDIS_PASSWORD.
 */
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { PASSWORD_ENV, type RedisServer, type WorkerCommand, findRedisServer, startGpuWorkers, startRedisServer } from "@tessera/queue";
import { CliError } from "../errors.js";
import type { CliIO } from "../io.js";

export interface TuneWorkers {
  /** The Redis the tuning run dispatches to (with its password). */
  readonly redisUrl: string;
  stop(): Promise<void>;
}

export interface TuneWorkersOptions {
  readonly gpus: readonly number[];
  /** The run's --redis, or undefined for a private one. */
  readonly redis: string | undefined;
  readonly logDir: string;
  /** How to start `tessera worker` (default: this program again). */
  readonly command?: WorkerCommand;
  readonly io: CliIO;
  /** Called when every worker has died: nothing is left to measure. */
  readonly onAllExited: () => void;
}

export async function startTuneWorkers(opts: TuneWorkersOptions): Promise<TuneWorkers> {
  let server: RedisServer | undefined;
  let redisUrl = opts.redis;
  if (redisUrl === undefined) {
    const binary = findRedisServer();
    if (binary === undefined)
      throw new CliError(
        "--gpus without --redis starts a private redis-server, and there is none here: set TESSERA_REDIS_SERVER or put redis-server on the PATH",
        1,
      );
    server = await startRedisServer(binary, { password: randomBytes(18).toString("base64url") });
    redisUrl = server.url;
  }
  const { url: workerUrl, password } = withoutPassword(redisUrl);
  const base = opts.command ?? thisProgram();
  try {
    const workers = await startGpuWorkers({
      gpus: opts.gpus,
      command: { ...base, args: [...base.args, "worker", "--redis", workerUrl] },
      env: password === undefined ? {} : { [PASSWORD_ENV]: password },
      logDir: opts.logDir,
      onExit: (gpu, how, remaining) => {
        opts.io.stderr(`tessera tune: the worker on GPU ${gpu} stopped (${how}); ${remaining} left (log: ${join(opts.logDir, `worker-gpu${gpu}.log`)})\n`);
        if (remaining === 0) opts.onAllExited();
      },
    });
    return {
      redisUrl,
      stop: async () => {
        await workers.stop();
        await server?.stop();
      },
    };
  } catch (err) {
    await server?.stop();
    throw new CliError(`--gpus: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
}

/** The URL without its password, and the password (decoded). */
function withoutPassword(text: string): { url: string; password: string | undefined } {
  const url = new URL(text);
  if (url.password === "") return { url: text, password: undefined };
  const password = decodeURIComponent(url.password);
  url.password = "";
  return { url: url.toString(), password };
}

/**
 * This CLI started again: the same Node, flags and entry (a bundle, e.g. the device bundle's
 * tessera.mjs); an entry in TypeScript (`pnpm tessera` on the sources) needs tsx's loader, found
 * from the entry's folder.
 */
function thisProgram(): WorkerCommand {
  const entry = process.argv[1];
  if (entry === undefined) throw new CliError("--gpus: cannot tell how this program was started (no entry in process.argv)", 1);
  const loader = /\.[cm]?ts$/.test(entry) && !process.execArgv.some((a) => a.includes("tsx")) ? ["--import", "tsx"] : [];
  return { file: process.execPath, args: [...process.execArgv, ...loader, entry], cwd: dirname(entry) };
}
