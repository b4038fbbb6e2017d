// `clgen version [--deps]`: clgen's version and those of the libraries it links.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "support/version.h"

#ifdef CLGEN_HAVE_OPENCL
#include "driver/worker.h"
#endif
#ifdef CLGEN_HAVE_CORPUS
#include "corpus/versions.h"
#endif
#ifdef CLGEN_HAVE_CLANG
#include "corpus/preprocess/versions.h"
#endif
#ifdef CLGEN_HAVE_TORCH
#include "model/versions.h"
#endif

namespace clgen::cli {

namespace {

struct VersionOptions {
  bool deps = false;  // also list dependency versions
};

std::vector<DependencyVersion> all_dependency_versions() {
  std::vector<DependencyVersion> all = support_dependency_versions();
  auto add = [&all](std::vector<DependencyVersion> v) {
    all.insert(all.end(), v.begin(), v.end());
  };
  auto missing = [&all](const char* name, const char* component) {
    all.push_back({name, std::string("not built (component ") + component + " is off)", ""});
  };
#ifdef CLGEN_HAVE_OPENCL
  // Asked of clgen-worker: loading OpenCL drivers here could clash with Clang 15.
  auto report = driver::query_devices();
  add({{"OpenCL ICD loader",
        report.ok() ? report->icd_loader : "unknown (" + report.status().message() + ")",
        "runtime, via clgen-worker"}});
#else
  missing("OpenCL ICD loader", "OPENCL");
#endif
#ifdef CLGEN_HAVE_CORPUS
  add(corpus::dependency_versions());
#else
  missing("libgit2", "CORPUS");
  missing("libcurl", "CORPUS");
#endif
#ifdef CLGEN_HAVE_CLANG
  add(preprocess::dependency_versions());
#else
  missing("LLVM", "CLANG");
#endif
#ifdef CLGEN_HAVE_TORCH
  add(model::dependency_versions());
#else
  missing("LibTorch", "TORCH");
#endif
#ifndef CLGEN_HAVE_SENTENCEPIECE
  missing("SentencePiece", "SENTENCEPIECE");
#endif
  return all;
}

Status run_version(const VersionOptions& opts) {
  std::printf("clgen %s\n", clgen_version());
  if (!opts.deps) return ok_status();
  for (const auto& d : all_dependency_versions()) {
    std::printf("  %-18s %s%s\n", d.name.c_str(), d.version.c_str(),
                d.source.empty() ? "" : (" [" + d.source + "]").c_str());
  }
  return ok_status();
}

}  // namespace

void add_version_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<VersionOptions>();
  CLI::App* cmd = app.add_subcommand("version", "Print clgen's version");
  cmd->add_flag("--deps", opts->deps, "Also print the versions of linked libraries");
  cmd->final_callback([opts, &action] { action = [opts] { return run_version(*opts); }; });
  (void)global;
}

}  // namespace clgen::cli
