/** A problem with how the queue was asked to run (a bad Redis URL, an unreachable server): the user's to fix. */
export class QueueConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QueueConfigError";
  }
}

/** A job that ended without a result: every attempt failed, or it was rejected as malformed. */
export class JobFailedError extends Error {
  constructor(
    readonly jobId: string,
    readonly kind: string,
    readonly reason: string,
  ) {
    super(`job ${jobId} (${kind}) failed: ${reason}`);
    this.name = "JobFailedError";
  }
}

/**
 * Thrown by a handler for a job that no attempt could do (a payload for another version of the
 * grader, an unknown assignment): the job fails at once, without retries, into the dead-letter queue.
 */
export class JobRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JobRejectedError";
  }
}
