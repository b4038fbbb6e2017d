// The best-checkpoint and patience rule (model/early_stopping.h).
#include "model/early_stopping.h"

namespace clgen::model {

Verdict observe_validation(BestSoFar& best, double loss, int epoch, int patience) {
  Verdict v;
  if (loss < best.loss) {  // false for NaN
    best.loss = loss;
    best.epoch = epoch;
    best.since_best = 0;
    v.improved = true;
  } else {
    ++best.since_best;
  }
  v.stop = patience > 0 && best.since_best >= patience;
  return v;
}

}  // namespace clgen::model
