/**
 * Attribute keys of asynchronous copies (TVM's s_tir attrs), produced by software pipelining:
 * `async_scope` marks stores that may complete later; `async_commit_queue_scope(stage)` commits
 * the copies issued inside it as one group of that stage's queue; `async_wait_queue_scope(stage)`
 * around `async_wait_inflight_count(n)` waits until at most `n` groups of the queue are in flight.
 */
export const ASYNC_SCOPE = "async_scope";
export const ASYNC_COMMIT_QUEUE_SCOPE = "async_commit_queue_scope";
export const ASYNC_WAIT_QUEUE_SCOPE = "async_wait_queue_scope";
export const ASYNC_WAIT_INFLIGHT_COUNT = "async_wait_inflight_count";
