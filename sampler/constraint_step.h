// The code constraint as a step of a stream's sampler chain: one stream's
// CodeConstraint state, restored to the state after the seed at every new
// sample and cloned for every stream.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sampler/code_constraint.h"
#include "sampler/policy.h"

namespace clgen::sampler {

class CodeConstraintStep : public ConstraintStep {
 public:
  // `start`: the state every sample starts from; `token_texts[t]`: the text
  // token t appends; `end_token` (-1: none) is allowed only where the text
  // may end (a whole text's end), in a redraw too. Both must outlive the step.
  CodeConstraintStep(std::shared_ptr<const CodeConstraint> start, const std::vector<std::string>* token_texts,
                     int32_t end_token);

  bool allows(int32_t token) const override;
  // Removes the candidates the constraint refuses.
  void apply(Candidates& c) override;
  void accept(int32_t token) override;
  void reset() override { state_ = *start_; }
  std::unique_ptr<SamplerStep> clone() const override { return std::make_unique<CodeConstraintStep>(*this); }

 private:
  std::shared_ptr<const CodeConstraint> start_;
  const std::vector<std::string>* texts_;
  int32_t end_token_;
  CodeConstraint state_;
};

}  // namespace clgen::sampler
