// Training sets from the workspace database: the driver's runs joined with
// static kernel features into device-mapping rows (the CSV format of
// predict/mapping.h), and local-size sweeps turned into scenario x
// workgroup-size runtime tables (the format of predict/wgsize.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "features/static_features.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::dataset {

// One driven device: runs.platform and runs.device.
struct RunDevice {
  std::string platform;
  std::string device;
};

// The device of `runs` whose name (or "platform device") contains `spec`,
// case-insensitively. kNotFound when none does (the message lists every
// device with runs), kInvalidArgument when several distinct devices do.
Expected<RunDevice> find_run_device(Database& db, const std::string& spec);

// Where a driven kernel came from, resolved from the workspace tables.
struct KernelOrigin {
  std::string origin;  // "synthetic" (an accepted sample), "corpus" (a preprocessed kernel) or "file"
  // The program the kernel belongs to, for leave-one-group-out evaluation:
  // the repository (owner/name, else its source key) of a corpus kernel,
  // "synthetic-<model id>-<sample id>" for a sample (each sample is its own
  // program), "file:<path>" for a file argument.
  std::string group;
  // A sample's steering (sampler::SampleOrigin::steering: "undirected",
  // "features", "held-out", "explore"); empty for other origins.
  std::string steering;
};

struct ExportOptions {
  // The definitions of the six static feature columns: the reference
  // extractor's by default, so exported rows combine with the published
  // device-mapping datasets (a kernel without a __global parameter then has
  // no features and is left out with a note).
  features::GreweDefinitions grewe = features::GreweDefinitions::kReference;
};

// The options a dataset config sets: a TOML file whose `[features]` table may
// hold `grewe = "reference"` or `grewe = "clgen"` (absent: the default).
// Fails naming the file and key on a syntax error, an unknown key or value.
Expected<ExportOptions> load_export_options(const std::string& config_path);

struct ExportResult {
  std::string csv;
  size_t rows = 0;     // data rows in `csv`
  size_t kernels = 0;  // distinct (source, kernel name) among the rows
  // Why candidate runs were left out (one line per reason, with counts).
  std::vector<std::string> notes;
};

// Mapping rows: for every kernel (source sha256 + kernel name), global size,
// requested local size and build options with a passing run on both `cpu`
// and `gpu`, one row with columns
//   benchmark,dataset,comp,rational,mem,localmem,coalesced,atomic,transfer,
//   wgsize,oracle,runtime_cpu,runtime_gpu,group,origin,kernel,kernel_sha256,
//   global_size,requested_local_size,local_size_cpu,local_size_gpu,
//   kernel_ns_cpu,kernel_ns_gpu,transfer_ns_cpu,transfer_ns_gpu
// followed by the LLVM-IR instruction features of features/ir_features.h.
// benchmark = "<group>-<kernel>-<first 8 hex of sha256>", dataset = the
// global size ("4096", "1024x1024"; "/<local>" appended when requested).
// Runtimes are milliseconds of kernel + transfer time (means over the
// profiled repetitions), as CGO'17 measured whole-program time; transfer is
// transferred_bytes; wgsize is the requested local size's work-items, else
// the GPU run's. Static features come from the stored source text
// (kernel_sources, else samples / preprocessed by normalized_sha256); a
// kernel without a source or whose features fail is left out with a note.
// Fails with kNotFound when no row results.
Expected<ExportResult> export_mapping(Database& db, const RunDevice& cpu, const RunDevice& gpu,
                                      const ExportOptions& options = {});

// Workgroup-size table: one scenario per kernel, device, global size (1-D or
// 2-D) and build options that was driven with at least two requested local
// sizes; columns host (the platform), dev_name, dev_count (1),
// kern_checksum ("<sha256>:<kernel>"), north/south/east/west (0: not a
// stencil), data_width/data_height (global size; height 1 for 1-D),
// max_wg_size (CL_KERNEL_WORK_GROUP_SIZE), origin, group, kernel,
// kernel_sha256, global_size, then one "<l0>x<l1>" column per local size seen
// in any sweep (1-D sizes as "<l>x1") holding the mean kernel time in
// milliseconds, 0 where the size was refused, failed or not tried.
// Scenarios where no size passed are left out with a note. `device` empty =
// every device. Fails with kNotFound when no scenario results.
Expected<ExportResult> export_wgsize(Database& db, const RunDevice* device, const ExportOptions& options = {});

}  // namespace clgen::dataset
