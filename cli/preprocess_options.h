// Flags shared by the preprocess, corpus preprocess and shim commands:
// the builtin header choice, the shim, missing-name inference and the strict
// PTX mode; the Clang budget of preprocess, corpus preprocess, sample and
// drive; and -I/-D of the commands that read kernel files (preprocess,
// features).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "corpus/preprocess/budget.h"
#include "corpus/preprocess/local_source.h"
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

// The time and memory budget of Clang's work on untrusted text (budget.h):
// preprocess and corpus preprocess per file (ClangBudget's defaults), sample
// per sample and drive per source (their own defaults, given here).
struct BudgetFlags {
  preprocess::ClangBudget budget;
  bool in_process = false;

  BudgetFlags() = default;
  explicit BudgetFlags(preprocess::ClangBudget defaults) : budget(std::move(defaults)) {}

  // `unit`: what one time limit covers ("file", "sample", "source"); the
  // others: what becomes of a unit over the time or the memory limit.
  void add_to(CLI::App& cmd, const std::string& unit = "file",
              const std::string& over_time = "is rejected as time_limit",
              const std::string& over_memory = "is rejected as memory_limit") {
    cmd.add_option("--clang-time-limit", budget.time_limit_s,
                   "Wall-clock seconds of Clang work per " + unit + "; a " + unit + " that takes longer " + over_time)
        ->check(CLI::Range(0.001, 86400.0))
        ->capture_default_str();
    cmd.add_option("--clang-memory-limit", budget.memory_limit_mb,
                   "Memory of each Clang worker process (MiB); a " + unit + " that needs more " + over_memory)
        ->check(CLI::Range(uint64_t{64}, uint64_t{1} << 30))
        ->capture_default_str();
    cmd.add_flag("--clang-in-process", in_process,
                 "Run Clang inside clgen, without the time and memory limits (trusted input only)");
  }

  preprocess::ClangBudget options() const {
    preprocess::ClangBudget b = budget;
    b.isolated = !in_process;
    return b;
  }
};

// -I and -D, as clang takes them (each repeatable, one value per flag).
struct SourceFlags {
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;

  void add_to(CLI::App& cmd) {
    // One value per flag: without allow_extra_args(false) CLI11 lets `-I dir`
    // swallow the file names after it.
    cmd.add_option("-I,--include-dir", include_dirs,
                   "Search this directory for included files after the including file's own (repeatable); "
                   "nothing is read from outside these directories and the file's")
        ->check(CLI::ExistingDirectory)
        ->allow_extra_args(false);
    cmd.add_option("-D,--define", defines, "Define a macro: NAME or NAME=VALUE (repeatable)")->allow_extra_args(false);
  }

  preprocess::LocalSourceOptions options() const { return {include_dirs, defines}; }
};

}  // namespace clgen::cli
