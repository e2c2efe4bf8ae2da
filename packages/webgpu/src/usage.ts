/**
 * The WebGPU API's flag values (GPUBufferUsage, GPUMapMode, GPUShaderStage), as the specification
 * fixes them: written out so that the runtime needs no globals (Node's Dawn keeps them in an object).
 */
export const BufferUsage = {
  MAP_READ: 0x0001,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  QUERY_RESOLVE: 0x0200,
} as const;

export const MapMode = { READ: 0x0001 } as const;
