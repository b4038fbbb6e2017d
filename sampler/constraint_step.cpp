// The code constraint as a sampler step.
#include "sampler/constraint_step.h"

namespace clgen::sampler {

CodeConstraintStep::CodeConstraintStep(std::shared_ptr<const CodeConstraint> start,
                                       const std::vector<std::string>* token_texts, int32_t end_token)
    : start_(std::move(start)), texts_(token_texts), end_token_(end_token), state_(*start_) {}

bool CodeConstraintStep::allows(int32_t token) const {
  if (token == end_token_) return state_.can_end();
  // A token that writes nothing (a vocabulary's unknown or padding token)
  // would keep a stream whose draws are refused redrawing it forever.
  const std::string& text = (*texts_)[size_t(token)];
  return !text.empty() && state_.accepts(text);
}

void CodeConstraintStep::apply(Candidates& c) {
  size_t kept = 0;
  for (size_t i = 0; i < c.ids.size(); ++i) {
    const int32_t t = c.ids[i];
    if (!allows(t)) continue;
    c.ids[kept] = t;
    c.logits[kept] = c.logits[i];
    ++kept;
  }
  c.ids.resize(kept);
  c.logits.resize(kept);
}

void CodeConstraintStep::accept(int32_t token) {
  if (token != end_token_) state_.feed((*texts_)[size_t(token)]);
}

}  // namespace clgen::sampler
