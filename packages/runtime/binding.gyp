{
  "targets": [
    {
      "target_name": "tessera_cuda",
      "sources": ["native/addon.cc", "native/cuda_api.cc", "native/host_lib.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-O2", "-Wall", "-Wno-unused-function"],
      "libraries": ["-ldl"]
    }
  ]
}
