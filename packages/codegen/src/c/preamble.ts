/** The fixed head of every generated C file: includes, export macro, integer helpers. */

const INT_HELPERS = (suffix: string, t: string): string => `static inline ${t} tessera_floordiv_${suffix}(${t} a, ${t} b) {
  ${t} q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline ${t} tessera_floormod_${suffix}(${t} a, ${t} b) {
  ${t} r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline ${t} tessera_min_${suffix}(${t} a, ${t} b) { return a < b ? a : b; }
static inline ${t} tessera_max_${suffix}(${t} a, ${t} b) { return a > b ? a : b; }`;

const FLOAT_HELPERS = (suffix: string, t: string): string => `static inline ${t} tessera_min_${suffix}(${t} a, ${t} b) { return a < b ? a : b; }
static inline ${t} tessera_max_${suffix}(${t} a, ${t} b) { return a > b ? a : b; }`;

export const C_PREAMBLE = `#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define TESSERA_EXPORT __attribute__((visibility("default")))

// Set when a heap allocation fails; the packed entry point returns it.
static int tessera_failed = 0;

// Large buffers live on the heap, 64-byte aligned (a cache line, the widest SIMD register).
static inline void* tessera_alloc(size_t bytes) {
  void* p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (p == NULL) tessera_failed = 1;
  return p;
}

// A workspace: allocated on the first call, then kept in its slot for the calls that follow.
static inline void* tessera_workspace(void** slot, size_t bytes) {
  if (*slot == NULL) *slot = tessera_alloc(bytes);
  return *slot;
}

// Floor division and modulo (C's / and % truncate toward zero), integer min and max.
${INT_HELPERS("i32", "int32_t")}
${INT_HELPERS("i64", "int64_t")}

// Float min and max as compare-and-select (a NaN operand yields the other one).
${FLOAT_HELPERS("f32", "float")}
${FLOAT_HELPERS("f64", "double")}
`;
