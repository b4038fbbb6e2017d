// The char and SentencePiece vocabularies and their factory. SentencePiece is
// reached only through libclgen_sentencepiece, loaded with dlopen (see
// sentencepiece/spm_bridge.h for why). Only C types and buffers allocated and
// freed on the bridge's side cross into its link namespace.
#include "model/vocabulary.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/sentencepiece/spm_bridge.h"
#include "support/files.h"
#include "support/sha256.h"

namespace clgen::model {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMetaFile = "vocabulary.json";
constexpr const char* kSpmModelFile = "sentencepiece.model";

// ---------------------------------------------------------------------------
// char: token 0 pads, 1 separates kernels, 2 stands for unknown characters,
// then one token per distinct byte of the corpus (UTF-8 passes through as bytes).
class CharVocabulary final : public Vocabulary {
 public:
  static constexpr Token kPad = 0, kSeparator = 1, kUnknown = 2, kFirstByte = 3;

  explicit CharVocabulary(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {
    index_.fill(kUnknown);
    for (size_t i = 0; i < bytes_.size(); ++i) index_[bytes_[i]] = kFirstByte + Token(i);
  }

  std::string type() const override { return "char"; }
  int size() const override { return kFirstByte + int(bytes_.size()); }
  Token separator() const override { return kSeparator; }

  Expected<std::vector<Token>> encode(std::string_view text) const override {
    std::vector<Token> out;
    out.reserve(text.size());
    for (unsigned char c : text) out.push_back(index_[c]);
    return out;
  }

  Expected<std::string> decode(const std::vector<Token>& tokens) const override {
    std::string out;
    out.reserve(tokens.size());
    for (Token t : tokens) {
      if (t < 0 || t >= size()) return invalid_argument(fmt::format("token {} out of range", t));
      if (t >= kFirstByte) out.push_back(char(bytes_[size_t(t - kFirstByte)]));
    }
    return out;
  }

  std::string fingerprint() const override { return sha256_hex(meta().dump()).substr(0, 16); }

  Status save(const std::string& dir) const override {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return io_error("creating " + dir + ": " + ec.message());
    return write_file_atomic((fs::path(dir) / kMetaFile).string(), meta().dump(1) + "\n");
  }

 private:
  nlohmann::json meta() const {
    return {{"type", "char"}, {"bytes", bytes_}};
  }
  std::vector<uint8_t> bytes_;
  std::array<Token, 256> index_;
};

// ---------------------------------------------------------------------------
// The dlopen'ed bridge, loaded once per process.
struct SpmApi {
  decltype(&clgen_spm_train) train = nullptr;
  decltype(&clgen_spm_load) load = nullptr;
  decltype(&clgen_spm_free) free = nullptr;
  decltype(&clgen_spm_size) size = nullptr;
  decltype(&clgen_spm_piece_to_id) piece_to_id = nullptr;
  decltype(&clgen_spm_encode) encode = nullptr;
  decltype(&clgen_spm_decode) decode = nullptr;
  decltype(&clgen_spm_free_buffer) free_buffer = nullptr;
};

Expected<const SpmApi*> spm_api() {
  static std::once_flag once;
  static SpmApi api;
  static Status error;
  std::call_once(once, [] {
    std::string path = sentencepiece_library_path();
    if (path.empty()) {
      error = unavailable(
          "SentencePiece support library libclgen_sentencepiece.so not found (set "
          "CLGEN_SENTENCEPIECE_LIBRARY or rebuild with libsentencepiece-dev installed)");
      return;
    }
    // A link namespace of its own: SentencePiece's bundled protobuf never
    // meets LibTorch's. (dlopen with RTLD_DEEPBIND also separates protobuf,
    // but then SentencePiece's logging writes to libstdc++'s own std::cerr,
    // which is never constructed when the executable holds a copy-relocated
    // std::cerr, as ours does: the trainer crashed on its first log line.)
    void* lib = dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = unavailable(fmt::format("loading {}: {}", path, dlerror()));
      return;
    }
    auto sym = [&](const char* name) { return dlsym(lib, name); };
    api.train = reinterpret_cast<decltype(api.train)>(sym("clgen_spm_train"));
    api.load = reinterpret_cast<decltype(api.load)>(sym("clgen_spm_load"));
    api.free = reinterpret_cast<decltype(api.free)>(sym("clgen_spm_free"));
    api.size = reinterpret_cast<decltype(api.size)>(sym("clgen_spm_size"));
    api.piece_to_id = reinterpret_cast<decltype(api.piece_to_id)>(sym("clgen_spm_piece_to_id"));
    api.encode = reinterpret_cast<decltype(api.encode)>(sym("clgen_spm_encode"));
    api.decode = reinterpret_cast<decltype(api.decode)>(sym("clgen_spm_decode"));
    api.free_buffer = reinterpret_cast<decltype(api.free_buffer)>(sym("clgen_spm_free_buffer"));
    if (!api.train || !api.load || !api.free || !api.size || !api.piece_to_id || !api.encode ||
        !api.decode || !api.free_buffer)
      error = unavailable(path + ": missing clgen_spm_* symbols (stale library?)");
  });
  if (!error.ok()) return error;
  return &api;
}

// SentencePiece reads its training input line by line and drops tabs and
// carriage returns from its character set, so these three are carried as
// private-use characters (U+E000..U+E002), declared user symbols.
constexpr char kStandInChars[] = {'\n', '\t', '\r'};
constexpr std::string_view kStandIns[] = {"\xEE\x80\x80", "\xEE\x80\x81", "\xEE\x80\x82"};

std::string to_stand_ins(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    size_t i = 0;
    while (i < 3 && kStandInChars[i] != c) ++i;
    if (i < 3) out += kStandIns[i];
    else out.push_back(c);
  }
  return out;
}

std::string from_stand_ins(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t p = 0; p < text.size();) {
    size_t i = 0;
    while (i < 3 && text.compare(p, kStandIns[i].size(), kStandIns[i]) != 0) ++i;
    if (i < 3) {
      out.push_back(kStandInChars[i]);
      p += kStandIns[i].size();
    } else {
      out.push_back(text[p++]);
    }
  }
  return out;
}

// sentencepiece: unknown is id 0, the kernel separator is SentencePiece's
// end-of-sentence id 1, padding id 2; the rest are learned pieces.
class SentencePieceVocabulary final : public Vocabulary {
 public:
  static Expected<std::unique_ptr<Vocabulary>> open(const std::string& dir,
                                                    const nlohmann::json& meta) {
    ASSIGN_OR_RETURN(const SpmApi* api, spm_api());
    std::string model_path = (fs::path(dir) / kSpmModelFile).string();
    ASSIGN_OR_RETURN(std::string bytes, read_file(model_path));
    char err[512] = "";
    void* handle = nullptr;
    if (api->load(model_path.c_str(), &handle, err, sizeof err) != 0)
      return parse_error(fmt::format("loading SentencePiece model {}: {}", model_path, err));
    auto v = std::unique_ptr<SentencePieceVocabulary>(new SentencePieceVocabulary(api, handle));
    v->model_bytes_ = std::move(bytes);
    v->meta_ = meta;
    v->separator_ = api->piece_to_id(handle, "</s>");
    if (v->separator_ < 0) return parse_error(model_path + ": no </s> piece");
    return std::unique_ptr<Vocabulary>(std::move(v));
  }

  ~SentencePieceVocabulary() override { api_->free(handle_); }

  std::string type() const override { return "sentencepiece"; }
  int size() const override { return api_->size(handle_); }
  Token separator() const override { return separator_; }

  Expected<std::vector<Token>> encode(std::string_view text) const override {
    std::string in = to_stand_ins(text);
    int32_t* ids = nullptr;
    size_t n = 0;
    char err[512] = "";
    if (api_->encode(handle_, in.data(), in.size(), &ids, &n, err, sizeof err) != 0)
      return invalid_argument(std::string("SentencePiece encode: ") + err);
    std::vector<Token> out(ids, ids + n);
    api_->free_buffer(ids);
    return out;
  }

  Expected<std::string> decode(const std::vector<Token>& tokens) const override {
    int n = size();
    for (Token t : tokens)
      if (t < 0 || t >= n) return invalid_argument(fmt::format("token {} out of range", t));
    char* text = nullptr;
    size_t len = 0;
    char err[512] = "";
    if (api_->decode(handle_, tokens.data(), tokens.size(), &text, &len, err, sizeof err) != 0)
      return invalid_argument(std::string("SentencePiece decode: ") + err);
    std::string out(text, len);
    api_->free_buffer(text);
    return from_stand_ins(out);
  }

  std::string fingerprint() const override {
    return sha256_hex(meta_.dump() + model_bytes_).substr(0, 16);
  }

  Status save(const std::string& dir) const override {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return io_error("creating " + dir + ": " + ec.message());
    RETURN_IF_ERROR(write_file_atomic((fs::path(dir) / kSpmModelFile).string(), model_bytes_));
    return write_file_atomic((fs::path(dir) / kMetaFile).string(), meta_.dump(1) + "\n");
  }

 private:
  SentencePieceVocabulary(const SpmApi* api, void* handle) : api_(api), handle_(handle) {}
  const SpmApi* api_;
  void* handle_;
  std::string model_bytes_;
  nlohmann::json meta_;
  Token separator_ = 1;
};

Expected<std::unique_ptr<Vocabulary>> train_sentencepiece(const VocabularyConfig& config,
                                                          const std::vector<std::string>& texts,
                                                          const std::string& work_dir) {
  if (config.algorithm != "unigram" && config.algorithm != "bpe")
    return invalid_argument("vocabulary.algorithm must be \"unigram\" or \"bpe\", not \"" +
                            config.algorithm + "\"");
  if (config.size < 8) return invalid_argument("vocabulary.size must be at least 8");
  ASSIGN_OR_RETURN(const SpmApi* api, spm_api());
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  if (ec) return io_error("creating " + work_dir + ": " + ec.message());

  // One kernel per line of the training input.
  std::string input_path = (fs::path(work_dir) / "sentencepiece-input.txt").string();
  std::string input;
  size_t longest = 0;
  for (const auto& t : texts) {
    std::string line = to_stand_ins(t);
    longest = std::max(longest, line.size());
    input += line;
    input += '\n';
  }
  RETURN_IF_ERROR(write_file_atomic(input_path, input));
  std::string prefix = (fs::path(work_dir) / "sentencepiece").string();
  // Identity normalization and no whitespace rewriting, so decoding gives back
  // the exact text; full character coverage so every corpus character is a piece.
  std::string args = fmt::format(
      "--input={} --model_prefix={} --model_type={} --vocab_size={} "
      "--character_coverage=1.0 --normalization_rule_name=identity "
      "--add_dummy_prefix=false --remove_extra_whitespaces=false "
      "--hard_vocab_limit=false --max_sentence_length={} --input_sentence_size=2000000 "
      "--shuffle_input_sentence=true --split_digits=false --num_threads=2 "
      "--unk_id=0 --eos_id=1 --pad_id=2 --bos_id=-1 --user_defined_symbols={} "
      "--seed_sentencepiece_size=200000",
      input_path, prefix, config.algorithm, config.size, std::max<size_t>(4192, longest + 16),
      fmt::format("{},{},{}", kStandIns[0], kStandIns[1], kStandIns[2]));
  char err[1024] = "";
  if (api->train(args.c_str(), err, sizeof err) != 0)
    return invalid_argument(std::string("training SentencePiece vocabulary: ") + err);
  (void)remove_file(input_path);  // scratch: a leftover is harmless
  nlohmann::json meta = {
      {"type", "sentencepiece"}, {"algorithm", config.algorithm}, {"size", config.size}};
  // Move the model into a directory of its own layout and load it from there.
  std::string model_dir = (fs::path(work_dir) / "trained").string();
  fs::create_directories(model_dir, ec);
  RETURN_IF_ERROR_CTX(rename_path(prefix + ".model", (fs::path(model_dir) / kSpmModelFile).string()),
                      "moving the SentencePiece model");
  (void)remove_file(prefix + ".vocab");
  RETURN_IF_ERROR(
      write_file_atomic((fs::path(model_dir) / kMetaFile).string(), meta.dump(1) + "\n"));
  return SentencePieceVocabulary::open(model_dir, meta);
}

}  // namespace

std::string sentencepiece_library_path() {
  constexpr const char* kName = "libclgen_sentencepiece.so";
  std::error_code ec;
  if (const char* env = std::getenv("CLGEN_SENTENCEPIECE_LIBRARY"); env && *env) return env;
  std::array<char, 4096> exe{};
  ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  if (n > 0) {
    fs::path beside = fs::path(std::string(exe.data(), size_t(n))).parent_path() / kName;
    if (fs::exists(beside, ec)) return beside.string();
  }
#ifdef CLGEN_SENTENCEPIECE_BUILD_PATH
  if (fs::exists(CLGEN_SENTENCEPIECE_BUILD_PATH, ec)) return CLGEN_SENTENCEPIECE_BUILD_PATH;
#endif
  return "";
}

Expected<std::unique_ptr<Vocabulary>> train_vocabulary(const VocabularyConfig& config,
                                                       const std::vector<std::string>& texts,
                                                       const std::string& work_dir) {
  if (texts.empty()) return invalid_argument("cannot build a vocabulary from an empty corpus");
  if (config.type == "char") {
    std::array<bool, 256> seen{};
    for (const auto& t : texts)
      for (unsigned char c : t) seen[c] = true;
    std::vector<uint8_t> bytes;
    for (int c = 0; c < 256; ++c)
      if (seen[size_t(c)]) bytes.push_back(uint8_t(c));
    return std::unique_ptr<Vocabulary>(new CharVocabulary(std::move(bytes)));
  }
  if (config.type == "sentencepiece") return train_sentencepiece(config, texts, work_dir);
  return invalid_argument("vocabulary.type must be \"char\" or \"sentencepiece\", not \"" +
                          config.type + "\"");
}

Expected<std::unique_ptr<Vocabulary>> load_vocabulary(const std::string& dir) {
  std::string meta_path = (fs::path(dir) / kMetaFile).string();
  ASSIGN_OR_RETURN(std::string text, read_file(meta_path));
  nlohmann::json meta = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.is_object() || !meta.contains("type"))
    return parse_error(meta_path + ": not a vocabulary description");
  std::string type = meta.value("type", "");
  if (type == "char") {
    if (!meta.contains("bytes") || !meta["bytes"].is_array())
      return parse_error(meta_path + ": missing \"bytes\"");
    std::vector<uint8_t> bytes;
    for (const auto& b : meta["bytes"]) {
      if (!b.is_number_unsigned() || b.get<unsigned>() > 255)
        return parse_error(meta_path + ": bad byte value");
      bytes.push_back(uint8_t(b.get<unsigned>()));
    }
    return std::unique_ptr<Vocabulary>(new CharVocabulary(std::move(bytes)));
  }
  if (type == "sentencepiece") return SentencePieceVocabulary::open(dir, meta);
  return parse_error(meta_path + ": unknown vocabulary type \"" + type + "\"");
}

}  // namespace clgen::model
