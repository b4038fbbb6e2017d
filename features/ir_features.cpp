// LLVM-IR instruction counts and densities per kernel, over a fixed opcode list.
#include "features/ir_features.h"

#include <algorithm>

#include <fmt/format.h>

#include "corpus/preprocess/opcode_counts.h"

namespace clgen::features {

const std::vector<std::string>& ir_opcodes() {
  static const std::vector<std::string> ops = {
      "ret",     "br",       "switch",        "unreachable",    "fneg",          "add",
      "fadd",    "sub",      "fsub",          "mul",            "fmul",          "udiv",
      "sdiv",    "fdiv",     "urem",          "srem",           "frem",          "shl",
      "lshr",    "ashr",     "and",           "or",             "xor",           "extractelement",
      "insertelement", "shufflevector", "alloca", "load",        "store",         "getelementptr",
      "atomicrmw", "cmpxchg", "fence",        "trunc",          "zext",          "sext",
      "fptoui",  "fptosi",   "uitofp",        "sitofp",         "fptrunc",       "fpext",
      "ptrtoint", "inttoptr", "bitcast",      "addrspacecast",  "icmp",          "fcmp",
      "phi",     "select",   "call"};
  return ops;
}

Expected<std::vector<IrFeatures>> extract_ir_features(std::string_view source) {
  ASSIGN_OR_RETURN(auto kernels, preprocess::count_kernel_opcodes(source));
  const auto& ops = ir_opcodes();
  std::vector<IrFeatures> out;
  for (const auto& k : kernels) {
    IrFeatures f;
    f.kernel = k.kernel;
    f.total = static_cast<long>(k.total);
    f.counts.assign(ops.size() + 1, 0);
    for (const auto& [op, n] : k.opcodes) {
      auto it = std::find(ops.begin(), ops.end(), op);
      f.counts[it == ops.end() ? ops.size() : static_cast<size_t>(it - ops.begin())] += static_cast<long>(n);
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string ir_features_csv_header() {
  std::string h = "ir_total";
  for (const auto& op : ir_opcodes()) h += ",ir_" + op;
  h += ",ir_other";
  for (const auto& op : ir_opcodes()) h += ",ir_" + op + "_density";
  h += ",ir_other_density";
  return h;
}

std::string ir_features_csv_values(const IrFeatures& f) {
  std::string v = std::to_string(f.total);
  for (long c : f.counts) v += "," + std::to_string(c);
  for (long c : f.counts)
    v += "," + (f.total > 0 ? fmt::format("{:.6g}", static_cast<double>(c) / f.total) : std::string("0"));
  return v;
}

std::string ir_features_csv_empty() {
  return std::string(2 * (ir_opcodes().size() + 1), ',');
}

}  // namespace clgen::features
