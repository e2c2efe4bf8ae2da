// Host shared libraries (generated C compiled by the system C compiler): dlopen, dlsym and
// calls of a packed entry point `int32_t f(void** args)` over host arrays.
#pragma once
#include <napi.h>

namespace tessera {

// Adds `HostLibrary` (class) to the addon's exports.
void InitHostLibrary(Napi::Env env, Napi::Object exports);

}  // namespace tessera
