// HostLibrary: a shared library opened with dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE).
// NODELETE: a library built with -fopenmp pulls in libgomp, whose worker threads outlive the
// calls; unmapping it on dlclose while they idle crashes the process. close() drops the handle
// and makes later calls fail, but the code stays mapped (a few KiB per module).
//   new HostLibrary(path)                     throws with dlerror() text when it cannot be opened
//   lib.call(symbol, args[])  -> status       one call of `int32_t symbol(void** args)`
//   lib.timeCalls(symbol, args[], n) -> ms    n back-to-back calls, timed with a steady clock
//   lib.close()                               dlclose (the code stays mapped, see above); later calls throw
// Each argument is a TypedArray (or DataView); the entry point receives its data pointer. Scalars
// travel as one-element arrays. The calls run synchronously on the calling thread; the generated
// code may start OpenMP threads of its own.
#include "host_lib.h"

#include <dlfcn.h>

#include <chrono>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera {
namespace {

using PackedFn = int32_t (*)(void**);

[[noreturn]] void throwCode(Napi::Env env, const std::string& message, const char* code) {
  Napi::Error e = Napi::Error::New(env, message);
  e.Set("code", Napi::String::New(env, code));
  throw e;
}

class HostLibrary : public Napi::ObjectWrap<HostLibrary> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "HostLibrary",
                       {InstanceMethod("call", &HostLibrary::Call), InstanceMethod("timeCalls", &HostLibrary::TimeCalls),
                        InstanceMethod("close", &HostLibrary::Close), InstanceAccessor("path", &HostLibrary::Path, nullptr)});
  }

  explicit HostLibrary(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostLibrary>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "HostLibrary(path: string)");
    path_ = info[0].As<Napi::String>().Utf8Value();
    dlerror();
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      throwCode(env, "dlopen(" + path_ + ") failed: " + (why != nullptr ? why : "unknown error"), "ERR_DLOPEN");
    }
  }

  ~HostLibrary() override {
    if (handle_ != nullptr) dlclose(handle_);
  }

 private:
  Napi::Value Path(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), path_); }

  PackedFn resolve(Napi::Env env, const Napi::Value& v) {
    if (handle_ == nullptr) throwCode(env, "HostLibrary " + path_ + " was closed", "ERR_CLOSED");
    if (!v.IsString()) throw Napi::TypeError::New(env, "symbol must be a string");
    std::string symbol = v.As<Napi::String>().Utf8Value();
    auto found = symbols_.find(symbol);
    if (found != symbols_.end()) return found->second;
    dlerror();
    void* p = dlsym(handle_, symbol.c_str());
    const char* why = dlerror();
    if (why != nullptr || p == nullptr)
      throwCode(env, "dlsym(" + symbol + ") in " + path_ + " failed: " + (why != nullptr ? why : "null symbol"), "ERR_DLSYM");
    auto fn = reinterpret_cast<PackedFn>(p);
    symbols_.emplace(symbol, fn);
    return fn;
  }

  static std::vector<void*> pointers(Napi::Env env, const Napi::Value& v) {
    if (!v.IsArray()) throw Napi::TypeError::New(env, "args must be an array of TypedArrays");
    Napi::Array arr = v.As<Napi::Array>();
    std::vector<void*> out(arr.Length());
    for (uint32_t i = 0; i < arr.Length(); ++i) {
      Napi::Value a = arr.Get(i);
      if (a.IsTypedArray()) {
        Napi::TypedArray t = a.As<Napi::TypedArray>();
        out[i] = static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset();
      } else if (a.IsDataView()) {
        Napi::DataView d = a.As<Napi::DataView>();
        out[i] = static_cast<uint8_t*>(d.ArrayBuffer().Data()) + d.ByteOffset();
      } else {
        throw Napi::TypeError::New(env, "argument " + std::to_string(i) + " must be a TypedArray or DataView");
      }
    }
    return out;
  }

  Napi::Value Call(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    PackedFn fn = resolve(env, info[0]);
    std::vector<void*> args = pointers(env, info[1]);
    return Napi::Number::New(env, fn(args.data()));
  }

  Napi::Value TimeCalls(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    PackedFn fn = resolve(env, info[0]);
    std::vector<void*> args = pointers(env, info[1]);
    if (info.Length() < 3 || !info[2].IsNumber()) throw Napi::TypeError::New(env, "timeCalls(symbol, args, number)");
    int64_t n = info[2].As<Napi::Number>().Int64Value();
    if (n < 1) throw Napi::RangeError::New(env, "number must be at least 1");
    int32_t status = 0;
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < n; ++i) status |= fn(args.data());
    auto stop = std::chrono::steady_clock::now();
    if (status != 0) throwCode(env, "a timed call returned status " + std::to_string(status) + " (a heap allocation failed)", "ERR_CALL_STATUS");
    return Napi::Number::New(env, std::chrono::duration<double, std::milli>(stop - start).count());
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = nullptr;
    symbols_.clear();
    return info.Env().Undefined();
  }

  std::string path_;
  void* handle_ = nullptr;
  std::unordered_map<std::string, PackedFn> symbols_;
};

}  // namespace

void InitHostLibrary(Napi::Env env, Napi::Object exports) { exports.Set("HostLibrary", HostLibrary::Init(env)); }

}  // namespace tessera
