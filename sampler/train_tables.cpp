#include "sampler/train_tables.h"

#include "sampler/constraint_tables.h"

namespace clgen::sampler {

Status ConstraintTableSink::save_constraint_tables(const std::vector<std::string>& texts,
                                                   const std::string& model_dir) {
  return sampler::save_constraint_tables(ConstraintTables::from_corpus(texts), model_dir);
}

}  // namespace clgen::sampler
