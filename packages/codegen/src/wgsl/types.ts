/**
 * WGSL types of TensorIR dtypes. WGSL has 32-bit integers and floats, bool, and f16 behind
 * `enable f16;`; vectors of 2–4 lanes. Everything else (64-bit, 8/16-bit integers, bfloat16) has
 * no WGSL type and is refused by the caller with the construct that needs it.
 */
import { type DType, elementType, lanesOf } from "@tessera/ir";

const SCALARS: Readonly<Partial<Record<DType, string>>> = {
  int32: "i32",
  uint32: "u32",
  float32: "f32",
  float16: "f16",
  bool: "bool",
};

/** The WGSL type of `dtype`, or undefined when WGSL has none. */
export function wgslTypeOf(dtype: DType): string | undefined {
  const scalar = SCALARS[elementType(dtype)];
  const lanes = lanesOf(dtype);
  if (scalar === undefined) return undefined;
  if (lanes === 1) return scalar;
  return lanes >= 2 && lanes <= 4 ? `vec${lanes}<${scalar}>` : undefined;
}

/** Types a storage buffer or uniform may hold (bool is not host-shareable). */
export function isHostShareable(dtype: DType): boolean {
  return wgslTypeOf(dtype) !== undefined && elementType(dtype) !== "bool";
}

export const SUPPORTED_WGSL_DTYPES = "int32, uint32, float32, float16 (with shader-f16), bool, and vectors of 2–4 lanes of them";

/** WGSL keywords, reserved words and built-in names a generated identifier must avoid. */
export const WGSL_RESERVED: readonly string[] = [
  "alias",
  "array",
  "atomic",
  "bitcast",
  "bool",
  "break",
  "case",
  "const",
  "const_assert",
  "continue",
  "continuing",
  "default",
  "diagnostic",
  "discard",
  "else",
  "enable",
  "f16",
  "f32",
  "false",
  "fn",
  "for",
  "i32",
  "if",
  "let",
  "loop",
  "mat2x2",
  "mat3x3",
  "mat4x4",
  "override",
  "ptr",
  "requires",
  "return",
  "sampler",
  "struct",
  "switch",
  "true",
  "u32",
  "var",
  "vec2",
  "vec3",
  "vec4",
  "while",
  "select",
  "workgroupBarrier",
  "storageBarrier",
  "inverseSqrt",
  "sign",
  "clamp",
  "fma",
  "exp",
  "log",
  "sqrt",
  "tanh",
  "floor",
  "ceil",
  "trunc",
  "round",
  "abs",
  "pow",
  "min",
  "max",
  "scalars",
  "Scalars",
  "blockIdx",
  "threadIdx",
  "main",
  "self",
  "super",
  "type",
  "typedef",
  "unsafe",
  "use",
  "where",
  "with",
  "yield",
  "NULL",
  "module",
  "namespace",
  "package",
  "private",
  "public",
  "static",
  "handle",
  "in",
  "out",
  "inout",
  "layout",
  "async",
  "await",
  "do",
  "enum",
  "export",
  "import",
  "macro",
  "match",
  "mut",
  "new",
  "null",
  "of",
  "readonly",
  "ref",
  "set",
  "sizeof",
  "target",
  "uniform",
  "storage",
  "workgroup",
  "function",
  "read",
  "write",
  "read_write",
  "tessera_bits",
];
