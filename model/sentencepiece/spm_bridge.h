// The narrow C interface of libclgen_sentencepiece, our wrapper around
// SentencePiece. It is loaded with dlmopen(LM_ID_NEWLM) into a link namespace
// of its own because SentencePiece's bundled protobuf cannot share a symbol
// scope with LibTorch's. Only C types cross this boundary, and memory is
// allocated and freed on the bridge's side. Functions return 0 on success; on failure
// they return non-zero and write a message into `err` (NUL-terminated).
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Trains a model from `args`, SentencePieceTrainer's flag string
// ("--input=... --model_prefix=... --vocab_size=..."). Writes PREFIX.model.
int clgen_spm_train(const char* args, char* err, size_t err_size);

// Loads PREFIX.model; *out receives an opaque handle for the calls below.
int clgen_spm_load(const char* model_path, void** out, char* err, size_t err_size);
void clgen_spm_free(void* handle);

// Number of pieces (the vocabulary size); -1 for a null handle.
int clgen_spm_size(void* handle);
// Id of a piece, or -1 when it is not in the vocabulary.
int clgen_spm_piece_to_id(void* handle, const char* piece);

// Encodes `len` bytes of `text`. *ids is malloc'ed (free with clgen_spm_free_buffer).
int clgen_spm_encode(void* handle, const char* text, size_t len, int32_t** ids, size_t* n,
                     char* err, size_t err_size);
// Decodes `n` ids. *text is malloc'ed (free with clgen_spm_free_buffer), not NUL-terminated.
int clgen_spm_decode(void* handle, const int32_t* ids, size_t n, char** text, size_t* len,
                     char* err, size_t err_size);
void clgen_spm_free_buffer(void* buffer);

#ifdef __cplusplus
}
#endif
