// libclgen_sentencepiece: SentencePiece's trainer and processor behind the C
// interface of spm_bridge.h. No exception or C++ type crosses the boundary.
#include "model/sentencepiece/spm_bridge.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

// Exported by libsentencepiece (not in its public headers); weak so that a
// SentencePiece without it still links. Quiets the trainer's INFO logging.
namespace sentencepiece::logging {
void SetMinLogLevel(int v) __attribute__((weak));
}  // namespace sentencepiece::logging

namespace {

int fail(char* err, size_t err_size, const std::string& message) {
  if (err && err_size > 0) {
    size_t n = std::min(message.size(), err_size - 1);
    std::memcpy(err, message.data(), n);
    err[n] = '\0';
  }
  return 1;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int clgen_spm_train(const char* args, char* err,
                                                            size_t err_size) {
  try {
    if (&sentencepiece::logging::SetMinLogLevel) sentencepiece::logging::SetMinLogLevel(2);
    auto st = sentencepiece::SentencePieceTrainer::Train(args);
    if (!st.ok()) return fail(err, err_size, st.ToString());
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_size, e.what());
  }
}

__attribute__((visibility("default"))) int clgen_spm_load(const char* model_path, void** out,
                                                           char* err, size_t err_size) {
  try {
    auto* sp = new sentencepiece::SentencePieceProcessor();
    auto st = sp->Load(model_path);
    if (!st.ok()) {
      delete sp;
      return fail(err, err_size, st.ToString());
    }
    *out = sp;
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_size, e.what());
  }
}

__attribute__((visibility("default"))) void clgen_spm_free(void* handle) {
  delete static_cast<sentencepiece::SentencePieceProcessor*>(handle);
}

__attribute__((visibility("default"))) int clgen_spm_size(void* handle) {
  if (!handle) return -1;
  return static_cast<sentencepiece::SentencePieceProcessor*>(handle)->GetPieceSize();
}

__attribute__((visibility("default"))) int clgen_spm_piece_to_id(void* handle,
                                                                  const char* piece) {
  auto* sp = static_cast<sentencepiece::SentencePieceProcessor*>(handle);
  if (!sp) return -1;
  int id = sp->PieceToId(piece);
  // PieceToId answers unk_id for unknown pieces; tell those apart.
  if (id == sp->unk_id() && std::strcmp(sp->IdToPiece(id).c_str(), piece) != 0) return -1;
  return id;
}

__attribute__((visibility("default"))) int clgen_spm_encode(void* handle, const char* text,
                                                             size_t len, int32_t** ids, size_t* n,
                                                             char* err, size_t err_size) {
  try {
    auto* sp = static_cast<sentencepiece::SentencePieceProcessor*>(handle);
    std::vector<int> out;
    auto st = sp->Encode(std::string(text, len), &out);
    if (!st.ok()) return fail(err, err_size, st.ToString());
    *n = out.size();
    *ids = static_cast<int32_t*>(std::malloc(std::max<size_t>(1, out.size()) * sizeof(int32_t)));
    if (!*ids) return fail(err, err_size, "out of memory");
    for (size_t i = 0; i < out.size(); ++i) (*ids)[i] = out[i];
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_size, e.what());
  }
}

__attribute__((visibility("default"))) int clgen_spm_decode(void* handle, const int32_t* ids,
                                                             size_t n, char** text, size_t* len,
                                                             char* err, size_t err_size) {
  try {
    auto* sp = static_cast<sentencepiece::SentencePieceProcessor*>(handle);
    std::vector<int> in(ids, ids + n);
    std::string out;
    auto st = sp->Decode(in, &out);
    if (!st.ok()) return fail(err, err_size, st.ToString());
    *len = out.size();
    *text = static_cast<char*>(std::malloc(std::max<size_t>(1, out.size())));
    if (!*text) return fail(err, err_size, "out of memory");
    std::memcpy(*text, out.data(), out.size());
    return 0;
  } catch (const std::exception& e) {
    return fail(err, err_size, e.what());
  }
}

__attribute__((visibility("default"))) void clgen_spm_free_buffer(void* buffer) {
  std::free(buffer);
}

}  // extern "C"
