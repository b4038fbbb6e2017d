// A model package: a trained model as a directory that travels without its
// workspace (model/default/ ships one; docs/MODEL.md, "The shipped model").
//
//   package.json            format, model id, size and sha256 of every other
//                           file, and the model's provenance
//   model.json              the model's description, as in <workspace>/models/<id>/
//   best.pt                 the weights (the model's best checkpoint)
//   vocabulary/             the vocabulary's files
//   constraint_tables.json  the sampler's tables (when the model has them)
//   feature_headers.tsv     (a feature-conditioned model only)
#pragma once

#include <string>

#include "support/status.h"
#include "support/workspace.h"

namespace clgen::model {

inline constexpr const char* kPackageFile = "package.json";

// Writes model `model_id` ("" = the latest trained) of `workspace` to the
// package directory `dir` (created; files in it are replaced). The
// provenance comes from the workspace's training tables: the config text
// and corpus hash of its last training run, the device, the epochs and
// training seconds recorded, and the best validation loss with its epoch.
// Fails when the model has no best checkpoint.
Status export_model_package(const Workspace& workspace, const std::string& model_id, const std::string& dir);

// Installs the package in `dir` into `workspace`: models/<id>/ and its
// vocabulary, and models/latest names it. Returns the model id. Before
// anything is written every file is checked against package.json (missing,
// size, sha256) and model.json's id against the package's; the weights are
// then loaded onto the CPU from a staging directory, so a package whose
// weights do not fit its network is refused too. Every error names the file
// and why. A model already installed with the same weights is kept (and made
// latest); a model of that id with other weights (trained in the workspace)
// and a vocabulary of that name with other contents are refused, never
// overwritten.
Expected<std::string> install_model_package(const Workspace& workspace, const std::string& dir);

}  // namespace clgen::model
