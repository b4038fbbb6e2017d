// opencl_args and the in-memory file system (invocation.h).
#include "support/clang/invocation.h"

#include <llvm/Support/MemoryBuffer.h>

namespace clgen::clang_support {

std::vector<std::string> opencl_args(OpenClStd std, ArgStyle style, bool clang_builtins) {
  // An OpenCL runtime defines __OPENCL_VERSION__ (the device's version)
  // beside Clang's __OPENCL_C_VERSION__; kernels that test it (sgminer's
  // `#ifndef __OPENCL_VERSION__` picks a host-side `long long`) need it too.
  std::vector<std::string> args = {std == OpenClStd::kCL20 ? "-cl-std=CL2.0" : "-cl-std=CL1.2",
                                   std == OpenClStd::kCL20 ? "-D__OPENCL_VERSION__=200" : "-D__OPENCL_VERSION__=120",
                                   "-resource-dir", resource_dir()};
  auto cc1 = [&](const char* flag) {
    if (style == ArgStyle::kDriver) args.push_back("-Xclang");
    args.push_back(flag);
  };
  if (std == OpenClStd::kCL20) {
    cc1("-cl-ext=+cl_khr_fp16,+cl_khr_fp64,+cl_khr_3d_image_writes,+cl_khr_subgroups,"
        "+cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics");
  }
  if (clang_builtins) {
    cc1("-finclude-default-header");
    cc1("-fdeclare-opencl-builtins");
  }
  return args;
}

llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> in_memory_files(const std::string& path,
                                                                        std::string_view text) {
  auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  fs->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()), path));
  return fs;
}

std::string add_headers(llvm::vfs::InMemoryFileSystem& fs, const HeaderSet& headers) {
  if (!headers.error.empty()) return headers.error;
  for (const HeaderFile& h : headers.files)
    fs.addFile(h.path, 0, llvm::MemoryBuffer::getMemBuffer(h.text, h.path, true));
  return "";
}

}  // namespace clgen::clang_support
