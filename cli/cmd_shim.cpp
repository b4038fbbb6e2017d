// `clgen shim infer [PATH...]`: derive shim entries from the compile errors of
// a corpus (files, directories, or the workspace's kernel files with their includes).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/command.h"
#include "corpus/assemble.h"
#include "shim/infer.h"
#include "support/files.h"
#include "support/workspace.h"

namespace clgen::cli {
namespace {

// The kernels Debian installs: the project's default corpus.
const std::vector<std::string> kDefaultCorpus = {"/usr/share/pocl-tests", "/usr/share/ufo",
                                                 "/usr/share/hashcat/OpenCL"};

struct ShimInferOptions {
  std::vector<std::string> paths;  // empty: the default corpus
  bool from_db = false;            // read the workspace's kernel files instead
  std::string out;                 // header file to write; empty: stdout
  shim::InferOptions infer;        // --min-files binds here: the library's default
  int show = 40;                   // candidates listed on stderr
  std::string header = "clang";
};

Status collect(const std::string& path, std::vector<std::string>& texts) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    ASSIGN_OR_RETURN(std::string t, read_file(path, preprocess::kMaxInputBytes));
    texts.push_back(std::move(t));
    return ok_status();
  }
  if (!fs::is_directory(path, ec)) return not_found(path + ": no such file or directory");
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(path, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".cl") files.push_back(it->path().string());
  }
  if (ec) return io_error(path + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    Expected<std::string> t = read_file(f, preprocess::kMaxInputBytes);
    if (t) texts.push_back(std::move(*t));  // oversized files are skipped
  }
  return ok_status();
}

Status run_shim_infer(const GlobalOptions& global, const ShimInferOptions& opts) {
  std::vector<std::string> texts;
  std::string provenance;
  if (opts.from_db) {
    ASSIGN_OR_RETURN(Workspace ws, Workspace::open(global.workspace));
    ASSIGN_OR_RETURN(Database db, ws.open_database());
    // Kernel files with their stored includes inlined, as preprocess compiles them.
    ASSIGN_OR_RETURN(std::vector<std::string> shas, corpus::kernel_contents(db));
    corpus::Assembler assembler(db);
    for (const std::string& sha : shas) {
      Expected<std::string> text = assembler.assemble(sha);
      if (text.ok()) texts.push_back(std::move(*text));  // too large after inlining: left out
    }
    provenance = "Corpus: the kernel files of " + db.path() + ", includes inlined.";
  } else {
    const std::vector<std::string>& paths = opts.paths.empty() ? kDefaultCorpus : opts.paths;
    provenance = "Corpus: the .cl files under";
    for (const std::string& p : paths) {
      RETURN_IF_ERROR_CTX(collect(p, texts), "shim infer");
      provenance += " " + p;
    }
    provenance += ".";
  }
  shim::InferOptions io = opts.infer;
  io.header = opts.header == "libclc" ? preprocess::BuiltinHeader::kLibclc : preprocess::BuiltinHeader::kClang;
  ASSIGN_OR_RETURN(shim::InferReport report, shim::infer(texts, io));
  std::fprintf(stderr, "%llu files: %llu compile without a shim, %llu fail (%llu only for missing names)\n",
               static_cast<unsigned long long>(report.files), static_cast<unsigned long long>(report.compiled),
               static_cast<unsigned long long>(report.failed),
               static_cast<unsigned long long>(report.only_missing_names));
  std::fprintf(stderr, "%-28s %-20s %6s %8s  %s\n", "name", "use", "files", "rescued", "proposal");
  int shown = 0;
  for (const shim::Candidate& c : report.candidates) {
    if (shown++ >= opts.show) break;
    std::fprintf(stderr, "%-28s %-20s %6llu %8llu  %s%s\n", c.name.c_str(), shim::use_name(c.use),
                 static_cast<unsigned long long>(c.files), static_cast<unsigned long long>(c.rescued),
                 c.definition.c_str(), c.accepted ? "" : "  (not enabled)");
  }
  std::string header = shim::render_header(
      report, provenance + " Command: clgen shim infer --min-files " + std::to_string(opts.infer.min_files) + ".");
  if (opts.out.empty()) {
    std::fputs(header.c_str(), stdout);
    return ok_status();
  }
  return write_file_atomic(opts.out, header).with_context("writing the shim");
}

}  // namespace

void add_shim_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  CLI::App* shim = app.add_subcommand("shim", "The shim header of inferred types and constants");
  shim->require_subcommand(1);
  auto opts = std::make_shared<ShimInferOptions>();
  CLI::App* infer = shim->add_subcommand(
      "infer", "Compile a corpus without the shim and propose entries for the names it lacks");
  infer->add_option("paths", opts->paths, "Files or directories of .cl files (default: installed kernels)")
      ->check(non_empty());
  infer->add_flag("--from-db", opts->from_db, "Read the workspace's kernel files (includes inlined) instead of paths");
  infer->add_option("-o,--out", opts->out, "Write the header here (default: stdout)");
  infer->add_option("--min-files", opts->infer.min_files, "Files a name must be missing in")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  infer->add_option("--show", opts->show, "Candidates listed on stderr")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  infer->add_option("--header", opts->header, "Builtin declarations: clang or libclc")
      ->check(CLI::IsMember({"clang", "libclc"}))
      ->capture_default_str();
  infer->final_callback([opts, &global, &action] {
    action = [opts, &global] { return run_shim_infer(global, *opts); };
  });
}

}  // namespace clgen::cli
