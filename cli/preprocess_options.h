// Flags shared by the preprocess, corpus preprocess and shim commands:
// the builtin header choice, the shim, missing-name inference and the strict
// PTX mode.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "corpus/preprocess/preprocess.h"

namespace clgen::cli {

struct CompileFlags {
  std::string header = "clang";  // clang | libclc
  bool no_shim = false;
  bool no_infer = false;
  bool no_cl20 = false;
  bool to_ptx = false;

  void add_to(CLI::App& cmd) {
    cmd.add_option("--header", header, "Builtin declarations: clang (opencl-c.h) or libclc (clc/clc.h)")
        ->check(CLI::IsMember({"clang", "libclc"}))
        ->capture_default_str();
    cmd.add_flag("--no-shim", no_shim, "Never include the shim header");
    cmd.add_flag("--no-infer", no_infer,
                 "Never define an input's remaining missing names (types, qualifiers, upper-case constants)");
    cmd.add_flag("--no-cl20", no_cl20, "Never retry an input rejected as OpenCL C 1.2 as OpenCL C 2.0");
    cmd.add_flag("--to-ptx", to_ptx, "Strict: also link libclc and lower to PTX (NVPTX backend)");
  }

  preprocess::CompileOptions options() const {
    preprocess::CompileOptions o;
    o.header = header == "libclc" ? preprocess::BuiltinHeader::kLibclc : preprocess::BuiltinHeader::kClang;
    o.shim = !no_shim;
    o.infer_names = !no_infer;
    o.opencl20_fallback = !no_cl20;
    o.to_ptx = to_ptx;
    return o;
  }
};

}  // namespace clgen::cli
