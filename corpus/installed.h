// The embedded default corpus: OpenCL kernels that Debian packages install
// (pocl-tests, ufo, hashcat, Bullet, and darktable extracted into the
// workspace), each imported as its own "package:NAME" source.
#pragma once

#include <string>
#include <vector>

#include "corpus/importer.h"
#include "support/sqlite.h"

namespace clgen::corpus {

struct InstalledPackage {
  std::string package;            // Debian package name
  std::string root;               // directory that bounds include resolution
  std::vector<std::string> globs; // which of the package's files under root are kernels
  bool embedded_literals = false; // kernels are C string literals (Bullet)
  std::string version_file;       // when not installed through dpkg: a file holding the version
  bool in_default = true;         // part of `corpus add --installed`
};

// Every package clgen knows to hold kernels. `workspace_root` is where
// `scripts/fetch-darktable-kernels.sh` extracts darktable
// (<workspace>/packages/darktable) when it is not installed.
std::vector<InstalledPackage> known_installed_packages(const std::string& workspace_root);

// The default set: the known packages with `in_default`. hashcat-data is
// known but not default: its 1,236 kernels are one domain (password hashing)
// and grow to ~400 MB once their includes are inlined, which would swamp the
// other packages in a language model's corpus and in preprocessing time.
std::vector<InstalledPackage> default_installed_packages(const std::string& workspace_root);

// Files of an installed package under `root` (from dpkg's file list),
// relative to root and sorted; kNotFound when the package is not installed.
Expected<std::vector<std::string>> installed_package_files(const std::string& package,
                                                           const std::string& root);

// The installed version of a Debian package, from /var/lib/dpkg/status.
Expected<std::string> installed_package_version(const std::string& package);

struct InstalledImport {
  std::string package;
  bool found = false;  // false: not installed (nothing imported)
  std::string note;    // why not found
  ImportSummary summary;
};

// Imports every package of `packages` that is present; absent ones are
// reported, not errors. Stops early (kCancelled) on interrupt.
Expected<std::vector<InstalledImport>> import_installed(Database& db,
                                                       const std::vector<InstalledPackage>& packages,
                                                       const ImportOptions& options);

}  // namespace clgen::corpus
