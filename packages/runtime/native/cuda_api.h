// The few CUDA driver and NVRTC declarations Tessera needs, written out by hand so that the
// addon builds with nothing but a C++ compiler and Node's headers (no CUDA SDK). Both
// libraries are opened at run time with dlopen; see cuda_api.cc.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tessera {

// ---- CUDA driver API (cuda.h) ----
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUevent_st* CUevent;
typedef struct CUstream_st* CUstream;

constexpr CUresult CUDA_SUCCESS = 0;

// CUdevice_attribute values used by deviceInfo().
enum DeviceAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxBlockDimX = 2,
  kMaxBlockDimY = 3,
  kMaxBlockDimZ = 4,
  kMaxGridDimX = 5,
  kMaxGridDimY = 6,
  kMaxGridDimZ = 7,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kMaxRegistersPerBlock = 12,
  kClockRate = 13,
  kMultiprocessorCount = 16,
  kMemoryClockRate = 36,
  kGlobalMemoryBusWidth = 37,
  kL2CacheSize = 38,
  kMaxThreadsPerMultiprocessor = 39,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerMultiprocessor = 81,
  kMaxRegistersPerMultiprocessor = 82,
  kMaxSharedMemoryPerBlockOptin = 97,
};

// CUfunction_attribute values.
enum FunctionAttribute : int {
  kFuncMaxThreadsPerBlock = 0,
  kFuncSharedSizeBytes = 1,
  kFuncConstSizeBytes = 2,
  kFuncLocalSizeBytes = 3,
  kFuncNumRegs = 4,
  kFuncPtxVersion = 5,
  kFuncBinaryVersion = 6,
  kFuncMaxDynamicSharedSizeBytes = 8,
};

struct DriverApi {
  CUresult (*cuInit)(unsigned int);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice);                  // _v2
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemGetInfo)(size_t*, size_t*);                       // _v2
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);                     // _v2
  CUresult (*cuMemFree)(CUdeviceptr);                               // _v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);       // _v2
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);             // _v2
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);       // _v2
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);       // _v2
  CUresult (*cuMemsetD16)(CUdeviceptr, unsigned short, size_t);     // _v2
  CUresult (*cuMemsetD32)(CUdeviceptr, unsigned int, size_t);       // _v2
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncGetAttribute)(int*, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuEventCreate)(CUevent*, unsigned int);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);         // _v2 where present
  CUresult (*cuEventDestroy)(CUevent);                              // _v2
  // CUDA 12 and newer; null where the driver lacks it (tensor maps are then refused by name).
  // Enums as ints: CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle,
  // CUtensorMapL2promotion, CUtensorMapFloatOOBfill; the map is 128 bytes, 64-byte aligned.
  CUresult (*cuTensorMapEncodeTiled)(void* tensorMap, int dataType, unsigned int rank, void* globalAddress,
                                     const unsigned long long* globalDim, const unsigned long long* globalStrides,
                                     const unsigned int* boxDim, const unsigned int* elementStrides, int interleave,
                                     int swizzle, int l2Promotion, int oobFill);
};

// ---- NVRTC (nvrtc.h) ----
typedef int nvrtcResult;
typedef struct _nvrtcProgram* nvrtcProgram;
constexpr nvrtcResult NVRTC_SUCCESS = 0;

struct NvrtcApi {
  const char* (*nvrtcGetErrorString)(nvrtcResult);
  nvrtcResult (*nvrtcVersion)(int*, int*);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                    const char* const*);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t*);
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t*);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*);
};

struct LoadState {
  bool attempted = false;
  bool ok = false;
  std::string reason;   // why not ok
  std::string library;  // which file was opened
};

// Loads libcuda.so.1 and calls cuInit(0) once. Never throws.
const LoadState& loadDriver();
const DriverApi& driver();

// Loads NVRTC (CUDA 13 or 12) once. Never throws.
const LoadState& loadNvrtc();
const NvrtcApi& nvrtc();

// "CUDA_ERROR_ILLEGAL_ADDRESS" (or "CUDA_ERROR_<n>" when the driver cannot name it).
std::string errorName(CUresult r);
std::string errorString(CUresult r);

}  // namespace tessera
