// @tessera/runtime native addon: a thin, checked layer over the CUDA driver API and NVRTC,
// both opened with dlopen at run time (cuda_api.cc). Every CUDA call is checked; failures
// throw a JS Error carrying `code` (cuGetErrorName), `cudaCall` and `kernel`.
#include <napi.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "host_lib.h"

namespace tessera {
namespace {

struct AddonData {
  Napi::FunctionReference functionCtor;
};

std::vector<CUcontext> g_contexts;
std::string g_lastKernel;  // most recently launched kernel, named in asynchronous errors
int g_liveBuffers = 0;
double g_liveBytes = 0;

[[noreturn]] void throwPlain(Napi::Env env, const std::string& message, const char* code) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, code));
  throw e;
}

// Throws a CudaError-shaped JS error for a failed driver call. `afterLaunch` marks calls that
// report errors of earlier asynchronous work (synchronize, copies back, event waits).
[[noreturn]] void throwCuda(Napi::Env env, CUresult r, const char* call, const std::string& kernel,
                            bool afterLaunch) {
  std::string name = errorName(r);
  std::string message = name + " (" + errorString(r) + ") in " + call;
  std::string k = kernel;
  if (k.empty() && afterLaunch) k = g_lastKernel;
  if (!k.empty()) message += (afterLaunch && kernel.empty() ? " after launching kernel '" : " for kernel '") + k + "'";
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, name));
  e.Set("cudaCall", Napi::String::New(env, call));
  e.Set("result", Napi::Number::New(env, r));
  if (!k.empty()) e.Set("kernel", Napi::String::New(env, k));
  throw e;
}

inline void check(Napi::Env env, CUresult r, const char* call, const std::string& kernel = std::string(),
                  bool afterLaunch = false) {
  if (r != CUDA_SUCCESS) throwCuda(env, r, call, kernel, afterLaunch);
}

void requireDriver(Napi::Env env) {
  const LoadState& st = loadDriver();
  if (!st.ok) throwPlain(env, "CUDA is unavailable: " + st.reason, "CUDA_UNAVAILABLE");
}

// Makes the primary context of `ordinal` current on this (the main) thread.
void useDevice(Napi::Env env, int ordinal) {
  requireDriver(env);
  const DriverApi& d = driver();
  if (g_contexts.empty()) {
    int count = 0;
    check(env, d.cuDeviceGetCount(&count), "cuDeviceGetCount");
    g_contexts.assign(static_cast<size_t>(count), nullptr);
  }
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= g_contexts.size())
    throwPlain(env, "invalid device ordinal " + std::to_string(ordinal) + " (" + std::to_string(g_contexts.size()) +
                        " CUDA devices)", "ERR_INVALID_DEVICE");
  CUcontext& ctx = g_contexts[static_cast<size_t>(ordinal)];
  if (ctx == nullptr) {
    CUdevice dev = 0;
    check(env, d.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
    check(env, d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  }
  check(env, d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

// Best effort, for finalizers: never throws.
bool useDeviceQuiet(int ordinal) {
  if (!loadDriver().ok || ordinal < 0 || static_cast<size_t>(ordinal) >= g_contexts.size()) return false;
  CUcontext ctx = g_contexts[static_cast<size_t>(ordinal)];
  return ctx != nullptr && driver().cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
}

int intArg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), std::string(what) + " must be a number");
  return info[i].As<Napi::Number>().Int32Value();
}

double numArg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsNumber()) throw Napi::TypeError::New(info.Env(), std::string(what) + " must be a number");
  return info[i].As<Napi::Number>().DoubleValue();
}

struct Bytes {
  uint8_t* data;
  size_t length;
};

Bytes bytesArg(const Napi::CallbackInfo& info, size_t i, const char* what) {
  if (info.Length() <= i || !info[i].IsTypedArray()) throw Napi::TypeError::New(info.Env(), std::string(what) + " must be a TypedArray");
  Napi::TypedArray t = info[i].As<Napi::TypedArray>();
  Napi::ArrayBuffer ab = t.ArrayBuffer();
  return Bytes{static_cast<uint8_t*>(ab.Data()) + t.ByteOffset(), t.ByteLength()};
}

// ---------------------------------------------------------------------------------------------
// Probing and devices

Napi::Value Probe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const LoadState& st = loadDriver();
  Napi::Object o = Napi::Object::New(env);
  o.Set("ok", st.ok);
  o.Set("reason", st.reason);
  o.Set("library", st.library);
  if (st.ok) {
    int v = 0;
    if (driver().cuDriverGetVersion(&v) == CUDA_SUCCESS) o.Set("driverVersion", v);
  }
  return o;
}

Napi::Value ProbeNvrtc(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const LoadState& st = loadNvrtc();
  Napi::Object o = Napi::Object::New(env);
  o.Set("ok", st.ok);
  o.Set("reason", st.reason);
  o.Set("library", st.library);
  if (st.ok) {
    int major = 0, minor = 0;
    if (nvrtc().nvrtcVersion(&major, &minor) == NVRTC_SUCCESS) {
      o.Set("major", major);
      o.Set("minor", minor);
    }
  }
  return o;
}

Napi::Value DeviceCount(const Napi::CallbackInfo& info) {
  requireDriver(info.Env());
  int count = 0;
  check(info.Env(), driver().cuDeviceGetCount(&count), "cuDeviceGetCount");
  return Napi::Number::New(info.Env(), count);
}

Napi::Value DeviceInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  requireDriver(env);
  const DriverApi& d = driver();
  int ordinal = intArg(info, 0, "device");
  CUdevice dev = 0;
  check(env, d.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  char name[256] = {0};
  check(env, d.cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
  size_t total = 0;
  check(env, d.cuDeviceTotalMem(&total, dev), "cuDeviceTotalMem");
  auto attr = [&](int a) {
    int v = 0;
    check(env, d.cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
    return v;
  };
  Napi::Object o = Napi::Object::New(env);
  o.Set("ordinal", ordinal);
  o.Set("name", std::string(name));
  o.Set("computeCapabilityMajor", attr(kComputeCapabilityMajor));
  o.Set("computeCapabilityMinor", attr(kComputeCapabilityMinor));
  o.Set("multiprocessorCount", attr(kMultiprocessorCount));
  o.Set("maxThreadsPerBlock", attr(kMaxThreadsPerBlock));
  o.Set("maxThreadsPerMultiprocessor", attr(kMaxThreadsPerMultiprocessor));
  o.Set("warpSize", attr(kWarpSize));
  Napi::Array block = Napi::Array::New(env, 3);
  block.Set(0u, attr(kMaxBlockDimX));
  block.Set(1u, attr(kMaxBlockDimY));
  block.Set(2u, attr(kMaxBlockDimZ));
  o.Set("maxBlockDim", block);
  Napi::Array grid = Napi::Array::New(env, 3);
  grid.Set(0u, attr(kMaxGridDimX));
  grid.Set(1u, attr(kMaxGridDimY));
  grid.Set(2u, attr(kMaxGridDimZ));
  o.Set("maxGridDim", grid);
  o.Set("sharedMemPerBlock", attr(kMaxSharedMemoryPerBlock));
  o.Set("sharedMemPerBlockOptin", attr(kMaxSharedMemoryPerBlockOptin));
  o.Set("sharedMemPerMultiprocessor", attr(kMaxSharedMemoryPerMultiprocessor));
  o.Set("registersPerBlock", attr(kMaxRegistersPerBlock));
  o.Set("registersPerMultiprocessor", attr(kMaxRegistersPerMultiprocessor));
  o.Set("l2CacheBytes", attr(kL2CacheSize));
  o.Set("clockRateKHz", attr(kClockRate));
  o.Set("memoryClockRateKHz", attr(kMemoryClockRate));
  o.Set("memoryBusWidthBits", attr(kGlobalMemoryBusWidth));
  o.Set("totalMemoryBytes", static_cast<double>(total));
  return o;
}

Napi::Value MemInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  useDevice(env, intArg(info, 0, "device"));
  size_t freeB = 0, totalB = 0;
  check(env, driver().cuMemGetInfo(&freeB, &totalB), "cuMemGetInfo");
  Napi::Object o = Napi::Object::New(env);
  o.Set("free", static_cast<double>(freeB));
  o.Set("total", static_cast<double>(totalB));
  return o;
}

// encodeTensorMapTiled(dataType, globalAddress, globalDim[], globalStrides[] (bytes, rank - 1),
// boxDim[], swizzle): a CUtensorMap (128 bytes) from cuTensorMapEncodeTiled, element strides 1, no
// interleave, 256-byte L2 promotion, zeros outside the tensor. Dimensions innermost first.
Napi::Value EncodeTensorMapTiled(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  requireDriver(env);
  if (driver().cuTensorMapEncodeTiled == nullptr)
    throwPlain(env, "encodeTensorMapTiled: this CUDA driver has no cuTensorMapEncodeTiled (tensor maps need CUDA 12 or newer)",
               "CUDA_UNAVAILABLE");
  if (info.Length() != 6 || !info[0].IsNumber() || !info[1].IsBigInt() || !info[2].IsArray() || !info[3].IsArray() ||
      !info[4].IsArray() || !info[5].IsNumber())
    throwPlain(env, "encodeTensorMapTiled(dataType, address, dims, strides, box, swizzle): bad arguments", "ERR_INVALID_ARG");
  bool lossless = false;
  uint64_t address = info[1].As<Napi::BigInt>().Uint64Value(&lossless);
  auto numbers = [&](int i) {
    Napi::Array a = info[i].As<Napi::Array>();
    std::vector<double> out;
    for (uint32_t k = 0; k < a.Length(); k++) out.push_back(a.Get(k).As<Napi::Number>().DoubleValue());
    return out;
  };
  std::vector<double> dims = numbers(2), strides = numbers(3), box = numbers(4);
  const size_t rank = dims.size();
  if (rank < 1 || rank > 5 || strides.size() != rank - 1 || box.size() != rank)
    throwPlain(env, "encodeTensorMapTiled: rank 1 to 5, strides of rank - 1 entries and a box of rank entries expected", "ERR_INVALID_ARG");
  std::vector<unsigned long long> globalDim(dims.begin(), dims.end()), globalStrides(strides.begin(), strides.end());
  std::vector<unsigned int> boxDim(box.begin(), box.end()), elementStrides(rank, 1);
  alignas(64) unsigned char map[128] = {};
  check(env,
        driver().cuTensorMapEncodeTiled(map, info[0].As<Napi::Number>().Int32Value(), static_cast<unsigned int>(rank),
                                        reinterpret_cast<void*>(address), globalDim.data(), globalStrides.data(),
                                        boxDim.data(), elementStrides.data(), 0, info[5].As<Napi::Number>().Int32Value(),
                                        3, 0),
        "cuTensorMapEncodeTiled");
  Napi::Buffer<unsigned char> out = Napi::Buffer<unsigned char>::Copy(env, map, sizeof(map));
  return out;
}

Napi::Value Synchronize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  useDevice(env, intArg(info, 0, "device"));
  check(env, driver().cuCtxSynchronize(), "cuCtxSynchronize", std::string(), true);
  return env.Undefined();
}

Napi::Value LiveAllocations(const Napi::CallbackInfo& info) {
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("count", g_liveBuffers);
  o.Set("bytes", g_liveBytes);
  return o;
}

// ---------------------------------------------------------------------------------------------
// Device memory: plain cuMemAlloc, freed by free() or by the finalizer.

class DeviceBuffer : public Napi::ObjectWrap<DeviceBuffer> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "DeviceBuffer",
                       {InstanceAccessor<&DeviceBuffer::Ptr>("ptr"),
                        InstanceAccessor<&DeviceBuffer::ByteLength>("byteLength"),
                        InstanceAccessor<&DeviceBuffer::Device>("device"),
                        InstanceMethod<&DeviceBuffer::Free>("free"),
                        InstanceMethod<&DeviceBuffer::CopyFromHost>("copyFromHost"),
                        InstanceMethod<&DeviceBuffer::CopyToHost>("copyToHost"),
                        InstanceMethod<&DeviceBuffer::CopyFromDevice>("copyFromDevice"),
                        InstanceMethod<&DeviceBuffer::Memset>("memset")});
  }

  explicit DeviceBuffer(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DeviceBuffer>(info) {
    Napi::Env env = info.Env();
    device_ = intArg(info, 0, "device");
    double bytes = numArg(info, 1, "byteLength");
    if (!(bytes >= 0) || bytes > 9.0e15) throw Napi::RangeError::New(env, "invalid byteLength");
    bytes_ = static_cast<size_t>(bytes);
    useDevice(env, device_);
    // cuMemAlloc rejects 0 bytes; keep a 1-byte allocation so that ptr is always valid.
    check(env, driver().cuMemAlloc(&ptr_, bytes_ == 0 ? 1 : bytes_), "cuMemAlloc");
    g_liveBuffers += 1;
    g_liveBytes += static_cast<double>(bytes_);
  }

  ~DeviceBuffer() override { release(); }

 private:
  void release() {
    if (ptr_ == 0) return;
    if (useDeviceQuiet(device_)) driver().cuMemFree(ptr_);
    ptr_ = 0;
    g_liveBuffers -= 1;
    g_liveBytes -= static_cast<double>(bytes_);
  }

  void requireLive(Napi::Env env, const char* call) {
    if (ptr_ == 0) throwPlain(env, std::string(call) + ": device buffer was already freed", "ERR_DISPOSED");
  }

  void checkRange(Napi::Env env, double offset, size_t length, const char* call) {
    if (!(offset >= 0) || offset + static_cast<double>(length) > static_cast<double>(bytes_))
      throw Napi::RangeError::New(env, std::string(call) + ": range [" + std::to_string(offset) + ", +" +
                                           std::to_string(length) + ") outside buffer of " + std::to_string(bytes_) + " bytes");
  }

  Napi::Value Ptr(const Napi::CallbackInfo& info) { return Napi::BigInt::New(info.Env(), static_cast<uint64_t>(ptr_)); }
  Napi::Value ByteLength(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(bytes_)); }
  Napi::Value Device(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), device_); }

  Napi::Value Free(const Napi::CallbackInfo& info) {
    if (ptr_ != 0) {
      useDevice(info.Env(), device_);
      CUresult r = driver().cuMemFree(ptr_);
      ptr_ = 0;
      g_liveBuffers -= 1;
      g_liveBytes -= static_cast<double>(bytes_);
      check(info.Env(), r, "cuMemFree", std::string(), true);
    }
    return info.Env().Undefined();
  }

  // copyFromHost(src: TypedArray, dstOffsetBytes)
  Napi::Value CopyFromHost(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    requireLive(env, "copyFromHost");
    Bytes src = bytesArg(info, 0, "source");
    double offset = info.Length() > 1 ? numArg(info, 1, "offset") : 0;
    checkRange(env, offset, src.length, "copyFromHost");
    useDevice(env, device_);
    if (src.length > 0)
      check(env, driver().cuMemcpyHtoD(ptr_ + static_cast<CUdeviceptr>(offset), src.data, src.length), "cuMemcpyHtoD",
            std::string(), true);
    return env.Undefined();
  }

  // copyToHost(dst: TypedArray, srcOffsetBytes)
  Napi::Value CopyToHost(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    requireLive(env, "copyToHost");
    Bytes dst = bytesArg(info, 0, "destination");
    double offset = info.Length() > 1 ? numArg(info, 1, "offset") : 0;
    checkRange(env, offset, dst.length, "copyToHost");
    useDevice(env, device_);
    if (dst.length > 0)
      check(env, driver().cuMemcpyDtoH(dst.data, ptr_ + static_cast<CUdeviceptr>(offset), dst.length), "cuMemcpyDtoH",
            std::string(), true);
    return env.Undefined();
  }

  // copyFromDevice(src: DeviceBuffer, bytes)
  Napi::Value CopyFromDevice(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    requireLive(env, "copyFromDevice");
    if (info.Length() < 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "source must be a DeviceBuffer");
    DeviceBuffer* src = Napi::ObjectWrap<DeviceBuffer>::Unwrap(info[0].As<Napi::Object>());
    src->requireLive(env, "copyFromDevice");
    size_t n = static_cast<size_t>(numArg(info, 1, "byteLength"));
    checkRange(env, 0, n, "copyFromDevice");
    src->checkRange(env, 0, n, "copyFromDevice");
    useDevice(env, device_);
    check(env, driver().cuMemcpyDtoD(ptr_, src->ptr_, n), "cuMemcpyDtoD", std::string(), true);
    return env.Undefined();
  }

  // memset(bits: number, elementBytes: 1|2|4, count, offsetBytes)
  Napi::Value Memset(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    requireLive(env, "memset");
    double bits = numArg(info, 0, "bits");
    int width = intArg(info, 1, "elementBytes");
    double count = numArg(info, 2, "count");
    double offset = info.Length() > 3 ? numArg(info, 3, "offset") : 0;
    if (width != 1 && width != 2 && width != 4) throw Napi::RangeError::New(env, "memset: elementBytes must be 1, 2 or 4");
    checkRange(env, offset, static_cast<size_t>(count) * static_cast<size_t>(width), "memset");
    useDevice(env, device_);
    CUdeviceptr p = ptr_ + static_cast<CUdeviceptr>(offset);
    size_t n = static_cast<size_t>(count);
    if (n == 0) return env.Undefined();
    uint32_t v = static_cast<uint32_t>(static_cast<int64_t>(bits));
    if (width == 1) check(env, driver().cuMemsetD8(p, static_cast<unsigned char>(v), n), "cuMemsetD8", std::string(), true);
    if (width == 2) check(env, driver().cuMemsetD16(p, static_cast<unsigned short>(v), n), "cuMemsetD16", std::string(), true);
    if (width == 4) check(env, driver().cuMemsetD32(p, v, n), "cuMemsetD32", std::string(), true);
    return env.Undefined();
  }

  int device_ = 0;
  size_t bytes_ = 0;
  CUdeviceptr ptr_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Modules and functions

struct ModuleState {
  CUmodule module = nullptr;
  int device = 0;
  ~ModuleState() {
    if (module != nullptr && useDeviceQuiet(device)) driver().cuModuleUnload(module);
  }
};

class KernelFunction : public Napi::ObjectWrap<KernelFunction> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "KernelFunction",
                       {InstanceAccessor<&KernelFunction::Name>("name"),
                        InstanceAccessor<&KernelFunction::Device>("device"),
                        InstanceMethod<&KernelFunction::Attributes>("attributes"),
                        InstanceMethod<&KernelFunction::SetMaxDynamicShared>("setMaxDynamicSharedBytes")});
  }

  struct Init_ {
    std::shared_ptr<ModuleState> module;
    CUfunction fn;
    std::string name;
  };

  explicit KernelFunction(const Napi::CallbackInfo& info) : Napi::ObjectWrap<KernelFunction>(info) {
    if (info.Length() < 1 || !info[0].IsExternal())
      throw Napi::TypeError::New(info.Env(), "KernelFunction objects come from NativeModule.getFunction()");
    Init_* init = info[0].As<Napi::External<Init_>>().Data();
    module_ = init->module;
    fn_ = init->fn;
    name_ = init->name;
  }

  CUfunction fn() const { return fn_; }
  const std::string& name() const { return name_; }
  int device() const { return module_->device; }
  bool loaded() const { return module_->module != nullptr; }

  // Without opting in a block gets 48 KiB of static and dynamic shared memory together: the
  // function's dynamic maximum starts at 48 KiB less its static bytes, so a kernel with 48 KiB of
  // dynamic tiles and a few static bytes (TMA's mbarriers) must raise it too (regression: such a
  // launch failed with CUDA_ERROR_INVALID_VALUE, session 16).
  void ensureDynamicShared(Napi::Env env, unsigned bytes) {
    if (static_cast<int>(bytes) <= dynSharedSet_) return;
    if (staticShared_ < 0) {
      int v = 0;
      check(env, driver().cuFuncGetAttribute(&v, kFuncSharedSizeBytes, fn_), "cuFuncGetAttribute", name_);
      staticShared_ = v;
    }
    if (bytes + static_cast<unsigned>(staticShared_) <= 48u * 1024u) return;
    check(env, driver().cuFuncSetAttribute(fn_, kFuncMaxDynamicSharedSizeBytes, static_cast<int>(bytes)),
          "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)", name_);
    dynSharedSet_ = static_cast<int>(bytes);
  }

 private:
  Napi::Value Name(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), name_); }
  Napi::Value Device(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), module_->device); }

  Napi::Value Attributes(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    useDevice(env, module_->device);
    auto attr = [&](int a) {
      int v = 0;
      check(env, driver().cuFuncGetAttribute(&v, a, fn_), "cuFuncGetAttribute", name_);
      return v;
    };
    Napi::Object o = Napi::Object::New(env);
    o.Set("numRegs", attr(kFuncNumRegs));
    o.Set("staticSharedBytes", attr(kFuncSharedSizeBytes));
    o.Set("localBytes", attr(kFuncLocalSizeBytes));
    o.Set("constBytes", attr(kFuncConstSizeBytes));
    o.Set("maxThreadsPerBlock", attr(kFuncMaxThreadsPerBlock));
    o.Set("maxDynamicSharedBytes", attr(kFuncMaxDynamicSharedSizeBytes));
    o.Set("ptxVersion", attr(kFuncPtxVersion));
    o.Set("binaryVersion", attr(kFuncBinaryVersion));
    return o;
  }

  Napi::Value SetMaxDynamicShared(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    int bytes = intArg(info, 0, "bytes");
    useDevice(env, module_->device);
    check(env, driver().cuFuncSetAttribute(fn_, kFuncMaxDynamicSharedSizeBytes, bytes),
          "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)", name_);
    dynSharedSet_ = bytes;
    return env.Undefined();
  }

  std::shared_ptr<ModuleState> module_;
  CUfunction fn_ = nullptr;
  std::string name_;
  /** The dynamic shared bytes launches may use: raised by ensureDynamicShared (0: the default, 48 KiB less the static bytes). */
  int dynSharedSet_ = 0;
  /** The function's static shared bytes, once asked (-1: not yet). */
  int staticShared_ = -1;
};

class NativeModule : public Napi::ObjectWrap<NativeModule> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "NativeModule",
                       {InstanceMethod<&NativeModule::GetFunction>("getFunction"),
                        InstanceMethod<&NativeModule::Unload>("unload")});
  }

  // new NativeModule(device, image: Uint8Array) — cubin (ELF) or PTX text.
  explicit NativeModule(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeModule>(info) {
    Napi::Env env = info.Env();
    int device = intArg(info, 0, "device");
    Bytes image = bytesArg(info, 1, "image");
    if (image.length == 0) throw Napi::RangeError::New(env, "module image is empty");
    useDevice(env, device);
    bool elf = image.length >= 4 && std::memcmp(image.data, "\x7f" "ELF", 4) == 0;
    std::vector<uint8_t> copy;
    const void* data = image.data;
    if (!elf && image.data[image.length - 1] != 0) {  // PTX must be NUL-terminated
      copy.assign(image.data, image.data + image.length);
      copy.push_back(0);
      data = copy.data();
    }
    state_ = std::make_shared<ModuleState>();
    state_->device = device;
    check(env, driver().cuModuleLoadData(&state_->module, data), "cuModuleLoadData");
  }

 private:
  Napi::Value GetFunction(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "function name must be a string");
    std::string name = info[0].As<Napi::String>();
    if (state_->module == nullptr) throwPlain(env, "getFunction('" + name + "'): module was unloaded", "ERR_DISPOSED");
    useDevice(env, state_->device);
    CUfunction fn = nullptr;
    check(env, driver().cuModuleGetFunction(&fn, state_->module, name.c_str()), "cuModuleGetFunction", name);
    KernelFunction::Init_ init{state_, fn, name};
    AddonData* data = env.GetInstanceData<AddonData>();
    return data->functionCtor.New({Napi::External<KernelFunction::Init_>::New(env, &init)});
  }

  Napi::Value Unload(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (state_->module != nullptr) {
      useDevice(env, state_->device);
      CUmodule m = state_->module;
      state_->module = nullptr;
      check(env, driver().cuModuleUnload(m), "cuModuleUnload", std::string(), true);
    }
    return env.Undefined();
  }

  std::shared_ptr<ModuleState> state_;
};

// ---------------------------------------------------------------------------------------------
// Launch and timing

struct LaunchSpec {
  KernelFunction* fn;
  unsigned dims[7];  // grid xyz, block xyz, dynamic shared bytes
  std::vector<void*> params;
};

// spec: [fn: KernelFunction, dims: Uint32Array(7), args: Uint8Array, offsets: Uint32Array]
LaunchSpec parseLaunch(Napi::Env env, const Napi::Value& fnV, const Napi::Value& dimsV, const Napi::Value& argsV,
                       const Napi::Value& offsetsV) {
  AddonData* data = env.GetInstanceData<AddonData>();
  if (!fnV.IsObject() || !fnV.As<Napi::Object>().InstanceOf(data->functionCtor.Value()))
    throw Napi::TypeError::New(env, "launch: expected a KernelFunction");
  LaunchSpec s{};
  s.fn = Napi::ObjectWrap<KernelFunction>::Unwrap(fnV.As<Napi::Object>());
  if (!s.fn->loaded()) throwPlain(env, "launch('" + s.fn->name() + "'): its module was unloaded", "ERR_DISPOSED");
  if (!dimsV.IsTypedArray() || dimsV.As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array ||
      dimsV.As<Napi::TypedArray>().ElementLength() != 7)
    throw Napi::TypeError::New(env, "launch: dims must be a Uint32Array of 7");
  Napi::Uint32Array dims = dimsV.As<Napi::Uint32Array>();
  for (size_t i = 0; i < 7; ++i) s.dims[i] = dims[i];
  if (!argsV.IsTypedArray() || !offsetsV.IsTypedArray() ||
      offsetsV.As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array)
    throw Napi::TypeError::New(env, "launch: args must be a Uint8Array and offsets a Uint32Array");
  Napi::TypedArray args = argsV.As<Napi::TypedArray>();
  uint8_t* base = static_cast<uint8_t*>(args.ArrayBuffer().Data()) + args.ByteOffset();
  Napi::Uint32Array offsets = offsetsV.As<Napi::Uint32Array>();
  s.params.resize(offsets.ElementLength());
  for (size_t i = 0; i < offsets.ElementLength(); ++i) {
    if (offsets[i] >= args.ByteLength()) throw Napi::RangeError::New(env, "launch: parameter offset outside args");
    s.params[i] = base + offsets[i];
  }
  return s;
}

inline void launchOne(Napi::Env env, LaunchSpec& s) {
  s.fn->ensureDynamicShared(env, s.dims[6]);
  CUresult r = driver().cuLaunchKernel(s.fn->fn(), s.dims[0], s.dims[1], s.dims[2], s.dims[3], s.dims[4], s.dims[5],
                                       s.dims[6], nullptr, s.params.empty() ? nullptr : s.params.data(), nullptr);
  g_lastKernel = s.fn->name();
  if (r != CUDA_SUCCESS) throwCuda(env, r, "cuLaunchKernel", s.fn->name(), false);
}

// launch(fn, dims, args, offsets)
Napi::Value Launch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  LaunchSpec s = parseLaunch(env, info[0], info[1], info[2], info[3]);
  useDevice(env, s.fn->device());
  launchOne(env, s);
  return env.Undefined();
}

struct Events {
  CUevent start = nullptr;
  CUevent stop = nullptr;
};
std::vector<Events> g_events;

// timeLaunches(specs: Array<[fn, dims, args, offsets]>, number) -> milliseconds for `number`
// back-to-back runs of the whole list, between two CUDA events (after a context sync).
Napi::Value TimeLaunches(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsArray()) throw Napi::TypeError::New(env, "timeLaunches(specs[], number)");
  Napi::Array arr = info[0].As<Napi::Array>();
  int number = intArg(info, 1, "number");
  if (number < 1) throw Napi::RangeError::New(env, "timeLaunches: number must be >= 1");
  std::vector<LaunchSpec> specs;
  for (uint32_t i = 0; i < arr.Length(); ++i) {
    Napi::Value v = arr.Get(i);
    if (!v.IsArray()) throw Napi::TypeError::New(env, "timeLaunches: each spec is [fn, dims, args, offsets]");
    Napi::Array t = v.As<Napi::Array>();
    specs.push_back(parseLaunch(env, t.Get(0u), t.Get(1u), t.Get(2u), t.Get(3u)));
  }
  if (specs.empty()) throw Napi::RangeError::New(env, "timeLaunches: no launches");
  int device = specs[0].fn->device();
  for (const LaunchSpec& s : specs)
    if (s.fn->device() != device) throw Napi::RangeError::New(env, "timeLaunches: all kernels must be on one device");
  useDevice(env, device);
  const DriverApi& d = driver();
  if (g_events.size() < g_contexts.size()) g_events.resize(g_contexts.size());
  Events& ev = g_events[static_cast<size_t>(device)];
  if (ev.start == nullptr) {
    check(env, d.cuEventCreate(&ev.start, 0), "cuEventCreate");
    check(env, d.cuEventCreate(&ev.stop, 0), "cuEventCreate");
  }
  check(env, d.cuCtxSynchronize(), "cuCtxSynchronize", std::string(), true);
  check(env, d.cuEventRecord(ev.start, nullptr), "cuEventRecord");
  for (int n = 0; n < number; ++n)
    for (LaunchSpec& s : specs) launchOne(env, s);
  check(env, d.cuEventRecord(ev.stop, nullptr), "cuEventRecord");
  check(env, d.cuEventSynchronize(ev.stop), "cuEventSynchronize", std::string(), true);
  float ms = 0;
  check(env, d.cuEventElapsedTime(&ms, ev.start, ev.stop), "cuEventElapsedTime");
  return Napi::Number::New(env, ms);
}

// ---------------------------------------------------------------------------------------------
// NVRTC compilation on the libuv thread pool

class NvrtcWorker : public Napi::AsyncWorker {
 public:
  NvrtcWorker(Napi::Env env, std::string source, std::string name, std::vector<std::string> options, bool cubin)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), source_(std::move(source)),
        name_(std::move(name)), options_(std::move(options)), cubin_(cubin) {}

  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override {
    const NvrtcApi& n = nvrtc();
    nvrtcProgram prog = nullptr;
    nvrtcResult r = n.nvrtcCreateProgram(&prog, source_.c_str(), name_.c_str(), 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS) {
      SetError(std::string("nvrtcCreateProgram failed: ") + n.nvrtcGetErrorString(r));
      return;
    }
    std::vector<const char*> opts;
    for (const std::string& o : options_) opts.push_back(o.c_str());
    r = n.nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
    size_t logSize = 0;
    if (n.nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS && logSize > 1) {
      std::vector<char> buf(logSize);
      if (n.nvrtcGetProgramLog(prog, buf.data()) == NVRTC_SUCCESS) log_.assign(buf.data(), strnlen(buf.data(), logSize));
    }
    if (r != NVRTC_SUCCESS) {
      ok_ = false;
      status_ = n.nvrtcGetErrorString(r);
      n.nvrtcDestroyProgram(&prog);
      return;
    }
    size_t size = 0;
    r = cubin_ ? n.nvrtcGetCUBINSize(prog, &size) : n.nvrtcGetPTXSize(prog, &size);
    if (r == NVRTC_SUCCESS && size > 0) {
      image_.resize(size);
      r = cubin_ ? n.nvrtcGetCUBIN(prog, image_.data()) : n.nvrtcGetPTX(prog, image_.data());
    }
    n.nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS || size == 0) {
      SetError(std::string(cubin_ ? "nvrtcGetCUBIN" : "nvrtcGetPTX") + " failed" +
               (r != NVRTC_SUCCESS ? std::string(": ") + n.nvrtcGetErrorString(r)
                                   : std::string(": empty output (is the architecture a real sm_XX?)")));
      return;
    }
    if (!cubin_) {  // drop the PTX terminator; the loader adds one back
      while (!image_.empty() && image_.back() == 0) image_.pop_back();
    }
    ok_ = true;
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object o = Napi::Object::New(env);
    o.Set("ok", ok_);
    o.Set("log", log_);
    o.Set("status", status_);
    if (ok_) o.Set("image", Napi::Buffer<char>::Copy(env, image_.data(), image_.size()));
    deferred_.Resolve(o);
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::string source_, name_;
  std::vector<std::string> options_;
  bool cubin_;
  bool ok_ = false;
  std::string log_, status_;
  std::vector<char> image_;
};

// nvrtcCompile(source, programName, options: string[], output: "cubin" | "ptx") -> Promise<{ok, log, status, image?}>
Napi::Value NvrtcCompile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const LoadState& st = loadNvrtc();
  if (!st.ok) throwPlain(env, "NVRTC is unavailable: " + st.reason, "NVRTC_UNAVAILABLE");
  if (info.Length() < 4 || !info[0].IsString() || !info[1].IsString() || !info[2].IsArray() || !info[3].IsString())
    throw Napi::TypeError::New(env, "nvrtcCompile(source, name, options[], output)");
  std::vector<std::string> options;
  Napi::Array arr = info[2].As<Napi::Array>();
  for (uint32_t i = 0; i < arr.Length(); ++i) options.push_back(arr.Get(i).ToString().Utf8Value());
  std::string output = info[3].As<Napi::String>();
  auto* worker = new NvrtcWorker(env, info[0].As<Napi::String>(), info[1].As<Napi::String>(), std::move(options),
                                 output == "cubin");
  Napi::Promise p = worker->promise();
  worker->Queue();
  return p;
}

Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  env.SetInstanceData<AddonData>(data);
  Napi::Function fnCtor = KernelFunction::Init(env);
  data->functionCtor = Napi::Persistent(fnCtor);
  exports.Set("KernelFunction", fnCtor);
  exports.Set("DeviceBuffer", DeviceBuffer::Init(env));
  exports.Set("NativeModule", NativeModule::Init(env));
  exports.Set("probe", Napi::Function::New(env, Probe));
  exports.Set("probeNvrtc", Napi::Function::New(env, ProbeNvrtc));
  exports.Set("deviceCount", Napi::Function::New(env, DeviceCount));
  exports.Set("deviceInfo", Napi::Function::New(env, DeviceInfo));
  exports.Set("memInfo", Napi::Function::New(env, MemInfo));
  exports.Set("synchronize", Napi::Function::New(env, Synchronize));
  exports.Set("encodeTensorMapTiled", Napi::Function::New(env, EncodeTensorMapTiled));
  exports.Set("liveAllocations", Napi::Function::New(env, LiveAllocations));
  exports.Set("launch", Napi::Function::New(env, Launch));
  exports.Set("timeLaunches", Napi::Function::New(env, TimeLaunches));
  exports.Set("nvrtcCompile", Napi::Function::New(env, NvrtcCompile));
  InitHostLibrary(env, exports);
  return exports;
}

}  // namespace
}  // namespace tessera

Napi::Object Init(Napi::Env env, Napi::Object exports) { return tessera::InitAddon(env, exports); }

NODE_API_MODULE(tessera_cuda, Init)
