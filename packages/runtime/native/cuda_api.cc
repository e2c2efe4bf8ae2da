// Run-time loading of libcuda.so.1 and NVRTC with dlopen/dlsym.
#include "cuda_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace tessera {
namespace {

DriverApi g_driver{};
NvrtcApi g_nvrtc{};
LoadState g_driverState;
LoadState g_nvrtcState;
std::once_flag g_driverOnce;
std::once_flag g_nvrtcOnce;

template <typename Fn>
bool bind(void* lib, Fn& slot, const char* name, const char* fallback, std::string& missing) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr && fallback != nullptr) sym = dlsym(lib, fallback);
  if (sym == nullptr) {
    if (!missing.empty()) missing += ", ";
    missing += name;
    return false;
  }
  slot = reinterpret_cast<Fn>(sym);
  return true;
}

void doLoadDriver() {
  LoadState& st = g_driverState;
  st.attempted = true;
  const char* disable = std::getenv("TESSERA_CUDA_DISABLE");
  if (disable != nullptr && disable[0] != '\0' && disable[0] != '0') {
    st.reason = "disabled by TESSERA_CUDA_DISABLE (libcuda.so.1 not loaded)";
    return;
  }
  dlerror();
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    st.reason = std::string("cannot load the CUDA driver library libcuda.so.1 (no NVIDIA driver on this machine?): ") +
                (err != nullptr ? err : "dlopen failed");
    return;
  }
  st.library = "libcuda.so.1";
  std::string missing;
  DriverApi& d = g_driver;
  bind(lib, d.cuInit, "cuInit", nullptr, missing);
  bind(lib, d.cuDriverGetVersion, "cuDriverGetVersion", nullptr, missing);
  bind(lib, d.cuGetErrorName, "cuGetErrorName", nullptr, missing);
  bind(lib, d.cuGetErrorString, "cuGetErrorString", nullptr, missing);
  bind(lib, d.cuDeviceGetCount, "cuDeviceGetCount", nullptr, missing);
  bind(lib, d.cuDeviceGet, "cuDeviceGet", nullptr, missing);
  bind(lib, d.cuDeviceGetName, "cuDeviceGetName", nullptr, missing);
  bind(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute", nullptr, missing);
  bind(lib, d.cuDeviceTotalMem, "cuDeviceTotalMem_v2", nullptr, missing);
  bind(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", nullptr, missing);
  bind(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent", nullptr, missing);
  bind(lib, d.cuCtxSynchronize, "cuCtxSynchronize", nullptr, missing);
  bind(lib, d.cuMemGetInfo, "cuMemGetInfo_v2", nullptr, missing);
  bind(lib, d.cuMemAlloc, "cuMemAlloc_v2", nullptr, missing);
  bind(lib, d.cuMemFree, "cuMemFree_v2", nullptr, missing);
  bind(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2", nullptr, missing);
  bind(lib, d.cuMemcpyDtoH, "cuMemcpyDtoH_v2", nullptr, missing);
  bind(lib, d.cuMemcpyDtoD, "cuMemcpyDtoD_v2", nullptr, missing);
  bind(lib, d.cuMemsetD8, "cuMemsetD8_v2", nullptr, missing);
  bind(lib, d.cuMemsetD16, "cuMemsetD16_v2", nullptr, missing);
  bind(lib, d.cuMemsetD32, "cuMemsetD32_v2", nullptr, missing);
  bind(lib, d.cuModuleLoadData, "cuModuleLoadData", nullptr, missing);
  bind(lib, d.cuModuleUnload, "cuModuleUnload", nullptr, missing);
  bind(lib, d.cuModuleGetFunction, "cuModuleGetFunction", nullptr, missing);
  bind(lib, d.cuFuncGetAttribute, "cuFuncGetAttribute", nullptr, missing);
  bind(lib, d.cuFuncSetAttribute, "cuFuncSetAttribute", nullptr, missing);
  bind(lib, d.cuLaunchKernel, "cuLaunchKernel", nullptr, missing);
  bind(lib, d.cuEventCreate, "cuEventCreate", nullptr, missing);
  bind(lib, d.cuEventRecord, "cuEventRecord", nullptr, missing);
  bind(lib, d.cuEventSynchronize, "cuEventSynchronize", nullptr, missing);
  bind(lib, d.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime", missing);
  bind(lib, d.cuEventDestroy, "cuEventDestroy_v2", nullptr, missing);
  // Optional: from the driver already loaded (no link dependency); null on drivers before CUDA 12.
  d.cuTensorMapEncodeTiled = reinterpret_cast<decltype(d.cuTensorMapEncodeTiled)>(dlsym(lib, "cuTensorMapEncodeTiled"));
  if (!missing.empty()) {
    st.reason = "libcuda.so.1 is too old or incomplete; missing symbols: " + missing;
    return;
  }
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    st.reason = "cuInit(0) failed with " + errorName(r) + " (" + errorString(r) + ")";
    return;
  }
  int count = 0;
  r = d.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    st.reason = "cuDeviceGetCount failed with " + errorName(r);
    return;
  }
  if (count <= 0) {
    st.reason = "libcuda.so.1 loaded, but the driver reports no CUDA devices";
    return;
  }
  st.ok = true;
}

void doLoadNvrtc() {
  LoadState& st = g_nvrtcState;
  st.attempted = true;
  std::vector<std::string> candidates;
  const char* override = std::getenv("TESSERA_NVRTC_LIBRARY");
  if (override != nullptr && override[0] != '\0') candidates.push_back(override);
  for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) candidates.push_back(name);
  for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
    candidates.push_back(std::string("/usr/local/cuda/lib64/") + name);
  std::string errors;
  void* lib = nullptr;
  for (const std::string& c : candidates) {
    dlerror();
    lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      st.library = c;
      break;
    }
    const char* err = dlerror();
    if (!errors.empty()) errors += "; ";
    errors += err != nullptr ? err : c;
  }
  if (lib == nullptr) {
    st.reason = "cannot load NVRTC (tried libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so and /usr/local/cuda/lib64): " + errors;
    return;
  }
  std::string missing;
  NvrtcApi& n = g_nvrtc;
  bind(lib, n.nvrtcGetErrorString, "nvrtcGetErrorString", nullptr, missing);
  bind(lib, n.nvrtcVersion, "nvrtcVersion", nullptr, missing);
  bind(lib, n.nvrtcCreateProgram, "nvrtcCreateProgram", nullptr, missing);
  bind(lib, n.nvrtcDestroyProgram, "nvrtcDestroyProgram", nullptr, missing);
  bind(lib, n.nvrtcCompileProgram, "nvrtcCompileProgram", nullptr, missing);
  bind(lib, n.nvrtcGetPTXSize, "nvrtcGetPTXSize", nullptr, missing);
  bind(lib, n.nvrtcGetPTX, "nvrtcGetPTX", nullptr, missing);
  bind(lib, n.nvrtcGetCUBINSize, "nvrtcGetCUBINSize", nullptr, missing);
  bind(lib, n.nvrtcGetCUBIN, "nvrtcGetCUBIN", nullptr, missing);
  bind(lib, n.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", nullptr, missing);
  bind(lib, n.nvrtcGetProgramLog, "nvrtcGetProgramLog", nullptr, missing);
  if (!missing.empty()) {
    st.reason = st.library + " lacks symbols (NVRTC older than CUDA 11.1?): " + missing;
    return;
  }
  st.ok = true;
}

}  // namespace

const LoadState& loadDriver() {
  std::call_once(g_driverOnce, doLoadDriver);
  return g_driverState;
}
const DriverApi& driver() { return g_driver; }

const LoadState& loadNvrtc() {
  std::call_once(g_nvrtcOnce, doLoadNvrtc);
  return g_nvrtcState;
}
const NvrtcApi& nvrtc() { return g_nvrtc; }

std::string errorName(CUresult r) {
  const char* name = nullptr;
  if (g_driver.cuGetErrorName != nullptr && g_driver.cuGetErrorName(r, &name) == CUDA_SUCCESS && name != nullptr)
    return name;
  return "CUDA_ERROR_" + std::to_string(r);
}

std::string errorString(CUresult r) {
  const char* s = nullptr;
  if (g_driver.cuGetErrorString != nullptr && g_driver.cuGetErrorString(r, &s) == CUDA_SUCCESS && s != nullptr)
    return s;
  return "unknown CUDA error";
}

}  // namespace tessera
