/**
 * Keeps the locks of a worker's active jobs alive from a thread of their own. BullMQ renews a
 * job's lock on a timer of the worker's main thread; a handler that holds that thread longer than
 * the lock duration (a grading's CPU steps between GPU calls, a synchronous trace replay) would let
 * the lock lapse, and another worker's stalled-job check would take the job away. This thread
 * renews every held lock each third of the lock duration whatever the main thread does, with
 * BullMQ's own rule (the lock is extended only while it still holds the job's token, and the job
 * leaves the stalled set).
 *
 * The thread is plain JavaScript evaluated from a string, with a small Redis client of its own
 * (RESP over node:net or node:tls), so that it runs alike from sources, bundles and dist/.
 */
import { Worker } from "node:worker_threads";
import type { RedisAddress } from "./redis-url.js";

/** BullMQ's extendLock script: KEYS lock, stalled; ARGV token, duration, job id. */
const EXTEND = `if redis.call("GET", KEYS[1]) == ARGV[1] then redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2]); redis.call("SREM", KEYS[2], ARGV[3]); return 1 end return 0`;

const THREAD = `
const { workerData, parentPort } = require("node:worker_threads");
const { address, queueKey, lockMs, script } = workerData;
const held = new Map();
let socket;
const encode = (args) => "*" + args.length + "\\r\\n" + args.map((a) => { const s = String(a); return "$" + Buffer.byteLength(s) + "\\r\\n" + s + "\\r\\n"; }).join("");
function connect() {
  const options = { host: address.host, port: address.port };
  socket = address.tls ? require("node:tls").connect({ ...options, servername: address.host }) : require("node:net").connect(options);
  socket.on("data", () => {});
  socket.on("error", () => {});
  socket.on("close", () => { socket = undefined; });
  if (address.password !== undefined) socket.write(encode(address.username === undefined ? ["AUTH", address.password] : ["AUTH", address.username, address.password]));
  if (address.db !== 0) socket.write(encode(["SELECT", address.db]));
}
function renew() {
  if (held.size === 0) return;
  if (socket === undefined) connect();
  for (const [jobId, token] of held)
    socket.write(encode(["EVAL", script, 2, queueKey + ":" + jobId + ":lock", queueKey + ":stalled", token, lockMs, jobId]));
}
const timer = setInterval(renew, Math.max(10, Math.floor(lockMs / 3)));
parentPort.on("message", (m) => {
  if (m.type === "hold") held.set(m.jobId, m.token);
  else if (m.type === "release") held.delete(m.jobId);
  else if (m.type === "close") { clearInterval(timer); socket?.end(); parentPort.close(); }
});
`;

export interface LockKeeper {
  /** Keep the lock of `jobId` (held with `token`) alive until `release`. */
  hold(jobId: string, token: string): void;
  release(jobId: string): void;
  close(): Promise<void>;
}

export interface LockKeeperOptions {
  readonly address: RedisAddress;
  /** BullMQ's key of the queue: `<prefix>:<queue name>`. */
  readonly queueKey: string;
  readonly lockDurationMs: number;
}

export function startLockKeeper(opts: LockKeeperOptions): LockKeeper {
  const { host, port, db, tls, username, password } = opts.address;
  const thread = new Worker(THREAD, {
    eval: true,
    workerData: { address: { host, port, db, tls, username, password }, queueKey: opts.queueKey, lockMs: opts.lockDurationMs, script: EXTEND },
  });
  // A thread that cannot run leaves BullMQ's own renewal, as before; it must not stop the worker.
  thread.on("error", () => undefined);
  thread.unref();
  const exited = new Promise<void>((resolve) => thread.once("exit", () => resolve()));
  return {
    hold: (jobId, token) => thread.postMessage({ type: "hold", jobId, token }),
    release: (jobId) => thread.postMessage({ type: "release", jobId }),
    close: async () => {
      thread.postMessage({ type: "close" });
      await exited;
    },
  };
}
