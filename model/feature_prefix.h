// Feature-conditioned training (training.feature_prefix, docs/MODEL.md): the
// header line that states a kernel's Grewe features before its text, and
// the Grewe features of corpus kernels, cached in the workspace database.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::model {

// comp, rational, mem, localmem, coalesced, atomic (features/static_features.h),
// the same type as sampler::GreweVector.
using FeatureVector = std::array<long, 6>;

// A count as the header states it: exactly up to 16; above, the largest
// power of two not above it with a '+' ("16+" for 17..31, "128+" for
// 128..255). Negative counts are stated as 0.
std::string feature_count_label(long count);

// "// comp 12 rational 0 mem 3 localmem 0 coalesced 2 atomic 0\n", each
// count as feature_count_label states it. The buckets give a character
// LSTM about two dozen words per feature instead of every count the corpus
// holds once or twice (the held-out targets' comp runs to 1,502).
std::string feature_header(const FeatureVector& features);

// The feature header `text` starts with (through its newline), or "" when
// it starts with none.
std::string_view leading_feature_header(std::string_view text);

// Distinct headers with how many texts start with each, most frequent first
// (ties in text order): the distribution undirected streams draw from.
using HeaderCounts = std::vector<std::pair<std::string, uint64_t>>;
HeaderCounts count_feature_headers(const std::vector<std::string>& texts);
// The model directory's file of the headers of its training texts.
inline constexpr const char* kFeatureHeadersFile = "feature_headers.tsv";
// "COUNT\tHEADER TEXT WITHOUT ITS NEWLINE" lines, and back; parsing fails
// naming the line of a bad record.
std::string header_counts_tsv(const HeaderCounts& counts);
Expected<HeaderCounts> parse_header_counts_tsv(std::string_view text, const std::string& origin);

// The Grewe features of a text's first kernel, as the sampler's filter
// counts a sample's (features/static_features.h), nullopt where extraction
// fails (code that is not OpenCL C 1.2, no kernel). The features library
// sits above this one, so the code that links both supplies it. Called from
// several threads at once.
using KernelFeatureExtractor = std::function<std::optional<FeatureVector>(const std::string& text)>;

// The extractor cached_kernel_features uses when given none (so
// read_training_set's); none until a program installs one. Install it at
// start-up, before any training set is read.
void set_kernel_feature_extractor(KernelFeatureExtractor extract);

// The Grewe features of each text, as `extract` gives them. Read from the
// `kernel_features` table by each text's sha256 and computed, on all cores,
// for the texts it lacks, which are then stored (failures too), so a second
// training over the same corpus computes nothing. Fails on database errors,
// and with kUnavailable when texts lack features and `extract` is empty
// (clgen built without Clang).
Expected<std::vector<std::optional<FeatureVector>>> cached_kernel_features(Database& db,
                                                                           const std::vector<std::string>& sha256,
                                                                           const std::vector<std::string>& texts,
                                                                           const KernelFeatureExtractor& extract);
// The same with the installed extractor (set_kernel_feature_extractor).
Expected<std::vector<std::optional<FeatureVector>>> cached_kernel_features(Database& db,
                                                                           const std::vector<std::string>& sha256,
                                                                           const std::vector<std::string>& texts);

// Creates the cache table if missing (ensure_model_schema calls it too).
Status ensure_feature_cache_schema(Database& db);

}  // namespace clgen::model
