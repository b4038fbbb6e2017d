// Best-checkpoint selection and early stopping, apart from training so that
// the rule can be checked on a scripted loss curve.
#pragma once

#include <limits>

namespace clgen::model {

// The best validation loss seen so far and how many evaluations have passed
// without beating it. Saved in every checkpoint, so a resumed run keeps them.
struct BestSoFar {
  double loss = std::numeric_limits<double>::infinity();
  int epoch = 0;       // 1-based epoch of the best loss; 0 = none yet
  int since_best = 0;  // evaluations since the best one
};

struct Verdict {
  bool improved = false;  // this evaluation is the new best: keep its weights
  bool stop = false;      // `patience` evaluations in a row without improvement
};

// Folds in the validation loss of 1-based `epoch`. A loss improves only when
// strictly below the best (a tie keeps the earlier, smaller-epoch model); a
// NaN never improves. patience 0 never stops.
Verdict observe_validation(BestSoFar& best, double loss, int epoch, int patience);

}  // namespace clgen::model
