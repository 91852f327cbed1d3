/**
 * Constants of the GGUF file format (v2/v3) shared by the writer and the reader.
 * Spec: ggml/docs/gguf.md in the ggml repository; type ids from ggml.h and llama.h.
 */

export const GGUF_MAGIC = 'GGUF';
export const GGUF_DEFAULT_ALIGNMENT = 32;

/** Metadata value types (gguf_type). */
export enum GgufValueType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

/** Byte width of the fixed-size value types. */
export const GGUF_SCALAR_SIZE: Partial<Record<GgufValueType, number>> = {
  [GgufValueType.UINT8]: 1,
  [GgufValueType.INT8]: 1,
  [GgufValueType.UINT16]: 2,
  [GgufValueType.INT16]: 2,
  [GgufValueType.UINT32]: 4,
  [GgufValueType.INT32]: 4,
  [GgufValueType.FLOAT32]: 4,
  [GgufValueType.BOOL]: 1,
  [GgufValueType.UINT64]: 8,
  [GgufValueType.INT64]: 8,
  [GgufValueType.FLOAT64]: 8,
};

/** Tensor element types (ggml_type) the writer produces. */
export enum GgmlType {
  F32 = 0,
  F16 = 1,
  Q8_0 = 8,
}

/**
 * Block layout of every ggml type, for checking that tensor data fits in the file and naming
 * quantizations: [name, values per block, bytes per block]. Unknown ids are reported as `type#N`.
 */
export const GGML_TYPE_LAYOUT: Record<number, readonly [string, number, number]> = {
  0: ['F32', 1, 4],
  1: ['F16', 1, 2],
  2: ['Q4_0', 32, 18],
  3: ['Q4_1', 32, 20],
  6: ['Q5_0', 32, 22],
  7: ['Q5_1', 32, 24],
  8: ['Q8_0', 32, 34],
  9: ['Q8_1', 32, 36],
  10: ['Q2_K', 256, 84],
  11: ['Q3_K', 256, 110],
  12: ['Q4_K', 256, 144],
  13: ['Q5_K', 256, 176],
  14: ['Q6_K', 256, 210],
  15: ['Q8_K', 256, 292],
  16: ['IQ2_XXS', 256, 66],
  17: ['IQ2_XS', 256, 74],
  18: ['IQ3_XXS', 256, 98],
  19: ['IQ1_S', 256, 50],
  20: ['IQ4_NL', 32, 18],
  21: ['IQ3_S', 256, 110],
  22: ['IQ2_S', 256, 82],
  23: ['IQ4_XS', 256, 136],
  24: ['I8', 1, 1],
  25: ['I16', 1, 2],
  26: ['I32', 1, 4],
  27: ['I64', 1, 8],
  28: ['F64', 1, 8],
  29: ['IQ1_M', 256, 56],
  30: ['BF16', 1, 2],
  34: ['TQ1_0', 256, 54],
  35: ['TQ2_0', 256, 66],
  39: ['MXFP4', 32, 17],
};

export function ggmlTypeName(type: number): string {
  return GGML_TYPE_LAYOUT[type]?.[0] ?? `type#${type}`;
}

/** Bytes of a tensor's data, or undefined for a type whose layout we do not know. */
export function ggmlTensorBytes(type: number, elements: number): number | undefined {
  const layout = GGML_TYPE_LAYOUT[type];
  if (!layout) return undefined;
  const [, blockValues, blockBytes] = layout;
  return Math.ceil(elements / blockValues) * blockBytes;
}

/** `general.file_type` (llama_ftype) names, as llama.cpp prints them. */
export const LLAMA_FILE_TYPE_NAMES: Record<number, string> = {
  0: 'ALL_F32',
  1: 'MOSTLY_F16',
  2: 'MOSTLY_Q4_0',
  3: 'MOSTLY_Q4_1',
  7: 'MOSTLY_Q8_0',
  8: 'MOSTLY_Q5_0',
  9: 'MOSTLY_Q5_1',
  10: 'MOSTLY_Q2_K',
  11: 'MOSTLY_Q3_K_S',
  12: 'MOSTLY_Q3_K_M',
  13: 'MOSTLY_Q3_K_L',
  14: 'MOSTLY_Q4_K_S',
  15: 'MOSTLY_Q4_K_M',
  16: 'MOSTLY_Q5_K_S',
  17: 'MOSTLY_Q5_K_M',
  18: 'MOSTLY_Q6_K',
  19: 'MOSTLY_IQ2_XXS',
  20: 'MOSTLY_IQ2_XS',
  21: 'MOSTLY_Q2_K_S',
  22: 'MOSTLY_IQ3_XS',
  23: 'MOSTLY_IQ3_XXS',
  24: 'MOSTLY_IQ1_S',
  25: 'MOSTLY_IQ4_NL',
  26: 'MOSTLY_IQ3_S',
  27: 'MOSTLY_IQ3_M',
  28: 'MOSTLY_IQ2_S',
  29: 'MOSTLY_IQ2_M',
  30: 'MOSTLY_IQ4_XS',
  31: 'MOSTLY_IQ1_M',
  32: 'MOSTLY_BF16',
  36: 'MOSTLY_TQ1_0',
  37: 'MOSTLY_TQ2_0',
  38: 'MOSTLY_MXFP4_MOE',
};

/** llama.cpp's token attribute types (`tokenizer.ggml.token_type`). */
export enum TokenType {
  NORMAL = 1,
  UNKNOWN = 2,
  CONTROL = 3,
  USER_DEFINED = 4,
  UNUSED = 5,
  BYTE = 6,
}
