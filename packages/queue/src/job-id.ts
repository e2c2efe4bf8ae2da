/**
 * Job ids. A dispatcher names each job after its kind and a key of the caller's (a batch run and
 * a submission name): adding a job whose id is already in the queue adds nothing, so one piece
 * of work is one job however often it is dispatched, and BullMQ completes a job once (a worker
 * that lost the job's lock cannot complete it), so its result is recorded once.
 */
export function jobIdFor(kind: string, key: string): string {
  // BullMQ rejects ids with ':' (its key separator) and ids that are integers.
  return `${kind}.${key.replace(/[^A-Za-z0-9._\-/@+=]/g, "_")}`;
}
