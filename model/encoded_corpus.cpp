// Encoding the corpus once into cached token files, and mapping them back.
#include "model/encoded_corpus.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/sha256.h"

namespace clgen::model {

namespace fs = std::filesystem;

namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Writes tokens to `path` through a temp file + rename, so an interrupted
// encoding never leaves a truncated cache entry.
class TokenWriter {
 public:
  Status open(const std::string& path) {
    path_ = path;
    tmp_ = path + ".tmp." + std::to_string(getpid());
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_) return io_error(fmt::format("creating {}: {}", tmp_, std::strerror(errno)));
    return ok_status();
  }
  void write(const std::vector<Token>& tokens) {
    out_.write(reinterpret_cast<const char*>(tokens.data()),
               std::streamsize(tokens.size() * sizeof(Token)));
    count_ += tokens.size();
  }
  Status commit() {
    out_.flush();
    if (!out_) return io_error("writing " + tmp_);
    out_.close();
    std::error_code ec;
    fs::rename(tmp_, path_, ec);
    if (ec) return io_error(fmt::format("renaming {} to {}: {}", tmp_, path_, ec.message()));
    return ok_status();
  }
  uint64_t count() const { return count_; }

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  uint64_t count_ = 0;
};

}  // namespace

std::vector<size_t> shuffled_order(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  uint64_t state = seed;
  for (size_t i = n; i > 1; --i) {
    size_t j = size_t(splitmix64(state) % i);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

Expected<TokenFile> TokenFile::open(const std::string& path) {
  TokenFile f;
  f.path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(fmt::format("opening {}: {}", path, std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return io_error(fmt::format("stat {}: {}", path, std::strerror(e)));
  }
  if (st.st_size % sizeof(Token) != 0) {
    ::close(fd);
    return parse_error(path + ": size is not a multiple of 4 bytes (corrupt token file)");
  }
  f.count_ = uint64_t(st.st_size) / sizeof(Token);
  if (f.count_ > 0) {
    void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      return io_error(fmt::format("mapping {}: {}", path, std::strerror(e)));
    }
    f.data_ = static_cast<const Token*>(p);
    f.mapped_bytes_ = size_t(st.st_size);
  }
  ::close(fd);
  return Expected<TokenFile>(std::move(f));
}

TokenFile::TokenFile(TokenFile&& o) noexcept { *this = std::move(o); }

TokenFile& TokenFile::operator=(TokenFile&& o) noexcept {
  if (this != &o) {
    if (data_) munmap(const_cast<Token*>(data_), mapped_bytes_);
    path_ = std::move(o.path_);
    data_ = o.data_;
    count_ = o.count_;
    mapped_bytes_ = o.mapped_bytes_;
    o.data_ = nullptr;
    o.count_ = 0;
    o.mapped_bytes_ = 0;
  }
  return *this;
}

TokenFile::~TokenFile() {
  if (data_) munmap(const_cast<Token*>(data_), mapped_bytes_);
}

Expected<EncodedCorpus> encode_corpus(const std::vector<std::string>& texts,
                                      const Vocabulary& vocabulary, uint64_t seed,
                                      double validation_fraction, const std::string& cache_root,
                                      size_t held_out) {
  if (texts.empty()) return invalid_argument("cannot encode an empty corpus");
  EncodedCorpus ec;
  Sha256 h;
  for (const auto& t : texts) h.update(sha256_hex(t));
  h.update(fmt::format("|vocab={}|seed={}|valid={}", vocabulary.fingerprint(), seed,
                       validation_fraction));
  if (held_out > 0) h.update(fmt::format("|held_out={}", held_out));
  ec.key = h.hex_digest().substr(0, 16);
  fs::path dir = fs::path(cache_root) / ec.key;
  ec.train_path = (dir / "train.tokens").string();
  ec.valid_path = (dir / "valid.tokens").string();
  fs::path meta_path = dir / "encoded.json";

  std::error_code err;
  if (fs::exists(meta_path, err)) {  // written last, so its presence means complete
    auto text = read_file(meta_path.string());
    if (text.ok()) {
      auto meta = nlohmann::json::parse(*text, nullptr, false);
      if (!meta.is_discarded() && meta.is_object()) {
        ec.train_tokens = meta.value("train_tokens", uint64_t(0));
        ec.valid_tokens = meta.value("valid_tokens", uint64_t(0));
        ec.train_kernels = meta.value("train_kernels", uint64_t(0));
        ec.valid_kernels = meta.value("valid_kernels", uint64_t(0));
        if (fs::exists(ec.train_path, err) &&
            fs::file_size(ec.train_path, err) == ec.train_tokens * sizeof(Token) &&
            fs::exists(ec.valid_path, err) &&
            fs::file_size(ec.valid_path, err) == ec.valid_tokens * sizeof(Token))
          return ec;
      }
    }
  }

  fs::create_directories(dir, err);
  if (err) return io_error("creating " + dir.string() + ": " + err.message());
  std::vector<size_t> order;
  size_t n_valid = 0;
  if (held_out > 0) {
    // A fixed split (whole repositories held out): each part shuffled on its own.
    if (held_out >= texts.size()) return invalid_argument("every text of the corpus is held out");
    n_valid = held_out;
    size_t n = texts.size() - n_valid;
    for (size_t i : shuffled_order(n, seed)) order.push_back(i);
    for (size_t i : shuffled_order(n_valid, seed)) order.push_back(n + i);
  } else {
    order = shuffled_order(texts.size(), seed);
    if (validation_fraction > 0 && texts.size() >= 2)
      n_valid = std::min(texts.size() - 1,
                         std::max<size_t>(1, size_t(std::lround(validation_fraction * double(texts.size())))));
  }
  size_t n_train = texts.size() - n_valid;

  TokenWriter train, valid;
  RETURN_IF_ERROR(train.open(ec.train_path));
  RETURN_IF_ERROR(valid.open(ec.valid_path));
  for (size_t i = 0; i < order.size(); ++i) {
    auto tokens = vocabulary.encode(texts[order[i]]);
    if (!tokens.ok()) return tokens.status().with_context(fmt::format("encoding kernel {}", order[i]));
    tokens->push_back(vocabulary.separator());
    (i < n_train ? train : valid).write(*tokens);
  }
  RETURN_IF_ERROR(train.commit());
  RETURN_IF_ERROR(valid.commit());
  ec.train_tokens = train.count();
  ec.valid_tokens = valid.count();
  ec.train_kernels = n_train;
  ec.valid_kernels = n_valid;
  nlohmann::json meta = {{"train_tokens", ec.train_tokens}, {"valid_tokens", ec.valid_tokens},
                         {"train_kernels", ec.train_kernels}, {"valid_kernels", ec.valid_kernels},
                         {"vocabulary", vocabulary.fingerprint()}, {"seed", seed}};
  RETURN_IF_ERROR(write_file_atomic(meta_path.string(), meta.dump(1) + "\n"));
  return ec;
}

}  // namespace clgen::model
