// Best-checkpoint selection and patience on scripted validation-loss curves.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "model/early_stopping.h"

namespace clgen::model {
namespace {

struct Replay {
  std::vector<int> improved_at;  // epochs whose weights become best.pt
  int stopped_at = 0;            // epoch after which training ends; 0 = ran to the end
  BestSoFar best;
};

Replay replay(const std::vector<double>& curve, int patience) {
  Replay r;
  for (size_t i = 0; i < curve.size(); ++i) {
    int epoch = int(i) + 1;
    Verdict v = observe_validation(r.best, curve[i], epoch, patience);
    if (v.improved) r.improved_at.push_back(epoch);
    if (v.stop) {
      r.stopped_at = epoch;
      break;
    }
  }
  return r;
}

TEST(EarlyStopping, KeepsTheLowestLossAndStopsAfterPatienceEvaluationsWithoutImprovement) {
  // Epochs 1..8. New bests at 1, 2 and 4 (1.4). Epochs 5, 6 and 7 are above
  // 1.4 (7's 1.41 too), so with patience 3 training ends after epoch 7 and
  // epoch 8's 1.0 is never seen.
  Replay r = replay({2.0, 1.5, 1.6, 1.4, 1.45, 1.5, 1.41, 1.0}, 3);
  EXPECT_EQ(r.improved_at, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(r.stopped_at, 7);
  EXPECT_EQ(r.best.epoch, 4);
  EXPECT_DOUBLE_EQ(r.best.loss, 1.4);
  EXPECT_EQ(r.best.since_best, 3);
}

TEST(EarlyStopping, AnImprovementResetsTheCount) {
  // Patience 2: epochs 2 and 4 are worse than their best, but each run of
  // non-improving evaluations is one long, so training never stops.
  Replay r = replay({1.0, 1.2, 0.9, 1.1, 0.8}, 2);
  EXPECT_EQ(r.improved_at, (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(r.stopped_at, 0);
  EXPECT_EQ(r.best.epoch, 5);
}

TEST(EarlyStopping, ATieOrNaNIsNoImprovementAndPatienceZeroNeverStops) {
  Replay r = replay({1.0, 1.0, std::nan(""), 1.5, 2.0, 3.0}, 0);
  EXPECT_EQ(r.improved_at, (std::vector<int>{1}));  // the tie keeps epoch 1's weights
  EXPECT_EQ(r.stopped_at, 0);
  EXPECT_EQ(r.best.since_best, 5);
  // Patience 1: the tie at epoch 2 already ends it.
  EXPECT_EQ(replay({1.0, 1.0, 0.5}, 1).stopped_at, 2);
}

TEST(EarlyStopping, AResumedRunContinuesFromTheSavedCount) {
  // A checkpoint after epoch 3 of the first curve holds best (1.5, epoch 2,
  // one evaluation since); the resumed run sees epochs 4.. and stops where
  // an uninterrupted run would.
  BestSoFar saved{1.5, 2, 1};
  Verdict v4 = observe_validation(saved, 1.55, 4, 2);
  EXPECT_FALSE(v4.improved);
  EXPECT_TRUE(v4.stop);
  EXPECT_EQ(saved.epoch, 2);
}

}  // namespace
}  // namespace clgen::model
