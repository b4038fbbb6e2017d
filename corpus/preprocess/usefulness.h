// The static usefulness check: whether a kernel that compiles can write
// output that depends on its input, decided from its AST before any device
// runs it. It rejects seven kinds of kernels the dynamic checker fails:
//   uninitialized_read     a variable is read before anything is stored to
//                          it, on every path to the read (uninitialized.h):
//                          what the kernel stores is undefined;
//   endless_loop           a loop whose condition nothing in the loop can
//                          change, and nothing leaves (endless_loop.h): it
//                          never runs, or it runs forever;
//   overlapping_stores     every work-item stores unconditionally to
//                          p[id + j] and p[id + k], j != k (id:
//                          get_global_id(0)): neighbours race on one location;
//   no_global_store        nothing is ever written to __global memory;
//   no_effective_store     every __global store copies a location onto
//                          itself (`a[i] = a[i]`), is under a condition
//                          that is always false (`if (e < e)`, `if (a == 0)`
//                          for a buffer argument) or follows a statement
//                          that always returns, or writes past the end of
//                          its buffer for every work-item;
//   uniform_store_address  every __global store writes one location for all
//                          work-items (its address depends on no work-item
//                          id, loop variable or per-item value, and no
//                          work-item-dependent branch or early return guards
//                          it), e.g. `c[d] = a[d] + b[d]` with scalar `d`;
//   constant_store_value   every value stored depends on no memory read, no
//                          work-item id and no loop variable (only constants
//                          and scalar arguments), e.g. `a[i] = 0`.
// Anything it cannot follow (a global pointer passed to a function of the
// program, a store through a cast) counts as useful: the check only removes
// kernels it can prove useless. docs/PREPROCESS.md gives the rules.
#pragma once

#include <string>
#include <string_view>

#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen::preprocess {

struct UsefulnessVerdict {
  bool useful = true;
  std::string category;  // "" when useful, else one of the seven above
  std::string reason;    // names the kernel and what it found
};

// Checks every kernel of `text` (which must compile; the sampler's filter
// and the corpus pass it normalized kernels). The text is useful when one of
// its kernels is. Fails when the text does not parse or Clang crashes.
Expected<UsefulnessVerdict> check_usefulness(std::string_view text, const CompileOptions& options = {});

}  // namespace clgen::preprocess
