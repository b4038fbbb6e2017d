// Model packages: export from a workspace, verify and install into one.
#include "model/package.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/feature_prefix.h"
#include "model/language_model.h"
#include "model/network.h"
#include "model/store.h"
#include "model/trainer.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/version.h"

namespace clgen::model {

namespace fs = std::filesystem;

namespace {

constexpr int kFormat = 1;
constexpr const char* kVocabularyDir = "vocabulary";
constexpr const char* kConstraintTables = "constraint_tables.json";  // sampler/constraint_tables.h
constexpr uint64_t kMaxFileBytes = uint64_t{1} << 31;                // a package file larger than 2 GiB is refused

// The regular files directly inside `dir`, sorted by name.
Expected<std::vector<std::string>> files_in(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) names.push_back(it->path().filename().string());
  if (ec) return io_error(fmt::format("{}: {}", dir, ec.message()));
  std::sort(names.begin(), names.end());
  return names;
}

// The provenance of `id` from the workspace's training tables.
Expected<nlohmann::json> training_provenance(Database& db, const std::string& id) {
  RETURN_IF_ERROR(ensure_model_schema(db));
  nlohmann::json p = {{"clgen_version", clgen_version()}};
  ASSIGN_OR_RETURN(auto run, db.prepare("SELECT config, corpus_sha256, device, COALESCE(finished_at, '') "
                                        "FROM training_runs WHERE model_id = ?1 ORDER BY id DESC LIMIT 1"));
  RETURN_IF_ERROR(run.bind(1, id));
  ASSIGN_OR_RETURN(bool has_run, run.step());
  if (!has_run) return not_found(fmt::format("model {} has no training run recorded in this workspace", id));
  p["config"] = run.column_text(0);
  p["corpus_sha256"] = run.column_text(1);
  p["device"] = run.column_text(2);
  p["finished_at"] = run.column_text(3);
  ASSIGN_OR_RETURN(auto m, db.prepare("SELECT COUNT(*), COALESCE(SUM(seconds), 0), COALESCE(SUM(tokens), 0) "
                                      "FROM training_metrics WHERE model_id = ?1"));
  RETURN_IF_ERROR(m.bind(1, id));
  ASSIGN_OR_RETURN(bool has_metrics, m.step());
  if (has_metrics) {
    p["epochs"] = m.column_int(0);
    p["training_seconds"] = m.column_double(1);
    p["training_tokens"] = m.column_int(2);
  }
  ASSIGN_OR_RETURN(auto best, db.prepare("SELECT epoch, valid_loss FROM training_metrics WHERE model_id = ?1 "
                                         "AND valid_loss IS NOT NULL ORDER BY valid_loss, epoch LIMIT 1"));
  RETURN_IF_ERROR(best.bind(1, id));
  ASSIGN_OR_RETURN(bool has_best, best.step());
  if (has_best) {
    p["best_epoch"] = best.column_int(0);
    p["best_validation_loss"] = best.column_double(1);
  }
  return p;
}

Status copy_file(const std::string& from, const std::string& to) {
  ASSIGN_OR_RETURN(auto bytes, read_file(from, kMaxFileBytes));
  return write_file_atomic(to, bytes);
}

// One file of a package as package.json lists it, read and checked.
Expected<std::string> read_checked(const std::string& dir, const std::string& name, const nlohmann::json& entry) {
  const std::string path = (fs::path(dir) / name).string();
  if (!entry.is_object() || !entry.contains("sha256") || !entry["sha256"].is_string() || !entry.contains("bytes") ||
      !entry["bytes"].is_number_unsigned())
    return parse_error(fmt::format("{}: the entry for {} needs \"bytes\" and \"sha256\"",
                                   (fs::path(dir) / kPackageFile).string(), name));
  auto bytes = read_file(path, kMaxFileBytes);
  if (!bytes.ok()) return bytes.status();
  const uint64_t want_bytes = entry["bytes"].get<uint64_t>();
  if (bytes->size() != want_bytes)
    return parse_error(fmt::format("{}: {} bytes, but {} lists {}: the file is truncated or was changed", path,
                                   bytes->size(), kPackageFile, want_bytes));
  const std::string got = sha256_hex(*bytes), want = entry["sha256"].get<std::string>();
  if (got != want)
    return parse_error(fmt::format("{}: sha256 {} differs from the {} listed in {}: the file is corrupt or was changed",
                                   path, got.substr(0, 16), want.substr(0, 16), kPackageFile));
  return bytes;
}

// A name from package.json that stays inside the package: "x" or "vocabulary/x".
bool safe_name(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.find('\\') != std::string::npos) return false;
  for (const auto& part : fs::path(name))
    if (part == ".." || part == "." || part.empty()) return false;
  return true;
}

}  // namespace

Status export_model_package(const Workspace& ws, const std::string& requested_id, const std::string& dir) {
  std::string id = requested_id;
  if (id.empty()) {
    auto latest = read_file((fs::path(ws.root()) / "models" / "latest").string());
    if (!latest.ok())
      return not_found(fmt::format("no trained model in workspace {}: run `clgen train` first", ws.root()));
    id = *latest;
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  }
  const std::string model_dir = model_directory(ws, id);
  const std::string meta_path = (fs::path(model_dir) / "model.json").string();
  ASSIGN_OR_RETURN(auto meta_text, read_file(meta_path));
  auto meta = nlohmann::json::parse(meta_text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object()) return parse_error(meta_path + ": not JSON");
  const std::string best = (fs::path(model_dir) / meta.value("best_checkpoint", kBestCheckpointFile)).string();
  std::error_code ec;
  if (!fs::exists(best, ec))
    return not_found(fmt::format("model {} has no best checkpoint ({}): train it with validation first", id, best));
  ASSIGN_OR_RETURN(auto db, ws.open_database());
  ASSIGN_OR_RETURN(auto provenance, training_provenance(db, id));

  fs::create_directories(fs::path(dir) / kVocabularyDir, ec);
  if (ec) return io_error(fmt::format("creating {}: {}", dir, ec.message()));
  nlohmann::json files = nlohmann::json::object();
  auto put = [&](const std::string& name, const std::string& bytes) -> Status {
    RETURN_IF_ERROR(write_file_atomic((fs::path(dir) / name).string(), bytes));
    files[name] = {{"bytes", bytes.size()}, {"sha256", sha256_hex(bytes)}};
    return ok_status();
  };
  // The installed model has one set of weights: its last checkpoint is its best.
  meta["checkpoint"] = kBestCheckpointFile;
  meta["best_checkpoint"] = kBestCheckpointFile;
  RETURN_IF_ERROR(put("model.json", meta.dump(1) + "\n"));
  ASSIGN_OR_RETURN(auto weights, read_file(best, kMaxFileBytes));
  RETURN_IF_ERROR(put(kBestCheckpointFile, weights));
  for (const char* optional : {kConstraintTables, kFeatureHeadersFile}) {
    auto bytes = read_file((fs::path(model_dir) / optional).string(), kMaxFileBytes);
    if (bytes.ok()) RETURN_IF_ERROR(put(optional, *bytes));
    else if (bytes.status().code() != ErrorCode::kNotFound) return bytes.status();
  }
  const std::string vocab_dir = (fs::path(ws.root()) / meta.value("vocabulary", "")).string();
  ASSIGN_OR_RETURN(auto vocab_files, files_in(vocab_dir));
  if (vocab_files.empty()) return not_found(fmt::format("model {}: its vocabulary {} holds no files", id, vocab_dir));
  for (const auto& name : vocab_files) {
    ASSIGN_OR_RETURN(auto bytes, read_file((fs::path(vocab_dir) / name).string(), kMaxFileBytes));
    RETURN_IF_ERROR(put(std::string(kVocabularyDir) + "/" + name, bytes));
  }
  nlohmann::json package = {{"format", kFormat}, {"model_id", id}, {"files", files}, {"provenance", provenance}};
  return write_file_atomic((fs::path(dir) / kPackageFile).string(), package.dump(1) + "\n");
}

Expected<std::string> install_model_package(const Workspace& ws, const std::string& dir) {
  const std::string package_path = (fs::path(dir) / kPackageFile).string();
  auto package_text = read_file(package_path, 1 << 20);
  if (!package_text.ok()) return package_text.status();
  auto package = nlohmann::json::parse(*package_text, nullptr, false);
  if (package.is_discarded() || !package.is_object()) return parse_error(package_path + ": not JSON");
  if (package.value("format", 0) != kFormat)
    return parse_error(fmt::format("{}: format {} is not {}, the one this clgen reads", package_path,
                                   package.value("format", 0), kFormat));
  const std::string id = package.value("model_id", "");
  if (id.empty() || !safe_name(id) || id.find('/') != std::string::npos)
    return parse_error(package_path + ": no valid \"model_id\"");
  if (!package.contains("files") || !package["files"].is_object())
    return parse_error(package_path + ": no \"files\" object");

  // Every file is read and checked before anything is written.
  std::map<std::string, std::string> contents;
  for (const auto& [name, entry] : package["files"].items()) {
    if (!safe_name(name))
      return parse_error(fmt::format("{}: file name \"{}\" leaves the package", package_path, name));
    ASSIGN_OR_RETURN(contents[name], read_checked(dir, name, entry));
  }
  for (const char* required : {"model.json", kBestCheckpointFile})
    if (!contents.count(required)) return parse_error(fmt::format("{}: lists no {}", package_path, required));
  const std::string meta_path = (fs::path(dir) / "model.json").string();
  auto meta = nlohmann::json::parse(contents["model.json"], nullptr, false);
  if (meta.is_discarded() || !meta.is_object()) return parse_error(meta_path + ": not JSON");
  if (meta.value("model_id", "") != id)
    return parse_error(fmt::format("{}: model id \"{}\" differs from {}'s \"{}\"", meta_path,
                                   meta.value("model_id", ""), kPackageFile, id));
  const std::string vocabulary = meta.value("vocabulary", "");
  const fs::path vocabulary_path(vocabulary);
  if (vocabulary.rfind("vocabularies/", 0) != 0 || !safe_name(vocabulary) ||
      std::distance(vocabulary_path.begin(), vocabulary_path.end()) != 2)
    return parse_error(
        fmt::format("{}: \"vocabulary\" must be vocabularies/<name>, not \"{}\"", meta_path, vocabulary));
  std::map<std::string, std::string> vocab_files;  // file name -> bytes
  const std::string vocab_prefix = std::string(kVocabularyDir) + "/";
  for (const auto& [name, bytes] : contents)
    if (name.rfind(vocab_prefix, 0) == 0) vocab_files[name.substr(vocab_prefix.size())] = bytes;
  if (vocab_files.empty()) return parse_error(fmt::format("{}: lists no vocabulary files", package_path));

  const fs::path models = fs::path(ws.root()) / "models";
  const fs::path target = models / id;
  const fs::path vocab_target = fs::path(ws.root()) / vocabulary;
  std::error_code ec;
  // The vocabulary: reused when the workspace holds the same one.
  if (fs::exists(vocab_target, ec)) {
    for (const auto& [name, bytes] : vocab_files) {
      auto have = read_file((vocab_target / name).string(), kMaxFileBytes);
      if (!have.ok() || *have != bytes)
        return invalid_argument(
            fmt::format("{}: the workspace's vocabulary {} differs from the package's "
                        "(not replaced)",
                        (fs::path(dir) / kVocabularyDir / name).string(), vocab_target.string()));
    }
  }
  // A model of this id already there: the same weights are this package, installed before.
  if (fs::exists(target / "model.json", ec)) {
    auto have = read_file((target / kBestCheckpointFile).string(), kMaxFileBytes);
    if (!have.ok() || *have != contents[kBestCheckpointFile])
      return invalid_argument(
          fmt::format("{}: the workspace already holds model {} with other weights (trained "
                      "there?) in {}: not replaced",
                      (fs::path(dir) / kBestCheckpointFile).string(), id, target.string()));
    RETURN_IF_ERROR(write_file_atomic((models / "latest").string(), id + "\n"));
    return id;
  }

  if (!fs::exists(vocab_target, ec)) {
    const fs::path staging = vocab_target.string() + ".install";
    RETURN_IF_ERROR(remove_tree(staging.string()));
    fs::create_directories(staging, ec);
    if (ec) return io_error(fmt::format("creating {}: {}", staging.string(), ec.message()));
    for (const auto& [name, bytes] : vocab_files) RETURN_IF_ERROR(write_file_atomic((staging / name).string(), bytes));
    RETURN_IF_ERROR(rename_path(staging.string(), vocab_target.string()));
  }
  // The model, staged and loaded before it takes its name.
  const std::string staging_id = ".install-" + id;
  const fs::path staging = models / staging_id;
  RETURN_IF_ERROR(remove_tree(staging.string()));
  fs::create_directories(staging, ec);
  if (ec) return io_error(fmt::format("creating {}: {}", staging.string(), ec.message()));
  for (const auto& [name, bytes] : contents)
    if (name.rfind(vocab_prefix, 0) != 0) RETURN_IF_ERROR(write_file_atomic((staging / name).string(), bytes));
  // Loading alone copies tensors of any shape into the network's parameters:
  // one step of a stream runs the network on them.
  auto check = [&]() -> Status {
    try {
      ASSIGN_OR_RETURN(auto lm, LanguageModel::load(ws.root(), staging_id, "cpu"));
      ASSIGN_OR_RETURN(auto batch, lm->new_batch(1, 1));
      RETURN_IF_ERROR(batch->feed_all("__kernel void A("));
      ASSIGN_OR_RETURN(auto token, batch->sample(1.0));
      (void)token;
      return ok_status();
    } catch (const std::exception& e) {
      const std::string what = e.what();  // LibTorch's messages go on with a trace: its first line
      return invalid_argument(what.substr(0, what.find('\n')));
    }
  };
  Status loaded = check();
  if (!loaded.ok()) {
    (void)remove_tree(staging.string());
    const std::string why = loaded.message();
    return invalid_argument(why.substr(0, why.find('\n')))
        .with_context(fmt::format("{}: the weights do not load as the network of model.json",
                                  (fs::path(dir) / kBestCheckpointFile).string()));
  }
  RETURN_IF_ERROR(rename_path(staging.string(), target.string()));
  RETURN_IF_ERROR(write_file_atomic((models / "latest").string(), id + "\n"));
  return id;
}

}  // namespace clgen::model
