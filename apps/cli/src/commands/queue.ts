/**
 * `tessera queue dead-letters --redis URL [--retry ID | --all]`: the operator's view of the job
 * queue's dead letters, and putting them back.
 */
import { type DeadLetter, Dispatcher, PASSWORD_FILE_ENV, QueueConfigError, parseRedisUrl } from "@tessera/queue";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { queueSpec } from "./specs.js";

export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(queueSpec, args);
  if (positionals.length !== 1 || positionals[0] !== "dead-letters") {
    throw new CliError(`usage: tessera queue ${queueSpec.usage} (see 'tessera queue --help')`);
  }
  if (values.redis === undefined) throw new CliError("queue dead-letters needs --redis URL: the job queue's Redis");
  if (values.retry !== undefined && values.all === true) throw new CliError("--retry ID and --all contradict each other: give one");
  if (values["redis-password-file"] !== undefined) process.env[PASSWORD_FILE_ENV] = values["redis-password-file"];
  let dispatcher: Dispatcher;
  try {
    parseRedisUrl(values.redis);
    dispatcher = await Dispatcher.open(values.redis);
  } catch (err) {
    if (err instanceof QueueConfigError) throw new CliError(err.message, 1);
    throw err;
  }
  try {
    if (values.retry !== undefined) {
      await dispatcher.retryDeadLetter(values.retry);
      io.stdout(`retried ${values.retry}: back in the queue\n`);
    } else if (values.all === true) {
      const ids = await dispatcher.retryAllDeadLetters();
      io.stdout(ids.length === 0 ? "no dead letters\n" : `retried ${ids.length}: ${ids.join(", ")}\n`);
    } else {
      io.stdout(formatDeadLetters(await dispatcher.deadLetters()));
    }
    return 0;
  } catch (err) {
    if (err instanceof QueueConfigError) throw new CliError(err.message, 1);
    throw err;
  } finally {
    await dispatcher.close();
  }
}

/** One line per dead letter: id, kind, attempts, when, worker, then the reason. */
export function formatDeadLetters(letters: readonly DeadLetter[]): string {
  if (letters.length === 0) return "no dead letters\n";
  const lines = letters.map(
    (l) => `${l.jobId}\t${l.kind}\t${l.attemptsMade} attempt${l.attemptsMade === 1 ? "" : "s"}\t${l.failedAt}\t${l.worker}\t${l.reason.replace(/\s+/g, " ")}`,
  );
  return `${["job id", "kind", "attempts", "failed at", "worker", "reason"].join("\t")}\n${lines.join("\n")}\n`;
}
