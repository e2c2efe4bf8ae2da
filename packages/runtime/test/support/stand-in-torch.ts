/**
 * The part of a stand-in `torch` package (Python) that the tests of the benches' torch scripts
 * share: a fake CUDA clock that each matmul advances by STAND_IN_MATMUL_MS, a quarter more from
 * call STAND_IN_THROTTLE_AFTER on (a GPU reaching its power cap), events that read that clock, and
 * the `cuda` / `backends` attributes the scripts set or ask for. The number of matmuls is written to
 * STAND_IN_CALLS at exit. Each test adds the Tensor (and factories) its script calls; a Tensor's
 * `__matmul__` calls `advance_clock()` (`advance_clock(k)` for an op k times as long). Binary-fraction times keep the clock's sums exact in both
 * languages.
 */

/** The module's text: the shared clock, events and stubs, then `tensorApi` (the test's own classes and functions). */
export function standInTorchModule(tensorApi: string): string {
  return `
import atexit, os, struct
__version__ = "stand-in"
float16 = float32 = float64 = int16 = int32 = "dtype"
MATMUL_MS = float(os.environ["STAND_IN_MATMUL_MS"])
THROTTLE_AFTER = int(os.environ["STAND_IN_THROTTLE_AFTER"])
clock = [0.0]
calls = [0]
atexit.register(lambda: open(os.environ["STAND_IN_CALLS"], "w").write(str(calls[0])))
def advance_clock(factor=1.0):
    clock[0] += factor * MATMUL_MS * (1.25 if calls[0] >= THROTTLE_AFTER else 1)
    calls[0] += 1
class version:
    cuda = "stand-in"
class Event:
    def __init__(self, enable_timing=False): self.t = 0.0
    def record(self): self.t = clock[0]
    def elapsed_time(self, end): return end.t - self.t
class cuda:
    Event = Event
    @staticmethod
    def synchronize(): pass
    @staticmethod
    def get_device_name(i): return "stand-in"
class backends:
    class cuda:
        class matmul:
            allow_tf32 = False
    class cudnn:
        allow_tf32 = False
        benchmark = False
${tensorApi}`;
}

/** The environment that sets the stand-in's clock: `ms` a matmul, slower from call `throttleAfter` on; calls counted into `callsFile`. */
export function standInTorchEnv(ms: number, throttleAfter: number, callsFile: string): Record<string, string> {
  return { STAND_IN_MATMUL_MS: String(ms), STAND_IN_THROTTLE_AFTER: String(throttleAfter), STAND_IN_CALLS: callsFile };
}
