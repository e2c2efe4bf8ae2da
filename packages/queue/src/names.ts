/** The queues: one for the jobs of every kind (a worker takes any kind it has a handler for), one for dead letters. */
export const JOBS_QUEUE = "jobs";
/** Jobs that exhausted their attempts or were rejected as malformed, with the reason: for people to look at. */
export const DEAD_LETTER_QUEUE = "dead-letter";
